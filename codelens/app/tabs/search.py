"""The search tab: the query box and its examples, the results as cards (an opened chunk above
them, the repositories facet of a workspace), and the answer in words from the found code with
its citations checked against the index.
"""

from __future__ import annotations

import logging
import time

import streamlit as st

from codelens.answer.llm import HOW_TO_ENABLE, ChatClient, LLMConfig
from codelens.app.highlight import query_terms
from codelens.app.tabs.cards import open_chunk, render_hit, render_opened
from codelens.app.tabs.resources import get_file_check
from codelens.app.ui import sample_queries
from codelens.errors import CodeLensError
from codelens.open_index import OpenIndex
from codelens.search.filters import SearchFilters
from codelens.search.searcher import Hit
from codelens.settings import Settings

log = logging.getLogger("codelens.app")


def render_search_tab(index: OpenIndex, settings: Settings, k: int, filters: SearchFilters, source: str,
                      several_repositories: bool) -> None:
    """The query (typed, or an example clicked), the `k` hits under the sidebar's `filters`, each a
    card that says whether its file in `source` changed since indexing, then the answer panel."""
    query = st.text_input("Вопрос или ключевые слова — Enter для поиска", key="query",
                          placeholder="например: как создаётся JWT-токен? · where are DB settings stored?")
    examples = sample_queries()
    if examples:
        with st.expander("Примеры запросов", icon=":material/lightbulb:", expanded=not query.strip()):
            st.pills("Примеры запросов", examples, key="sample", on_change=use_sample,
                     label_visibility="collapsed")
    if not query.strip():
        st.info("Введите вопрос на русском или английском — или выберите пример выше.")
        return
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
            render_opened(opened, graph, terms, filters.include_tests)
        check = get_file_check(source)
        if several_repositories and not filters.repos:
            render_repository_facet(hits)
        for hit in hits:
            render_hit(hit, terms, graph, filters.include_tests, check.state(hit.chunk.path, hit.file_hash),
                       show_repo=several_repositories)
        render_answer_panel(query, hits, index, settings)


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


def render_answer_panel(question: str, hits: list[Hit], index: OpenIndex, settings: Settings) -> None:
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
