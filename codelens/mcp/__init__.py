"""mcp: CodeLens inside coding agents and editors (the Model Context Protocol).

`tools` holds the tools as plain calls on an open index (search, get_chunk, callers, callees,
deps, code_map, index_status, context, impact, ask, reindex), with errors that say what to do, on
the index `served` keeps open, answering in `output`'s text and data; `server` wires
them to the official `mcp` SDK over stdio or streamable HTTP and keeps the models warm;
`cli` is `python -m codelens mcp`.
"""
