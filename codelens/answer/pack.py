"""The context packer: candidate pieces of code in, the pieces that fit a token budget out. Pure.

Every candidate is scored S(v) = ALPHA * relevance(Q, v) + BETA * exp(-LAMBDA * hops(seed, v))
and taken best first (nearest first among equals). Hard rules: one piece per chunk id (a diamond
in the graph is one piece), nothing inside a piece already shown in full, no piece above its cap,
the budget never exceeded (counted by the `TokenCounter` handed in). Near pieces come whole, far
ones as their signature, a big class as its outline (its signature and its members'), a class whose
methods are mostly taken already as itself, whole; the pieces taken are then ordered so that what is
called comes before what calls it. A piece's header
says where it is (`path:start-end`): its code's first line is line `start` of the file, so the
code itself goes unnumbered unless the rules ask for a number on every line (ask's do).

`codelens context` (answer/task_context.py) and `ask` (answer/context.py) both pack here; they
differ only in their `PackRules` and the notes their candidates carry.
"""

from __future__ import annotations

import ast
import math
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, replace

from codelens.answer.token_count import TokenCounter
from codelens.chunk import Chunk

ALPHA = 0.6  # relevance to the task: what the search says the task is about weighs most
BETA = 0.4  # closeness in the graph: a seed's neighbour matters even when the search missed it
LAMBDA = 0.7  # one hop keeps half the closeness (exp(-0.7) = 0.50), two hops a quarter

FORMS = ("full", "signature", "outline")
CUT = "cut"  # ask's first hit, cut to the budget: not a form of `codelens context`
CUT_MARKER = "... (cut to fit the context budget)"
_DOCSTRING_CHARS = 300
_DEFINITION = re.compile(r"^\s*(?:@|(?:async\s+)?def\s|class\s|func\s|fn\s|function\s|interface\s|struct\s|"
                         r"(?:public|private|protected|static|export)\s)")


@dataclass(frozen=True)
class PackRules:
    full_hops: int = 1  # pieces at most this far from a seed come whole; farther ones as signatures
    piece_share: float = 0.5  # no piece but the first takes more than this share of the budget
    big_class_share: float = 0.5  # a class costing more of the budget is its outline: the rest would starve
    outline_members: int = 40  # an outline lists this many methods at most (a printer class has hundreds)
    callees_first: bool = True  # order the pieces callee before caller (else best first)
    cut_first: bool = False  # the best piece, when it fits in no form, is cut to the budget (ask)
    fence: bool = True  # code in a Markdown fence (ask's prompt shows it bare)
    line_numbers: bool = False  # every line of code with its number (else the header's start line alone)
    skeleton_share: float = 0.1  # the top file's skeleton is a map: worth a tenth of the budget, not a fix's code
    # once the methods of a class shown one by one cost this share of the class whole, the class is shown whole
    # instead (its attributes and the methods between them come with it): a reader's one class, not fifteen pieces
    whole_class_share: float = 0.5


CONTEXT_RULES = PackRules()
ASK_RULES = PackRules(full_hops=1, piece_share=1.0, big_class_share=float("inf"), callees_first=False,
                      cut_first=True, fence=False, line_numbers=True,  # its model cites path:line
                      whole_class_share=float("inf"))


def context_rules(line_numbers: bool = False) -> PackRules:
    """`codelens context`'s rules, with every line numbered when asked."""
    return replace(CONTEXT_RULES, line_numbers=line_numbers)


@dataclass(frozen=True)
class Candidate:
    """A chunk that may go into the context, and why."""

    chunk: Chunk
    role: str  # seed, callee, caller, type, exception, configuration, test, document (ask: hit)
    hops: int  # 0 for a seed
    relevance: float = 0.0  # 0-1: how well the search matched it to the task (0 when it did not find it)
    note: str = ""  # why it is here, for the piece's header
    repo: str = ""
    callees: frozenset[str] = frozenset()  # chunk ids it calls: what must come before it
    members: tuple[Chunk, ...] = ()  # a class's methods, in line order: its outline
    # The top file's skeleton (answer/task_context.py): its definitions as an outline under the file's
    # module piece, taken only while it costs at most `skeleton_share` of the budget
    skeleton: bool = False


@dataclass(frozen=True)
class Piece:
    chunk: Chunk
    role: str
    hops: int
    form: str  # one of FORMS (or CUT)
    score: float
    tokens: int
    text: str
    repo: str = ""

    def to_dict(self) -> dict:
        """The `codelens context --json` piece (DESIGN.md, Task context)."""
        c = self.chunk
        return {"chunk_id": c.chunk_id, "path": c.path, "repo": self.repo, "start_line": c.start_line,
                "end_line": c.end_line, "role": self.role, "hops": self.hops, "form": self.form,
                "tokens": self.tokens, "score": round(self.score, 4), "text": self.text}


@dataclass(frozen=True)
class Packed:
    pieces: tuple[Piece, ...]
    budget: int
    tokenizer: str  # the counter's name
    left_out: tuple[str, ...] = ()  # chunk ids that fit in no form
    line_numbers: bool = False  # whether every line of code carries its number

    @property
    def tokens(self) -> int:
        return sum(piece.tokens for piece in self.pieces)

    @property
    def text(self) -> str:
        return "\n\n".join(piece.text for piece in self.pieces)

    def to_dict(self) -> dict:
        return {"budget": self.budget, "tokens": self.tokens, "pieces": [piece.to_dict() for piece in self.pieces],
                "tokenizer": self.tokenizer, "line_numbers": self.line_numbers}


def score(relevance: float, hops: int) -> float:
    """S(v) = ALPHA * relevance + BETA * exp(-LAMBDA * hops): the task's words and the graph's distance together."""
    return ALPHA * relevance + BETA * math.exp(-LAMBDA * hops)


def pack(candidates: Sequence[Candidate], budget: int, counter: TokenCounter,
         rules: PackRules = CONTEXT_RULES) -> Packed:
    """The candidates that fit `budget` tokens, best first, each chunk once, then ordered callee first."""
    ranked = sorted(enumerate(candidates), key=lambda item: (-score(item[1].relevance, item[1].hops),
                                                             item[1].hops, item[0]))
    classes = [c for c in candidates if c.chunk.kind == "class"]
    wholes: dict[str, Piece] = {}  # each class's whole piece, counted once
    taken: list[tuple[Candidate, Piece]] = []
    left_out: list[str] = []
    seen: set[str] = set()
    remaining = budget
    for _, candidate in ranked:
        chunk_id = candidate.chunk.chunk_id
        if chunk_id in seen or _inside_shown(candidate.chunk, [piece for _, piece in taken]):
            continue
        seen.add(chunk_id)
        piece = _fit(candidate, remaining, budget, counter, rules, first=not taken)
        if piece is None:
            left_out.append(chunk_id)
            continue
        taken.append((candidate, piece))
        remaining -= piece.tokens
        owner = next((c for c in classes if _strictly_inside(candidate.chunk, c.chunk)), None) \
            if piece.form == "full" and math.isfinite(rules.whole_class_share) else None
        if owner is not None:
            merged = _whole_class(owner, taken, remaining, budget, counter, rules, wholes)
            if merged is not None:
                taken, remaining = merged
                seen.add(owner.chunk.chunk_id)
    ordered = _callees_first(taken) if rules.callees_first else [piece for _, piece in taken]
    return Packed(tuple(ordered), budget, counter.name, tuple(left_out), rules.line_numbers)


# ------------------------------------------------------------------ rules


def _holds(outer: Chunk, chunk: Chunk) -> bool:
    return outer.path == chunk.path and outer.start_line <= chunk.start_line and chunk.end_line <= outer.end_line


def _strictly_inside(chunk: Chunk, outer: Chunk) -> bool:
    return chunk.chunk_id != outer.chunk_id and _holds(outer, chunk)


def _whole_class(owner: Candidate, taken: list[tuple[Candidate, Piece]], remaining: int, budget: int,
                 counter: TokenCounter, rules: PackRules,
                 wholes: dict[str, Piece]) -> tuple[list[tuple[Candidate, Piece]], int] | None:
    """The pieces with `owner`'s methods shown one by one replaced by the class whole (where the first of
    them stood), and the budget left; None while they cost less than `whole_class_share` of it, or it does
    not fit."""
    inner = [i for i, (_, p) in enumerate(taken) if p.form == "full" and _strictly_inside(p.chunk, owner.chunk)]
    own = [i for i, (c, _) in enumerate(taken) if c.chunk.chunk_id == owner.chunk.chunk_id]
    shown = sum(taken[i][1].tokens for i in inner)
    if owner.chunk.chunk_id not in wholes:
        wholes[owner.chunk.chunk_id] = _piece(owner, "full", counter, rules)
    whole = wholes[owner.chunk.chunk_id]
    first = min(inner + own)
    cap = budget * min(rules.big_class_share, 1.0 if first == 0 else rules.piece_share)  # as _fit and _forms
    freed = shown + sum(taken[i][1].tokens for i in own)
    if shown < rules.whole_class_share * whole.tokens or whole.tokens > cap or whole.tokens > remaining + freed:
        return None
    dropped = set(inner + own)
    kept = [(owner, whole) if i == first else item for i, item in enumerate(taken) if i == first or i not in dropped]
    return kept, remaining + freed - whole.tokens


def _inside_shown(chunk: Chunk, shown: Sequence[Piece]) -> bool:
    """A method whose whole class is already shown adds nothing."""
    return any(p.form in ("full", CUT) and p.chunk.kind != "module" and _holds(p.chunk, chunk) for p in shown)


def _forms(candidate: Candidate, counter: TokenCounter, rules: PackRules, first: bool, budget: int) -> list[str]:
    """The forms to try, best first: near pieces whole (a big class as its outline), far ones as signatures;
    ask's best hit whole or cut."""
    if first and rules.cut_first:
        return ["full"]
    if candidate.skeleton:
        return ["outline"]
    if candidate.hops > rules.full_hops:
        return ["signature"]
    if candidate.chunk.kind == "class" and candidate.members and \
            counter.count(candidate.chunk.code) > rules.big_class_share * budget:
        return ["outline", "signature"]
    return ["full", "signature"]


def _fit(candidate: Candidate, remaining: int, budget: int, counter: TokenCounter, rules: PackRules,
         first: bool) -> Piece | None:
    cap = min(remaining, budget if first else int(budget * rules.piece_share))
    if candidate.skeleton:
        cap = min(cap, int(budget * rules.skeleton_share))
    for form in _forms(candidate, counter, rules, first, budget):
        piece = _piece(candidate, form, counter, rules)
        if piece.tokens <= cap:
            return piece
    if first and rules.cut_first and remaining > 0:
        piece = _piece(candidate, CUT, counter, rules, max_tokens=remaining)
        return piece if piece.tokens <= remaining else None
    return None


def _callees_first(taken: Sequence[tuple[Candidate, Piece]]) -> list[Piece]:
    """Best first, except that a piece waits for the pieces it calls; a cycle is broken best first."""
    chosen = {candidate.chunk.chunk_id for candidate, _ in taken}
    waiting = list(taken)
    emitted: set[str] = set()
    ordered: list[Piece] = []
    while waiting:
        ready = next((i for i, (c, _) in enumerate(waiting)
                      if all(callee in emitted or callee not in chosen or callee == c.chunk.chunk_id
                             for callee in c.callees)), 0)
        candidate, piece = waiting.pop(ready)
        emitted.add(candidate.chunk.chunk_id)
        ordered.append(piece)
    return ordered


# ------------------------------------------------------------------ text


def _piece(candidate: Candidate, form: str, counter: TokenCounter, rules: PackRules,
           max_tokens: int | None = None) -> Piece:
    chunk = candidate.chunk
    header = piece_header(chunk, candidate.note, form)
    lines = piece_lines(chunk, form, rules, candidate.members)
    if max_tokens is not None:
        lines = _cut(header, lines, max_tokens, counter)
    text = "\n".join([header, *lines])
    return Piece(chunk, candidate.role, candidate.hops, form, score(candidate.relevance, candidate.hops),
                 counter.count(text), text, candidate.repo)


def piece_text(chunk: Chunk, note: str, form: str = "full", rules: PackRules = CONTEXT_RULES,
               members: Sequence[Chunk] = ()) -> str:
    """A piece's text as the packer writes it: its header, then its code in `form`."""
    return "\n".join([piece_header(chunk, note, form), *piece_lines(chunk, form, rules, members)])


def piece_lines(chunk: Chunk, form: str, rules: PackRules, members: Sequence[Chunk] = ()) -> list[str]:
    """The lines under a piece's header: the code (numbered when the rules say), its outline or its signature."""
    if form == "full" or form == CUT:
        lines = numbered_lines(chunk) if rules.line_numbers else chunk.code.splitlines()
    elif form == "outline" and chunk.kind == "module":
        lines = skeleton_lines(members, rules.outline_members)
    elif form == "outline":
        lines = outline_lines(chunk, members, rules.outline_members)
    else:
        lines = signature_lines(chunk)
    return ["```", *lines, "```"] if rules.fence else lines


def piece_header(chunk: Chunk, note: str, form: str) -> str:
    """`### path:start-end kind `symbol` (why it is here; how it is shown)`: the code's first line is `start`."""
    what = "module-level code" if chunk.kind == "module" else f"{chunk.kind} `{chunk.symbol}`"
    shown = "skeleton" if form == "outline" and chunk.kind == "module" else \
        {"signature": "signature only", "outline": "outline"}.get(form)
    why = "; ".join(part for part in (note, shown) if part)
    return f"### {chunk.path}:{chunk.start_line}-{chunk.end_line} {what}" + (f" ({why})" if why else "")


def numbered_lines(chunk: Chunk) -> list[str]:
    """Code with its file line numbers, so each claim can cite them; a module block's lines are not contiguous."""
    lines = chunk.code.splitlines()
    if len(lines) != chunk.end_line - chunk.start_line + 1:
        return lines
    width = len(str(chunk.end_line))
    return [f"{number:>{width}} | {line}" for number, line in enumerate(lines, start=chunk.start_line)]


def signature_lines(chunk: Chunk) -> list[str]:
    """The signature (else the first line) and the docstring, on one line."""
    lines = [chunk.signature or (chunk.code.splitlines() or [""])[0]]
    if chunk.docstring:
        doc = " ".join(chunk.docstring.split())
        lines.append(f'    """{doc[:_DOCSTRING_CHARS]}"""')
    return lines


def outline_lines(chunk: Chunk, members: Sequence[Chunk], most: int = 40) -> list[str]:
    """A class as its signature, docstring and each method's signature with its line (the first
    `most` of them): what the class offers, at a fraction of its code."""
    lines = signature_lines(chunk)
    inside = [m for m in members if chunk.start_line < m.start_line and m.end_line <= chunk.end_line]
    inside.sort(key=lambda m: m.start_line)
    for member in inside[:most]:
        signature = member.signature or (member.code.splitlines() or [""])[0]
        lines.append(f"    {member.start_line}: {signature.strip()}")
    if not inside:  # members unknown (another language's class): its definition lines
        lines.extend(_definition_lines(chunk)[:most])
    if len(inside) > most:
        lines.append(f"    ... and {len(inside) - most} more methods")
    return lines


def skeleton_lines(definitions: Sequence[Chunk], most: int = 40) -> list[str]:
    """A file as its definitions' signatures with their lines, nested as in the file (a method under
    its class): the first `most` of them in the order given (what matters first), shown in line
    order, so the reader sees where everything is and asks for the rest."""
    chosen = sorted(definitions[:most], key=lambda d: d.start_line)
    lines = []
    for definition in chosen:
        depth = sum(1 for outer in chosen if outer.kind == "class" and outer.start_line < definition.start_line
                    and definition.end_line <= outer.end_line)
        signature = definition.signature or (definition.code.splitlines() or [""])[0]
        lines.append(f"{'    ' * depth}{definition.start_line}: {signature.strip()}")
    if len(definitions) > most:
        lines.append(f"... and {len(definitions) - most} more definitions")
    return lines


def _definition_lines(chunk: Chunk) -> list[str]:
    code_lines = chunk.code.splitlines()
    try:
        tree = ast.parse(textwrap.dedent(chunk.code))
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        starts = [node.lineno for node in body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                   ast.ClassDef))]
    except SyntaxError:
        starts = [i + 1 for i, line in enumerate(code_lines[1:], start=1) if _DEFINITION.match(line)]
    return [f"    {chunk.start_line + start - 1}: {code_lines[start - 1].strip()}" for start in starts
            if 0 < start <= len(code_lines)]


def _cut(header: str, lines: list[str], max_tokens: int, counter: TokenCounter) -> list[str]:
    kept: list[str] = []
    for line in lines:
        if counter.count("\n".join([header, *kept, line, CUT_MARKER])) > max_tokens:
            return [*kept, CUT_MARKER]
        kept.append(line)
    return kept
