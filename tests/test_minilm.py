"""The numpy MiniLM (no torch at search time) against the real sentence-transformers model."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from codelens.embedding import SentenceTransformerEmbedder
from codelens.search.english import ENGLISH_MODEL
from codelens.search.minilm import NumpyMiniLM

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


@pytest.fixture(scope="module")
def both() -> tuple[np.ndarray, np.ndarray]:
    return NumpyMiniLM().embed_queries(TEXTS), SentenceTransformerEmbedder(ENGLISH_MODEL).embed_queries(TEXTS)


def test_numpy_minilm_matches_sentence_transformers(both) -> None:
    ours, reference = both
    assert ours.shape == reference.shape == (len(TEXTS), 384)
    cosines = (ours * reference).sum(axis=1)
    assert cosines.min() >= 0.9999, cosines


def test_numpy_minilm_vectors_are_unit_length_and_distinct(both) -> None:
    ours, _ = both
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert float(ours[0] @ ours[1]) < 0.9  # different questions, different vectors


def test_numpy_minilm_imports_no_torch() -> None:
    code = ("import sys; from codelens.search.minilm import NumpyMiniLM; NumpyMiniLM().embed_queries(['x']); "
            "print('torch' in sys.modules, 'sentence_transformers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]
