"""The retrieval ideas kept in bench/variants.py for comparison (not shipped) still compute
what their docstrings and bench/RESULTS.md say."""

from __future__ import annotations

import sys

import pytest

from codelens.search.fusion import convex_fusion
from codelens.search.query import Candidate, LegResult, Query
from tests.conftest import PROJECT_ROOT
from tests.test_graph import tiny_graph
from tests.test_retrieval import CHUNKS, IDS

sys.path.insert(0, str(PROJECT_ROOT / "bench"))
from variants import DownrankTrivial, boost_with_graph, expand_with_graph, rrf_fusion


def test_rrf_scores_are_exact() -> None:
    dense = LegResult("dense", (Candidate("a", 0.9), Candidate("b", 0.8)))
    lexical = LegResult("lexical", (Candidate("b", 7.0), Candidate("c", 3.0)), weight=0.5)
    plain = {f.chunk_id: f.score for f in rrf_fusion([dense, lexical])}
    assert plain == pytest.approx({"a": 1 / 61, "b": 1 / 62 + 1 / 61, "c": 1 / 62})
    weighted = {f.chunk_id: f.score for f in rrf_fusion([dense, lexical], weighted=True)}
    assert weighted["b"] == pytest.approx(1 / 62 + 0.5 / 61)


def test_a_russian_question_is_not_dragged_down_by_a_lexical_leg_that_knows_nothing() -> None:
    """Naive RRF lets an uninformed lexical list reorder dense results; weighted fusion does not."""
    dense = LegResult("dense", (Candidate("right", 0.86), Candidate("close", 0.85), Candidate("far", 0.80)))
    # The lexical leg matched one backticked identifier of a long Russian question: weak evidence.
    lexical = LegResult("lexical", (Candidate("far", 2.0), Candidate("close", 1.0)), weight=1 / 8)
    assert rrf_fusion([dense, lexical])[0].chunk_id == "far"
    assert [f.chunk_id for f in convex_fusion([dense, lexical])] == ["right", "close", "far"]


def test_trivial_methods_sink_unless_the_question_names_them() -> None:
    chunks = {c.chunk_id: c for c in CHUNKS}
    stage = DownrankTrivial(chunks, penalty=0.5)
    fused = rrf_fusion([LegResult("dense", (Candidate(IDS[3], 0.9), Candidate(IDS[2], 0.8)))])
    assert [f.chunk_id for f in stage(Query.from_text("user name"), fused)] == [IDS[2], IDS[3]]
    assert [f.chunk_id for f in stage(Query.from_text("user repr"), fused)] == [IDS[3], IDS[2]]


def test_expand_with_graph_adds_decayed_neighbours() -> None:
    graph = tiny_graph()
    expanded = expand_with_graph([("m.py::a", 1.0), ("m.py::d", 0.9)], graph, decay=0.5)
    assert expanded == [("m.py::a", 1.0), ("m.py::d", 0.9), ("m.py::b", 0.5), ("m.py::c", 0.5)]
    # a neighbour already ranked keeps the better of its own and the propagated score
    assert dict(expand_with_graph([("m.py::a", 1.0), ("m.py::b", 0.8)], graph, 0.5))["m.py::b"] == 0.8
    assert dict(expand_with_graph([("m.py::a", 1.0), ("m.py::b", 0.2)], graph, 0.5))["m.py::b"] == 0.5
    # only the first max_seeds hits seed; tests and externals stay out unless accepted
    assert expand_with_graph([("m.py::d", 1.0), ("m.py::a", 0.5)], graph, 0.5, max_seeds=1) == [
        ("m.py::d", 1.0), ("m.py::a", 0.5)]
    with_tests = expand_with_graph([("m.py::a", 1.0)], graph, 0.5, accept=lambda node: node.is_chunk)
    assert "t.py::test_a" in dict(with_tests)
    assert expand_with_graph([], graph) == []


def test_boost_with_graph_reranks_neighbours_of_the_top_hit() -> None:
    graph = tiny_graph()
    ranked = [("m.py::a", 1.0), ("m.py::d", 0.9), ("m.py::c", 0.85), ("m.py::b", 0.1)]
    boosted = boost_with_graph(ranked, graph, bonus=0.2)
    assert [chunk_id for chunk_id, _ in boosted] == ["m.py::c", "m.py::a", "m.py::d", "m.py::b"]
    assert dict(boosted)["m.py::c"] == pytest.approx(1.05) and dict(boosted)["m.py::b"] == pytest.approx(0.3)
    assert len(boosted) == len(ranked)  # nothing new enters
    assert boost_with_graph(ranked, graph, bonus=0.0) == ranked
    assert boost_with_graph([], graph) == []
