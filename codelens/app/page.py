"""CodeLens search page, a Streamlit script: `codelens app` runs it on the current repository's index,
`streamlit run app.py` (`make run`) in a checkout (index folder from CODELENS_DB, default ./chroma_db).
The one module of the package that imports streamlit; nothing imports it, Streamlit runs it.

Reads top to bottom: settings, the cached model and open index, the no-index page, then three
tabs (search, Precision@5 evaluation, index). Library errors become st.error here.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd
import streamlit as st

from codelens.answer.llm import HOW_TO_ENABLE, ChatClient, LLMConfig
from codelens.answer.task_context import to_markdown
from codelens.app.access import UNLOCKED_KEY, page_token, unlocks
from codelens.app.highlight import code_view, has_real_line_numbers, query_terms, render_html, render_segments
from codelens.app.self_demo import is_own_source, own_source
from codelens.app.ui import (
    QUESTIONS_NAME,
    chunks_per_file,
    evaluation_frame,
    example_path_prefix,
    language_frame,
    questions_for_index,
    repository_frame,
    results_path,
    sample_queries,
    watch_caption,
)
from codelens.app.warm import WarmIndex
from codelens.chunk import CODE_KINDS, KINDS, Chunk
from codelens.errors import CodeLensError, ModelMismatch
from codelens.evaluation import load_questions, parse_questions_file, score_predictions, summarize
from codelens.exposure import EXPOSED_WARNING, check_index_source, is_loopback
from codelens.graph.model import CodeGraph
from codelens.graph.query import callees, callers, neighbourhood_dot
from codelens.index.build import build_index
from codelens.index.folder import named_collections
from codelens.index.fresh import repository_status
from codelens.index.freshness import FileCheck, source_folder
from codelens.index.layout import IndexLayout
from codelens.index.metadata import read_stats
from codelens.index.watch import IndexWatcher, read_watch_status, watcher_for
from codelens.locations import IndexNotFound
from codelens.models import Embedder, load_embedder, tune_threads_for_search
from codelens.open_index import OpenIndex
from codelens.search.filters import SearchFilters, language_counts
from codelens.search.matched import NAME
from codelens.search.searcher import WARM_UP_QUERIES, Hit
from codelens.settings import Settings, default_source

EVAL_K = 5
KIND_LABELS = {"function": "функция", "method": "метод", "class": "класс", "module": "модуль",
               "doc": "документ", "config": "конфигурация", "text": "текст"}
KIND_PLURALS = {"function": "Функции", "method": "Методы", "class": "Классы", "module": "Модули",
                "doc": "Документы", "config": "Конфигурация", "text": "Текст"}
KEYWORDS_ONLY = "найдено по ключевым словам (смыслового вектора ещё нет) · matched by keywords"
KIND_COLORS = {"function": "blue", "method": "violet", "class": "green", "module": "orange",
               "doc": "red", "config": "gray", "text": "gray"}
LANG_LABELS = {"ru": "русский", "en": "английский"}
MAX_NEIGHBOURS = 8  # callers / callees listed on a card
FRESHNESS_TTL_S = 15  # the index tab's freshness of each repository is at most this old

log = logging.getLogger("codelens.app")
tune_threads_for_search()  # before any cached resource loads a model

st.set_page_config(page_title="CodeLens — поиск по коду", page_icon=":material/manage_search:", layout="wide")
st.html("<style>[data-testid='stMainBlockContainer']{padding-top:2.5rem}</style>")  # less empty space on top


# ----------------------------------------------------------------- cached resources


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


def only_repository(name: str) -> None:
    """The facet's click: search this repository alone."""
    st.session_state["repos"] = [name]


def render_repository_facet(hits: list[Hit]) -> None:
    """How many of the hits each repository has; a click keeps the search to that one."""
    counts: dict[str, int] = {}
    for hit in hits:
        counts[hit.repo] = counts.get(hit.repo, 0) + 1
    columns = st.columns(len(counts) + 1, vertical_alignment="center")
    columns[0].caption("Репозитории в результатах · repositories")
    for column, (name, count) in zip(columns[1:], sorted(counts.items(), key=lambda item: -item[1]), strict=True):
        column.button(f"{name} · {count}", key=f"facet-{name}", on_click=only_repository, args=(name,),
                      type="tertiary", icon=":material/filter_alt:")


def use_sample() -> None:
    """A clicked example becomes the query; the pills reset so it can be clicked again."""
    if st.session_state.get("sample"):
        st.session_state["query"] = st.session_state["sample"]
    st.session_state["sample"] = None


@st.cache_resource(show_spinner=False)
def warn_on_terminal(address: str) -> None:
    """Said once per address on the terminal that runs the app (the page says it every time)."""
    print(f"warning: {EXPOSED_WARNING.format(address=address)}", file=sys.stderr, flush=True)


def build_with_progress(source: Path, settings: Settings, recorded_source: str = "") -> None:
    """Build (or rebuild) the index with a progress bar, then start over on the new index. A page
    reachable from the network indexes only the configured sources (codelens/exposure.py)."""
    try:
        configured = [default_source(), own_source(), Path(recorded_source) if recorded_source else None]
        source = check_index_source(source, EXPOSED, configured, list(settings.allowed_roots))
    except CodeLensError as exc:
        st.error(f"Не индексирую: {exc}")
        return
    bar = st.progress(0.0, text="Читаю и разбираю код…")

    def on_progress(done: int, total: int) -> None:
        bar.progress(done / total, text=f"Эмбеддинги: {done} из {total} фрагментов")

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


def open_chunk(chunk_id: str) -> None:
    st.session_state["opened"] = chunk_id


def render_neighbours(graph: CodeGraph, chunk: Chunk, key: str, include_tests: bool) -> None:
    """"Called by" and "calls" lists whose entries open that chunk, and the graph around it."""
    found = {"Вызывается из · called by": callers(graph, chunk.chunk_id, include_tests=include_tests),
             "Вызывает · calls": callees(graph, chunk.chunk_id, include_external=False)}
    if not any(found.values()):
        return
    for side, (column, (label, neighbours)) in enumerate(zip(st.columns(2), found.items(), strict=True)):
        column.caption(f"{label}: {len(neighbours)}")
        for index, neighbour in enumerate(neighbours[:MAX_NEIGHBOURS]):
            node = neighbour.node
            column.button(f"{node.symbol} · {node.path}:{node.start_line}", key=f"neighbour-{key}-{side}-{index}",
                          on_click=open_chunk, args=(node.node_id,), type="tertiary",
                          icon=":material/subdirectory_arrow_right:")
    with st.expander("Граф связей · call graph", icon=":material/account_tree:"):
        st.graphviz_chart(neighbourhood_dot(graph, chunk.chunk_id, depth=1))


def render_opened(chunk: Chunk, graph: CodeGraph | None, terms: tuple[str, ...], include_tests: bool) -> None:
    """A chunk opened from a caller/callee list, above the results, until closed."""
    with st.container(border=True, key="opened-chunk"):
        head, close = st.columns([6, 1], vertical_alignment="center")
        head.markdown(f":material/open_in_new: `{chunk.path}:{chunk.start_line}-{chunk.end_line}` &nbsp; "
                      f"**`{chunk.symbol}`** &nbsp; :{KIND_COLORS.get(chunk.kind, 'gray')}-badge"
                      f"[{KIND_LABELS.get(chunk.kind, chunk.kind)}]")
        close.button("Закрыть", key="close-opened", on_click=open_chunk, args=("",), icon=":material/close:")
        if chunk.line_spans:
            st.html(render_segments(chunk.code, chunk.line_spans, terms, max_lines=None)[0])
        else:
            numbered = has_real_line_numbers(chunk.code, chunk.start_line, chunk.end_line)
            st.html(render_html(code_view(chunk.code, chunk.start_line, terms, max_lines=None), terms,
                                numbered=numbered, path=chunk.path))
        if graph is not None:
            render_neighbours(graph, chunk, "opened", include_tests)


def render_answer_panel(question: str, hits: list[Hit], index: OpenIndex) -> None:
    """«Ответ»: an answer in words from the found code, its citations checked against the index."""
    st.subheader(":material/chat: Ответ · answer")
    try:
        config = LLMConfig.from_settings(settings)
    except CodeLensError as exc:
        st.error(str(exc))
        return
    if config is None:
        st.caption("Ответы словами выключены: нужна OpenAI-совместимая модель (например, Ollama).")
        st.code(HOW_TO_ENABLE, language="bash")
        return
    if not st.button("Сформулировать ответ по найденному коду", icon=":material/auto_awesome:", key="ask"):
        return
    placeholder = st.empty()
    shown: list[str] = []

    def on_token(piece: str) -> None:
        shown.append(piece)
        placeholder.markdown("".join(shown))

    def on_retry() -> None:
        shown.clear()
        placeholder.info("Ответ ссылался на код, которого нет в индексе — переспрашиваю…")

    try:
        answer = index.answer(question, hits, ChatClient(config), config.context_tokens,
                              on_token=on_token, on_retry=on_retry)
    except CodeLensError as exc:
        placeholder.error(f"Модель не ответила: {exc}")
        return
    placeholder.markdown(answer.text)
    rank_of = {hit.chunk_id: hit.rank for hit in hits}
    for citation in answer.citations:
        if not citation.verified:
            st.markdown(f":red-badge[:material/close: нет в индексе] `{citation.ref}`")
        elif citation.chunk_id in rank_of:
            st.markdown(f":green-badge[:material/check: проверено] `{citation.ref}` → результат "
                        f"**#{rank_of[citation.chunk_id]}** `{citation.chunk_id}`")
        else:
            st.markdown(f":green-badge[:material/check: проверено] `{citation.ref}` → `{citation.chunk_id}`")
            st.button("Открыть", key=f"cite-{citation.chunk_id}", on_click=open_chunk,
                      args=(citation.chunk_id,), type="tertiary")


FILE_STATE_BADGES = {"changed": ":orange-badge[:material/edit: файл изменён после индексации]",
                     "deleted": ":red-badge[:material/delete: файл удалён]"}


CONTEXT_ROLES = {"seed": "найдено поиском", "callee": "вызывается", "caller": "вызывает", "type": "тип",
                 "exception": "исключение", "configuration": "настройки", "test": "тест", "document": "документ"}
CONTEXT_BUDGETS = (1000, 2000, 4000, 8000, 16000, 27000)


def render_context_tab(index: OpenIndex, filters: SearchFilters) -> None:
    """Paste a task, get the code it needs packed to a budget: a token meter, the whole as Markdown
    (its copy button), each piece with where it is, why it is there and how far from a seed."""
    task = st.text_area("Задача: текст issue, баг-репорт или описание изменения", key="task", height=150,
                        placeholder="например: checkout raises PaymentDeclined for a valid card")
    budget = st.select_slider("Бюджет (токены e5)", CONTEXT_BUDGETS, value=8000, key="context_budget")
    if not task.strip():
        st.info("Вставьте текст задачи: поиск найдёт исходные фрагменты, граф кода добавит то, что они "
                "вызывают, кто их вызывает, исключения, настройки, тесты и документацию.")
        return
    try:
        packed = index.context(task, budget, filters)
    except CodeLensError as exc:
        st.error(str(exc))
        return
    st.progress(min(1.0, packed.tokens / packed.budget),
                text=f"{packed.tokens:,} из {packed.budget:,} токенов · {len(packed.pieces)} фрагментов")
    st.caption("Весь контекст в Markdown (кнопка копирования — справа вверху блока):")
    st.code(to_markdown(packed, task), language="markdown")
    for piece in packed.pieces:
        chunk = piece.chunk
        label = (f"{chunk.path}:{chunk.start_line}-{chunk.end_line} · `{chunk.symbol}` · "
                 f"{CONTEXT_ROLES.get(piece.role, piece.role)} · шагов от исходного: {piece.hops} · "
                 f"{piece.form} · {piece.tokens} ток.")
        with st.expander(label):
            st.code(piece.text, language="markdown")


def render_hit(hit: Hit, terms: tuple[str, ...], graph: CodeGraph | None, include_tests: bool,
               file_state: str = "", show_repo: bool = False) -> None:
    chunk = hit.chunk
    numbered = has_real_line_numbers(chunk.code, chunk.start_line, chunk.end_line)
    with st.container(border=True, key=f"hit-{hit.rank}"):
        head, score = st.columns([6, 1], vertical_alignment="center")
        badges = f":{KIND_COLORS.get(chunk.kind, 'gray')}-badge[{KIND_LABELS.get(chunk.kind, chunk.kind)}]"
        if show_repo and hit.repo:  # a workspace of several repositories: which one
            badges = f":blue-badge[:material/folder: {hit.repo}] " + badges
        if chunk.is_code and hit.language != chunk.kind:  # typescript, go...: which language the code is in
            badges += f" :gray-badge[{hit.language}]"
        if chunk.is_test:
            badges += " :gray-badge[тест]"
        if file_state in FILE_STATE_BADGES:  # never show stale code as current
            badges += " " + FILE_STATE_BADGES[file_state]
        head.markdown(f"**#{hit.rank}** &nbsp; `{chunk.path}:{chunk.start_line}-{chunk.end_line}` &nbsp; "
                      f"**`{chunk.symbol}`** &nbsp; {badges}")
        if hit.relevance is None:  # no vector yet (a progressive run) or for this chunk: no relevance to show
            score.caption(KEYWORDS_ONLY if hit.matched != NAME else "найдено по имени · matched by name")
        else:
            score.progress(min(max(hit.relevance / 100.0, 0.0), 1.0), text=f"релевантность **{hit.relevance:.0f}%**")
        summary = chunk.docstring.strip().splitlines()
        if summary:
            st.caption(summary[0])
        if chunk.line_spans:  # separate module-level statements: each block with its real lines
            preview_html, truncated = render_segments(chunk.code, chunk.line_spans, terms)
            st.html(preview_html)
            if truncated:
                with st.expander(f"Показать весь фрагмент (блоков: {len(chunk.line_spans)})"):
                    st.html(render_segments(chunk.code, chunk.line_spans, terms, max_lines=None)[0])
            if graph is not None:
                render_neighbours(graph, chunk, f"hit-{hit.rank}", include_tests)
            return
        preview = code_view(chunk.code, chunk.start_line, terms)
        st.html(render_html(preview, terms, numbered=numbered, path=chunk.path))
        if not numbered:
            st.caption("Модульный код: отдельные операторы файла собраны вместе, номера строк не показаны.")
        if preview.truncated:
            label = f"Показать весь фрагмент (строк: {preview.total_lines})"
            if preview.hidden_matches and numbered:
                label += " · совпадения в строках " + ", ".join(map(str, preview.hidden_matches[:6]))
            with st.expander(label):
                st.html(render_html(code_view(chunk.code, chunk.start_line, terms, max_lines=None), terms,
                                    numbered=numbered, path=chunk.path))
        if graph is not None:
            render_neighbours(graph, chunk, f"hit-{hit.rank}", include_tests)


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
        build_with_progress(Path(source.strip()), settings)
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

search_tab, eval_tab, index_tab, context_tab = st.tabs([
    ":material/search: Поиск", ":material/analytics: Метрики (Precision@5)", ":material/database: Индекс",
    ":material/account_tree: Контекст задачи"])

# ----------------------------------------------------------------- search

with search_tab:
    query = st.text_input("Вопрос или ключевые слова — Enter для поиска", key="query",
                          placeholder="например: как создаётся JWT-токен? · where are DB settings stored?")
    examples = sample_queries()
    if examples:
        with st.expander("Примеры запросов", icon=":material/lightbulb:", expanded=not query.strip()):
            st.pills("Примеры запросов", examples, key="sample", on_change=use_sample,
                     label_visibility="collapsed")
    if not query.strip():
        st.info("Введите вопрос на русском или английском — или выберите пример выше.")
    else:
        filters = SearchFilters(kinds=tuple(kinds), path_prefix=path_prefix.strip(), include_tests=include_tests,
                                repos=tuple(repos), languages=tuple(languages))
        started = time.perf_counter()
        try:
            hits = index.search(query, k=k, filters=filters)
        except CodeLensError as exc:
            st.error(str(exc))
            hits = None
        except Exception as exc:  # the page shows a message, never a traceback
            log.exception("search failed")
            st.error(f"Поиск не удался ({type(exc).__name__}): {exc}")
            hits = None
        latency_ms = (time.perf_counter() - started) * 1000.0
        if hits == []:
            st.warning("Ничего не найдено. Уберите фильтры (тип, путь) или переформулируйте вопрос.")
        elif hits:
            st.caption(f"{len(hits)} результатов за **{latency_ms:.0f} мс** · модель `{index.model}`")
            terms = query_terms(query)
            graph = index.graph
            opened = index.chunks.get(st.session_state.get("opened") or "")
            if opened is not None:
                render_opened(opened, graph, terms, include_tests)
            check = get_file_check(stats.source)
            if several_repositories and not repos:
                render_repository_facet(hits)
            for hit in hits:
                render_hit(hit, terms, graph, include_tests, check.state(hit.chunk.path, hit.file_hash),
                           show_repo=several_repositories)
            render_answer_panel(query, hits, index)

# ----------------------------------------------------------------- evaluation

with eval_tab:
    bundled_questions, questions_note = questions_for_index(index)
    results_file = results_path(index_dir)
    st.markdown(
        f"Каждый вопрос из `{bundled_questions.name if bundled_questions else QUESTIONS_NAME}` (или вашего файла "
        "в том же формате) проходит через тот же "
        "поиск. **Precision@5** = правильные фрагменты в топ-5 / min(5, число правильных). "
        f"Результат пишется в `{results_file}` (формат results.json, как у `python -m codelens eval`) — его же "
        "считает `python score.py`."
    )
    if questions_note:
        (st.info if bundled_questions else st.warning)(questions_note)
    uploaded = st.file_uploader("Свой файл вопросов (необязательно)", type=["json"])
    if st.button("▶ Запустить оценку", type="primary", disabled=uploaded is None and bundled_questions is None):
        try:
            if uploaded is not None:
                questions = parse_questions_file(uploaded.getvalue(), uploaded.name)
            else:
                questions = load_questions(bundled_questions)
            bar = st.progress(0.0, text="Оценка…")
            results = index.evaluate(
                questions, EVAL_K,
                on_progress=lambda done, total: bar.progress(done / total, text=f"Вопрос {done} из {total}"),
            )
            bar.empty()
            results_file.write_text(json.dumps(results, ensure_ascii=False, indent=2), encoding="utf-8")
            st.session_state["evaluation"] = {"results": results, "questions": questions,
                                              "written_to": str(results_file.resolve())}
        except CodeLensError as exc:
            st.error(f"Оценка не выполнена: {exc}")
        except OSError as exc:
            st.error(f"Не удалось записать {results_file}: {exc}")
        except Exception as exc:  # the page shows a message, never a traceback
            log.exception("evaluation failed")
            st.error(f"Оценка не выполнена ({type(exc).__name__}): {exc}")

    evaluation = st.session_state.get("evaluation")
    if evaluation:
        results = evaluation["results"]
        scores = score_predictions(results, evaluation["questions"], EVAL_K)
        summary = summarize(scores)
        overall = summary["overall"]
        columns = st.columns(2 + len(summary["per_language"]) + 1)
        columns[0].metric("Средний P@5", f"{overall['precision_at_5']:.2f}", help=f"{overall['questions']} вопросов")
        languages = sorted(summary["per_language"].items(), key=lambda item: item[0] != "ru")  # Russian first
        for column, (lang, group) in zip(columns[1:], languages, strict=False):
            column.metric(f"P@5 · {LANG_LABELS.get(lang, lang)}", f"{group['precision_at_5']:.2f}",
                          help=f"{group['questions']} вопросов")
        columns[-2].metric("Hit@5", f"{overall['hit_at_5']:.2f}")
        columns[-1].metric("MRR@5", f"{overall['mrr_at_5']:.2f}")
        frame = evaluation_frame(scores, results)
        st.bar_chart(frame, x="ID", y="P@5", color="Язык", y_label="P@5", x_label="вопрос", height=260)
        st.dataframe(frame, hide_index=True, column_config={
            "ID": st.column_config.TextColumn("ID", width="small"),
            "Вопрос": st.column_config.TextColumn("Вопрос", width="large"),
            "Язык": st.column_config.TextColumn("Язык", width="small"),
            "P@5": st.column_config.ProgressColumn("P@5", min_value=0.0, max_value=1.0, format="%.2f", width="small"),
            "Ранг 1-го верного": st.column_config.NumberColumn("Ранг 1-го верного", format="%d", width="small"),
            "Топ-5 (✓ верный)": st.column_config.ListColumn("Топ-5 (✓ верный)", width="large"),
            "Правильные ответы": st.column_config.ListColumn("Правильные ответы", width="medium"),
            "мс": st.column_config.NumberColumn("мс", format="%.0f", width="small"),
        })
        latencies = sorted(r["latency_ms"] for r in results["results"])
        st.caption(f"Записано в `{evaluation['written_to']}` · модель `{results['model']}` · k={results['k']} · "
                   f"медианная задержка {latencies[len(latencies) // 2]:.0f} мс")
        st.download_button("Скачать results.json", json.dumps(results, ensure_ascii=False, indent=2),
                           file_name="results.json", mime="application/json", icon=":material/download:")

# ----------------------------------------------------------------- index

with index_tab:
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
        build_with_progress(Path(source.strip()), settings, recorded_source=stats.source)

# ----------------------------------------------------------------- task context

with context_tab:
    render_context_tab(index, SearchFilters(path_prefix=path_prefix.strip(), include_tests=include_tests,
                                            repos=tuple(repos)))
