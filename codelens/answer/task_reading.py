"""Reading a task (an issue, a bug report) into its parts: the title, the prose, the code blocks, the
traceback frames, the error lines, and the names and paths it quotes. Pure: text in, a record out.

A search reads a task as one question: the dense leg sees its first tokens, the keyword leg weighs
`from sympy import *` as much as the one name that matters. The parts say where each word comes
from, so task context (answer/localize.py) can look each name up on its own, let a traceback frame
or a named file decide, and search the prose without the code pasted into it. Frames are read in
the shapes of the languages' runtimes: Python's `File "x.py", line 3, in f`, Java/Kotlin/Scala's
`at a.B.c(B.java:3)`, JavaScript/TypeScript's `at f (x.ts:3:5)`, and a bare `path.ext:line` (Go,
Rust, C, C++, Ruby, PHP, Swift, C#).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from codelens.languages import LANGUAGES
from codelens.search.terms import STOP_WORDS

_FENCE = re.compile(r"^[ \t]*(```+|~~~+)[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)", re.MULTILINE | re.DOTALL)
_PROMPT = re.compile(r"^[ \t]*(?:>>>|\.\.\.|In \[\d+\]:|\$|>)[ \t]?(.*)$")
_PY_FRAME = re.compile(r'File "([^"\n]+)", line (\d+)(?:, in ([\w<>.$]+))?')
_JAVA_FRAME = re.compile(r"\bat ([\w$.<>]+)\(([\w$.-]+\.\w+):(\d+)\)")
_JS_FRAME = re.compile(r"\bat (?:([\w$.<>]+) \()?((?:[\w.@~-]*/)*[\w.@-]+\.\w+):(\d+)(?::\d+)?\)?")
_PATH_LINE = re.compile(r"((?:[\w.@~-]+/)*[\w@-][\w.@-]*\.(\w+)):(\d+)")
_ERROR = re.compile(r"^\s*(?:[\w.]+\.)?([A-Z]\w*(?:Error|Exception|Warning|Exit|Interrupt|Failure|Panic))\b:?(.*)$",
                    re.MULTILINE)
_RAISED = re.compile(r"^(?:[a-z_][\w]*\.)*([A-Z]\w+)(?::\s*(.*))?$")
_PATH = re.compile(r"(?<![\w/.])((?:[\w@.-]+/)+[\w@-][\w.@-]*\.(\w+))(?![\w/])")
_BACKTICK = re.compile(r"`([^`\n]{1,120})`")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_CALLED = re.compile(r"([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\(")
_CAMEL = re.compile(r"[A-Z][a-z0-9]+[A-Z]|[a-z][a-z0-9]*[A-Z]|[A-Z]{2,}[a-z]")
_DEFINED = re.compile(r"^\s*(?:def|class|fn|func|function|struct|interface|trait|impl)\s+([A-Za-z_]\w*)",
                      re.MULTILINE)
_CODE_EXTENSIONS = frozenset(ext.lstrip(".") for row in LANGUAGES for ext in row.extensions)
_CODE_WORDS = frozenset(str.split(
    "import from def class return self cls none true false null print if else elif for while in not and or "
    "is lambda with as try except finally raise pass yield async await new var let const function public "
    "private static void int str float bool list dict set tuple len range type object super"))
# a block's lines that are the program's output, not its code: a traceback's lines and error messages
_OUTPUT = re.compile(r"Traceback \(most recent|^\s*File \"|^\s*-{5,}"
                     r"|^\s*(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Warning)\b"
                     r"|^(?:diff --git|index [0-9a-f]+\.\.|--- |\+\+\+ )")
_HEX = re.compile(r"\d+|[0-9a-f]*\d[0-9a-f]*[a-f][0-9a-f]*|[0-9a-f]*[a-f][0-9a-f]*\d[0-9a-f]*")
_COMMENT = re.compile(r"(?:^|\s)(?:#|//).*$")  # a comment in a reproducer is prose, not names
_HUNK = re.compile(r"^\+\+\+ (?:b/)?(\S+)\n(?:.*\n)*?@@ -(\d+)", re.MULTILINE)
MAX_NAMES = 200  # a long log names thousands of things: the first ones are what the reporter wrote


@dataclass(frozen=True)
class Frame:
    """One traceback frame: where the code ran (`path` as written), its line, and its function when known."""

    path: str
    line: int
    function: str = ""


@dataclass(frozen=True)
class Name:
    """An identifier or dotted name the task quotes, and how: called (`f(...)`), quoted (`backticks`),
    in the title, in a code block, or written in prose."""

    text: str
    called: bool = False
    quoted: bool = False
    in_title: bool = False
    in_code: bool = False
    defined: bool = False  # the task's own code defines it (a reproducer's helper: not the repository's)


@dataclass(frozen=True)
class TaskParts:
    text: str
    title: str
    prose: str  # the task without its code blocks, frames and error output
    blocks: tuple[str, ...]  # code blocks and interactive sessions, as written
    frames: tuple[Frame, ...]  # traceback frames, outermost first
    errors: tuple[str, ...]  # `ValueError: ...` lines
    names: tuple[Name, ...]
    paths: tuple[str, ...]  # file paths as written (`sympy/printing/latex.py`)
    path_lines: tuple[tuple[str, int], ...] = ()  # `path:line` and "line N of path" mentions


def read_task(text: str) -> TaskParts:
    """The parts of a task; every part may be empty (a one-line task is its title)."""
    blocks: list[str] = []
    spans: list[tuple[int, int]] = []
    for match in _FENCE.finditer(text):
        blocks.append(match.group(2))
        spans.append(match.span())
    outside = _cut(text, spans)
    prose_lines, session = [], []
    for line in outside.splitlines():
        prompt = _PROMPT.match(line)
        if prompt or _PY_FRAME.search(line) or _ERROR.match(line) or _JAVA_FRAME.search(line):
            session.append(prompt.group(1) if prompt else line)
        else:
            if session:
                blocks.append("\n".join(session))
                session = []
            prose_lines.append(line)
    if session:
        blocks.append("\n".join(session))
    prose = "\n".join(prose_lines).strip()
    title = next((line.strip() for line in text.splitlines() if line.strip()), "")
    frames = _frames(text)
    raised = [_error(m.group(1), m.group(2)) for m in _ERROR.finditer(text)]
    for block in blocks:  # a traceback's last line names what was raised, whatever its class is called
        if "Traceback (most recent" in block:
            last = [m for m in map(_RAISED.match, block.splitlines()) if m]
            if last:
                raised.append(_error(last[-1].group(1), last[-1].group(2)))
    errors = tuple(dict.fromkeys(raised))
    paths = tuple(dict.fromkeys(m.group(1) for m in _PATH.finditer(text) if m.group(2).lower() in _CODE_EXTENSIONS))
    return TaskParts(text, title, prose, tuple(blocks), frames, errors, _names(title, prose, blocks),
                     paths, _path_lines(text))


def _error(name: str, message: str | None) -> str:
    message = (message or "").strip().removeprefix(":").strip()
    return f"{name}: {message}" if message else name


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    kept, position = [], 0
    for start, end in spans:
        kept.append(text[position:start])
        position = end
    kept.append(text[position:])
    return "\n".join(kept)


def _frames(text: str) -> tuple[Frame, ...]:
    found: list[tuple[int, Frame]] = []
    for match in _PY_FRAME.finditer(text):
        found.append((match.start(), Frame(match.group(1), int(match.group(2)), match.group(3) or "")))
    for match in _JAVA_FRAME.finditer(text):
        qualified, file_name, line = match.groups()
        found.append((match.start(), Frame(file_name, int(line), qualified.rsplit(".", 1)[-1])))
    for match in _JS_FRAME.finditer(text):
        function, path, line = match.groups()
        if path.rsplit(".", 1)[-1].lower() in _CODE_EXTENSIONS and not _JAVA_FRAME.match(text, match.start()):
            found.append((match.start(), Frame(path, int(line), (function or "").rsplit(".", 1)[-1])))
    if not found:
        for match in _PATH_LINE.finditer(text):
            if match.group(2).lower() in _CODE_EXTENSIONS:
                found.append((match.start(), Frame(match.group(1), int(match.group(3)))))
    found.sort(key=lambda pair: pair[0])
    return tuple(dict.fromkeys(frame for _, frame in found))


_LINE_OF = re.compile(r"\blines?\s+(\d+)(?:\s*-\s*\d+)?\s+(?:of|in)\s+`?((?:[\w@.-]+/)*[\w@-][\w.@-]*\.(\w+))")


def _path_lines(text: str) -> tuple[tuple[str, int], ...]:
    """Lines the task points at: "line 743 of x.py", `x.py:743`, and a diff's first hunk of each file
    (three lines of context after its start)."""
    found = [(m.group(1), int(m.group(2)) + 3) for m in _HUNK.finditer(text)]
    found += [(m.group(2), int(m.group(1))) for m in _LINE_OF.finditer(text) if m.group(3).lower() in _CODE_EXTENSIONS]
    found += [(m.group(1), int(m.group(3))) for m in _PATH_LINE.finditer(text)
              if m.group(2).lower() in _CODE_EXTENSIONS]
    return tuple(dict.fromkeys(found))


def _names(title: str, prose: str, blocks: list[str]) -> tuple[Name, ...]:
    """Every identifier the task quotes, once, with how it was written; plain English words of the
    prose are left out (a name there must look like code: snake_case, camelCase, dotted, called or
    in backticks); in code every identifier counts but the language's own words."""
    flags: dict[str, dict[str, bool]] = {}

    def note(word: str, **how: bool) -> None:
        word = word.strip(".")
        if len(word) < 2 or word.lower() in STOP_WORDS or word in _CODE_WORDS or _HEX.fullmatch(word):
            return
        entry = flags.setdefault(word, {})
        for key, value in how.items():
            entry[key] = entry.get(key, False) or value

    for where, text in (("title", title), ("prose", prose)):
        for quoted in _BACKTICK.findall(text):
            for word in _IDENT.findall(quoted):
                note(word, quoted=True, in_title=where == "title")
        for word in _IDENT.findall(text):
            if _looks_like_code(word):
                note(word, in_title=where == "title")
        for word in _CALLED.findall(text):
            note(word, called=True, in_title=where == "title")
    for block in blocks:
        code = "\n".join(_COMMENT.sub("", prompt.group(1) if (prompt := _PROMPT.match(line)) else line)
                         for line in block.splitlines() if not _OUTPUT.search(line))
        defined = set(_DEFINED.findall(code))
        for word in _IDENT.findall(code):
            note(word, in_code=True, defined=word in defined)
        for word in _CALLED.findall(code):
            note(word, called=True, in_code=True)
    names = [Name(word, **how) for word, how in flags.items()]
    return tuple(names[:MAX_NAMES])


def _looks_like_code(word: str) -> bool:
    return "." in word or "_" in word.strip("_") or bool(_CAMEL.search(word))


__all__ = ["Frame", "Name", "TaskParts", "read_task"]
