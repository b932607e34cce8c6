"""Benchmark data for bench/retrieval.py: BEIR directories, questions files, the SWE-QA
Flask silver gold, and passage embeddings cached on disk (keyed by model and text hash).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from codelens.chunk import Chunk
from codelens.index.embed_cache import EmbeddingCache
from codelens.index.embedding import embed_through_cache
from codelens.ingest.chunker import chunk_file
from codelens.models import Embedder
from codelens.settings import Settings

CACHE_DIR = Path(__file__).resolve().parent.parent / ".bench_cache"


@dataclass(frozen=True)
class BeirSet:
    """A BEIR-format directory: corpus documents, queries and graded relevance."""

    name: str
    doc_ids: tuple[str, ...]
    doc_texts: tuple[str, ...]
    queries: dict[str, str]  # query id -> text, only queries with judgements
    qrels: dict[str, frozenset[str]]  # query id -> relevant doc ids (score > 0)


def _read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def load_beir(directory: Path) -> BeirSet:
    corpus = _read_jsonl(directory / "corpus.jsonl")
    qrels: dict[str, set[str]] = defaultdict(set)
    lines = (directory / "qrels.tsv").read_text(encoding="utf-8").splitlines()
    for line in lines[1:]:
        parts = line.split("\t")
        if len(parts) >= 3 and float(parts[2]) > 0:
            qrels[parts[0]].add(parts[1])
    queries = {str(q["_id"]): str(q["text"]) for q in _read_jsonl(directory / "queries.jsonl")}
    return BeirSet(
        name=directory.name,
        doc_ids=tuple(str(d["_id"]) for d in corpus),
        doc_texts=tuple(str(d["text"]) for d in corpus),
        queries={qid: text for qid, text in queries.items() if qid in qrels},
        qrels={qid: frozenset(ids) for qid, ids in qrels.items() if qid in queries},
    )


def snippet_chunk(doc_id: str, text: str) -> Chunk:
    """A corpus document as the product would chunk it: its main definition when it has
    one (signature and docstring known), else the whole snippet as a module block."""
    chunks = chunk_file(f"{doc_id}.py", text).chunks
    definitions = [c for c in chunks if c.kind != "module"]
    if definitions:
        main = max(definitions, key=lambda c: (c.end_line - c.start_line, -c.start_line))
        return Chunk(chunk_id=doc_id, path="", symbol=main.symbol, kind=main.kind,
                     start_line=main.start_line, end_line=main.end_line, code=text,
                     signature=main.signature, docstring=main.docstring, parent=main.parent,
                     decorators=main.decorators)
    lines = max(1, text.count("\n") + 1)
    return Chunk(chunk_id=doc_id, path="", symbol="<module>", kind="module", start_line=1,
                 end_line=lines, code=text)


def cached_passages(texts: Sequence[str], embedder: Embedder, show_progress: bool = True) -> np.ndarray:
    """Passage vectors for texts, embedded once and then read from .bench_cache/."""
    CACHE_DIR.mkdir(exist_ok=True)
    settings = Settings(show_progress=show_progress, batch_size=32)
    return embed_through_cache(list(texts), embedder, embedder.model_id, CACHE_DIR / "embeddings.sqlite",
                               settings)[0]


def cached_queries(texts: Sequence[str], embedder: Embedder) -> np.ndarray:
    """Query vectors (the `query:` side), cached like passages under a separate model key."""
    CACHE_DIR.mkdir(exist_ok=True)
    # with the engine (issue 31): a question's vector of another engine is never reused
    engine = getattr(embedder, "engine", "")
    key = embedder.model_id + "#query" + (f"#{engine}" if engine else "")
    cache = EmbeddingCache(CACHE_DIR / "embeddings.sqlite", key)
    try:
        from codelens.index.embed_cache import text_hash

        hashes = [text_hash(t) for t in texts]
        found = cache.get_many(hashes)
        missing = [t for t, h in zip(texts, hashes, strict=True) if h not in found]
        if missing:
            vectors = embedder.embed_queries(missing)
            cache.put_many((text_hash(t), v) for t, v in zip(missing, vectors, strict=True))
            found.update({text_hash(t): v for t, v in zip(missing, vectors, strict=True)})
        return np.stack([found[h] for h in hashes]) if hashes else np.zeros((0, embedder.dim), np.float32)
    finally:
        cache.close()
