"""graph: the code graph (who calls, contains, inherits, imports and decorates whom).

`model` builds it from chunks and file texts, never executing code. For Python, two passes over
`ast`: `scopes` records each scope's bindings (`bindings`), `python_edges` records the edges,
evaluating their targets with `resolve`; `python_modules` says which file an import means. For
every language with a rule in `codelens.languages.GRAPH_RULES`, tree-sitter syntax trees:
`syntax_sites` walks a file (with `syntax_calls`, `syntax_declared`, `syntax_imports`) into
`syntax_records`; `syntax_edges` resolves them through `syntax_index`, `syntax_lookup`,
`syntax_receivers` and `syntax_modules` (which files an import means). `store` saves the graph as
SQLite in the index folder and loads it; `query` answers callers, callees, dependencies and
neighbourhoods; `codemap` writes the map of a codebase for newcomers.
"""
