"""eval_questions.json and sample_queries.txt: format, balance, and gold answers that exist."""

from __future__ import annotations

import re

import pytest

from codelens.evaluation import load_questions
from codelens.index.metadata import read_stats
from codelens.index.store import VectorStore
from tests.conftest import PROJECT_ROOT

QUESTIONS_FILE = PROJECT_ROOT / "eval_questions.json"
SAMPLES_FILE = PROJECT_ROOT / "sample_queries.txt"
TOPIC_PATHS = {  # the topics, each answered by at least one gold chunk under these paths
    "auth and tokens": ("gymhero/security.py", "gymhero/api/dependencies.py", "gymhero/api/routes/auth.py"),
    "configuration": ("gymhero/config.py",),
    "database session": ("gymhero/database/",),
    "generic CRUD": ("gymhero/crud/base.py",),
    "users": ("gymhero/crud/user.py", "gymhero/api/routes/user.py"),
    "exercises": ("gymhero/models/exercise.py", "gymhero/schemas/exercise.py", "gymhero/api/routes/exercise.py"),
    "training units and plans": ("gymhero/crud/training_unit.py", "gymhero/crud/training_plan.py"),
    "schemas": ("gymhero/schemas/",),
    "seeding scripts": ("scripts/",),
}
CYRILLIC = re.compile("[а-яё]", re.IGNORECASE)


@pytest.fixture(scope="module")
def questions():
    return load_questions(QUESTIONS_FILE)


def test_fifteen_questions_balanced_between_russian_and_english(questions) -> None:
    assert len(questions) == 15
    langs = [q.lang for q in questions]
    assert langs.count("ru") >= 7 and langs.count("en") >= 5
    assert set(langs) == {"ru", "en"}
    for q in questions:
        assert bool(CYRILLIC.search(q.query)) == (q.lang == "ru"), q.qid


def test_questions_do_not_copy_identifiers(questions) -> None:
    """Phrased as a newcomer asks: no snake_case or CamelCase word, no compound gold name.

    A plain word that happens to name a class ('exercise' for Exercise) is how people talk.
    """
    for q in questions:
        assert not re.search(r"\w_\w|[a-z][A-Z]", q.query), q.query
        for chunk_id in q.relevant:
            name = chunk_id.split("::")[1].rsplit(".", 1)[-1].strip("_")
            if "_" in name or re.search(r"[a-z][A-Z]", name):
                assert name.lower() not in q.query.lower(), (q.qid, name)


def test_every_topic_is_covered_and_some_questions_have_several_answers(questions) -> None:
    gold_paths = [c.split("::")[0] for q in questions for c in q.relevant]
    for topic, prefixes in TOPIC_PATHS.items():
        assert any(p.startswith(prefixes) for p in gold_paths), topic
    assert sum(len(q.relevant) > 1 for q in questions) >= 5
    assert all(len(set(q.relevant)) == len(q.relevant) for q in questions)


def test_gold_chunks_exist_in_the_demo_index_and_are_not_tests(questions, demo_index) -> None:
    store = VectorStore(demo_index.db_path, read_stats(demo_index.db_path).collection)
    chunks = {c.chunk_id: c for c in store.all_chunks()}
    for q in questions:
        for chunk_id in q.relevant:
            assert chunk_id in chunks, f"{q.qid}: {chunk_id} is not in the demo index"
            assert not chunks[chunk_id].is_test, f"{q.qid}: {chunk_id} is test code"


def test_sample_queries_are_twenty_distinct_lines_in_both_languages() -> None:
    lines = SAMPLES_FILE.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 20
    assert all(line.strip() == line and line for line in lines)
    assert len(set(lines)) == 20
    russian = sum(bool(CYRILLIC.search(line)) for line in lines)
    assert 7 <= russian <= 13
