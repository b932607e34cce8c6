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
    """Passage vectors of the index model for texts (cached; see `embed_with_cache`)."""
    if settings.ray_address:  # issue 15 part 3: Ray actors embed, this process caches (distributed.py)
        from codelens.index.distributed import embed_on_ray

        return embed_on_ray(texts, embedder.model_id, embedder.dim, settings.ray_address,
                            batch_size=settings.batch_size, worker_cpus=settings.ray_worker_cpus, cache=cache,
                            show_progress=settings.show_progress, on_progress=on_progress)
    return embed_with_cache(texts, embedder.embed_passages, embedder.dim, cache, settings.batch_size,
                            show_progress=settings.show_progress, on_progress=on_progress)
