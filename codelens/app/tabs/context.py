"""The task context tab: a task pasted in (an issue, a bug report), the code it needs packed to a
token budget (search finds the seeds, the code graph adds what they call, their callers, types,
exceptions, settings, tests and documents), shown whole as Markdown and piece by piece.
"""

from __future__ import annotations

import streamlit as st

from codelens.answer.task_context import to_markdown
from codelens.answer.token_count import DEFAULT_TOKENIZER, TOKENIZERS
from codelens.errors import CodeLensError
from codelens.open_index import OpenIndex
from codelens.search.filters import SearchFilters

CONTEXT_ROLES = {"seed": "найдено поиском", "callee": "вызывается", "caller": "вызывает", "type": "тип",
                 "exception": "исключение", "configuration": "настройки", "test": "тест", "document": "документ"}
CONTEXT_BUDGETS = (1000, 2000, 4000, 8000, 16000, 27000)
TOKENIZER_LABELS = {"o200k": "o200k (GPT-4o и новее)", "cl100k": "cl100k (GPT-4)", "e5": "e5 (модель поиска)"}


def render_context_tab(index: OpenIndex, filters: SearchFilters) -> None:
    """Paste a task, get the code it needs packed to a budget: a token meter, the whole as Markdown
    (its copy button), each piece with where it is, why it is there and how far from a seed."""
    task = st.text_area("Задача: текст issue, баг-репорт или описание изменения", key="task", height=150,
                        placeholder="например: checkout raises PaymentDeclined for a valid card")
    budget = st.select_slider("Бюджет (токены)", CONTEXT_BUDGETS, value=8000, key="context_budget")
    left, right = st.columns(2)
    tokenizer = left.selectbox("Токенизатор бюджета", TOKENIZERS, index=TOKENIZERS.index(DEFAULT_TOKENIZER),
                               format_func=TOKENIZER_LABELS.get, key="context_tokenizer")
    line_numbers = right.checkbox("Номер у каждой строки (иначе начальная строка в заголовке)",
                                  key="context_line_numbers")
    if not task.strip():
        st.info("Вставьте текст задачи: поиск найдёт исходные фрагменты, граф кода добавит то, что они "
                "вызывают, кто их вызывает, исключения, настройки, тесты и документацию.")
        return
    try:
        packed = index.context(task, budget, filters, tokenizer, line_numbers)
    except CodeLensError as exc:
        st.error(str(exc))
        return
    st.progress(min(1.0, packed.tokens / packed.budget),
                text=f"{packed.tokens:,} из {packed.budget:,} токенов ({packed.tokenizer}) · "
                     f"{len(packed.pieces)} фрагментов")
    st.caption("Весь контекст в Markdown (кнопка копирования — справа вверху блока):")
    st.code(to_markdown(packed, task), language="markdown")
    for piece in packed.pieces:
        chunk = piece.chunk
        label = (f"{chunk.path}:{chunk.start_line}-{chunk.end_line} · `{chunk.symbol}` · "
                 f"{CONTEXT_ROLES.get(piece.role, piece.role)} · шагов от исходного: {piece.hops} · "
                 f"{piece.form} · {piece.tokens} ток.")
        with st.expander(label):
            st.code(piece.text, language="markdown")
