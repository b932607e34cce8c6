"""search: answering a question from an open index.

One module per leg, each owning both how its data is built at index time (a sidecar
builder) and how it retrieves: `dense` (e5 over ChromaDB), `english` (MiniLM beside e5),
`lexical` (BM25), `bridge` (Russian -> English words, used by the lexical and English legs).
`terms` tokenizes questions and code alike; `query` holds the records and interfaces every
leg speaks (add a leg there: a `Retriever`); `fusion` merges the legs; `pipeline` is the
pipeline that ships; `filters` is what a search may return; `searcher` opens an index and
answers questions; `sidecars` lists every leg's sidecar (and the graph's) for the index run.
"""
