"""The index tab: an index run under way (its stage, share done and time left, from any process),
what the open index holds (files, chunks per kind, languages, repositories and their freshness,
coverage of the vectors, secrets masked, warnings, the largest files), and a rebuild from a source
with the run's one progress bar, which the no-index page uses as well.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd
import streamlit as st

from codelens.app.self_demo import own_source
from codelens.app.tabs.resources import get_embedder, get_index, index_version, repository_rows
from codelens.app.ui import chunks_per_file, language_frame, repository_frame, run_progress_caption
from codelens.chunk import CODE_KINDS, KINDS
from codelens.errors import CodeLensError
from codelens.exposure import check_index_source
from codelens.index.build import build_index
from codelens.index.metadata import IndexStats
from codelens.index.progress import current_report, read_run_progress
from codelens.open_index import OpenIndex
from codelens.settings import Settings, default_source

KIND_PLURALS = {"function": "Функции", "method": "Методы", "class": "Классы", "module": "Модули",
                "doc": "Документы", "config": "Конфигурация", "text": "Текст"}

log = logging.getLogger("codelens.app")


def render_index_tab(index: OpenIndex, stats: IndexStats, index_dir: Path, languages_held: dict[str, dict[str, int]],
                     settings: Settings, exposed: bool) -> None:
    """The index's numbers and tables, then «Переиндексация» from the recorded source; above them,
    an index run under way (from any process: its progress file)."""
    show_run_under_way(index_dir)
    kinds_count = stats.chunks_per_kind
    shown_kinds = [kind for kind in KINDS if kind in CODE_KINDS or kinds_count.get(kind)]
    columns = st.columns(2 + len(shown_kinds))
    columns[0].metric("Файлов", stats.files)
    columns[1].metric("Фрагментов", stats.total_chunks)
    for column, kind in zip(columns[2:], shown_kinds, strict=True):
        column.metric(KIND_PLURALS[kind], kinds_count.get(kind, 0))
    st.markdown(f"**Модель:** `{stats.model}` · **построен:** {stats.indexed_at} · "
                f"**за** {stats.duration_s:.1f} с · **источник:** `{stats.source}`")
    st.progress(stats.dense_coverage, text=f"Смысловые векторы (dense coverage): {stats.dense_coverage:.0%}")
    st.subheader(f"Языки: {len(languages_held)}")
    st.dataframe(language_frame(languages_held), hide_index=True)
    repositories = repository_rows(str(index_dir), index_version(index_dir))
    st.subheader(f"Репозитории: {len(repositories)}")
    st.dataframe(repository_frame(repositories), hide_index=True)
    if stats.test_coverage < 1.0:  # index/test_vectors.py: they follow the complete index
        st.progress(stats.test_coverage, text=f"Векторы тестов (test coverage): {stats.test_coverage:.0%} - "
                    "поиск без тестов уже полный; тесты пока находятся по ключевым словам")
    if stats.secrets_masked:
        masked = ", ".join(f"{kind}: {count}" for kind, count in stats.secrets_masked.items())
        st.markdown(f":material/lock: **Секреты замаскированы** перед индексацией: "
                    f"{sum(stats.secrets_masked.values())} ({masked}). В коде они показаны как `<secret:…>`.")
    if stats.warnings:
        with st.expander(f"Предупреждения индексации: {len(stats.warnings)}"):
            st.text("\n".join(stats.warnings))
    try:
        largest = chunks_per_file(index)[:10]
        st.subheader("Самые крупные файлы (по числу фрагментов)")
        st.dataframe(pd.DataFrame(largest, columns=["Файл", "Фрагментов"]), hide_index=True)
    except CodeLensError as exc:
        st.error(str(exc))

    st.subheader("Переиндексация")
    recorded = Path(stats.source)
    fallback = default_source()
    source = st.text_input("Источник (zip или папка)",
                           value=str(recorded if recorded.exists() else fallback or ""), key="reindex_source")
    if st.button("Переиндексировать", icon=":material/refresh:", disabled=not source.strip()):
        build_with_progress(Path(source.strip()), settings, exposed, recorded_source=stats.source)


def show_run_under_way(index_dir: Path) -> bool:
    """An index run under way on this index, as a bar with its stage, share and time left; whether there is one."""
    running = read_run_progress(index_dir)
    if running is not None:
        st.progress(running.share or 0.0, text=run_progress_caption(running))
    return running is not None


def build_with_progress(source: Path, settings: Settings, exposed: bool, recorded_source: str = "") -> None:
    """Build (or rebuild) the index with a progress bar, then start over on the new index. A page
    reachable from the network indexes only the configured sources (codelens/exposure.py)."""
    try:
        configured = [default_source(), own_source(), Path(recorded_source) if recorded_source else None]
        source = check_index_source(source, exposed, configured, list(settings.allowed_roots))
    except CodeLensError as exc:
        st.error(f"Не индексирую: {exc}")
        return
    bar = st.progress(0.0, text="Читаю и разбираю код…")

    def on_progress(done: int, total: int) -> None:  # the whole run, per mille (index/progress.py)
        running = current_report()
        text = run_progress_caption(running) if running is not None else "Индексация"
        bar.progress(done / total, text=text)

    try:
        stats = build_index(source, settings.with_overrides(show_progress=False),
                            embedder=get_embedder(settings.build_model), on_progress=on_progress)
    except CodeLensError as exc:
        bar.empty()
        st.error(f"Не удалось построить индекс: {exc}")
        return
    except Exception as exc:  # the page shows a message, never a traceback
        log.exception("indexing failed")
        bar.empty()
        st.error(f"Не удалось построить индекс ({type(exc).__name__}): {exc}")
        return
    get_index.clear()
    st.session_state["flash"] = (f"Индекс построен: {stats.files} файлов, {stats.total_chunks} фрагментов "
                                 f"за {stats.duration_s:.0f} с.")
    st.rerun()
