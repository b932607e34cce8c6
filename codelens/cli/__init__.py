"""cli: `python -m codelens COMMAND`; `python index.py` is `index`.

`main` builds the parser from every command group and maps library exceptions to exit codes;
`common` holds the flags every command that opens an index shares. Each group adds its commands
and names their handlers: `indexing` (index, stats), `search` (search, eval), `serve`,
`user_indexes` (repos, forget), `ask`, `graph` (callers, callees, deps, map), `context`
(context, impact), `agents`, `setup`, `app`, and the MCP server's `codelens.mcp.cli`.
"""
