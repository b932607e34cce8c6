"""The lexical leg: tokenization, BM25 scores against a hand computation, persistence."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from codelens.index.layout import LEXICAL_DIR
from codelens.search.bridge import embed_bridge_words, load_bridge_vectors
from codelens.search.lexical import LexicalIndex, chunk_terms
from codelens.search.terms import term_stats, tokenize
from tests.conftest import make_chunk


def test_identifiers_yield_the_whole_name_and_its_parts() -> None:
    assert tokenize("get_current_user") == ["get_current_user", "current", "user"]
    assert tokenize("HTTPClientError") == ["httpclienterror", "http", "client", "error"]
    assert tokenize("__init__") == ["init"]


def test_question_glue_digits_and_one_letter_names_are_dropped() -> None:
    assert tokenize("how is the password hashed in python 3?") == ["password", "hash"]
    assert tokenize("x = y + 1") == []


def test_words_are_stemmed_in_both_languages() -> None:
    assert tokenize("users passwords") == ["user", "password"]
    assert tokenize("Пароль пароля") == ["парол", "парол"]


def test_chunk_terms_include_path_segments_and_the_name() -> None:
    chunk = make_chunk("app/security.py::create_access_token", "def create_access_token(data):\n    return data\n")
    terms = chunk_terms(chunk)
    assert {"app", "secur", "create_access_token", "access", "token", "data"} <= set(terms)
    assert terms.count("create_access_token") == 3  # the name twice, then the def line


def _tiny_index() -> LexicalIndex:
    documents = [["password", "hash", "password"], ["user", "login", "password"], ["databas", "url"]]
    return LexicalIndex.build(["a", "b", "c"], documents, k1=1.2, b=0.75)


def _lucene_bm25(tf: int, df: int, doc_len: int, avg_len: float, n_docs: int, k1: float = 1.2,
                 b: float = 0.75) -> float:
    """Lucene BM25 written out independently of bm25s."""
    idf = math.log(1 + (n_docs - df + 0.5) / (df + 0.5))
    return idf * tf / (tf + k1 * (1 - b + b * doc_len / avg_len))


def test_bm25_scores_match_a_hand_computation() -> None:
    index = _tiny_index()
    scores = index.scores({"password": 1.0})
    average = (3 + 3 + 2) / 3
    assert scores[0] == pytest.approx(_lucene_bm25(2, 2, 3, average, 3), rel=1e-5)
    assert scores[1] == pytest.approx(_lucene_bm25(1, 2, 3, average, 3), rel=1e-5)
    assert scores[2] == 0.0


def test_query_term_weights_scale_each_term() -> None:
    index = _tiny_index()
    one = index.scores({"login": 1.0})
    half = index.scores({"login": 0.5, "unknown": 1.0})
    assert half[1] == pytest.approx(one[1] / 2, rel=1e-6)


def test_exact_ranks_on_a_tiny_corpus() -> None:
    chunks = [
        make_chunk("pkg/auth.py::hash_password", "def hash_password(password):\n    return sha256(password)\n"),
        make_chunk("pkg/auth.py::login", "def login(user, password):\n    return check(user, password)\n"),
        make_chunk("pkg/db.py::connect", "def connect(url):\n    return engine(url)\n"),
    ]
    index = LexicalIndex.from_chunks(chunks)
    ranked = sorted(zip(index.scores(dict.fromkeys(tokenize("hash password"), 1.0)), index.chunk_ids, strict=True),
                    reverse=True)
    assert [chunk_id for score, chunk_id in ranked if score > 0] == ["pkg/auth.py::hash_password", "pkg/auth.py::login"]
    assert index.document_frequency("password") == 2
    assert index.document_frequency("nothing") == 0


def test_coverage_is_the_share_of_known_query_terms() -> None:
    vocabulary = frozenset({"token", "user"})
    assert term_stats(["token", "создаётся", "token"], vocabulary).coverage == pytest.approx(0.5)
    assert term_stats([], vocabulary).coverage == 0.0


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    index = _tiny_index()
    index.save(tmp_path)
    loaded = LexicalIndex.load(tmp_path)
    assert loaded is not None
    assert loaded.chunk_ids == index.chunk_ids
    assert list(loaded.scores({"password": 1.0})) == pytest.approx(list(index.scores({"password": 1.0})))


def test_missing_or_outdated_sidecar_loads_as_none(tmp_path: Path) -> None:
    assert LexicalIndex.load(tmp_path) is None
    _tiny_index().save(tmp_path)
    meta_path = tmp_path / LEXICAL_DIR / "chunk_ids.json"
    meta = json.loads(meta_path.read_text())
    meta["tokenizer_version"] = -1
    meta_path.write_text(json.dumps(meta))
    assert LexicalIndex.load(tmp_path) is None


def test_empty_documents_and_corpus_are_indexable() -> None:
    index = LexicalIndex.build(["a", "b"], [[], ["word"]])
    assert list(index.scores({"word": 1.0}) > 0) == [False, True]
    assert LexicalIndex.build([], []).scores({"word": 1.0}).shape == (0,)


def test_index_build_writes_the_lexical_sidecar(mini_index) -> None:
    loaded = LexicalIndex.load(Path(mini_index.db_path))
    assert loaded is not None
    assert any(chunk_id.endswith("::hash_password") for chunk_id in loaded.chunk_ids)
    assert "hash_password" in loaded.vocabulary


def test_index_build_saves_e5_vectors_of_the_code_words(mini_index) -> None:
    words, vectors = load_bridge_vectors(Path(mini_index.db_path))
    assert {"password", "hash", "database"} <= set(words)
    assert vectors.shape == (len(words), 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)


def test_bridge_words_of_a_previous_index_are_not_embedded_again() -> None:
    asked: list[str] = []

    def embed(words):
        asked.extend(words)
        return np.ones((len(words), 2), dtype=np.float32)

    previous = (["password", "user"], np.zeros((2, 2), dtype=np.float32))
    vectors = embed_bridge_words(["password", "token", "user"], previous, embed)
    assert asked == ["token"]
    assert vectors.tolist() == [[0, 0], [1, 1], [0, 0]]
