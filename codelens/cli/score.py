"""`python score.py`: score a results.json against a questions file (a fixed contract).

Prints a per-question table, the mean Precision@5 overall and per language, Hit@5 and
MRR@5; `--json` prints one JSON object instead. Bad input is a one-line error and a
non-zero exit; a question without a prediction is reported and scored 0.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from codelens.errors import EXIT_BAD_INPUT, EXIT_OK, BadInput
from codelens.evaluation import QuestionScore, load_json, load_questions, score_predictions, summarize

K = 5
QUERY_WIDTH = 58


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python score.py", description="Precision@5 of a results.json against a questions file.",
        epilog="exit codes: 0 scored, 2 bad arguments, 6 missing or malformed file, unknown question id "
               "(or, with --strict, a question without a prediction)",
    )
    parser.add_argument("--predictions", type=Path, required=True,
                        help="results.json, as written by `python -m codelens eval` or the app")
    parser.add_argument("--questions", type=Path, required=True, help="questions file, e.g. eval_questions.json")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    parser.add_argument("--strict", action="store_true", help="fail when a question has no prediction")
    return parser


def score_files(predictions: Path, questions: Path) -> tuple[list[QuestionScore], dict]:
    """Load both files and score them; BadInput says which file is wrong and how."""
    question_list = load_questions(questions)
    results = load_json(predictions, "predictions")
    scores = score_predictions(results, question_list, K)
    return scores, summarize(scores)


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def format_table(scores: Sequence[QuestionScore], summary: dict) -> str:
    """The human-readable report: one row per question, then the means."""
    header = f"{'id':<6} {'lang':<4} {'P@5':>5} {'Hit@5':>5} {'RR@5':>5} {'first':>5}  query"
    lines = [header, "-" * (len(header) + QUERY_WIDTH - 5)]
    for s in scores:
        first = "-" if s.first_rank is None else str(s.first_rank)
        note = "  (no prediction, scored 0)" if s.missing else ""
        lines.append(f"{s.qid:<6} {s.lang:<4} {s.precision:>5.2f} {s.hit:>5.0f} {s.reciprocal_rank:>5.2f} "
                     f"{first:>5}  {_shorten(s.query, QUERY_WIDTH)}{note}")
    lines.append("-" * (len(header) + QUERY_WIDTH - 5))
    lines.append(_summary_line("mean", summary["overall"]))
    for lang, group in summary["per_language"].items():
        lines.append(_summary_line(f"  {lang or '?'}", group))
    if summary["missing"]:
        lines.append(f"WARNING: {len(summary['missing'])} question(s) have no prediction and were scored 0: "
                     f"{', '.join(summary['missing'])}")
    return "\n".join(lines)


def _summary_line(label: str, group: dict) -> str:
    return (f"{label:<6} P@5 {group['precision_at_5']:.3f}   Hit@5 {group['hit_at_5']:.3f}   "
            f"MRR@5 {group['mrr_at_5']:.3f}   ({group['questions']} questions)")


def to_json(scores: Sequence[QuestionScore], summary: dict) -> dict:
    return {
        "k": K,
        **summary,
        "questions": [
            {"id": s.qid, "lang": s.lang, "query": s.query, "precision_at_5": round(s.precision, 4),
             "hit_at_5": s.hit, "rr_at_5": round(s.reciprocal_rank, 4), "first_relevant_rank": s.first_rank,
             "predicted": list(s.predicted), "relevant": list(s.relevant), "missing": s.missing}
            for s in scores
        ],
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        scores, summary = score_files(args.predictions, args.questions)
    except BadInput as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code
    try:
        print(json.dumps(to_json(scores, summary), ensure_ascii=False, indent=2) if args.json
              else format_table(scores, summary))
        sys.stdout.flush()  # inside the try: a closed pipe shows up here, not at exit
    except BrokenPipeError:  # `score.py --json | head -1`: the reader had enough, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    if summary["missing"]:
        print(f"warning: no prediction for {', '.join(summary['missing'])} (scored 0)", file=sys.stderr)
        if args.strict:
            return EXIT_BAD_INPUT
    return EXIT_OK
