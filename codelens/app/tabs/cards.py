"""How the page shows a chunk: a result card (where it is, its kind and badges, the relevance, the
code with the query's words marked and a "show all" expander), a chunk opened above the results,
and the callers and callees whose entries open theirs, with the call graph around it.
"""

from __future__ import annotations

import streamlit as st

from codelens.app.highlight import code_view, has_real_line_numbers, render_html, render_segments
from codelens.chunk import Chunk
from codelens.graph.model import CodeGraph
from codelens.graph.query import callees, callers, neighbourhood_dot
from codelens.search.matched import BOTH, MEANING, NAME
from codelens.search.searcher import Hit

KIND_LABELS = {"function": "функция", "method": "метод", "class": "класс", "module": "модуль",
               "doc": "документ", "config": "конфигурация", "text": "текст"}
KEYWORDS_ONLY = "найдено по ключевым словам (смыслового вектора ещё нет) · matched by keywords"
FAST_MEANING = "найдено по смыслу, быстрым слоем (вектора e5 ещё нет) · matched by meaning, fast leg"
KIND_COLORS = {"function": "blue", "method": "violet", "class": "green", "module": "orange",
               "doc": "red", "config": "gray", "text": "gray"}
MAX_NEIGHBOURS = 8  # callers / callees listed on a card
FILE_STATE_BADGES = {"changed": ":orange-badge[:material/edit: файл изменён после индексации]",
                     "deleted": ":red-badge[:material/delete: файл удалён]"}


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
            st.html(render_segments(chunk.code, chunk.line_spans, terms, max_lines=None, path=chunk.path,
                                    language=chunk.script_language)[0])
        else:
            numbered = has_real_line_numbers(chunk.code, chunk.start_line, chunk.end_line)
            st.html(render_html(code_view(chunk.code, chunk.start_line, terms, max_lines=None), terms,
                                numbered=numbered, path=chunk.path, language=chunk.script_language))
        if graph is not None:
            render_neighbours(graph, chunk, "opened", include_tests)


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
            score.caption("найдено по имени · matched by name" if hit.matched == NAME else
                          FAST_MEANING if hit.matched in (MEANING, BOTH) else KEYWORDS_ONLY)
        else:
            score.progress(min(max(hit.relevance / 100.0, 0.0), 1.0), text=f"релевантность **{hit.relevance:.0f}%**")
        summary = chunk.docstring.strip().splitlines()
        if summary:
            st.caption(summary[0])
        if chunk.line_spans:  # separate module-level statements: each block with its real lines
            preview_html, truncated = render_segments(chunk.code, chunk.line_spans, terms, path=chunk.path,
                                                      language=chunk.script_language)
            st.html(preview_html)
            if truncated:
                with st.expander(f"Показать весь фрагмент (блоков: {len(chunk.line_spans)})"):
                    st.html(render_segments(chunk.code, chunk.line_spans, terms, max_lines=None,
                                            path=chunk.path, language=chunk.script_language)[0])
            if graph is not None:
                render_neighbours(graph, chunk, f"hit-{hit.rank}", include_tests)
            return
        preview = code_view(chunk.code, chunk.start_line, terms)
        st.html(render_html(preview, terms, numbered=numbered, path=chunk.path, language=chunk.script_language))
        if not numbered:
            st.caption("Модульный код: отдельные операторы файла собраны вместе, номера строк не показаны.")
        if preview.truncated:
            label = f"Показать весь фрагмент (строк: {preview.total_lines})"
            if preview.hidden_matches and numbered:
                label += " · совпадения в строках " + ", ".join(map(str, preview.hidden_matches[:6]))
            with st.expander(label):
                st.html(render_html(code_view(chunk.code, chunk.start_line, terms, max_lines=None), terms,
                                    numbered=numbered, path=chunk.path, language=chunk.script_language))
        if graph is not None:
            render_neighbours(graph, chunk, f"hit-{hit.rank}", include_tests)


