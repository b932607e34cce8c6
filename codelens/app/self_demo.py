"""The demo every checkout has: CodeLens's own source, when the GymHero zip is nowhere.

A clone outside this project's machines has neither `./codebase_python.zip` nor
`../shared/`; `make run` then indexes the `codelens/` package itself ("search CodeLens
itself"), and the evaluation tab picks the questions file whose gold chunk ids the open
index holds (`eval_questions_codelens.json` for this demo) instead of scoring GymHero's
questions against it as zeros.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from codelens.evaluation import Question

PROJECT_ROOT = Path(__file__).resolve().parents[2]
QUESTION_FILES = ("eval_questions.json", "eval_questions_codelens.json")
# A questions file fits an index when at least this share of its gold ids are in it; the
# rest may be code that moved since the questions were written.
FIT_THRESHOLD = 0.8


def own_source() -> Path:
    """The `codelens` package folder of this checkout: real Python code on every machine."""
    return Path(__file__).resolve().parents[1]


def is_own_source(recorded_source: str) -> bool:
    """Whether an index was built from this checkout's own package (index_metadata `source`)."""
    try:
        return Path(recorded_source).resolve() == own_source()
    except (OSError, ValueError):
        return False


@dataclass(frozen=True)
class QuestionsFit:
    path: Path
    gold_ids: int
    found: int

    @property
    def share(self) -> float:
        return self.found / self.gold_ids if self.gold_ids else 0.0

    @property
    def fits(self) -> bool:
        return self.gold_ids > 0 and self.share >= FIT_THRESHOLD


def questions_fit(path: Path, questions: Sequence[Question], chunk_ids: Collection[str]) -> QuestionsFit:
    """How many of a questions file's gold chunk ids the index holds."""
    gold = {chunk_id for question in questions for chunk_id in question.relevant}
    return QuestionsFit(path, len(gold), sum(1 for chunk_id in gold if chunk_id in chunk_ids))


def best_questions_file(fits: Sequence[QuestionsFit]) -> QuestionsFit | None:
    """The file that fits the index best, or None when none fits."""
    fitting = [fit for fit in fits if fit.fits]
    return max(fitting, key=lambda fit: fit.share) if fitting else None
