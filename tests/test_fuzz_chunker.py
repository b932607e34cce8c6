"""Property-based tests: the chunker never raises, whatever Python-ish text or bytes it gets.

Source comes from a small grammar of statements, defs, classes and blocks (so the `ast`
path is exercised on deep, valid code), optionally damaged (so the tree-sitter fallback
runs), or from raw random bytes decoded the way the indexer decodes files.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codelens.chunk import KINDS
from codelens.ingest.chunker import chunk_file
from codelens.ingest.redaction import redact
from codelens.ingest.source import read_source_text
from tests.conftest import examples

FUZZ = settings(max_examples=examples(200), deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
NAMES = ["f", "g", "run", "Login", "_private", "__init__", "token", "handler"]  # few: redefinitions happen
SIMPLE = [
    "pass", "x = 1", "return x", "y: int = 2", "print(a, b)", "import os", "from a import b as c",
    "# a comment", '"""A docstring."""', "PASSWORD = 'pw-123'", "url = 'postgresql://u:secret@h/db'",
    "value = lambda v: v + 1", "raise ValueError('bad')", "yield item", "assert x, 'msg'", "del x",
    "s = 'ünïcödé'", "data = {'k': [1, 2, (3, 4)]}", "await thing()", "global G", "...",
]
rel_path = st.sampled_from(["mod.py", "pkg/sub/mod.py", "tests/test_mod.py"])


@st.composite
def block(draw, depth: int) -> list[str]:
    count = draw(st.integers(1, 3 if depth else 6))
    lines: list[str] = []
    for _ in range(count):
        lines.extend(draw(statement(depth)))
    return lines


def indented(lines: list[str]) -> list[str]:
    return ["    " + line if line else line for line in lines]


@st.composite
def statement(draw, depth: int) -> list[str]:
    if depth >= 5 or draw(st.integers(0, 2)) == 0:
        return [draw(st.sampled_from(SIMPLE))] + ([""] if draw(st.booleans()) else [])
    name = draw(st.sampled_from(NAMES))
    kind = draw(st.sampled_from(["def", "async def", "class", "if", "for", "while", "try", "with"]))
    body = indented(draw(block(depth + 1)))
    if kind in ("def", "async def", "class"):
        decorators = [f"@{d}" for d in draw(st.lists(st.sampled_from(["staticmethod", "app.get('/x')", "cache"]),
                                                      max_size=2))]
        header = f"{kind} {name}(a, b=1, *args, **kw):" if kind != "class" else f"class {name}(Base):"
        return [*decorators, header, *body]
    if kind == "try":
        return ["try:", *body, "except Exception as e:", *indented(draw(block(depth + 1)))]
    if kind == "if":
        orelse = ["else:", *indented(draw(block(depth + 1)))] if draw(st.booleans()) else []
        return ["if x > 1:", *body, *orelse]
    header = {"for": "for i in items:", "while": "while running:", "with": "with open(p) as fh:"}[kind]
    return [header, *body]


python_source = block(0).map(lambda lines: "\n".join(lines) + "\n")


@st.composite
def damaged(draw) -> str:
    """Valid source with a few random cuts and insertions: usually no longer valid Python."""
    text = draw(python_source)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        if draw(st.booleans()):
            text = text[:at] + text[at + draw(st.integers(1, 20)):]
        else:
            text = text[:at] + draw(st.text(alphabet="():\"'#\\\n\t @=[]{}", min_size=1, max_size=5)) + text[at:]
    return text


def check_chunks(path: str, text: str) -> list:
    chunks = chunk_file(path, text).chunks
    line_count = max(1, len(text.splitlines()))
    ids = [c.chunk_id for c in chunks]
    assert len(ids) == len(set(ids)), ids
    for chunk in chunks:
        assert chunk.chunk_id.startswith(f"{path}::") and chunk.path == path
        assert chunk.kind in KINDS
        assert 1 <= chunk.start_line <= chunk.end_line <= line_count, (chunk.chunk_id, chunk.start_line,
                                                                         chunk.end_line, line_count)
    return chunks


@FUZZ
@given(rel_path, python_source)
def test_grammar_source_chunks_cleanly(path: str, text: str) -> None:
    chunks = check_chunks(path, text)
    lines = text.split("\n")
    for chunk in chunks:
        if chunk.kind == "module":
            continue
        span = lines[chunk.start_line - 1 : chunk.end_line]
        header = next(line for line in span if not line.lstrip().startswith("@"))
        assert header.lstrip().startswith(("def ", "async def ", "class ")), (chunk.chunk_id, header)
        assert chunk.name.split("#")[0] in header


@FUZZ
@given(rel_path, damaged())
def test_damaged_source_never_raises(path: str, text: str) -> None:
    check_chunks(path, text)


@pytest.mark.parametrize("text", ["x = 1\n\\\n", "def f(:\n    pass\n\\\n", "return x\n\\\n\\\n"])
def test_a_line_continuation_ending_the_file_stays_within_its_lines(text: str) -> None:
    # found by test_damaged_source_never_raises: tree-sitter ended the node a line later
    chunks = check_chunks("mod.py", text)
    assert max(c.end_line for c in chunks) == len(text.splitlines())


@FUZZ
@given(st.binary(max_size=3000))
def test_random_bytes_never_raise(raw: bytes) -> None:
    text = read_source_text(raw)
    assert text is None or isinstance(text, str)
    if text is not None:
        check_chunks("blob.py", text)


@FUZZ
@given(python_source.map(lambda s: s.encode("utf-8")), st.lists(st.tuples(st.integers(0, 5000), st.integers(0, 255)),
                                                               max_size=8))
def test_python_bytes_with_flipped_bytes_never_raise(raw: bytes, flips: list[tuple[int, int]]) -> None:
    data = bytearray(raw)
    for at, value in flips:
        if data:
            data[at % len(data)] = value
    text = read_source_text(bytes(data))
    if text is not None:
        check_chunks("flipped.py", text)


@FUZZ
@given(st.text(max_size=2000))
def test_random_text_never_raises(text: str) -> None:
    check_chunks("text.py", text)


@FUZZ
@given(python_source)
def test_redaction_never_moves_chunks(text: str) -> None:
    """Masking secrets before chunking keeps every chunk id and line range."""
    before = [(c.chunk_id, c.start_line, c.end_line) for c in chunk_file("m.py", text).chunks]
    after = [(c.chunk_id, c.start_line, c.end_line) for c in chunk_file("m.py", redact(text).text).chunks]
    assert after == before


@pytest.mark.parametrize("odd_break", ["\f", "\u2028", "\x1c"])
def test_chunk_code_starts_at_its_def_despite_odd_line_breaks(odd_break: str) -> None:
    text = f"x = 1\n# odd{odd_break}break\ndef after():\n    return 1\n"
    chunk = next(c for c in chunk_file("m.py", text).chunks if c.symbol == "after")
    assert chunk.code.startswith("def after():")
