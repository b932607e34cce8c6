"""cli: `python -m codelens COMMAND`; `python index.py` is `index`.

`main` builds the parser and maps library exceptions to exit codes; `common` holds the flags
every command that opens an index shares; `graph` adds callers, callees, deps and map; `ask`
adds answers in words.
"""
