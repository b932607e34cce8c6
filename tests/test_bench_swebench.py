"""bench/swebench.py's counting, on chunk records and a real chunk catalog: each gold function's own
piece priced as the packer writes it, the attainable ceiling per budget, search read in rank order
skipping what does not fit, the context packed in each unit, and the table with both units side
by side."""

from __future__ import annotations

import json
import sys
from types import SimpleNamespace

import pytest

from codelens.answer.context import ChunkCatalog
from codelens.answer.pack import Candidate, context_rules, piece_text
from codelens.answer.token_count import BYTE_ESTIMATE, counter_for
from tests.conftest import PROJECT_ROOT
from tests.test_pack import HELPER, MIDDLE, TOP

sys.path.insert(0, str(PROJECT_ROOT / "bench"))
from swebench import (
    BYTES,
    SEED_NOTE,
    Recall,
    ceiling,
    context_shown,
    gold_costs,
    main,
    recall_rows,
    search_shown,
    shard,
)

INDEX = SimpleNamespace(catalog=ChunkCatalog([HELPER, MIDDLE, TOP]))  # what the bench reads of an open index
RULES = context_rules()


def test_the_ceiling_is_the_share_of_gold_functions_whose_own_piece_fits() -> None:
    counter = counter_for("o200k")
    gold = [HELPER.chunk_id, MIDDLE.chunk_id, "app/gone.py::removed"]
    costs = gold_costs(gold, counter, INDEX, RULES)
    assert costs[0] == counter.count(piece_text(HELPER, SEED_NOTE, "full", RULES))
    assert costs[0] == counter.count("### app/util.py:1-2 function `helper` (seed 1, found by the search)\n```\n"
                                     "def helper(x):\n    return x + 1\n```")
    assert costs[2] is None  # not in the index: no budget shows it
    smallest, largest = sorted(costs[:2])
    assert ceiling(costs, smallest - 1) == 0.0
    assert ceiling(costs, smallest) == pytest.approx(1 / 3) and ceiling(costs, largest) == pytest.approx(2 / 3)
    assert ceiling([], 1000) == 0.0
    numbered = gold_costs(gold, counter, INDEX, context_rules(line_numbers=True))
    assert numbered[0] > costs[0]  # a number on every line costs tokens


def test_search_is_read_in_rank_order_skipping_what_does_not_fit() -> None:
    counter = counter_for("o200k")
    cost = {c.chunk_id: counter.count(piece_text(c, "search hit", "full", RULES)) for c in (HELPER, MIDDLE, TOP)}
    budget = cost[TOP.chunk_id] + cost[HELPER.chunk_id]
    full, files = search_shown([TOP, MIDDLE, HELPER], budget, counter, [HELPER.chunk_id, MIDDLE.chunk_id], INDEX,
                               RULES)
    assert cost[MIDDLE.chunk_id] > cost[HELPER.chunk_id]  # so middle does not fit after top, helper does
    assert (full, files) == ({HELPER.chunk_id}, {"app/api.py", "app/util.py"})
    nothing = search_shown([TOP], cost[TOP.chunk_id] - 1, counter, [TOP.chunk_id], INDEX, RULES)
    assert nothing == (set(), set())


@pytest.mark.parametrize("counter", [counter_for("o200k"), BYTE_ESTIMATE], ids=["o200k", "bytes"])
def test_context_is_packed_in_each_unit(counter) -> None:
    candidates = [Candidate(TOP, "seed", 0, 1.0), Candidate(MIDDLE, "callee", 1), Candidate(HELPER, "callee", 2)]
    full, files = context_shown(candidates, 1000, counter, RULES, [TOP.chunk_id, HELPER.chunk_id], INDEX)
    assert full == {TOP.chunk_id}  # helper, two hops away, is only its signature
    assert files == {"app/api.py", "app/core.py", "app/util.py"}
    assert context_shown(candidates, 5, counter, RULES, [TOP.chunk_id], INDEX) == (set(), set())


def test_the_table_puts_both_units_side_by_side() -> None:
    recalls = {}
    for unit in ("o200k", BYTES):
        for method in ("context", "search", "bm25 files"):
            for budget in (2000, 8000):
                recall = Recall()
                recall.add(["a::f", "a::g"], ["a"], {"a::f"}, {"a"}, 1.0 if unit == "o200k" else 0.5)
                recalls[unit, method, budget] = recall
    headers, rows = recall_rows(recalls, (2000, 8000), ("o200k", BYTES), ("context", "search", "bm25 files"))
    assert headers == ["method", "budget", "o200k function recall", "o200k file recall", "o200k all gold",
                       "o200k ceiling", "bytes/4 function recall", "bytes/4 file recall", "bytes/4 all gold",
                       "bytes/4 ceiling"]
    assert rows[0] == ("context", 2000, 0.5, 1.0, 0.0, 1.0, 0.5, 1.0, 0.0, 0.5)
    assert [row[:2] for row in rows] == [(m, b) for m in ("context", "search", "bm25 files") for b in (2000, 8000)]


def test_the_tokenizer_choice_is_checked(capsys) -> None:
    with pytest.raises(SystemExit) as refused:
        main(["--repo", "/nonexistent", "--tokenizer", "gpt2"])
    assert refused.value.code == 2 and "invalid choice: 'gpt2'" in capsys.readouterr().err


def test_shards_are_contiguous_and_cover_every_instance_once() -> None:
    instances = [{"instance_id": str(n)} for n in range(7)]
    parts = [shard(instances, f"{k}/3") for k in (1, 2, 3)]
    assert [[i["instance_id"] for i in part] for part in parts] == [["0", "1", "2"], ["3", "4", "5"], ["6"]]
    assert shard(instances, "1/1") == instances
    with pytest.raises(SystemExit):
        shard(instances, "4/3")


def test_shards_rows_merge_into_one_report(tmp_path, capsys) -> None:
    """Two shards' per-instance rows give the report one run over both would give."""
    instances = [{"instance_id": f"i{n}", "gold_functions": [f"a.py::f{n}", "a.py::g"], "gold_files": ["a.py"]}
                 for n in (1, 2)]
    (tmp_path / "set.json").write_text(json.dumps(instances))

    def row(n: int, found: list[str]) -> dict:
        ranks = {"func@5": n == 1, "func@10": True, "file@1": True, "file@5": True}
        unit = {"ceiling@2000": 1.0, "context@2000": found, "context@2000 files": ["a.py"],
                "search@2000": [], "search@2000 files": []}
        return {"instance_id": f"i{n}", "indexed_s": 10.0 * n, "ranks": {"context": ranks},
                "o200k": unit, BYTES: unit, "impact": {"test_file_recall": 1.0, "listed": n, "ms": 1.0}}

    first, second = tmp_path / "one.rows.jsonl", tmp_path / "two.rows.jsonl"
    first.write_text(json.dumps(row(1, ["a.py::f1", "a.py::g"])) + "\n")
    second.write_text(json.dumps(row(2, ["a.py::g"])) + "\n")
    assert main(["--repo", "/nonexistent", "--set", str(tmp_path / "set.json"), "--budgets", "2000",
                 "--merge", str(first), str(second)]) == 0
    printed = capsys.readouterr().out
    cells = [[cell.strip() for cell in line.split("|")[1:-1]] for line in printed.splitlines() if line.startswith("|")]
    # function recall (1 + 1/2) / 2, file recall 1, all gold 1 of 2, ceiling 1
    assert next(c for c in cells if c[0] == "context")[:6] == ["context", "2000", "0.750", "1.000", "0.500", "1.000"]
    assert next(c for c in cells if c[0] == "search")[:4] == ["search", "2000", "0.000", "0.000"]
    assert [c for c in cells if c[0] == "context"][1][:3] == ["context", "0.500", "1.000"]  # func@5, func@10
    assert "max 20 s, sum 0 min over 2 bases" in printed
