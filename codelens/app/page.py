"""CodeLens search page, a Streamlit script: `codelens app` runs it on the current repository's index,
`streamlit run app.py` (`make run`) in a checkout (index folder from CODELENS_DB, default ./chroma_db).
Nothing imports it, Streamlit runs it; it and the tabs it calls (codelens/app/tabs/) are the only
modules of the package that import streamlit.

Reads top to bottom: settings, the team token of an exposed page, the collection, the no-index
page, the open index warming up, the sidebar's filters, then four tabs (search, Precision@5
evaluation, index, task context), each drawn by its module. Library errors become st.error here.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import streamlit as st

from codelens.app.access import UNLOCKED_KEY, page_token, unlocks
from codelens.app.self_demo import is_own_source, own_source
from codelens.app.tabs.cards import KIND_LABELS
from codelens.app.tabs.context import render_context_tab
from codelens.app.tabs.evaluation import render_evaluation_tab
from codelens.app.tabs.index import build_with_progress, render_index_tab, show_run_under_way
from codelens.app.tabs.resources import (
    get_index,
    get_watcher,
    index_version,
    indexed_languages,
    wait_for_warm_up,
    warn_on_terminal,
)
from codelens.app.tabs.search import render_search_tab
from codelens.app.ui import example_path_prefix, watch_caption
from codelens.chunk import KINDS
from codelens.errors import CodeLensError, ModelMismatch
from codelens.exposure import EXPOSED_WARNING, is_loopback
from codelens.index.folder import named_collections
from codelens.index.metadata import read_stats
from codelens.index.watch import read_watch_status
from codelens.locations import IndexNotFound
from codelens.models import tune_threads_for_search
from codelens.search.filters import SearchFilters
from codelens.settings import Settings, default_source

tune_threads_for_search()  # before any cached resource loads a model

st.set_page_config(page_title="CodeLens — поиск по коду", page_icon=":material/manage_search:", layout="wide")
st.html("<style>[data-testid='stMainBlockContainer']{padding-top:2.5rem}</style>")  # less empty space on top

# ----------------------------------------------------------------- settings and index state

settings = Settings.from_env()
SERVED_ON = st.get_option("server.address") or "0.0.0.0"  # Streamlit's "" is every interface
EXPOSED = not is_loopback(SERVED_ON)
# ---- team access (codelens/app/access.py): on a network address, the team token before anything else
# (here, above the sidebar's collection names); a visitor who gave it is remembered in their session
if EXPOSED and not st.session_state.get(UNLOCKED_KEY):
    st.title(":material/lock: CodeLens")
    try:
        expected_token = page_token()
    except CodeLensError as exc:
        st.error(str(exc))
        st.stop()
    typed = st.text_input("Токен команды · team token", type="password")
    if typed and unlocks(typed, expected_token):
        st.session_state[UNLOCKED_KEY] = True
        st.rerun()
    if typed:
        st.error("Неверный токен · wrong token")
    st.stop()
# ---- end of team access
choices = ["", *named_collections(settings.db_path)]
if settings.collection not in choices:
    choices.append(settings.collection)
if len(choices) > 1:  # several codebases side by side: let the user pick one
    chosen = st.sidebar.selectbox("Кодовая база · collection", choices, index=choices.index(settings.collection),
                                  format_func=lambda name: name or "основной индекс (--db)")
    settings = replace(settings, collection=chosen)
index_dir = settings.index_dir
location = f"--db {settings.db_path}" + (f" --collection {settings.collection}" if settings.collection else "")

st.title(":material/manage_search: CodeLens")
st.caption("Семантический поиск по Python-коду на русском и английском · Semantic code search, RU / EN")
if EXPOSED:
    warn_on_terminal(SERVED_ON)
    st.warning(f"Страница доступна по сети ({SERVED_ON}): любой, кто до неё достучится и знает токен команды, "
               "прочитает весь проиндексированный код · " + EXPOSED_WARNING.format(address=SERVED_ON),
               icon=":material/public:")
if "flash" in st.session_state:
    st.success(st.session_state.pop("flash"))

try:
    stats = read_stats(index_dir)
except IndexNotFound:
    st.warning(f"Индекс не найден в `{index_dir}` · No index yet.")
    if show_run_under_way(index_dir):  # a first index run before its first swap: refresh the page soon
        st.caption("Индекс уже строится · an index run is building it: обновите страницу позже.")
    st.markdown("Постройте его одной командой в корне проекта (демо-код GymHero берётся автоматически):")
    st.code(f"python index.py {location}", language="bash")
    st.markdown("Другая кодовая база (zip, папка или git-checkout): "
                f"`python index.py --source ПУТЬ {location}`. Или прямо здесь:")
    demo = default_source() or own_source()
    if demo == own_source():
        st.caption("Демо-архива GymHero (codebase_python.zip) здесь нет: по умолчанию индексируется исходный "
                   "код самого CodeLens (пакет codelens/).")
    source = st.text_input("Что индексировать (zip или папка)", value=str(demo) if demo else "",
                           placeholder="/path/to/codebase.zip")
    if st.button("Построить индекс", icon=":material/build:", type="primary", disabled=not source.strip()):
        build_with_progress(Path(source.strip()), settings, EXPOSED)
    st.stop()
except CodeLensError as exc:
    st.error(str(exc))
    st.stop()

warm = get_index(settings, str(index_dir), settings.model, stats.source)
if not warm.done():
    wait_for_warm_up(warm)
try:
    index = warm.result()
    index.refresh()  # what the watcher (or an index run elsewhere) swapped in since the last page
except ModelMismatch as exc:
    get_index.clear()  # the next run tries again (after CODELENS_MODEL or the index changed)
    st.error(f"Модель не совпадает с индексом: индекс построен моделью `{exc.index_model}`, а запрошена "
             f"`{exc.requested_model}` (CODELENS_MODEL). Уберите CODELENS_MODEL или пересоберите индекс:")
    st.code(f"python index.py {location} --full --model {exc.requested_model}", language="bash")
    st.caption(str(exc))
    st.stop()
except CodeLensError as exc:
    get_index.clear()
    st.error(str(exc))
    st.stop()
if is_own_source(stats.source):
    st.info("Демо: поиск по исходному коду самого CodeLens (пакет `codelens/`) — архива GymHero "
            "(codebase_python.zip) на этой машине нет. Свой код: `python index.py --source ПУТЬ`.",
            icon=":material/info:")
if "warmed_in" in st.session_state:
    st.toast(f"Модели загружены, индекс открыт: прогрев занял {st.session_state.pop('warmed_in'):.1f} с",
             icon=":material/bolt:")

with st.sidebar:
    st.header("Фильтры")
    k = st.slider("Сколько результатов (k)", min_value=1, max_value=20, value=5)
    kinds = st.multiselect("Тип фрагмента (kind)", KINDS, format_func=lambda kind: KIND_LABELS[kind],
                           placeholder="все типы")
    path_prefix = st.text_input("Путь начинается с (path prefix)", placeholder=example_path_prefix(index))
    include_tests = st.toggle("Показывать тесты", value=False, help="По умолчанию код тестов скрыт")
    several_repositories = not index.workspace.is_single
    repos = (st.multiselect("Репозиторий (repository)", index.workspace.names, key="repos",
                            placeholder="все репозитории") if several_repositories else [])
    languages_held = indexed_languages(index, str(index_dir), index_version(index_dir))
    languages = st.multiselect("Язык (language)", list(languages_held), key="languages", placeholder="все языки",
                               format_func=lambda name: f"{name} · {languages_held[name]['chunks']}")
    st.divider()
    watcher, watch_note = get_watcher(settings, str(index_dir), stats.source)
    if watcher is not None:
        if st.toggle("Следить за изменениями в папке", value=True, key="watch",
                     help="Каждое сохранение файла попадает в индекс за секунды · watch the folder"):
            watcher.start()
        else:  # a short wait: an update under way finishes on its own, the page need not freeze for it
            watcher.stop(timeout=1.0)
        status = read_watch_status(index_dir)
        st.caption(watch_caption(status))
    else:
        st.caption(f"Слежение недоступно · {watch_note}")
    if stats.chroma_url:
        st.caption(f"Векторы на сервере ChromaDB: `{stats.chroma_url}`")
    st.caption(f"Индекс: `{index_dir}`  \nМодель: `{stats.model}`  \n"
               f"{stats.files} файлов · {stats.total_chunks} фрагментов")

if stats.dense_coverage < 1.0:  # a progressive index run is adding dense vectors
    st.info(f"Индекс ещё строится: смысловые векторы есть у {stats.dense_coverage:.0%} фрагментов. Поиск уже "
            "работает: по этим векторам и по ключевым словам для остальных; обновите страницу позже · "
            f"Index {stats.dense_coverage:.0%} embedded, search works meanwhile.", icon=":material/hourglass_top:")

# ----------------------------------------------------------------- the tabs

search_tab, eval_tab, index_tab, context_tab = st.tabs([
    ":material/search: Поиск", ":material/analytics: Метрики (Precision@5)", ":material/database: Индекс",
    ":material/account_tree: Контекст задачи"])
filters = SearchFilters(kinds=tuple(kinds), path_prefix=path_prefix.strip(), include_tests=include_tests,
                        repos=tuple(repos), languages=tuple(languages))
with search_tab:
    render_search_tab(index, settings, k, filters, stats.source, several_repositories)
with eval_tab:
    render_evaluation_tab(index, index_dir)
with index_tab:
    render_index_tab(index, stats, index_dir, languages_held, settings, EXPOSED)
with context_tab:
    render_context_tab(index, SearchFilters(path_prefix=path_prefix.strip(), include_tests=include_tests,
                                            repos=tuple(repos)))
