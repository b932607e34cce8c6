"""Evaluation: questions files, results.json, and the metrics (pure functions)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from codelens.errors import BadInput


@dataclass(frozen=True)
class Question:
    qid: str
    query: str
    lang: str
    relevant: tuple[str, ...]


def precision_at_k(predicted: Sequence[str], relevant: Sequence[str], k: int = 5) -> float:
    """P@k = |relevant in top k| / min(k, |relevant|) (what score.py prints per question)."""
    if not relevant:
        return 0.0
    hits = len(set(predicted[:k]) & set(relevant))
    return hits / min(k, len(relevant))


def hit_at_k(predicted: Sequence[str], relevant: Sequence[str], k: int = 5) -> float:
    """1 if any relevant id is in the top k, else 0."""
    return 1.0 if set(predicted[:k]) & set(relevant) else 0.0


def reciprocal_rank(predicted: Sequence[str], relevant: Sequence[str], k: int = 5) -> float:
    """1 / rank of the first relevant id within the top k, 0 if none (MRR@k per query)."""
    relevant_set = set(relevant)
    for rank, chunk_id in enumerate(predicted[:k], start=1):
        if chunk_id in relevant_set:
            return 1.0 / rank
    return 0.0


def mean(values: Sequence[float]) -> float:
    """Arithmetic mean, 0 for no values (MRR@k = mean of reciprocal_rank(..., k) over queries)."""
    return sum(values) / len(values) if values else 0.0


def first_relevant_rank(predicted: Sequence[str], relevant: Sequence[str]) -> int | None:
    relevant_set = set(relevant)
    return next((r for r, c in enumerate(predicted, start=1) if c in relevant_set), None)


def load_json(path: Path, what: str) -> dict:
    if not path.is_file():
        raise BadInput(f"{what} file not found: {path}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadInput(f"{what} file {path} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise BadInput(f"{what} file {path} must hold a JSON object")
    return data


def load_questions(path: Path) -> list[Question]:
    data = load_json(path, "questions")
    return parse_questions(data, str(path))


def parse_questions(data: dict, origin: str = "questions") -> list[Question]:
    items = data.get("questions")
    if not isinstance(items, list) or not items:
        raise BadInput(f"{origin}: expected {{\"questions\": [...]}} with at least one question")
    questions = []
    for index, item in enumerate(items):
        try:
            if not isinstance(item, dict):
                raise TypeError(f"expected an object, got {type(item).__name__}")
            relevant = item["relevant"]
            if not isinstance(relevant, list) or not all(isinstance(r, str) for r in relevant):
                raise TypeError("relevant must be a list of chunk ids")
            questions.append(Question(str(item["id"]), str(item["query"]), str(item.get("lang", "")),
                                      tuple(relevant)))
        except (KeyError, TypeError) as exc:
            raise BadInput(f"{origin}: question #{index + 1} is malformed ({exc})") from exc
    ids = [q.qid for q in questions]
    if len(set(ids)) != len(ids):
        raise BadInput(f"{origin}: question ids are not unique")
    return questions


MAX_QUESTIONS_BYTES = 5_000_000
MAX_QUESTIONS = 2_000  # each is a search: more would hold the page for many minutes


def parse_questions_file(raw: bytes, name: str) -> list[Question]:
    """A questions file someone uploaded: BadInput, saying what is wrong, unless it is one."""
    if len(raw) > MAX_QUESTIONS_BYTES:
        raise BadInput(f"{name}: {len(raw):,} bytes is over the {MAX_QUESTIONS_BYTES:,}-byte limit of a "
                       "questions file")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # not UTF-8, not JSON, or nested past reason
        raise BadInput(f"{name} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise BadInput(f"{name} must hold a JSON object: {{\"questions\": [...]}}")
    questions = parse_questions(data, name)
    if len(questions) > MAX_QUESTIONS:
        raise BadInput(f"{name}: {len(questions):,} questions; at most {MAX_QUESTIONS:,} are run at once")
    return questions


SearchFunction = Callable[[str, int], list[dict]]


def run_evaluation(questions: Sequence[Question], search: SearchFunction, model: str, k: int = 5,
                   on_progress: Callable[[int, int], None] | None = None) -> dict:
    """Run every question through search; return the results.json object (the format score.py reads)."""
    results = []
    for done, question in enumerate(questions, start=1):
        started = time.perf_counter()
        hits = search(question.query, k)
        latency_ms = (time.perf_counter() - started) * 1000.0
        results.append({"id": question.qid, "query": question.query,
                        "latency_ms": round(latency_ms, 1), "hits": hits})
        if on_progress:
            on_progress(done, len(questions))
    return {"model": model, "k": k, "results": results}


@dataclass(frozen=True)
class QuestionScore:
    qid: str
    query: str
    lang: str
    precision: float
    hit: float
    reciprocal_rank: float
    first_rank: int | None
    predicted: tuple[str, ...]
    relevant: tuple[str, ...]
    missing: bool  # no prediction for this question


def score_predictions(results: dict, questions: Sequence[Question], k: int = 5) -> list[QuestionScore]:
    """Score a results.json object; unknown predictions are an error, missing ones score 0."""
    entries = results.get("results")
    if not isinstance(entries, list):
        raise BadInput('predictions: expected {"results": [...]}')
    by_id: dict[str, list[str]] = {}
    for index, entry in enumerate(entries):
        try:
            qid, hits = str(entry["id"]), entry["hits"]
            if not isinstance(hits, list):
                raise TypeError("hits must be a list")
            predicted = [str(h["chunk_id"]) for h in hits]
        except (KeyError, TypeError) as exc:
            raise BadInput(f"predictions: result #{index + 1} is malformed ({exc})") from exc
        if qid in by_id:
            raise BadInput(f"predictions: question id {qid} appears more than once")
        by_id[qid] = predicted
    known = {q.qid for q in questions}
    unknown = sorted(set(by_id) - known)
    if unknown:
        raise BadInput(f"predictions for unknown question ids: {', '.join(unknown)}")
    scores = []
    for q in questions:
        predicted = by_id.get(q.qid, [])
        scores.append(QuestionScore(
            qid=q.qid, query=q.query, lang=q.lang,
            precision=precision_at_k(predicted, q.relevant, k), hit=hit_at_k(predicted, q.relevant, k),
            reciprocal_rank=reciprocal_rank(predicted, q.relevant, k),
            first_rank=first_relevant_rank(predicted[:k], q.relevant),
            predicted=tuple(predicted[:k]), relevant=q.relevant, missing=q.qid not in by_id,
        ))
    return scores


def summarize(scores: Sequence[QuestionScore]) -> dict:
    """Means overall and per language: P@5, Hit@5, MRR@5."""
    def means(group: Sequence[QuestionScore]) -> dict:
        n = len(group) or 1
        return {
            "questions": len(group),
            "precision_at_5": round(sum(s.precision for s in group) / n, 4),
            "hit_at_5": round(sum(s.hit for s in group) / n, 4),
            "mrr_at_5": round(sum(s.reciprocal_rank for s in group) / n, 4),
        }

    languages = sorted({s.lang for s in scores})
    return {
        "overall": means(scores),
        "per_language": {lang: means([s for s in scores if s.lang == lang]) for lang in languages},
        "missing": [s.qid for s in scores if s.missing],
    }
