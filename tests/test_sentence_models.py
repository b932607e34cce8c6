"""The sentence models of the English leg on onnxruntime (MiniLM, MPNet; no torch at search time)
against the real sentence-transformers models."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from codelens.models import ENGLISH_MODEL, SentenceTransformerEmbedder, load_english_model
from codelens.models.sentence import mpnet_dir

TEXTS = [
    "how is the password hashed",
    "where are the database settings stored?",
    "как создаётся JWT-токен?",
    "где хранятся настройки базы данных",
    "def create_access_token(data: dict, expires_delta: timedelta | None = None) -> str:\n"
    "    to_encode = data.copy()\n    return jwt.encode(to_encode, SECRET_KEY)",
    "class UserRepository(CRUDRepository):\n    \"\"\"Users: get by email, create.\"\"\"\n" * 40,  # over 256 tokens
    "x",
]
MODULES = {"minilm": "codelens.models.sentence import MiniLM as M",
           "mpnet": "codelens.models.sentence import MPNet as M"}


def _reference(key: str) -> SentenceTransformerEmbedder:
    if key == "minilm":
        return SentenceTransformerEmbedder(ENGLISH_MODEL)
    reference = SentenceTransformerEmbedder(str(mpnet_dir()))  # a plain folder: mean pooling, as the model's own
    reference._model.max_seq_length = 256  # the numpy model's cut
    return reference


@pytest.fixture(scope="module", params=sorted(MODULES))
def both(request) -> tuple[np.ndarray, np.ndarray, int]:
    # passages: the model's whole reading (256 tokens); a question is read as its first 128 only
    # (embedders.QUESTION_TOKENS: a pasted issue would cost the whole 256). The graph in fp32:
    # the exact vectors (the product may run it in int8, runtime.INT8_MODELS).
    from codelens.models.sentence import MiniLM, MPNet

    ours = MiniLM() if request.param == "minilm" else MPNet()
    return ours.embed_passages(TEXTS), _reference(request.param).embed_passages(TEXTS), ours.dim


@pytest.mark.slow  # torch and sentence-transformers as the reference
def test_numpy_model_matches_sentence_transformers(both, request) -> None:
    ours, reference, dim = both
    assert ours.shape == reference.shape == (len(TEXTS), dim)
    cosines = (ours * reference).sum(axis=1)
    assert cosines.min() >= 0.9999, cosines
    # what the product loads: int8 (MiniLM) stays close to the reference; measured 0.984 at worst
    shipped = load_english_model(request.node.callspec.params["both"]).embed_passages(TEXTS)
    assert (shipped * reference).sum(axis=1).min() >= 0.97


@pytest.mark.slow  # torch and sentence-transformers as the reference
def test_numpy_model_vectors_are_unit_length_and_distinct(both) -> None:
    ours, _, _ = both
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert float(ours[0] @ ours[1]) < 0.9  # different questions, different vectors


# MPNet's first use in a fresh process joins and unpacks its 438 MB: the slow tier
@pytest.mark.parametrize("key", ["minilm", pytest.param("mpnet", marks=pytest.mark.slow)])
def test_numpy_model_imports_no_torch(key: str) -> None:
    code = (f"import sys; from {MODULES[key]}; M().embed_queries(['x']); "
            "print('torch' in sys.modules, 'sentence_transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
