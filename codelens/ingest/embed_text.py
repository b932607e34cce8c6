"""What gets embedded for a chunk: meaning first (path, name in words, signature,
docstring), then as much code as the budget allows. The stored document stays the
original code; this text only feeds the embedder.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from codelens.chunk import MODULE_SYMBOL, Chunk
from codelens.ingest.config_xml import xml_as_text
from codelens.ingest.formats import file_format, file_label
from codelens.settings import DEFAULT_TEXT_BUDGET  # the default lives with the other settings
from codelens.workspace import repository_path

# The header is never cut to the budget, but a pathological one (a signature with a huge default)
# is: e5 reads ~512 tokens and tokenizes everything first, so more only costs time.
MAX_TEXT_CHARS = 2000
# A piece of a document or configuration file is embedded shorter: its heading or key path and
# first lines say what it is about, and the demo's ~115 such pieces would otherwise add 25% to
# its embedding work (e5 tokens: 51k for the code, 12.8k for those pieces at 700, 9.6k at 400).
FILE_TEXT_BUDGET = 400
_DOCSTRING_BUDGET = 300

_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
# An identifier with Cyrillic in it (1C, and Russian-named code anywhere) by the same rules in both
# alphabets, and where one alphabet meets the other (`СтрокаJSON`); ASCII ones stay as they were
_CYRILLIC = re.compile(r"[А-Яа-яЁё]")
_NOT_CYRILLIC_WORD = re.compile(r"[^A-Za-zА-Яа-яЁё0-9]+")
_CYRILLIC_CAMEL_BOUNDARY = re.compile(
    r"(?<=[a-zа-яё0-9])(?=[A-ZА-ЯЁ])|(?<=[A-ZА-ЯЁ])(?=[A-ZА-ЯЁ][a-zа-яё])"
    r"|(?<=[А-Яа-яЁё])(?=[A-Za-z])|(?<=[A-Za-z])(?=[А-Яа-яЁё])")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*|\d+")
_DOCSTRING_LITERAL = re.compile(r'^\s*[rRuU]?("""|\'\'\')(.*?)\1\s*\n?', re.S | re.M)


def split_identifier(identifier: str) -> list[str]:
    """`get_current_user` -> [get, current, user]; `HTTPClientError` -> [http, client, error];
    1C's `ПолучитьДанныеКлиента` -> [получить, данные, клиента]."""
    if not identifier.isascii() and _CYRILLIC.search(identifier):
        return [w.lower() for part in _NOT_CYRILLIC_WORD.split(identifier) if part
                for w in _CYRILLIC_CAMEL_BOUNDARY.split(part) if w]
    words: list[str] = []
    for part in re.split(r"[^A-Za-z0-9]+", identifier):
        if part:
            words.extend(w.lower() for w in _CAMEL_BOUNDARY.split(part) if w)
    return words


def words_of(text: str) -> str:
    return " ".join(split_identifier(text))


def embedding_text(chunk: Chunk, budget: int = DEFAULT_TEXT_BUDGET, labels: Collection[str] = ()) -> str:
    """`labels`: a workspace's repository labels (workspace.repository_labels). A chunk is embedded
    with its path inside its repository, so the same code is the same text alone or in a
    workspace: the machine's embedding cache serves it, and its vectors are the ones it has alone."""
    if not chunk.is_code:
        budget = min(budget, FILE_TEXT_BUDGET)
    header = _header(chunk, repository_path(chunk.path, labels))
    body = _body(chunk)
    room = max(0, budget - len(header))
    return f"{header}\n{body[:room]}".strip()[:MAX_TEXT_CHARS]


def _header(chunk: Chunk, path: str) -> str:
    if not chunk.is_code:
        return _file_piece_header(chunk, path)
    path_words = words_of(path.removesuffix(".py") if _is_python(chunk) else _without_suffix(path))
    if chunk.symbol == MODULE_SYMBOL:
        title = f"module {path_words}"
    else:
        title = f"{chunk.kind} {words_of(chunk.symbol)} ({chunk.symbol}) in {path_words}"
    lines = [title]
    if chunk.decorators:
        lines.append(" ".join("@" + d for d in chunk.decorators)[:200])
    if chunk.signature:
        lines.append(chunk.signature)
    if chunk.docstring:
        lines.append(" ".join(chunk.docstring.split())[:_DOCSTRING_BUDGET])
    return "\n".join(lines)


def _file_piece_header(chunk: Chunk, path: str) -> str:
    """`Makefile target test-all in Makefile`, `YAML configuration services.test-db in
    docker-compose.yaml (docker compose)`, `Maven POM build file dependencies.org.postgresql:postgresql
    in pom.xml`: what the piece is, its name, its file."""
    label = file_label(chunk.path) or chunk.kind
    name = "" if chunk.symbol.startswith("<") else f" {chunk.symbol}"
    path_words = words_of(path)
    return f"{label}{name} in {path}" + (f" ({path_words})" if path_words != path else "")


def _is_python(chunk: Chunk) -> bool:
    return chunk.path.endswith(".py")


def _without_suffix(path: str) -> str:
    """`web/src/api/client.ts` -> `web/src/api/client`: the words of the path, not its file type."""
    head, slash, name = path.rpartition("/")
    return head + slash + (name.rsplit(".", 1)[0] if "." in name.lstrip(".") else name)


def _body(chunk: Chunk) -> str:
    """The code without what the header already says."""
    if chunk.is_code and not _is_python(chunk):
        return _code_body(chunk)
    if chunk.kind == "class":
        return _class_outline(chunk.code)
    if file_format(chunk.path) == "xml":
        return xml_as_text(chunk.code)  # the 400 characters on values, not on markup
    code = chunk.code
    if chunk.signature and chunk.kind != "module":
        code = _after_signature(code)
    if chunk.docstring:
        code = _DOCSTRING_LITERAL.sub("", code, count=1)
    return "\n".join(line.strip() for line in code.splitlines() if line.strip())


def _after_signature(code: str) -> str:
    """Drop the decorator and `def ...:` header lines."""
    lines = code.splitlines()
    for index, line in enumerate(lines):
        stripped = line.rstrip()
        if stripped.endswith(":") and not stripped.lstrip().startswith("@"):
            return "\n".join(lines[index + 1 :])
    return code


def _class_outline(code: str) -> str:
    """Class bodies are long: fields and method signatures say what the class is."""
    kept = []
    for line in code.splitlines()[1:]:
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", "@")):
            continue
        indent = len(line) - len(line.lstrip())
        if stripped.startswith(("def ", "async def ")) or indent <= 4:
            kept.append(stripped)
    return _DOCSTRING_LITERAL.sub("", "\n".join(kept), count=1)


# ------------------------------------------------ code in the other languages (codelens/languages/)

_COMMENT_STARTS = ("//", "/*", "*", "#", "--")
_CLOSERS = frozenset({"}", "};", "})", "});", ")", ");", "end", "]", "];"})


def _code_body(chunk: Chunk) -> str:
    """Another language's code without its doc comment and signature (the header holds both);
    a class as its outline."""
    lines = chunk.code.splitlines()
    if chunk.docstring:
        while lines and lines[0].strip().startswith(_COMMENT_STARTS):
            lines.pop(0)
    if chunk.kind == "class":
        return _member_outline(lines)
    if chunk.signature and chunk.kind != "module":
        lines = _after_header(lines, chunk.signature)
    # closing braces and `end`s carry no meaning and cost the budget
    return "\n".join(line.strip() for line in lines if line.strip() and line.strip() not in _CLOSERS)


def _after_header(lines: list[str], signature: str) -> list[str]:
    """Drop the lines the signature spans (it is the header's, whitespace collapsed)."""
    wanted = len(signature.replace(" ", ""))
    for index, line in enumerate(lines):
        for column, char in enumerate(line):
            if not char.isspace():
                wanted -= 1
                if wanted == 0:  # a one-line function keeps its body: what follows the signature
                    rest = line[column + 1 :].strip().lstrip("{").strip()
                    return ([rest] if rest and rest != "}" else []) + lines[index + 1 :]
    return lines


def _member_outline(lines: list[str]) -> str:
    """A class's members at their own indentation (fields, method signatures), not their bodies:
    what the class is, in any language that indents its members."""
    body = [line for line in lines[1:] if line.strip()]
    indents = [len(line) - len(line.lstrip()) for line in body
               if not line.strip().startswith((*_COMMENT_STARTS, "}", ")", "@", "end"))]
    if not indents:
        return ""
    level = min(indents)
    kept = [line.strip() for line in body if len(line) - len(line.lstrip()) == level]
    return "\n".join(line for line in kept if not line.startswith((*_COMMENT_STARTS, "}", "@")))
