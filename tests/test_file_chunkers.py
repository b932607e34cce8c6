"""Chunkers of the files beside the code: what each format is cut into, named how, on which lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from codelens.ingest.chunker import chunk_file
from codelens.ingest.codebase import chunk_codebase
from codelens.ingest.formats import chunk_other_file, file_format, looks_generated, looks_like_table
from codelens.ingest.pieces import MAX_PIECE_CHARS


def pieces(path: str, text: str) -> list[tuple[str, str, int, int]]:
    """(chunk id, kind, start line, end line) of a file's chunks."""
    fmt = file_format(path)
    assert fmt is not None and fmt != "python"
    return [(c.chunk_id, c.kind, c.start_line, c.end_line) for c in chunk_other_file(path, text, fmt)]


@pytest.mark.parametrize(("path", "expected"), [
    ("README.md", "markdown"), ("docs/intro.mdx", "markdown"), ("docs/index.rst", "rst"),
    ("docker-compose.yaml", "yaml"), (".github/workflows/ci.yml", "yaml"), ("pyproject.toml", "toml"),
    ("setup.cfg", "ini"),
    (".coveragerc", "ini"), ("tox.ini", "ini"), ("package.json", "json"), (".env", "env"),
    (".env.test", "env"), ("prod.env", "env"), ("Dockerfile", "dockerfile"), ("Dockerfile.old", "dockerfile"),
    ("Makefile", "makefile"), ("scripts/run.sh", "bash"), ("schema.sql", "sql"), ("data/seed.csv", "csv"),
    ("requirements.txt", "text"), ("LICENSE", "text"), ("app/main.py", "python"),
    ("poetry.lock", None), ("package-lock.json", None), ("yarn.lock", None), ("static/app.min.js", None),
    ("media/logo.png", None), ("templates/page.html", None), ("migrations/script.py.mako", None),
])
def test_file_format_by_name(path: str, expected: str | None) -> None:
    assert file_format(path) == expected


MARKDOWN = """\
# GymHero

A gym app.

## How to run

### You should have
- Docker

```bash
# this is a comment in code, not a heading
make dev
```

### Tests
Run `make test`.

## How to run
Again, a second section of the same name.
"""


def test_markdown_sections_by_heading_path() -> None:
    assert pieces("README.md", MARKDOWN) == [
        ("README.md::GymHero", "doc", 1, 3),
        ("README.md::How to run > You should have", "doc", 7, 13),  # the fence stays in its section
        ("README.md::How to run > Tests", "doc", 15, 16),
        ("README.md::How to run", "doc", 18, 19),  # "How to run" alone was a bare heading: left out
    ]


def test_markdown_intro_setext_and_repeated_names() -> None:
    text = "Intro line.\n\nUsage\n=====\n\nText.\n\nUsage\n-----\n\nMore.\n\nUsage\n-----\nAgain.\n"
    ids = [p[0] for p in pieces("docs/guide.md", text)]
    # the one level-1 heading is the title: the sections below it do not repeat it
    assert ids == ["docs/guide.md::<intro>", "docs/guide.md::Usage", "docs/guide.md::Usage#2",
                   "docs/guide.md::Usage#3"]


def test_long_section_splits_at_paragraphs_with_stable_suffixes() -> None:
    paragraph = "word " * 60  # ~300 characters
    body = "\n\n".join(f"{paragraph}{n}" for n in range(8))
    text = f"# Title\n\n## Long\n\n{body}\n"
    found = pieces("README.md", text)
    assert [p[0] for p in found] == ["README.md::Long", "README.md::Long (2)", "README.md::Long (3)"]
    chunks = chunk_other_file("README.md", text, "markdown")
    assert all(len(c.code) <= MAX_PIECE_CHARS * 5 // 4 for c in chunks)
    assert all(not c.code.startswith("\n") and c.code.strip() for c in chunks)
    lines = text.splitlines()
    for chunk in chunks:  # the lines are the real ones
        assert chunk.code == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])
    assert pieces("README.md", text) == found  # stable


def test_rst_titles_by_adornment() -> None:
    text = ("=====\nHTTPX\n=====\n\nIntro.\n\nInstall\n-------\n\npip install httpx\n\n"
            "From source\n~~~~~~~~~~~\n\nclone\n")
    assert pieces("docs/index.rst", text) == [
        ("docs/index.rst::HTTPX", "doc", 1, 5),
        ("docs/index.rst::Install", "doc", 7, 10),
        ("docs/index.rst::Install > From source", "doc", 12, 15),
    ]


COMPOSE = """\
version: '3.8'
services:
  app:
    build: .
    ports:
      - '8000:8000'
  test-db:
    image: postgres:16-alpine
    ports:
      - '5433:5432'
volumes:
  db: {}
"""


def test_compose_services_one_level_down() -> None:
    assert pieces("docker-compose.yaml", COMPOSE) == [
        ("docker-compose.yaml::version", "config", 1, 1),
        ("docker-compose.yaml::services.app", "config", 3, 6),
        ("docker-compose.yaml::services.test-db", "config", 7, 10),
        ("docker-compose.yaml::volumes", "config", 11, 12),
    ]


def test_workflow_jobs_and_broken_yaml_fallback() -> None:
    workflow = "name: CI\non: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n  lint:\n    runs-on: x\n"
    assert [p[0] for p in pieces(".github/workflows/ci.yaml", workflow)] == [
        ".github/workflows/ci.yaml::name", ".github/workflows/ci.yaml::on",
        ".github/workflows/ci.yaml::jobs.test", ".github/workflows/ci.yaml::jobs.lint"]
    broken = "first: 1\nsecond: [unclosed\nthird: 3\n"
    assert pieces("conf.yaml", broken) == [("conf.yaml::first", "config", 1, 1),
                                           ("conf.yaml::second", "config", 2, 2),
                                           ("conf.yaml::third", "config", 3, 3)]


PYPROJECT = """\
[tool.poetry]
name = "demo"
description = '''a [not.a.table]
inside a string'''

[tool.poetry.dependencies]
python = "^3.10"

[[tool.mypy.overrides]]
module = "a"

[[tool.mypy.overrides]]
module = "b"
"""


def test_toml_tables() -> None:
    assert pieces("pyproject.toml", PYPROJECT) == [
        ("pyproject.toml::tool.poetry", "config", 1, 4),
        ("pyproject.toml::tool.poetry.dependencies", "config", 6, 7),
        ("pyproject.toml::tool.mypy.overrides", "config", 9, 10),
        ("pyproject.toml::tool.mypy.overrides#2", "config", 12, 13),
    ]
    broken = "top = 1\n[a]\nx = \n[b]\ny = 2\n"  # tomllib rejects it: header lines still split it
    assert [p[0] for p in pieces("broken.toml", broken)] == ["broken.toml::<root>", "broken.toml::a", "broken.toml::b"]


def test_ini_sections_and_root_keys() -> None:
    assert pieces(".coveragerc", "[run]\nomit =\n  a.py\n\n[report]\nexclude_also =\n    def __repr__\n") == [
        (".coveragerc::run", "config", 1, 3), (".coveragerc::report", "config", 5, 7)]
    editorconfig = "root = true\n\n[*]\nindent_style = space\n\n[*.md]\ntrim = false\n"
    assert [p[0] for p in pieces(".editorconfig", editorconfig)] == [
        ".editorconfig::<root>", ".editorconfig::*", ".editorconfig::*.md"]


def test_json_top_level_keys() -> None:
    text = '{\n  "name": "demo",\n  "scripts": {\n    "test": "jest"\n  },\n  "private": true\n}\n'
    assert pieces("package.json", text) == [("package.json::name", "config", 1, 2),
                                            ("package.json::scripts", "config", 3, 5),
                                            ("package.json::private", "config", 6, 7)]
    assert [p[0] for p in pieces("compact.json", '{"a": 1, "b": 2}')] == ["compact.json::<document>"]
    assert [p[0] for p in pieces("list.json", "[1, 2]")] == ["list.json::<document>"]


def test_env_blocks_named_by_comment_or_first_key() -> None:
    text = "# app\nENV=dev\nDEBUG=1\n\n# Database\nPOSTGRES_HOST=db\n\nSERVER_PORT=8000\n"
    assert pieces(".env.dev", text) == [(".env.dev::app", "config", 1, 3), (".env.dev::Database", "config", 5, 6),
                                        (".env.dev::SERVER_PORT", "config", 8, 8)]


def test_makefile_targets_with_their_comments() -> None:
    text = "PY = python\n.PHONY: test\n\ndev:\n\tdocker compose up\n\n# run every test\ntest-all: dev\n\tpytest\n"
    assert pieces("Makefile", text) == [("Makefile::<variables>", "text", 1, 2), ("Makefile::dev", "text", 4, 5),
                                        ("Makefile::test-all", "text", 7, 9)]


def test_dockerfile_stages() -> None:
    text = "ARG V=3.10\nFROM python:${V}-slim as base\nRUN pip install x\n\nFROM base AS production\nCOPY . /app\n"
    assert pieces("Dockerfile", text) == [("Dockerfile::base", "text", 1, 3),
                                          ("Dockerfile::production", "text", 5, 6)]


def test_csv_header_and_first_rows_only() -> None:
    rows = "\n".join(f'{n},"name {n}","a ""quoted""\nmulti-line field"' for n in range(50))
    found = pieces("data/seed.csv", "id,name,desc\n" + rows + "\n")
    assert found == [("data/seed.csv::<sample>", "text", 1, 11)]  # header + 5 rows of two lines each


def test_plain_text_by_blank_line_blocks_within_budget() -> None:
    block = "\n".join(f"echo step {n} of a long script that does many things" for n in range(12))
    text = f"#!/bin/sh\n{block}\n\n{block}\n\n{block}\n\n{block}\n"  # ~625 characters a block
    ids = [p[0] for p in pieces("notes/run.txt", text)]  # the last part may run 25% over: no stub
    assert ids == ["notes/run.txt::<file>", "notes/run.txt::<file> (2)", "notes/run.txt::<file> (3)"]


def test_generated_files_are_recognised() -> None:
    assert looks_generated("x" * 5000)  # one minified line
    assert not looks_generated("disable=" + "a," * 2000 + "\n" + "key = value\n" * 300)  # one long list is fine
    assert not looks_generated("short = 1\n")


def test_a_table_of_numbers_is_data_not_code(tmp_path: Path) -> None:
    """zlib's `crc32.h` ("Generated automatically by crc32.c"): 9,000 lines of hex, 259 chunks no question
    is answered by. Skipped with its reason; the code beside it is indexed, and so is the code around a table."""
    rows = "\n".join(f"    0x{n:08x}UL, 0x{n * 7:08x}UL, 0x{n * 13:08x}UL, 0x{n * 31:08x}UL," for n in range(200))
    table = f"/* crc32.h -- tables for rapid CRC calculation */\n\nlocal const z_crc_t crc_table[] = {{\n{rows}\n}};\n"
    assert looks_like_table(table)
    code = "\n".join(f"int f{n}(int x) {{ return x * {n} + 0x{n:04x}; }}" for n in range(200))
    assert not looks_like_table(code) and not looks_like_table("{1, 2, 3},\n")  # code; too small to be data
    # a long run of digits that is no row (serde's tests hold such lines): read in linear time, not backtracked
    assert not looks_like_table(("1234567890" * 500 + "x\n") * 4)
    (tmp_path / "crc32.h").write_text(table)
    (tmp_path / "crc32.c").write_text("#include \"crc32.h\"\n\nunsigned crc(unsigned c) { return crc_table[c]; }\n")
    # a table inside code (commons-codec's PureJavaCrc32.java): its rows left out, its methods read where they are
    (tmp_path / "Crc.java").write_text(
        f"public class Crc {{\n  private static final int[] T = {{\n{rows}\n  }};\n\n"
        "  /** Updates the checksum with one byte. */\n  public void update(int b) {\n"
        "    crc = T[(crc ^ b) & 0xff];\n  }\n}\n")
    chunked = chunk_codebase(tmp_path, 1_000_000)
    assert {c.path for c in chunked.chunks} == {"crc32.c", "Crc.java"}
    assert any("crc32.h: skipped, a table of numbers" in w for w in chunked.warnings)
    assert any("Crc.java: its rows of numbers left out" in w for w in chunked.warnings)
    update = next(c for c in chunked.chunks if c.symbol == "Crc.update")
    assert (update.start_line, update.end_line) == (205, 208)
    assert not any("0x0000" in c.code for c in chunked.chunks if c.path == "Crc.java")


def test_python_chunks_unchanged_beside_other_files(tmp_path: Path) -> None:
    code = 'import os\n\nX = 1\n\n\nclass A:\n    def f(self):\n        return 1\n\n\ndef g():\n    """Doc."""\n'
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(code)
    (tmp_path / "README.md").write_text("# Demo\n\nText.\n")
    (tmp_path / "poetry.lock").write_text("[[package]]\nname = 'x'\n")
    (tmp_path / "media.png").write_bytes(b"\x89PNG\x00\x00")
    chunked = chunk_codebase(tmp_path, 1_000_000)
    python = [c for c in chunked.chunks if c.is_code]
    assert python == chunk_file("pkg/mod.py", code).chunks
    assert [c.chunk_id for c in chunked.chunks if not c.is_code] == ["README.md::Demo"]
    assert chunked.files == 2 and chunked.python_files == 1  # the lock file and the image are not read


def test_binary_huge_and_minified_files_are_skipped_with_warnings(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("def f():\n    return 1\n")
    (tmp_path / "blob.json").write_bytes(b'{"a": "\x00"}')
    (tmp_path / "big.yaml").write_text("key: value\n" * 40_000)  # 440 KB
    (tmp_path / "bundle.json").write_text('{"a": "' + "x" * 30_000 + '"}')
    (tmp_path / "huge.csv").write_text("id,name\n" + "".join(f"{n},row {n}\n" for n in range(100_000)))
    chunked = chunk_codebase(tmp_path, 1_000_000)
    warnings = "\n".join(chunked.warnings)
    assert "blob.json: skipped, binary" in warnings
    assert "big.yaml: skipped" in warnings and "bundle.json: skipped, minified" in warnings
    assert [c.chunk_id for c in chunked.chunks if c.path == "huge.csv"] == ["huge.csv::<sample>"]
