"""What the indexer hands every sidecar builder (lexical index, code graph, English vectors).

A sidecar lives inside the index folder being built. Builders that embed text (the word
bridge, the English vectors) go through the same embedding cache as the index model, kept
beside the index, so a killed run resumes them too and an unchanged text is never embedded
twice.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from codelens.chunk import Chunk
from codelens.index.embed_cache import EmbeddingCache, embed_with_cache
from codelens.settings import ENGLISH_MODEL_KEYS


@dataclass(frozen=True)
class SidecarInput:
    build_dir: Path  # the index folder being built (a copy of the previous index, or empty)
    chunks: Sequence[Chunk]  # every chunk of the codebase, not only the changed ones
    sources: Mapping[str, str]  # rel_path -> file text (secrets masked)
    cache_path: Path | None = None  # the embedding cache beside the index; None: no cache
    show_progress: bool = False
    index_model: str = ""  # the index model's cache key, for builders that read its vectors
    text_hashes: Mapping[str, str] = field(default_factory=dict)  # chunk id -> hash of its index-model text
    english_model: str = ENGLISH_MODEL_KEYS[0]  # the English leg's model (search/english.py ENGLISH_MODELS)

    def embed(self, texts: Sequence[str], model: str, embed: Callable[[list[str]], np.ndarray], dim: int,
              batch_size: int, desc: str, unit: str = "chunk") -> np.ndarray:
        """Vectors of texts under a cache key `model`, embedding only what the cache lacks."""
        cache = EmbeddingCache(self.cache_path, model) if self.cache_path else None
        try:
            vectors, _ = embed_with_cache(texts, embed, dim, cache, batch_size, desc=desc,
                                          show_progress=self.show_progress, unit=unit)
        finally:
            if cache:
                cache.close()
        return vectors


SidecarBuilder = Callable[[SidecarInput], None]
