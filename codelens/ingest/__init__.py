"""ingest: from a codebase on disk to chunks, and the text each chunk is embedded as.

`source` opens a zip or folder safely (zip-slip, symlinks, bombs, ignore rules); `chunker`
splits a file into functions, methods, classes and module blocks with `ast`, with
`treesitter` as the fallback for what 3.11's `ast` cannot parse; `redaction` masks secrets
before anything else sees the text; `codebase` runs all of that over a whole source;
`embed_text` says what a chunk is embedded as (meaning first, then code, within a budget).
Nothing here touches an index or a model.
"""
