"""The index model's passage vectors for a run: through the embedding cache here, or on a Ray
cluster (distributed.py) when the settings name one. The index run, the incremental update and
the test chunks' vectors (test_vectors.py) all embed through `embed_texts`."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from codelens.index.embed_cache import EmbeddingCache, embed_with_cache
from codelens.models import Embedder
from codelens.settings import Settings

ProgressCallback = Callable[[int, int], None]


def embed_texts(
    texts: Sequence[str], embedder: Embedder, settings: Settings, cache: EmbeddingCache | None = None,
    on_progress: ProgressCallback | None = None,
) -> tuple[np.ndarray, int]:
    """Passage vectors of the index model for texts (cached; see `embed_with_cache`): the same
    cached loop with one of two encoders, the embedder here or the actors of a Ray cluster."""
    if not settings.ray_address:
        return embed_with_cache(texts, embedder.embed_passages, embedder.dim, cache, settings.batch_size,
                                show_progress=settings.show_progress, on_progress=on_progress)
    from codelens.index.distributed import ray_pool  # issue 15 part 3: Ray actors embed, this process caches

    with ray_pool(settings.ray_address, embedder.model_id, embedder.dim, settings.batch_size,
                  settings.ray_worker_cpus, settings.show_progress) as pool:
        return embed_with_cache(texts, pool.embed, embedder.dim, cache, pool.round_size, desc="Embedding (Ray)",
                                show_progress=settings.show_progress, on_progress=on_progress)
