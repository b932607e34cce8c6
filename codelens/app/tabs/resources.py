"""What the page keeps across reruns and sessions (Streamlit's caches): the embedding model, the
open index warming up in the background, the folder's watcher, the file check of the result
cards, the index tab's repositories and the indexed languages; and the wait while the index warms.
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

from codelens.app.warm import WarmIndex
from codelens.exposure import EXPOSED_WARNING
from codelens.index.fresh import repository_status
from codelens.index.freshness import FileCheck, source_folder
from codelens.index.layout import IndexLayout
from codelens.index.metadata import read_stats
from codelens.index.watch import IndexWatcher, watcher_for
from codelens.models import Embedder, load_embedder
from codelens.open_index import OpenIndex
from codelens.search.filters import language_counts
from codelens.search.searcher import WARM_UP_QUERIES
from codelens.settings import Settings

FRESHNESS_TTL_S = 15  # the index tab's freshness of each repository is at most this old


@st.cache_resource(show_spinner="Загружаю модель эмбеддингов…")
def get_embedder(model_id: str) -> Embedder:
    return load_embedder(model_id)


@st.cache_resource(show_spinner=False)
def get_index(_settings: Settings, index_dir: str, model: str, source: str) -> WarmIndex:
    """One open index per folder and source (a rebuild from the page clears it); an update of the
    watcher is picked up by `OpenIndex.refresh` without a new warm-up. It opens and warms up in
    the background while the page renders (codelens/app/warm.py)."""
    return WarmIndex(_settings)


@st.cache_resource(show_spinner=False)
def get_watcher(_settings: Settings, index_dir: str, source: str) -> tuple[IndexWatcher | None, str]:
    """The watcher of the index's folder (one per process; a zip source has none)."""
    return watcher_for(_settings)


@st.cache_resource(show_spinner=False)
def get_file_check(source: str) -> FileCheck:
    return FileCheck(source_folder(source))


@st.cache_data(ttl=FRESHNESS_TTL_S, show_spinner=False)
def repository_rows(index_dir: str, version: tuple[int, int]) -> list[dict]:
    """The index tab's repositories with their freshness (a walk of the folders, a stat per file):
    every rerun runs the tab, so it is computed at most every FRESHNESS_TTL_S, and again at once
    when an update or index run swaps in a new index (`version`)."""
    return repository_status(Path(index_dir), read_stats(Path(index_dir)))


@st.cache_data(show_spinner=False, max_entries=8)
def indexed_languages(_index: OpenIndex, index_dir: str, version: tuple[int, int]) -> dict[str, dict[str, int]]:
    """Files and chunks per language of the open index (the filter's choices, the index tab's
    table): counted once per index version, not on every rerun."""
    return language_counts(_index.chunks.values())


def index_version(index_dir: Path) -> tuple[int, int]:
    """Changes with every swap of the index folder (its metadata is written anew)."""
    try:
        stat = IndexLayout(index_dir).metadata.stat()
    except OSError:
        return 0, 0
    return stat.st_ino, stat.st_mtime_ns


def wait_for_warm_up(warm: WarmIndex) -> None:
    """Say what the page is waiting for, and rerun it as soon as the index is warm."""
    st.info(f"Прогрев: открываю индекс и загружаю модели (e5, MiniLM, мост RU→EN) и задаю два пробных "
            f"вопроса ({' · '.join(WARM_UP_QUERIES)}), чтобы первый настоящий поиск не ждал. "
            f"Идёт {warm.elapsed_s():.0f} с…", icon=":material/hourglass_top:")

    @st.fragment(run_every=0.5)
    def poll() -> None:
        if warm.done():
            st.session_state["warmed_in"] = warm.elapsed_s()
            st.rerun()

    poll()
    st.stop()


@st.cache_resource(show_spinner=False)
def warn_on_terminal(address: str) -> None:
    """Said once per address on the terminal that runs the app (the page says it every time)."""
    print(f"warning: {EXPOSED_WARNING.format(address=address)}", file=sys.stderr, flush=True)
