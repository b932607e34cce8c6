"""Result cards as plain data: which lines match a query, and code (or a document,
a configuration file) as HTML with the lexer its file name calls for.

Pure functions (no Streamlit): the app renders what these return. Line numbers are
the real ones from the source file, which `st.code(line_numbers=True)` cannot show.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import PythonLexer, get_lexer_by_name, get_lexer_for_filename
from pygments.util import ClassNotFound

from codelens.app.bsl_lexer import BslLexer
from codelens.chunk import span_segments
from codelens.ingest.formats import file_format
from codelens.languages import language_of

PREVIEW_LINES = 14
CODE_STYLE = "friendly"
MARK_STYLE = "background:#ffe58a;color:inherit;border-radius:2px;padding:0 1px"
BOX_STYLE = (
    "border:1px solid #e6e9ef;border-radius:0.5rem;overflow-x:auto;font-size:0.82rem;"
    "margin:0.1rem 0 0.2rem 0"
)

# Words a question is made of that say nothing about the code.
STOPWORDS = frozenset({
    "the", "and", "for", "with", "from", "into", "how", "what", "where", "which", "when", "why",
    "who", "does", "are", "can", "get", "use",
    "this", "that", "there", "their", "code", "function", "method", "class", "module", "file", "files",
    "как", "где", "что", "это", "для", "при", "или", "его", "она", "они", "чем", "кто", "когда",
    "какой", "какая", "какие", "каким",
    "который", "которая", "которые", "есть", "нужно", "можно", "сделать", "через", "после", "перед",
})

_WORD = re.compile(r"[^\W\d_][\w]*", re.UNICODE)
_TAG_OR_ENTITY = re.compile(r"(<[^>]*>|&[#\w]+;)")


@dataclass(frozen=True)
class CodeView:
    """A window onto a chunk's code: which lines to show and which to highlight."""

    code: str
    first_line: int  # real line number of the first line of `code`
    highlighted: tuple[int, ...]  # 1-based positions within `code`
    hidden_matches: tuple[int, ...]  # real line numbers of matches outside the window
    shown_lines: int
    total_lines: int

    @property
    def truncated(self) -> bool:
        return self.shown_lines < self.total_lines


def query_terms(query: str) -> tuple[str, ...]:
    """Lower-cased query words worth finding in code: snake_case parts too, no stop words."""
    terms: list[str] = []
    for word in _WORD.findall(query.lower()):
        parts = [word, *word.split("_")] if "_" in word else [word]
        terms.extend(_stem(p) for p in parts if len(p) >= 3 and p not in STOPWORDS)
    return tuple(dict.fromkeys(terms))


def _stem(word: str) -> str:
    """Cut common English endings so 'tokens' finds 'token' and 'hashing' finds 'hash'."""
    if word.endswith("ss"):  # access, class, process
        return word
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def matching_lines(code: str, terms: Sequence[str]) -> tuple[int, ...]:
    """1-based numbers of the lines that contain any term (case-insensitive substring)."""
    if not terms:
        return ()
    return tuple(
        number for number, line in enumerate(code.splitlines(), start=1)
        if any(term in line.lower() for term in terms)
    )


def preview_window(line_count: int, size: int = PREVIEW_LINES) -> tuple[int, int]:
    """0-based [start, end) of the preview: the top, where the signature a reader recognises is."""
    return 0, min(line_count, size)


# Placeholders left by codelens.ingest.redaction, as pygments escapes them inside a string token.
_SECRET = re.compile(r"&lt;secret:[a-z_]+&gt;")
SECRET_STYLE = "background:#fde2e2;color:#b42318;border-radius:3px;padding:0 2px;font-weight:600"
GAP_HTML = '<div style="color:#888;padding:0 0.8rem;font-family:monospace">⋯</div>'


def code_view(code: str, start_line: int, terms: Sequence[str], max_lines: int | None = PREVIEW_LINES) -> CodeView:
    """The lines of a chunk to show (all of them when max_lines is None) with matches marked."""
    lines = code.splitlines()
    matches = matching_lines(code, terms)
    start, end = (0, len(lines)) if max_lines is None else preview_window(len(lines), max_lines)
    return CodeView(
        code="\n".join(lines[start:end]), first_line=start_line + start,
        highlighted=tuple(m - start for m in matches if start < m <= end),
        hidden_matches=tuple(start_line + m - 1 for m in matches if not start < m <= end),
        shown_lines=end - start, total_lines=len(lines),
    )


# Pygments' lexer for the files it cannot tell by name (`.env.dev`, `.coveragerc`, `Dockerfile.old`).
_LEXER_OF_FORMAT = {"env": "bash", "ini": "ini", "dockerfile": "docker", "makefile": "make", "yaml": "yaml",
                    "toml": "toml", "json": "json", "markdown": "markdown", "rst": "rst",
                    "sql": "sql"}


# Code suffixes Pygments tells as another language (`.sc` is SuperCollider to it, a Scala script here).
_LEXER_OF_SUFFIX = {".sc": "scala", ".svelte": "html"}
# A chunk is a piece of its file: a PHP method has no `<?php` before it, without which Pygments
# reads it all as HTML around no code.
_LEXER_OPTIONS = {"PHP": {"startinline": True}}  # by Pygments' lexer name


@lru_cache(maxsize=128)
def lexer_for(path: str, language: str = "") -> Lexer:
    """The lexer for a file: Python for Python, else Pygments' pick by file name (TypeScript, Go,
    Java, Kotlin, C#, Rust, C, C++, Ruby, PHP, Swift, Scala...), else by its language's name in
    codelens/languages/ (`.mts`, `.inl`; a script's `language` by its `#!` line), else by the file's
    family, else plain text."""
    options = {"stripnl": False, "ensurenl": True}
    fmt = (file_format(path) or language or None) if path else "python"
    if fmt == "python":
        return PythonLexer(**options)
    if fmt == "bsl":  # Pygments knows no 1C
        return BslLexer(**options)
    name = PurePosixPath(path).name
    # the table's language names are Pygments' names for them (typescript, cpp, csharp...)
    by_name = (_LEXER_OF_SUFFIX.get(PurePosixPath(name.lower()).suffix), language_of(path) or language,
               _LEXER_OF_FORMAT.get(fmt or "", "text"))
    try:
        lexer = get_lexer_by_name(by_name[0]) if by_name[0] else get_lexer_for_filename(name)
    except ClassNotFound:
        lexer = _first_lexer(by_name[1:])
    return type(lexer)(**options, **_LEXER_OPTIONS.get(lexer.name, {}))


def _first_lexer(names: Sequence[str | None]) -> Lexer:
    for alias in names:
        try:
            return get_lexer_by_name(alias or "")
        except ClassNotFound:
            continue
    return get_lexer_by_name("text")


def render_html(view: CodeView, terms: Sequence[str] = (), numbered: bool = True, path: str = "",
                language: str = "") -> str:
    """Syntax highlighting (by the file's name, or a script's `language`; Python without a name) with real
    line numbers, matching lines and words marked."""
    formatter = HtmlFormatter(
        linenos="inline" if numbered else False, linenostart=view.first_line,
        hl_lines=list(view.highlighted), noclasses=True, style=CODE_STYLE, nobackground=False,
    )
    body = highlight(view.code or " ", lexer_for(path, language), formatter)
    body = mark_terms(body, terms)
    body = _SECRET.sub(lambda m: f'<span style="{SECRET_STYLE}" title="masked secret">{m.group(0)}</span>', body)
    body = body.replace('<pre style="', '<pre style="margin:0;padding:0.6rem 0.8rem;', 1)
    return f'<div class="codelens-code" style="{BOX_STYLE}">{body}</div>'


def render_segments(code: str, line_spans: Sequence[tuple[int, int]], terms: Sequence[str],
                    max_lines: int | None = PREVIEW_LINES, path: str = "", language: str = "") -> tuple[str, bool]:
    """Each segment with its own real line numbers, a gap mark between; (html, truncated)."""
    parts, shown = [], 0
    segments = span_segments(code, line_spans)
    for segment, first_line in segments:
        room = None if max_lines is None else max_lines - shown
        if room is not None and room <= 0:
            return GAP_HTML.join(parts), True
        view = code_view(segment, first_line, terms, max_lines=room)
        parts.append(render_html(view, terms, path=path, language=language))
        shown += view.shown_lines
        if view.truncated:
            return GAP_HTML.join(parts), True
    return GAP_HTML.join(parts), False


def mark_terms(rendered: str, terms: Sequence[str]) -> str:
    """Wrap query words found in the text of rendered HTML in <mark>, never inside tags."""
    if not terms:
        return rendered
    pattern = re.compile("|".join(re.escape(html.escape(t)) for t in sorted(terms, key=len, reverse=True)),
                         re.IGNORECASE)
    pieces = _TAG_OR_ENTITY.split(rendered)
    for index, piece in enumerate(pieces):
        if piece and not _TAG_OR_ENTITY.fullmatch(piece):
            pieces[index] = pattern.sub(lambda m: f'<mark style="{MARK_STYLE}">{m.group(0)}</mark>', piece)
    return "".join(pieces)


def has_real_line_numbers(code: str, start_line: int, end_line: int) -> bool:
    """Module chunks join separate statements, so numbering them consecutively would lie."""
    return len(code.splitlines()) == end_line - start_line + 1
