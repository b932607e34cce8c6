"""The context packer's rules, exactly: the score, one piece per chunk id, near whole and far as
signatures, a big class as its outline, the per-piece cap, callee before caller, the budget never
exceeded; and the unified-diff reader impact is built on. Pure: chunk records and the byte
estimate (a real, named counter) in, pieces out."""

from __future__ import annotations

import math

import pytest

from codelens.answer.context import ChunkCatalog
from codelens.answer.diff import parse_diff
from codelens.answer.diff_chunks import changed_chunks
from codelens.answer.impact import runner_test_id
from codelens.answer.pack import (
    ALPHA,
    ASK_RULES,
    BETA,
    CONTEXT_RULES,
    LAMBDA,
    Candidate,
    PackRules,
    context_rules,
    pack,
    piece_text,
    score,
)
from codelens.answer.task_context import check_budget, check_task
from codelens.answer.token_count import BYTE_ESTIMATE
from codelens.chunk import Chunk
from codelens.errors import BadInput
from tests.conftest import make_chunk

HELPER = make_chunk("app/util.py::helper", "def helper(x):\n    return x + 1")
MIDDLE = make_chunk("app/core.py::middle", "def middle(x):\n    return helper(x) * 2")
TOP = make_chunk("app/api.py::top", "def top(x):\n    return middle(x) - 3")


def big_class() -> tuple[Chunk, tuple[Chunk, ...]]:
    methods = [f"    def m{i}(self, value):\n        return value * {i} + sum(range({i}))\n" for i in range(40)]
    code = "class Big:\n    \"\"\"A class with many methods.\"\"\"\n" + "".join(methods)
    cls = Chunk("app/big.py::Big", "app/big.py", "Big", "class", 1, code.count("\n"), code,
                signature="class Big:", docstring="A class with many methods.")
    members = tuple(Chunk(f"app/big.py::Big.m{i}", "app/big.py", f"Big.m{i}", "method", 3 + 2 * i, 4 + 2 * i,
                          methods[i], signature=f"def m{i}(self, value):", parent="Big") for i in range(40))
    return cls, members


def test_score_is_the_weighted_sum_of_relevance_and_closeness() -> None:
    assert score(1.0, 0) == pytest.approx(ALPHA + BETA)
    assert score(0.5, 2) == pytest.approx(ALPHA * 0.5 + BETA * math.exp(-2 * LAMBDA))
    assert score(0.0, 1) == pytest.approx(BETA * math.exp(-LAMBDA)) and score(0.0, 1) < score(0.1, 1)


def test_a_diamond_is_one_piece_at_its_nearest() -> None:
    candidates = [Candidate(TOP, "seed", 0, 1.0), Candidate(HELPER, "callee", 2), Candidate(HELPER, "callee", 1),
                  Candidate(MIDDLE, "callee", 1)]
    packed = pack(candidates, 10_000, BYTE_ESTIMATE)
    ids = [p.chunk.chunk_id for p in packed.pieces]
    assert sorted(ids) == sorted({TOP.chunk_id, MIDDLE.chunk_id, HELPER.chunk_id})
    helper = next(p for p in packed.pieces if p.chunk is HELPER)
    assert (helper.hops, helper.form) == (1, "full")


def test_near_pieces_whole_far_ones_as_signatures() -> None:
    packed = pack([Candidate(TOP, "seed", 0, 1.0), Candidate(MIDDLE, "callee", 1), Candidate(HELPER, "callee", 2)],
                  10_000, BYTE_ESTIMATE)
    forms = {p.chunk.chunk_id: p.form for p in packed.pieces}
    assert forms == {TOP.chunk_id: "full", MIDDLE.chunk_id: "full", HELPER.chunk_id: "signature"}
    far = next(p for p in packed.pieces if p.chunk is HELPER)
    assert "return x + 1" not in far.text and "def helper(x):" in far.text and "signature only" in far.text
    near = next(p for p in packed.pieces if p.chunk is MIDDLE)
    assert "\n    return helper(x) * 2\n" in near.text and near.text.startswith("### app/core.py:1-2 function")


def test_what_is_called_comes_before_what_calls_it() -> None:
    candidates = [Candidate(TOP, "seed", 0, 1.0, callees=frozenset({MIDDLE.chunk_id})),
                  Candidate(MIDDLE, "callee", 1, callees=frozenset({HELPER.chunk_id})),
                  Candidate(HELPER, "callee", 1)]
    packed = pack(candidates, 10_000, BYTE_ESTIMATE)
    assert [p.chunk for p in packed.pieces] == [HELPER, MIDDLE, TOP]
    best_first = pack(candidates, 10_000, BYTE_ESTIMATE, PackRules(callees_first=False))
    assert [p.chunk for p in best_first.pieces] == [TOP, MIDDLE, HELPER]


def test_a_cycle_of_calls_is_broken_best_first() -> None:
    candidates = [Candidate(TOP, "seed", 0, 1.0, callees=frozenset({MIDDLE.chunk_id})),
                  Candidate(MIDDLE, "callee", 1, callees=frozenset({TOP.chunk_id}))]
    assert [p.chunk for p in pack(candidates, 10_000, BYTE_ESTIMATE).pieces] == [TOP, MIDDLE]


def test_a_big_class_is_its_outline_and_its_methods_stay_pieces_of_their_own() -> None:
    cls, members = big_class()
    candidates = [Candidate(cls, "seed", 0, 1.0, members=members), Candidate(members[5], "seed", 0, 0.9)]
    whole = BYTE_ESTIMATE.count(cls.code)
    assert pack(candidates, 3 * whole, BYTE_ESTIMATE).pieces[0].form == "full"  # small beside the budget: whole
    budget = whole * 3 // 2
    packed = pack(candidates, budget, BYTE_ESTIMATE)  # over half of it: the outline
    outline, method = packed.pieces
    assert outline.form == "outline" and method.form == "full" and method.chunk is members[5]
    lines = outline.text.splitlines()
    assert lines[0] == "### app/big.py:1-82 class `Big` (outline)" and lines[2] == "class Big:"
    assert "    3: def m0(self, value):" in lines and "    81: def m39(self, value):" in lines
    assert "return value" not in outline.text
    assert outline.tokens < whole / 2
    short = pack(candidates[:1], budget, BYTE_ESTIMATE, PackRules(outline_members=3)).pieces[0].text.splitlines()
    assert short[-4:] == ["    5: def m1(self, value):", "    7: def m2(self, value):", "    ... and 37 more methods",
                          "```"]


def test_a_method_of_a_class_shown_whole_is_not_repeated() -> None:
    cls = Chunk("a.py::A", "a.py", "A", "class", 1, 3, "class A:\n    def f(self):\n        return 1",
                signature="class A:")
    method = Chunk("a.py::A.f", "a.py", "A.f", "method", 2, 3, "    def f(self):\n        return 1",
                   signature="def f(self):", parent="A")
    packed = pack([Candidate(cls, "seed", 0, 1.0), Candidate(method, "seed", 0, 0.5)], 1000, BYTE_ESTIMATE)
    assert [p.chunk for p in packed.pieces] == [cls] and packed.left_out == ()


def test_a_class_whose_methods_are_mostly_shown_is_shown_whole_instead() -> None:
    cls, members = big_class()
    whole = BYTE_ESTIMATE.count(cls.code)
    far_class = Candidate(cls, "type", 2, 0.1, members=members)  # far: a signature on its own
    many = [Candidate(m, "seed", 0, 1.0 - i / 100) for i, m in enumerate(members[:30])]
    packed = pack([*many, far_class], 4 * whole, BYTE_ESTIMATE)
    assert [(p.chunk, p.form) for p in packed.pieces] == [(cls, "full")]  # one class, not thirty pieces
    few = pack([*many[:3], far_class], 4 * whole, BYTE_ESTIMATE)  # three methods: pieces of their own
    assert [(p.chunk, p.form) for p in few.pieces] == [*((m, "full") for m in members[:3]), (cls, "signature")]
    asked = pack([*many, far_class], 4 * whole, BYTE_ESTIMATE, ASK_RULES)  # ask cites its hits' own lines
    assert [p.chunk for p in asked.pieces if p.form != "signature"] == list(members[:30])
    tight = pack([*many, far_class], whole * 3 // 2, BYTE_ESTIMATE)  # whole, it would take over half the budget
    assert cls not in [p.chunk for p in tight.pieces if p.form == "full"]
    assert tight.tokens <= whole * 3 // 2


def test_no_piece_but_the_first_takes_more_than_its_share() -> None:
    long_body = "\n".join(f"    total += {i}" for i in range(60))
    big = make_chunk("app/long.py::long", f"def long(total):\n{long_body}\n    return total")
    big = Chunk(**{**big.__dict__, "signature": "def long(total):"})
    budget = BYTE_ESTIMATE.count(big.code) + 200
    packed = pack([Candidate(TOP, "seed", 0, 1.0), Candidate(big, "seed", 0, 0.9)], budget, BYTE_ESTIMATE)
    assert [(p.chunk, p.form) for p in packed.pieces] == [(TOP, "full"), (big, "signature")]
    alone = pack([Candidate(big, "seed", 0, 1.0)], budget, BYTE_ESTIMATE)
    assert alone.pieces[0].form == "full"  # the first piece may take the whole budget


@pytest.mark.parametrize("budget", [1, 20, 35, 60, 90, 150, 400, 5000])
def test_the_budget_is_never_exceeded(budget: int) -> None:
    cls, members = big_class()
    candidates = [Candidate(cls, "seed", 0, 1.0, members=members), Candidate(TOP, "seed", 0, 0.8),
                  Candidate(MIDDLE, "callee", 1), Candidate(HELPER, "callee", 2),
                  *(Candidate(m, "callee", 1) for m in members[:10])]
    packed = pack(candidates, budget, BYTE_ESTIMATE)
    assert packed.tokens <= budget
    assert all(p.tokens == BYTE_ESTIMATE.count(p.text) for p in packed.pieces)
    shown = {p.chunk.chunk_id for p in packed.pieces}
    assert shown.isdisjoint(packed.left_out) and len(shown) == len(packed.pieces)
    assert packed.to_dict()["tokens"] == packed.tokens and packed.tokenizer == BYTE_ESTIMATE.name


def test_json_piece_has_the_contract_fields() -> None:
    piece = pack([Candidate(TOP, "seed", 0, 1.0, repo="api")], 1000, BYTE_ESTIMATE, CONTEXT_RULES).pieces[0]
    assert list(piece.to_dict()) == ["chunk_id", "path", "repo", "start_line", "end_line", "role", "hops", "form",
                                     "tokens", "score", "text"]
    assert piece.to_dict()["repo"] == "api" and piece.to_dict()["score"] == round(ALPHA + BETA, 4)


def test_the_header_carries_the_start_line_and_the_code_goes_unnumbered() -> None:
    method = Chunk("app/shop.py::Cart.total", "app/shop.py", "Cart.total", "method", 41, 43,
                   "    def total(self):\n        paid = sum(self.items)\n        return paid",
                   signature="def total(self):", parent="Cart")
    piece = pack([Candidate(method, "seed", 0, 1.0, note="seed 1")], 1000, BYTE_ESTIMATE).pieces[0]
    assert piece.text.splitlines() == ["### app/shop.py:41-43 method `Cart.total` (seed 1)", "```",
                                       "    def total(self):", "        paid = sum(self.items)",
                                       "        return paid", "```"]
    numbered = pack([Candidate(method, "seed", 0, 1.0, note="seed 1")], 1000, BYTE_ESTIMATE,
                    context_rules(line_numbers=True))
    assert numbered.pieces[0].text.splitlines()[2:5] == ["41 |     def total(self):",
                                                         "42 |         paid = sum(self.items)",
                                                         "43 |         return paid"]
    assert (numbered.line_numbers, numbered.to_dict()["line_numbers"]) == (True, True)
    assert pack([Candidate(method, "seed", 0, 1.0)], 1000, BYTE_ESTIMATE).to_dict()["line_numbers"] is False
    assert piece_text(method, "seed 1") == piece.text  # what the benchmark counts is what the packer writes
    asked = pack([Candidate(method, "hit", 0)], 1000, BYTE_ESTIMATE, ASK_RULES).pieces[0]
    assert asked.text.splitlines()[1] == "41 |     def total(self):"  # ask's model cites path:line


# ------------------------------------------------------------------ input checks


@pytest.mark.parametrize("task", ["", "   \n\t", "x" * 1_000_001, "fix\x00this"])
def test_bad_tasks_are_refused_with_the_reason(task: str) -> None:
    with pytest.raises(BadInput, match=r"empty|characters|not text"):
        check_task(task)


@pytest.mark.parametrize("budget", [0, -5, 10_000_000, True])
def test_budgets_out_of_range_are_refused(budget: int) -> None:
    with pytest.raises(BadInput, match="out of range"):
        check_budget(budget)


# ------------------------------------------------------------------ diffs


CHANGE = """\
diff --git a/app/core.py b/app/core.py
index 1111111..2222222 100644
--- a/app/core.py
+++ b/app/core.py
@@ -1,2 +1,2 @@
 def middle(x):
-    return helper(x) * 2
+    return helper(x) * 3
--- a/app/api.py
+++ b/app/api.py
@@ -1,0 +2,1 @@
+    -- not a header, an added line
"""


def test_a_diff_is_read_by_its_hunk_counts() -> None:
    core, api = parse_diff(CHANGE)
    assert (core.old_path, core.new_path) == ("app/core.py", "app/core.py")
    assert core.hunks[0].lines == (" def middle(x):", "-    return helper(x) * 2", "+    return helper(x) * 3")
    assert api.hunks[0].lines == ("+    -- not a header, an added line",) and api.hunks[0].old_count == 0
    removed = parse_diff("--- a/x.py\n+++ /dev/null\n@@ -1 +0,0 @@\n--- x = 1\n")[0]
    assert removed.new_path is None and removed.hunks[0].lines == ("--- x = 1",)


def test_changed_lines_map_to_chunks_on_the_side_the_index_holds() -> None:
    catalog = ChunkCatalog([HELPER, MIDDLE, TOP])
    assert [c.chunk_id for c in changed_chunks(parse_diff(CHANGE), catalog)] == [TOP.chunk_id, MIDDLE.chunk_id]
    after = CHANGE.replace("* 2\n+", "* 9\n+").replace("-    return helper(x) * 9", "-    return helper(x) * 9")
    with pytest.raises(BadInput, match="does not apply to the index"):
        changed_chunks(parse_diff(after.split("--- a/app/api.py")[0]), catalog)
    with pytest.raises(BadInput, match="touches no indexed file"):
        changed_chunks(parse_diff("--- a/other.py\n+++ b/other.py\n@@ -1 +1 @@\n-a\n+b\n"), catalog)
    with pytest.raises(BadInput, match="not a unified diff"):
        parse_diff("this is an issue, not a diff")
    with pytest.raises(BadInput, match="cut short"):
        parse_diff("--- a/app/core.py\n+++ b/app/core.py\n@@ -1,5 +1,5 @@\n def middle(x):\n")


def test_test_ids_are_pytest_ids() -> None:
    method = Chunk("tests/test_a.py::TestA.test_b", "tests/test_a.py", "TestA.test_b", "method", 1, 2, "",
                   is_test=True)
    assert runner_test_id(method) == "tests/test_a.py::TestA::test_b"
    assert runner_test_id(make_chunk("tests/test_a.py::test_c", "def test_c(): pass", is_test=True)) == \
        "tests/test_a.py::test_c"


def test_a_line_between_definitions_maps_to_the_module_block_else_the_definition_before() -> None:
    insertion = "--- a/app/util.py\n+++ b/app/util.py\n@@ -4,0 +5,2 @@\n+\n+def another(): pass\n"
    assert [c.chunk_id for c in changed_chunks(parse_diff(insertion), ChunkCatalog([HELPER]))] == [HELPER.chunk_id]
    module = Chunk("app/util.py::<module>", "app/util.py", "<module>", "module", 1, 1, "import os")
    with_module = ChunkCatalog([HELPER, module])
    assert [c.chunk_id for c in changed_chunks(parse_diff(insertion), with_module)] == [module.chunk_id]


def test_the_top_files_skeleton_nests_methods_under_their_class_and_keeps_to_its_share() -> None:
    cls, members = big_class()
    file = Chunk("app/big.py", "app/big.py", "<module>", "module", 1, cls.end_line, "")
    helper = Chunk("app/big.py::helper", "app/big.py", "helper", "function", 90, 91, "def helper():\n    pass",
                   signature="def helper():")
    definitions = (cls, members[7], helper, *members[:7], *members[8:])  # the class and what matters first
    skeleton = Candidate(file, "seed", 0, 1.0, note="the best file for the task", members=definitions,
                         skeleton=True)
    rules = PackRules(outline_members=4)
    piece = pack([skeleton, Candidate(HELPER, "seed", 0, 0.9)], 10_000, BYTE_ESTIMATE, rules).pieces[0]
    assert piece.form == "outline" and piece.chunk is file
    assert piece.text.splitlines() == [
        "### app/big.py:1-82 module-level code (the best file for the task; skeleton)", "```",
        "1: class Big:", "    3: def m0(self, value):", "    17: def m7(self, value):", "90: def helper():",
        "... and 38 more definitions", "```"]
    tight = pack([skeleton, Candidate(HELPER, "seed", 0, 0.9)], piece.tokens * 5, BYTE_ESTIMATE, rules)
    assert [p.chunk for p in tight.pieces] == [HELPER]  # over a tenth of the budget: the code alone
    roomy = pack([skeleton, Candidate(HELPER, "seed", 0, 0.9)], piece.tokens * 10, BYTE_ESTIMATE, rules)
    assert [p.chunk for p in roomy.pieces] == [file, HELPER]


def test_impact_names_the_test_files_that_name_a_changed_definition_or_its_class() -> None:
    """A public API reached through a metaclass or a generic method leaves no call edge to the
    changed definition: the tests that name it (as callers write it) or its class stand in."""
    from codelens.answer.impact import _called_as, _naming_tests

    assert [_called_as(n) for n in ("_eval_evalf", "_print_Mul", "eval", "__new__", "Mod", "ab")] == [
        "evalf", "Mul", "", "", "Mod", ""]
    mod = make_chunk("pkg/core/mod.py::Mod.eval", "    def eval(cls, p, q):\n        return p % q")
    evalf = make_chunk("pkg/core/ops.py::AssocOp._eval_evalf", "    def _eval_evalf(self, prec):\n        pass")
    numbers = make_chunk("pkg/core/tests/test_numbers.py::test_mod", "def test_mod():\n    assert Mod(5, 3) == 2",
                      is_test=True)
    far = make_chunk("pkg/geo/tests/test_point.py::test_mod", "def test_mod():\n    assert Mod(4, 2) == 0",
                      is_test=True)
    both = make_chunk("pkg/geo/tests/test_both.py::test_it", "def test_it():\n    Mod(1, 2).evalf()\n    AssocOp",
                      is_test=True)
    evalf_test = make_chunk("pkg/core/tests/test_evalf.py::test_add", "def test_add():\n    (x + 1).evalf()",
                      is_test=True)
    catalog = ChunkCatalog([mod, evalf, numbers, far, both, evalf_test])
    assert _naming_tests(catalog, [mod]) == ["pkg/core/tests/test_numbers.py", "pkg/geo/tests/test_both.py",
                                             "pkg/geo/tests/test_point.py"]  # the nearest first
    assert _naming_tests(catalog, [evalf])[:2] == ["pkg/geo/tests/test_both.py",  # names AssocOp and evalf
                                                   "pkg/core/tests/test_evalf.py"]
    # a private method the tests call as written; a def nested in a method names its class
    collect = make_chunk("pkg/units/system.py::UnitSystem._collect_factor",
                         "    def _collect_factor(self, expr):\n        pass")
    quantities = make_chunk("pkg/units/tests/test_quantities.py::test_factor",
                            "def test_factor():\n    SI._collect_factor(x)", is_test=True)
    doit = make_chunk("pkg/core/mod.py::Mod.eval.doit", "        def doit(p, q):\n            return p % q")
    many = make_chunk("pkg/core/tests/test_zmod.py::test_mods", "def test_mods():\n    Mod(1, 2)\n    Mod(3, 4)",
                      is_test=True)
    catalog = ChunkCatalog([collect, quantities, doit, numbers, far, many])
    assert _naming_tests(catalog, [collect]) == ["pkg/units/tests/test_quantities.py"]
    assert _naming_tests(catalog, [doit]) == ["pkg/core/tests/test_zmod.py",  # as near, naming it more often
                                              "pkg/core/tests/test_numbers.py", "pkg/geo/tests/test_point.py"]


def test_impact_lists_the_tests_of_the_nearest_files_only() -> None:
    from codelens.answer.impact import MAX_TEST_FILES, SuggestedTest, _nearest_files

    tests = [SuggestedTest(f"pkg/far{n}/tests/test_{n}.py", f"pkg/far{n}/tests/test_{n}.py::t", 2)
             for n in range(MAX_TEST_FILES + 5)]
    tests += [SuggestedTest("pkg/core/tests/test_near.py", "pkg/core/tests/test_near.py::t", 2),
              SuggestedTest("pkg/x/tests/test_called.py", "pkg/x/tests/test_called.py::t", 1)]
    kept = _nearest_files(tests, ["pkg/core/mod.py"])
    assert len({t.path for t in kept}) == MAX_TEST_FILES
    assert [t.path for t in kept[:2]] == ["pkg/x/tests/test_called.py", "pkg/core/tests/test_near.py"]
