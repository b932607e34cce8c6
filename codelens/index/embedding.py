"""The index model's passage vectors for a run: through the embedding cache, embedded here or on a
Ray cluster (distributed.py) when the settings name one: the same cached loop, two encoders. The
index run, the incremental update and the test chunks' vectors (test_vectors.py) all embed through
`embed_through_cache`."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from codelens.index.embed_cache import embed_with_cache, open_cache
from codelens.models import Embedder, load_embedder
from codelens.settings import Settings

ProgressCallback = Callable[[int, int], None]
Encode = Callable[[list[str]], np.ndarray]


def embed_through_cache(texts: Sequence[str], embedder: Embedder | None, model: str, cache_path: Path | None,
                        settings: Settings, on_progress: ProgressCallback | None = None,
                        ) -> tuple[np.ndarray, int, Embedder]:
    """The index model's vectors of texts, embedding only what the cache lacks; the vectors, how
    many were embedded, and the embedder (loaded here when none was given: its engines load on use)."""
    embedder = embedder or load_embedder(model)
    cache = open_cache(cache_path, model)
    try:
        with _passage_encoder(embedder, settings) as (encode, batch_size, desc):
            vectors, embedded = embed_with_cache(texts, encode, embedder.dim, cache, batch_size, desc=desc,
                                                 show_progress=settings.show_progress, on_progress=on_progress)
    finally:
        if cache:
            cache.close()
    return vectors, embedded, embedder


@contextmanager
def _passage_encoder(embedder: Embedder, settings: Settings) -> Iterator[tuple[Encode, int, str]]:
    """What embeds a run's passages, its batch and its progress label: the embedder here, or the
    actors of a Ray cluster when the settings name one (issue 15 part 3: they embed, this process
    caches), started and stopped around the run's batches."""
    if not settings.ray_address:
        yield embedder.embed_passages, settings.batch_size, "Embedding"
        return
    from codelens.index.distributed import ray_pool

    with ray_pool(settings.ray_address, embedder.model_id, embedder.dim, settings.batch_size,
                  settings.ray_worker_cpus, settings.show_progress) as pool:
        yield pool.embed, pool.round_size, "Embedding (Ray)"
