"""graph: the code graph (who calls, contains, inherits, imports and decorates whom).

`model` builds it from chunks and file texts, never executing code: for Python with `scopes`
and `resolve` (two passes over `ast`); for every language with a rule in
`codelens.languages.GRAPH_RULES` with `syntax_sites`, `syntax_imports` and `syntax_edges`
(tree-sitter syntax trees). `store` saves it as SQLite in the index folder and loads it;
`query` answers callers, callees, dependencies and neighbourhoods; `codemap` writes the
map of a codebase for newcomers.
"""
