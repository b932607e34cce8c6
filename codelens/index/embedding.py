"""The index model's passage vectors for a run: through the embedding cache, embedded here or on a
Ray cluster (distributed.py) when the settings name one. The index run, the incremental update and
the test chunks' vectors (test_vectors.py) all embed through `embed_through_cache`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from codelens.index.embed_cache import embed_with_cache, open_cache
from codelens.models import Embedder, load_embedder
from codelens.settings import Settings

ProgressCallback = Callable[[int, int], None]


def embed_through_cache(texts: Sequence[str], embedder: Embedder | None, model: str, cache_path: Path | None,
                        settings: Settings, on_progress: ProgressCallback | None = None,
                        ) -> tuple[np.ndarray, int, Embedder]:
    """The index model's vectors of texts, embedding only what the cache lacks; the vectors, how
    many were embedded, and the embedder (loaded here when none was given: its engines load on use).
    The same cached loop (`embed_with_cache`) with one of two encoders: the embedder here, or the
    actors of a Ray cluster (issue 15 part 3: they embed, this process caches)."""
    embedder = embedder or load_embedder(model)
    cache = open_cache(cache_path, model)
    try:
        if not settings.ray_address:
            vectors, embedded = embed_with_cache(texts, embedder.embed_passages, embedder.dim, cache,
                                                 settings.batch_size, show_progress=settings.show_progress,
                                                 on_progress=on_progress)
        else:
            from codelens.index.distributed import ray_pool

            with ray_pool(settings.ray_address, embedder.model_id, embedder.dim, settings.batch_size,
                          settings.ray_worker_cpus, settings.show_progress) as pool:
                vectors, embedded = embed_with_cache(texts, pool.embed, embedder.dim, cache, pool.round_size,
                                                     desc="Embedding (Ray)", show_progress=settings.show_progress,
                                                     on_progress=on_progress)
    finally:
        if cache:
            cache.close()
    return vectors, embedded, embedder
