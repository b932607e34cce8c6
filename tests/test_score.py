"""score.py: its fixed contract, the metrics it prints, and every kind of bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from codelens.cli.score import main
from codelens.errors import EXIT_BAD_INPUT
from tests.conftest import PROJECT_ROOT

QUESTIONS = {"questions": [
    {"id": "q1", "query": "как создаётся токен?", "lang": "ru", "relevant": ["a.py::token", "b.py::login"]},
    {"id": "q2", "query": "where are settings?", "lang": "en", "relevant": ["c.py::Settings"]},
    {"id": "q3", "query": "seven answers", "lang": "en", "relevant": [f"d.py::f{i}" for i in range(7)]},
]}


def hits(*chunk_ids: str) -> list[dict]:
    return [{"chunk_id": c, "path": c.split("::")[0], "symbol": c.split("::")[1], "kind": "function",
             "start_line": 1, "end_line": 2, "score": 0.5} for c in chunk_ids]


def predictions(*entries: tuple[str, list[dict]]) -> dict:
    return {"model": "test", "k": 5,
            "results": [{"id": qid, "query": "", "latency_ms": 1.0, "hits": h} for qid, h in entries]}


GOOD = predictions(
    ("q1", hits("x.py::a", "b.py::login", "x.py::b", "x.py::c", "a.py::token")),  # 2/2, first at rank 2
    ("q2", hits("x.py::a", "x.py::b", "x.py::c", "x.py::d", "x.py::e", "c.py::Settings")),  # rank 6: outside
    ("q3", hits("d.py::f0", "d.py::f1", "d.py::f2", "x.py::a", "x.py::b")),  # 3 / min(5, 7)
)


@pytest.fixture()
def files(tmp_path: Path):
    def write(predicted: dict | str, questions: dict | str = QUESTIONS) -> list[str]:
        pred_file, question_file = tmp_path / "results.json", tmp_path / "questions.json"
        for target, content in ((pred_file, predicted), (question_file, questions)):
            target.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
        return ["--predictions", str(pred_file), "--questions", str(question_file)]
    return write


def test_json_report_has_the_seed_formula_hit_and_mrr(files, capsys) -> None:
    assert main([*files(GOOD), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    per_question = {q["id"]: q for q in report["questions"]}
    assert per_question["q1"]["precision_at_5"] == 1.0
    assert per_question["q1"]["rr_at_5"] == 0.5
    assert per_question["q1"]["first_relevant_rank"] == 2
    assert per_question["q2"]["precision_at_5"] == 0.0
    assert per_question["q2"]["hit_at_5"] == 0.0
    assert per_question["q3"]["precision_at_5"] == 0.6
    assert report["overall"]["precision_at_5"] == pytest.approx((1.0 + 0.0 + 0.6) / 3, abs=1e-4)
    assert report["overall"]["hit_at_5"] == pytest.approx(2 / 3, abs=1e-4)
    assert report["overall"]["mrr_at_5"] == pytest.approx((0.5 + 0 + 1) / 3, abs=1e-4)
    assert report["per_language"]["ru"]["precision_at_5"] == 1.0
    assert report["per_language"]["en"]["precision_at_5"] == 0.3
    assert report["missing"] == []


def test_table_shows_every_question_and_the_means(files, capsys) -> None:
    assert main(files(GOOD)) == 0
    out = capsys.readouterr().out
    assert [line.split()[0] for line in out.splitlines() if line.startswith("q")] == ["q1", "q2", "q3"]
    assert "mean   P@5 0.533" in out
    assert "  ru   P@5 1.000" in out
    assert "  en   P@5 0.300" in out
    assert "MRR@5 0.500" in out


def test_missing_prediction_is_reported_and_scored_zero(files, capsys) -> None:
    partial = predictions(("q1", hits("a.py::token", "b.py::login")))
    assert main(files(partial)) == 0
    captured = capsys.readouterr()
    assert "q2, q3" in captured.out and "scored 0" in captured.out
    assert "no prediction for q2, q3" in captured.err
    assert "mean   P@5 0.333" in captured.out
    assert main([*files(partial), "--strict"]) == EXIT_BAD_INPUT


@pytest.mark.parametrize(("predicted", "questions", "message"), [
    ("{not json", QUESTIONS, "predictions file"),
    (GOOD, "[1, 2", "questions file"),
    ([], QUESTIONS, "must hold a JSON object"),
    (predictions(("q9", hits("a.py::token"))), QUESTIONS, "unknown question ids: q9"),
    ({"model": "m", "k": 5}, QUESTIONS, 'expected {"results": [...]}'),
    (predictions(("q1", "not a list")), QUESTIONS, "result #1 is malformed"),
    ({"results": [{"id": "q1"}]}, QUESTIONS, "result #1 is malformed"),
    (predictions(("q1", []), ("q1", [])), QUESTIONS, "q1 appears more than once"),
    (GOOD, {"questions": []}, "at least one question"),
    (GOOD, {"questions": [{"id": "q1", "query": "x", "lang": "en", "relevant": "a.py::x"}]}, "malformed"),
])
def test_bad_input_is_one_clear_line_and_exit_6(files, capsys, predicted, questions, message) -> None:
    predicted = json.dumps(predicted) if not isinstance(predicted, str) else predicted
    questions = json.dumps(questions) if not isinstance(questions, str) else questions
    assert main(files(predicted, questions)) == EXIT_BAD_INPUT
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: ") and message in captured.err
    assert len(captured.err.strip().splitlines()) == 1


def test_missing_files_name_the_file(tmp_path: Path, files, capsys) -> None:
    args = files(GOOD)
    assert main(["--predictions", str(tmp_path / "nope.json"), *args[2:]]) == EXIT_BAD_INPUT
    assert f"predictions file not found: {tmp_path / 'nope.json'}" in capsys.readouterr().err
    assert main([*args[:2], "--questions", str(tmp_path / "gone.json")]) == EXIT_BAD_INPUT
    assert "questions file not found" in capsys.readouterr().err


def test_score_py_entry_point(files) -> None:
    """The thin script at the top level behaves like main(): table out, exit codes through."""
    args = files(GOOD)
    ok = subprocess.run([sys.executable, "score.py", *args], cwd=PROJECT_ROOT, capture_output=True, text=True,
                        timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert "mean   P@5 0.533" in ok.stdout
    bad = subprocess.run([sys.executable, "score.py", "--predictions", "missing.json", "--questions", args[3]],
                         cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120)
    assert bad.returncode == EXIT_BAD_INPUT
    assert "predictions file not found" in bad.stderr
    usage = subprocess.run([sys.executable, "score.py"], cwd=PROJECT_ROOT, capture_output=True, text=True,
                           timeout=120)
    assert usage.returncode == 2 and "--predictions" in usage.stderr


def test_codelens_eval_writes_results_that_score_py_reads(mini_index, tmp_path: Path, capsys) -> None:
    """`codelens eval` over a real index: every question answered (warm: its latency is the
    search's), results.json in the contract's form, and score.py scores it."""
    from codelens.cli.main import main as codelens_main

    questions = tmp_path / "questions.json"
    questions.write_text(json.dumps({"questions": [
        {"id": "e1", "query": "how are passwords hashed", "lang": "en", "relevant": ["pkg/auth.py::hash_password"]},
        {"id": "r1", "query": "как хешируется пароль", "lang": "ru", "relevant": ["pkg/auth.py::hash_password"]},
    ]}), encoding="utf-8")
    out = tmp_path / "results.json"
    assert codelens_main(["eval", "--db", str(mini_index.index_dir), "--questions", str(questions),
                          "--out", str(out)]) == 0
    results = json.loads(out.read_text(encoding="utf-8"))
    assert results["k"] == 5 and [r["id"] for r in results["results"]] == ["e1", "r1"]
    assert all(r["hits"] and r["latency_ms"] > 0 for r in results["results"])
    capsys.readouterr()
    assert main(["--predictions", str(out), "--questions", str(questions), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["overall"]["hit_at_5"] == 1.0
