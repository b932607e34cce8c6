"""bench/big_index.py's table from an index's metadata: stages in the order the run wrote them,
chunks per second where a stage embeds chunks, and which search was the first answer."""

from __future__ import annotations

import sys

from tests.conftest import PROJECT_ROOT

sys.path.insert(0, str(PROJECT_ROOT / "bench"))
from big_index import ENGLISH_STAGE, Answer, Observed, complete_for_searches, first_answers, stage_rows

# A progressive run that deferred its test chunks, as index_metadata.json records it
DEFERRED = {"chunking": 2.0, "searchable": 3.5, "dense_batches": 40.0, "embedding": 0.4, "sidecar:x": 0.2,
            ENGLISH_STAGE: 8.0, "storing": 9.0, "complete": 55.0, "test_vectors": 20.0}


def test_stages_keep_the_run_s_order_and_rate_the_embedding_ones() -> None:
    rows = {row.name: row for row in stage_rows(DEFERRED, total_chunks=1000, test_chunks=200)}
    assert list(rows) == list(DEFERRED)  # an unknown key too, where the run wrote it
    assert (rows["dense_batches"].chunks, rows["dense_batches"].chunks_per_s) == (800, 20.0)
    assert (rows[ENGLISH_STAGE].chunks, rows[ENGLISH_STAGE].chunks_per_s) == (800, 100.0)
    assert (rows["test_vectors"].chunks, rows["test_vectors"].chunks_per_s) == (200, 10.0)
    assert rows["embedding"].chunks is None  # after dense_batches it reads the cache
    assert rows["sidecar:x"].chunks_per_s is None
    assert {n for n, r in rows.items() if r.counted == "from start"} == {"searchable", "complete"}


def test_a_run_that_defers_nothing_embeds_every_chunk_in_one_stage() -> None:
    rows = {row.name: row for row in stage_rows({"chunking": 1.0, "embedding": 5.0}, total_chunks=60,
                                                 test_chunks=10)}
    assert (rows["embedding"].chunks, rows["embedding"].chunks_per_s) == (60, 12.0)
    progressive = {row.name: row for row in stage_rows({"dense_batches": 10.0}, total_chunks=500, test_chunks=50)}
    assert progressive["dense_batches"].chunks == 500  # no `complete`: the tests were embedded with the rest


def test_first_answers_are_the_first_with_a_hit_and_the_first_found_by_meaning() -> None:
    answers = [Answer(1.0, 2.0, None, None), Answer(2.0, 4.0, (), 0.0), Answer(4.0, 6.0, ("keywords",), 0.0),
               Answer(6.0, 8.0, ("name", "keywords"), 0.1), Answer(8.0, 9.0, ("keywords", "meaning+keywords"), 0.3),
               Answer(9.0, 10.0, ("meaning",), 0.5)]
    first = first_answers(answers)
    assert first["hits"].answered_s == 6.0
    assert first["meaning"].answered_s == 9.0
    assert first_answers(answers[:4])["meaning"] is None


def test_complete_for_searches_is_the_complete_swap_only_when_tests_were_deferred() -> None:
    assert complete_for_searches(Observed(1.0, 5.0, 30.0), 50.0, DEFERRED) == 30.0
    assert complete_for_searches(Observed(1.0, 5.0, None), 50.0, {"dense_batches": 10.0}) == 50.0
