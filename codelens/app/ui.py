"""What the Streamlit page (app.py) shows, computed without Streamlit: which bundled questions
file fits the open index, the evaluation table, example queries, files by chunk count, and
where the evaluation tab writes results.json.

The bundled questions and sample queries are the demo's, at the root of a CodeLens checkout
(`make run`). An installed CodeLens (`codelens app` in the user's repository) has no checkout:
its index is the user's code, which the demo's gold answers never name, so the page offers no
bundled questions there (an uploaded questions file still runs) and shows no sample queries,
and it writes results.json beside the index rather than into the user's repository.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pandas as pd

from codelens.app.self_demo import QUESTION_FILES, best_questions_file, questions_fit
from codelens.errors import CodeLensError
from codelens.evaluation import QuestionScore, load_questions
from codelens.index import progress, progress_stages
from codelens.index.layout import IndexLayout
from codelens.index.watch import STARTING, STOPPED, UP_TO_DATE, UPDATING, WatchStatus
from codelens.open_index import OpenIndex

PROJECT_ROOT = Path(__file__).resolve().parents[2]  # a checkout's root; site-packages when installed
QUESTIONS_NAME = "eval_questions.json"
SAMPLE_QUERIES_NAME = "sample_queries.txt"
RESULTS_NAME = "results.json"
NO_BUNDLED_QUESTIONS = (
    "Встроенных вопросов здесь нет: это установленный CodeLens, а `eval_questions.json` из репозитория "
    "CodeLens спрашивает только про демо-код (GymHero). Загрузите свой файл вопросов про эту кодовую базу в том "
    'же формате: `{"questions": [{"id", "query", "lang", "relevant": [chunk_id, ...]}]}` · No bundled questions '
    "in an installed CodeLens: upload a questions file about this codebase.")


def checkout_root() -> Path | None:
    """The CodeLens checkout the page runs from (its root holds app.py next to the package), or
    None for an installed CodeLens, whose package sits in site-packages without the demo's files."""
    root = PROJECT_ROOT
    return root if (root / "app.py").is_file() and (root / "codelens").is_dir() else None


def bundled_file(name: str) -> Path | None:
    """A file the checkout ships at its root (the demo's questions, sample queries), if here."""
    root = checkout_root()
    return root / name if root is not None and (root / name).is_file() else None


def results_path(index_dir: Path) -> Path:
    """Where the evaluation tab writes results.json: in a checkout the working directory, as
    before and as `python -m codelens eval` does (`make run`: the checkout); an installed
    CodeLens beside the index, never into the user's repository that `codelens app` runs in."""
    if checkout_root() is not None:
        return Path.cwd() / RESULTS_NAME
    return IndexLayout(index_dir).results


def questions_for_index(index: OpenIndex) -> tuple[Path | None, str]:
    """The bundled questions file whose gold chunk ids this index holds, and what to tell the user
    when it is not eval_questions.json (GymHero's questions score 0 on any other codebase), or
    that an installed CodeLens has none."""
    root = checkout_root()
    if root is None:
        return None, NO_BUNDLED_QUESTIONS
    default_path = root / QUESTIONS_NAME
    fits = []
    for name in QUESTION_FILES:
        try:
            fits.append(questions_fit(root / name, load_questions(root / name), index.chunks.keys()))
        except CodeLensError:  # missing or malformed: not a candidate
            continue
    best = best_questions_file(fits)
    default = next((fit for fit in fits if fit.path == default_path), None)
    if best is not None and best.path == default_path:
        return best.path, ""
    held = f"{default.found} из {default.gold_ids}" if default else "0"
    if best is None:
        return None, (f"Правильные ответы `{QUESTIONS_NAME}` (GymHero) не из этого индекса: в нём {held} "
                      "эталонных фрагментов, и ни один из файлов вопросов проекта не подходит. Оценка дала бы "
                      "P@5 = 0 — загрузите свой файл вопросов про эту кодовую базу.")
    return best.path, (f"Правильные ответы `{QUESTIONS_NAME}` (GymHero) не из этого индекса (в нём {held} "
                       f"эталонных фрагментов), поэтому беру `{best.path.name}`: в индексе {best.found} из "
                       f"{best.gold_ids} его эталонных фрагментов.")


def chunks_per_file(index: OpenIndex) -> list[tuple[str, int]]:
    return Counter(c.path for c in index.chunks.values()).most_common()


def example_path_prefix(index: OpenIndex) -> str:
    """The folder with the most code in this index (`gymhero/crud/`), as the path filter's example."""
    folders = Counter(c.path.rsplit("/", 1)[0] + "/" for c in index.chunks.values() if "/" in c.path and not c.is_test)
    return folders.most_common(1)[0][0] if folders else "src/"


def sample_queries() -> list[str]:
    """The checkout's example questions (about the demo); none for an installed CodeLens."""
    path = bundled_file(SAMPLE_QUERIES_NAME)
    if path is None:
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip()]


def evaluation_frame(scores: list[QuestionScore], results: dict) -> pd.DataFrame:
    latency = {r["id"]: r["latency_ms"] for r in results["results"]}
    rows = []
    for s in scores:
        relevant = set(s.relevant)
        rows.append({
            "ID": s.qid, "Вопрос": s.query, "Язык": s.lang, "P@5": round(s.precision, 3),
            "Ранг 1-го верного": s.first_rank,
            "Топ-5 (✓ верный)": [("✓ " if c in relevant else "✗ ") + c for c in s.predicted],
            "Правильные ответы": list(s.relevant), "мс": latency.get(s.qid),
        })
    return pd.DataFrame(rows)


_WATCH_STATES = {UP_TO_DATE: "индекс актуален", STARTING: "запускается", STOPPED: "остановлено"}
_RUN_PHASES = {progress_stages.SCANNING: "чтение индекса", progress_stages.CHUNKING: "разбор файлов",
               progress_stages.SEARCHABLE: "индекс для поиска", progress_stages.EMBEDDING: "векторы e5",
               progress_stages.STORING: "запись в ChromaDB",
               progress_stages.BUILDING_SIDECARS: "вспомогательные индексы",
               progress_stages.PUBLISH: "замена индекса", progress_stages.TESTS: "векторы тестов"}


def run_progress_caption(report: progress.RunReport) -> str:
    """An index run under way in the page's language (RunReport.line() says it in English for the CLI):
    `Идёт индексация: векторы e5 (4,210/9,811) · готово 43% · осталось ≈02:11`."""
    stage = _RUN_PHASES.get(report.phase, report.phase) + (f": {report.step}" if report.step else "")
    parts = [f"Идёт индексация: {stage}" + (f" ({report.count})" if report.count else "")]
    if report.share is None:
        parts.append("объём работы ещё считается")
    else:
        parts.append(f"готово {report.share:.0%}")
    if report.seconds_left is not None:
        parts.append(f"осталось ≈{progress_stages.clock_text(report.seconds_left)}")
    return " · ".join(parts)


def watch_caption(status: WatchStatus | None) -> str:
    """The watcher's status in the page's language (WatchStatus.line() says it in English for the CLI)."""
    if status is None:
        return "Слежение: выключено"
    if status.state == UPDATING and not status.pending_files:
        head = "обновляю индекс (проверяю все файлы)"
    elif status.state == UPDATING:
        head = f"обновляю {status.pending_files} {files_word(status.pending_files)}"
    else:
        head = _WATCH_STATES.get(status.state, status.state)
    parts = [f"Слежение: {head}"]
    if status.last_update:
        parts.append(f"последнее обновление {status.last_update}")
    if status.last_error:
        parts.append(f"последняя ошибка: {status.last_error}")
    if status.last_warnings:
        parts.append(f"предупреждений: {len(status.last_warnings)} (например, {status.last_warnings[0]})")
    return ", ".join(parts)


def language_frame(counts: dict[str, dict[str, int]]) -> pd.DataFrame:
    """The index tab's table of languages (search/filters.py `language_counts`): code languages by
    name, documents and configuration by their kind (doc, config, text)."""
    return pd.DataFrame([(name, row["files"], row["chunks"]) for name, row in counts.items()],
                        columns=["Язык", "Файлов", "Фрагментов"])


def repository_frame(rows: list[dict]) -> pd.DataFrame:
    """The index tab's table of repositories (index/fresh.py `repository_status`): files, chunks,
    when the index last changed their files, and how many differ from the disk now."""
    return pd.DataFrame([(r["name"], r["files"], r["chunks"], r["updated_at"] or "неизвестно", freshness_cell(r))
                         for r in rows], columns=["Репозиторий", "Файлов", "Фрагментов", "Обновлён", "Свежесть"])


def freshness_cell(row: dict) -> str:
    """A repository's freshness in the page's language (index/fresh.py `freshness_text` for the CLI)."""
    if row.get("stale_files") is None:
        return "н/д (zip или источника нет на диске)"
    if not row["stale_files"]:
        return "актуален"
    parts = [f"{label} {row[key]}" for key, label in (("changed", "изменено"), ("deleted", "удалено"),
                                                       ("new", "новых")) if row[key]]
    return f"отстаёт на {row['stale_files']} {files_word(row['stale_files'])} ({', '.join(parts)})"


def files_word(count: int) -> str:
    """файл / файла / файлов, as Russian agrees a noun with a number."""
    if count % 10 == 1 and count % 100 != 11:
        return "файл"
    if 2 <= count % 10 <= 4 and not 12 <= count % 100 <= 14:
        return "файла"
    return "файлов"
