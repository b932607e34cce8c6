"""Answers in words over the found code: a grounded prompt, the model, checked citations.

Pure core: the only I/O goes through the `ChatModel` that `answer_question` is given.
Flow: search hits (+ code-graph neighbours) -> `context.pack_context` within a token budget ->
`build_messages` -> model -> `citations.check_citations` against the whole index -> one
regeneration when something cited does not exist -> `mark_unverified` on whatever is still invented.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from codelens.answer.citations import Citation, check_citations, mark_unverified
from codelens.answer.context import ChunkCatalog, Neighbours, PackedContext, pack_context
from codelens.answer.llm import DEFAULT_CONTEXT_TOKENS, ChatModel, Message, TokenCallback
from codelens.chunk import Chunk

if TYPE_CHECKING:
    from codelens.search.searcher import Hit

NOT_FOUND = {"en": "Not found in the index.", "ru": "В индексе не найдено."}
_LANGUAGE_NAMES = {"en": "English", "ru": "Russian"}

# ------------------------------------------------------------------ language


_CYRILLIC_WORD = re.compile(r"[А-Яа-яЁё]{2,}")
_PLAIN_LATIN_WORD = re.compile(r"(?<![\w.])[A-Za-z]{2,}(?![\w.])")  # identifiers (_ . digits) are code
_CODE_SPAN = re.compile(r"`[^`\n]*`")


def question_language(question: str) -> str:
    """"ru" when Cyrillic words are at least as many as plain English ones: Russian questions name English code."""
    prose = _CODE_SPAN.sub(" ", question)
    cyrillic = len(_CYRILLIC_WORD.findall(prose))
    return "ru" if cyrillic and cyrillic >= len(_PLAIN_LATIN_WORD.findall(prose)) else "en"


def is_not_found(text: str) -> bool:
    """Whether the model answered with the not-found sentence (in either language)."""
    said = text.strip().strip("*_\"'«» ").lower()
    return any(said.startswith(phrase.rstrip(".").lower()) for phrase in NOT_FOUND.values())


# ------------------------------------------------------------------ prompt


SYSTEM_PROMPT = """\
You answer questions about one codebase. All you know of it is the code excerpts in the user's \
message, found by a search index over that codebase.

Rules:
1. Answer only from the excerpts. Do not fill gaps with general knowledge of libraries or \
frameworks, and never invent file names, line numbers or symbols.
2. If the excerpts do not contain the answer, reply with exactly this sentence and nothing else: {not_found}
3. Cite the code behind each statement as path:line or path:start-end, using the paths and line \
numbers shown in the excerpts (for example {example_ref}), or name a function, class or method \
in backticks (for example `{example_symbol}`).
4. Write the answer in {language}; keep code identifiers exactly as they are written in the code.
5. Be brief: a few sentences or a short list."""

USER_PROMPT = """\
Code excerpts from the index:

{context}

Question: {question}"""

RETRY_PROMPT = """\
Your answer cites things that are not in the excerpts: {refs}. Write the answer again in \
{language}, citing only paths, line numbers and symbols shown in the excerpts above. If they do \
not answer the question, reply with exactly: {not_found}"""


def build_messages(question: str, context: PackedContext, language: str) -> list[Message]:
    """The system rules (grounding, not-found sentence, citation form, language) and the excerpts + question."""
    example = context.blocks[0].chunk if context.blocks else None
    system = SYSTEM_PROMPT.format(
        not_found=NOT_FOUND[language], language=_LANGUAGE_NAMES[language],
        example_ref=f"{example.path}:{example.start_line}" if example else "app/models.py:12",
        example_symbol=example.name if example and example.kind != "module" else "create_user",
    )
    return [{"role": "system", "content": system},
            {"role": "user", "content": USER_PROMPT.format(context=context.text, question=question.strip())}]


def retry_messages(messages: Sequence[Message], draft: str, invented: Sequence[Citation],
                   language: str) -> list[Message]:
    refs = ", ".join(citation.ref for citation in invented)
    feedback = RETRY_PROMPT.format(refs=refs, language=_LANGUAGE_NAMES[language], not_found=NOT_FOUND[language])
    return [*messages, {"role": "assistant", "content": draft}, {"role": "user", "content": feedback}]


# ------------------------------------------------------------------ answering


@dataclass(frozen=True)
class Answer:
    question: str
    text: str  # what to show: the model's answer, invented citations followed by UNVERIFIED_MARK
    citations: tuple[Citation, ...]
    context: PackedContext  # what the model was shown
    language: str  # "ru" or "en", the question's
    found: bool  # False when the model said the excerpts do not answer it, or there were none
    attempts: int  # model calls: 2 when invented citations made it answer again

    @property
    def unverified(self) -> tuple[Citation, ...]:
        return tuple(c for c in self.citations if not c.verified)

    def to_dict(self) -> dict:
        """The `ask --json` shape."""
        return {"answer": self.text, "citations": [c.to_dict() for c in self.citations]}


def answer_question(
    question: str, hits: Sequence[Hit | Chunk], client: ChatModel, catalog: ChunkCatalog, *,
    neighbours: Neighbours | None = None, budget_tokens: int = DEFAULT_CONTEXT_TOKENS,
    on_token: TokenCallback | None = None, on_retry: Callable[[], None] | None = None,
    regenerate: bool = True,
) -> Answer:
    """Answer from the hits (and their graph neighbours) only; stream deltas to on_token when given.

    When the first answer cites something the index lacks, on_retry is called and the model answers
    once more (streaming again); the answer with fewer invented citations is kept and those left are marked.
    """
    language = question_language(question)
    context = pack_context([h if isinstance(h, Chunk) else h.chunk for h in hits], catalog, neighbours,
                           budget_tokens)
    if not context.blocks:
        return Answer(question, NOT_FOUND[language], (), context, language, found=False, attempts=0)
    messages = build_messages(question, context, language)
    draft = client.complete(messages, on_token)
    citations = check_citations(draft, catalog, context.chunk_ids)
    attempts = 1
    invented = [c for c in citations if not c.verified]
    if regenerate and invented:
        if on_retry is not None:
            on_retry()
        second = client.complete(retry_messages(messages, draft, invented, language), on_token)
        second_citations = check_citations(second, catalog, context.chunk_ids)
        attempts = 2
        if sum(not c.verified for c in second_citations) <= len(invented):
            draft, citations = second, second_citations
    text = mark_unverified(draft.strip(), citations, language)
    return Answer(question, text, citations, context, language, found=not is_not_found(draft), attempts=attempts)
