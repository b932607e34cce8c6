"""Answers in words over the found code: context packing, a grounded prompt, checked citations.

Pure core: the only I/O goes through the `ChatModel` that `answer_question` is given.
Flow: search hits (+ code-graph neighbours) -> `pack_context` within a token budget ->
`build_messages` -> model -> `check_citations` against the whole index -> one regeneration when
something cited does not exist -> `mark_unverified` on whatever is still invented.
"""

from __future__ import annotations

import builtins
import keyword
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from codelens.chunk import MODULE_SYMBOL, Chunk
from codelens.llm import DEFAULT_CONTEXT_TOKENS, ChatModel, Message, TokenCallback

if TYPE_CHECKING:
    from codelens.search import Hit

Neighbours = Callable[[str], tuple[Sequence[str], Sequence[str]]]
"""chunk_id -> (callers, callees), both as chunk ids: the code graph's direct edges."""

NOT_FOUND = {"en": "Not found in the index.", "ru": "В индексе не найдено."}
UNVERIFIED_MARK = {"en": "[not in the index]", "ru": "[нет в индексе]"}
_LANGUAGE_NAMES = {"en": "English", "ru": "Russian"}
NEIGHBOURS_PER_CHUNK = 4
_DOCSTRING_CHARS = 300

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


def estimate_tokens(text: str) -> int:
    """UTF-8 bytes / 4: close for code and English, and heavier for Cyrillic (2 bytes a letter), as tokenizers are."""
    return max(1, (len(text.encode("utf-8")) + 3) // 4)


# ------------------------------------------------------------------ the index


def _span(chunk: Chunk) -> int:
    return chunk.end_line - chunk.start_line


class ChunkCatalog:
    """Every chunk of an index, looked up by id, by file line and by symbol: what citations are checked against."""

    def __init__(self, chunks: Iterable[Chunk]) -> None:
        self.chunks: dict[str, Chunk] = {c.chunk_id: c for c in chunks}
        self._by_path: dict[str, list[Chunk]] = {}
        self._by_name: dict[str, list[Chunk]] = {}
        for chunk in sorted(self.chunks.values(), key=lambda c: (c.path, c.start_line, c.chunk_id)):
            self._by_path.setdefault(chunk.path, []).append(chunk)
            if chunk.symbol != MODULE_SYMBOL:
                parts = chunk.symbol.split("#")[0].split(".")
                for first in range(len(parts)):  # "A.b.c" is found as "A.b.c", "b.c" and "c"
                    self._by_name.setdefault(".".join(parts[first:]), []).append(chunk)

    def __len__(self) -> int:
        return len(self.chunks)

    def get(self, chunk_id: str) -> Chunk | None:
        return self.chunks.get(chunk_id)

    def resolve_path(self, path: str) -> str | None:
        """An indexed path, allowing `./`, or a unique match on whole path components at either end."""
        path = path.strip().removeprefix("./")
        if path in self._by_path:
            return path
        matches = [p for p in self._by_path if p.endswith("/" + path) or path.endswith("/" + p)]
        return matches[0] if len(matches) == 1 else None

    def in_file(self, path: str) -> list[Chunk]:
        return list(self._by_path.get(path, ()))

    def at_lines(self, path: str, start: int, end: int | None = None) -> Chunk | None:
        """The smallest chunk holding the whole range, else the smallest holding its first line."""
        end = start if end is None else end
        if end < start:
            return None
        chunks = self._by_path.get(path, [])
        for first, last in ((start, end), (start, start)):
            holding = [c for c in chunks if c.start_line <= first and last <= c.end_line]
            if holding:
                return min(holding, key=_span)
        return None

    def named(self, name: str) -> list[Chunk]:
        """Chunks whose qualified name is `name` or ends with `.name`."""
        return list(self._by_name.get(name, ()))

    def mentioning(self, name: str) -> list[Chunk]:
        """Chunks whose code uses `name` as a whole word, the ones that define or assign it first."""
        word = re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)")
        defines = re.compile(rf"^\s*(?:(?:async\s+)?def\s+|class\s+)?{re.escape(name)}\s*[(:=]", re.MULTILINE)
        found = [c for c in self.chunks.values() if word.search(c.code)]
        return sorted(found, key=lambda c: (not defines.search(c.code), c.chunk_id))


# ------------------------------------------------------------------ context packing


@dataclass(frozen=True)
class ContextBlock:
    chunk: Chunk
    role: str  # "hit", "callee" or "caller"
    hops: int  # 0 for a search hit, 1 for its direct neighbours, 2 for theirs
    full: bool  # the numbered code, or only the signature and docstring
    text: str  # the header line and body, as sent to the model

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)


@dataclass(frozen=True)
class PackedContext:
    blocks: tuple[ContextBlock, ...]
    budget_tokens: int
    left_out: tuple[str, ...] = ()  # chunk ids that did not fit the budget

    @property
    def text(self) -> str:
        return "\n\n".join(block.text for block in self.blocks)

    @property
    def tokens(self) -> int:
        return sum(block.tokens for block in self.blocks)

    @property
    def chunk_ids(self) -> tuple[str, ...]:
        return tuple(block.chunk.chunk_id for block in self.blocks)


@dataclass(frozen=True)
class _Candidate:
    chunk: Chunk
    role: str
    hops: int
    note: str  # why it is in the context, for the block header


def pack_context(
    chunks: Sequence[Chunk], catalog: ChunkCatalog, neighbours: Neighbours | None = None,
    budget_tokens: int = DEFAULT_CONTEXT_TOKENS, include_tests: bool = False,
) -> PackedContext:
    """Hits in rank order with their code, then their direct callees/callers (code while it fits,
    else signatures), then the neighbours' neighbours as signatures; each chunk once."""
    blocks: list[ContextBlock] = []
    left_out: list[str] = []
    seen: set[str] = set()
    remaining = budget_tokens
    for candidate in _candidates(chunks, catalog, neighbours, include_tests):
        chunk_id = candidate.chunk.chunk_id
        if chunk_id in seen or _already_shown(candidate.chunk, blocks):
            continue
        seen.add(chunk_id)
        block = _fit(candidate, remaining, first=not blocks)
        if block is None:
            left_out.append(chunk_id)
            continue
        blocks.append(block)
        remaining -= block.tokens
    return PackedContext(tuple(blocks), budget_tokens, tuple(left_out))


def _candidates(chunks: Sequence[Chunk], catalog: ChunkCatalog, neighbours: Neighbours | None,
                include_tests: bool) -> list[_Candidate]:
    found = [_Candidate(chunk, "hit", 0, f"search hit {rank}") for rank, chunk in enumerate(chunks, start=1)]
    if neighbours is None:
        return found
    frontier, visited = list(chunks), {c.chunk_id for c in chunks}
    for hops in (1, 2):
        next_frontier = []
        for chunk in frontier:
            callers, callees = neighbours(chunk.chunk_id)
            for role, ids, verb in (("callee", callees, "called by"), ("caller", callers, "calls")):
                for neighbour in _known(ids, catalog, include_tests)[:NEIGHBOURS_PER_CHUNK]:
                    found.append(_Candidate(neighbour, role, hops, f"{verb} `{chunk.symbol}`"))
                    if neighbour.chunk_id not in visited:
                        visited.add(neighbour.chunk_id)
                        next_frontier.append(neighbour)
        frontier = next_frontier
    return found


def _known(chunk_ids: Sequence[str], catalog: ChunkCatalog, include_tests: bool) -> list[Chunk]:
    chunks = (catalog.get(chunk_id) for chunk_id in chunk_ids)
    return [c for c in chunks if c is not None and (include_tests or not c.is_test)]


def _already_shown(chunk: Chunk, blocks: Sequence[ContextBlock]) -> bool:
    """A method whose whole class is already in the context adds nothing."""
    return any(
        b.full and b.chunk.kind != "module" and b.chunk.path == chunk.path
        and b.chunk.start_line <= chunk.start_line and chunk.end_line <= b.chunk.end_line
        for b in blocks
    )


def _fit(candidate: _Candidate, remaining: int, first: bool) -> ContextBlock | None:
    if first:  # the best hit always goes in, with as much of its code as the budget allows
        block = _block(candidate, True)
        return block if block.tokens <= remaining else _block(candidate, True, max_tokens=remaining)
    for full in (True, False) if candidate.hops < 2 else (False,):
        block = _block(candidate, full)
        if block.tokens <= remaining:
            return block
    return None


def _block(candidate: _Candidate, full: bool, max_tokens: int | None = None) -> ContextBlock:
    chunk = candidate.chunk
    what = "module-level code" if chunk.kind == "module" else f"{chunk.kind} `{chunk.symbol}`"
    note = candidate.note + ("" if full else "; signature only")
    header = f"### {chunk.path}:{chunk.start_line}-{chunk.end_line} {what} ({note})"
    lines = _code_lines(chunk) if full else _signature_lines(chunk)
    if max_tokens is not None:
        lines = _cut(header, lines, max_tokens)
    text = "\n".join([header, *lines])
    return ContextBlock(chunk, candidate.role, candidate.hops, full, text)


def _code_lines(chunk: Chunk) -> list[str]:
    """Code with its file line numbers, so the model can cite them; a module block's lines are not contiguous."""
    lines = chunk.code.splitlines()
    if len(lines) != chunk.end_line - chunk.start_line + 1:
        return lines
    width = len(str(chunk.end_line))
    return [f"{number:>{width}} | {line}" for number, line in enumerate(lines, start=chunk.start_line)]


def _signature_lines(chunk: Chunk) -> list[str]:
    signature = chunk.signature or (chunk.code.splitlines() or [""])[0]
    lines = [signature]
    if chunk.docstring:
        doc = " ".join(chunk.docstring.split())
        lines.append(f'    """{doc[:_DOCSTRING_CHARS]}"""')
    return lines


def _cut(header: str, lines: list[str], max_tokens: int) -> list[str]:
    marker = "... (cut to fit the context budget)"
    kept: list[str] = []
    for line in lines:
        if estimate_tokens("\n".join([header, *kept, line, marker])) > max_tokens:
            return [*kept, marker]
        kept.append(line)
    return kept


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


# ------------------------------------------------------------------ citations


@dataclass(frozen=True)
class Citation:
    ref: str  # as written in the answer: "pkg/auth.py:7-9", "pkg/auth.py::login", "Repository.save"
    chunk_id: str | None  # the chunk it resolves to; None when it resolves to nothing in the index
    verified: bool
    lines: tuple[int, int] | None = None  # the cited lines of a path:line / path:start-end reference

    def to_dict(self) -> dict:
        return {"ref": self.ref, "chunk_id": self.chunk_id, "verified": self.verified}


@dataclass(frozen=True)
class Reference:
    """One place in an answer that cites code, before it is checked."""

    ref: str
    start: int  # where it sits in the answer text (backticks included), for marking
    end: int
    path: str | None = None
    symbol: str | None = None
    lines: tuple[int, int] | None = None


_LOCATION = re.compile(
    r"(?<![\w/.-])(?P<path>(?:[\w.-]+/)*[\w-][\w.-]*\.pyi?)"
    r"(?:::(?P<symbol>[\w.#<>]*[\w>])|:L?(?P<start>\d+)(?:\s?[-–]\s?L?(?P<end>\d+))?)?(?![\w/])"
)
_BACKTICKED = re.compile(r"`([^`\n]+)`")
_SYMBOL = re.compile(r"(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\(.*\))?")
_NOT_SYMBOLS = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins)) | {"self", "cls"}


def find_refs(text: str) -> list[Reference]:
    """Every `path`, `path:line`, `path:start-end`, `path::symbol` and backticked identifier, in order."""
    refs = []
    for match in _LOCATION.finditer(text):
        start, end = match.group("start"), match.group("end")
        lines = (int(start), int(end or start)) if start else None
        quoted = text[match.start() - 1 : match.start()] == "`" and text[match.end() : match.end() + 1] == "`"
        refs.append(Reference(match.group(0), match.start() - quoted, match.end() + quoted, match.group("path"),
                         match.group("symbol"), lines))
    for match in _BACKTICKED.finditer(text):
        inside = _SYMBOL.fullmatch(match.group(1).strip())
        overlaps = any(r.start < match.end() and match.start() < r.end for r in refs)
        if inside and not overlaps and inside.group("name") not in _NOT_SYMBOLS:
            refs.append(Reference(inside.group("name"), match.start(), match.end(), symbol=inside.group("name")))
    return sorted(refs, key=lambda r: r.start)


def check_citations(text: str, catalog: ChunkCatalog, prefer: Sequence[str] = ()) -> tuple[Citation, ...]:
    """Each distinct reference in the answer, resolved against the index; `prefer` (the context's
    chunk ids) breaks ties between chunks of the same name."""
    citations: dict[str, Citation] = {}
    for ref in find_refs(text):
        if ref.ref not in citations:
            chunk = _resolve(ref, catalog, prefer)
            citations[ref.ref] = Citation(ref.ref, chunk.chunk_id if chunk else None, chunk is not None, ref.lines)
    return tuple(citations.values())


def _resolve(ref: Reference, catalog: ChunkCatalog, prefer: Sequence[str]) -> Chunk | None:
    if ref.path is None:
        found = catalog.named(ref.symbol) or catalog.mentioning(ref.symbol)
        if not found and "." in ref.symbol:  # a module: `pkg.auth` is pkg/auth.py
            return _resolve(Reference(ref.ref, ref.start, ref.end, path=ref.symbol.replace(".", "/") + ".py"),
                            catalog, prefer)
        return _preferred(found, prefer)
    path = catalog.resolve_path(ref.path)
    if path is None:
        return None
    if ref.lines is not None:
        return catalog.at_lines(path, *ref.lines)
    if ref.symbol is not None:
        exact = catalog.get(f"{path}::{ref.symbol}")
        return exact or _preferred([c for c in catalog.named(ref.symbol) if c.path == path], prefer)
    in_file = catalog.in_file(path)
    return next((c for c in in_file if c.kind == "module"), in_file[0] if in_file else None)


def _preferred(chunks: Sequence[Chunk], prefer: Sequence[str]) -> Chunk | None:
    rank = {chunk_id: position for position, chunk_id in enumerate(prefer)}
    ordered = sorted(enumerate(chunks), key=lambda item: (rank.get(item[1].chunk_id, len(rank)), item[0]))
    return ordered[0][1] if ordered else None


def mark_unverified(text: str, citations: Sequence[Citation], language: str) -> str:
    """Put UNVERIFIED_MARK after every occurrence of a citation that resolves to nothing."""
    invented = {c.ref for c in citations if not c.verified}
    mark = f" {UNVERIFIED_MARK[language]}"
    for ref in reversed(find_refs(text)):
        if ref.ref in invented and not text.startswith(mark, ref.end):
            text = text[: ref.end] + mark + text[ref.end :]
    return text


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
