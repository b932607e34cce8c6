"""Scripts whose name has no extension (`bin/asdf`, `libexec/rbenv-init`, `bin/rails`) are read as the
language their `#!` line runs: listed, extracted from a zip, chunked by that language's grammar, searched,
filtered by `--lang`, highlighted and in the code graph; a file with no `#!` line, or a binary, is not read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codelens.app.highlight import lexer_for
from codelens.index.build import build_index
from codelens.ingest.codebase import chunk_source
from codelens.ingest.formats import code_language, script_format
from codelens.ingest.source import extract_zip_safely, indexed_path_filter, list_source_files
from codelens.languages import script_row
from codelens.search.filters import SearchFilters
from codelens.search.searcher import Searcher
from tests.conftest import run_cli, settings_for, zip_folder

TOOL = """#!/usr/bin/env bash
# tool: the command line of the plugin manager
set -e
source "$(dirname "$0")/../lib/util.sh"

install_plugin() {
  local name="$1"
  log_info "cloning the plugin $name"
  git clone "https://example.com/$name" "$HOME/.tool/plugins/$name"
}

case "$1" in
  install) install_plugin "$2" ;;
esac
"""
UTIL = "log_info() {\n  printf '%s\\n' \"$*\" >&2\n}\n"
ROTATE = '#!/usr/bin/python3 -u\n"""Rotate the log files."""\nfrom shop.paths import aside\n\n\ndef rotate(path):\n' \
         '    """Move path aside."""\n    return aside(path)\n'


def _write(folder: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return folder


def _project(folder: Path) -> Path:
    return _write(folder, {
        "bin/tool": TOOL, "lib/util.sh": UTIL, "libexec/rotate-logs": ROTATE,
        "shop/__init__.py": "", "shop/paths.py": "def aside(path):\n    return path + '.1'\n",
        "bin/compiled": b"\x7fELF\x02\x01\x01\x00binary",  # a build's binary beside the scripts: never read
        "NOTES": "#!not a program\nplain words\n", "VERSION": "1.2.3\n",
    })


@pytest.mark.parametrize(("line", "language"), [
    ("#!/bin/bash -e", "bash"), ("#!/bin/sh", "bash"), ("#! /usr/bin/env zsh", "bash"),
    ("#!/usr/bin/env -S python3 -u", "python"), ("#!/usr/bin/python3.12", "python"),
    ("#!/usr/bin/perl -w", "perl"), ("#!/usr/bin/env ruby", "ruby"),
    ("#!/usr/bin/env NODE_ENV=production node", "javascript"),
    ("#!/usr/bin/env lua5.4", "lua"), ("#!/usr/bin/env elixir", "elixir"), ("#!/usr/bin/php", "php"),
    ("#!/usr/bin/awk -f", None), ("#!", None), ("# a comment", None), ("", None),
])
def test_the_program_of_a_shebang_line_names_the_language(line: str, language: str | None) -> None:
    row = script_row(line)
    assert (row.name if row is not None else None) == language


def test_only_a_name_that_says_nothing_is_read_by_its_first_line() -> None:
    assert script_format("bin/asdf", b"#!/usr/bin/env bash\nset -e\n") == "bash"
    assert script_format("Makefile", b"#!/usr/bin/env bash\n") is None  # a build file, by its name
    assert script_format("notes.txt", b"#!/usr/bin/env bash\n") is None
    assert script_format("bin/asdf", b"set -e\n") is None
    assert code_language("libexec/rotate-logs", ROTATE) == "python"
    assert code_language("lib/util.sh", UTIL) == "bash"


def test_scripts_are_listed_binaries_and_text_are_not(tmp_path: Path) -> None:
    project = _project(tmp_path / "repo")
    assert [f.rel_path for f in list_source_files(project)] == [
        "bin/tool", "lib/util.sh", "libexec/rotate-logs", "shop/__init__.py", "shop/paths.py"]
    accepts = indexed_path_filter(project)  # a watcher's events follow the same rules
    assert accepts(project / "bin/tool") and not accepts(project / "bin/compiled")
    assert not accepts(project / "NOTES")


def test_a_bin_folder_of_binaries_is_build_output_one_of_scripts_is_kept(tmp_path: Path) -> None:
    built = _write(tmp_path / "built", {"main.go": "package main\n", "bin/server": b"\x7fELF\x02\x01binary"})
    assert [f.rel_path for f in list_source_files(built)] == ["main.go"]
    rails = _write(tmp_path / "rails", {"app.rb": "class App\nend\n",
                                        "bin/setup": "#!/usr/bin/env ruby\ndef system!(*args)\n  system(*args)\nend\n"})
    assert [f.rel_path for f in list_source_files(rails)] == ["app.rb", "bin/setup"]


def test_a_build_tools_wrapper_script_is_left_out_with_a_warning(tmp_path: Path) -> None:
    """`mvnw` and `gradlew` (300 lines of JVM discovery, the same in every project) ranked above
    spring-petclinic's code for its own questions."""
    wrapper = "#!/bin/sh\n# Apache Maven Wrapper startup batch script\nfind_maven_basedir() {\n  pwd\n}\n"
    project = _write(tmp_path / "app", {"mvnw": wrapper, "gradlew": wrapper, "bin/tool": wrapper,
                                        "src/App.java": "class App {\n  void run() {}\n}\n"})
    chunked = chunk_source(project, 1_000_000)
    assert {c.path for c in chunked.chunks} == {"bin/tool", "src/App.java"}
    assert [w for w in chunked.warnings if "wrapper" in w] == [
        "gradlew: skipped, a build tool's wrapper script (written by Maven or Gradle, the same in every project)",
        "mvnw: skipped, a build tool's wrapper script (written by Maven or Gradle, the same in every project)"]


def test_a_zip_writes_out_a_script_and_leaves_its_binaries_and_text_in_it(tmp_path: Path) -> None:
    archive = zip_folder(_project(tmp_path / "repo"), tmp_path / "repo.zip")
    extract_zip_safely(archive, tmp_path / "out")
    written = sorted(p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert written == ["repo/bin/tool", "repo/lib/util.sh", "repo/libexec/rotate-logs", "repo/shop/__init__.py",
                       "repo/shop/paths.py"]


@pytest.mark.parametrize("as_zip", [False, True])
def test_a_scripts_chunks_are_its_languages_and_say_so(tmp_path: Path, as_zip: bool) -> None:
    project = _project(tmp_path / "repo")
    source = zip_folder(project, tmp_path / "repo.zip") if as_zip else project
    chunks = {c.chunk_id: c for c in chunk_source(source, 1_000_000).chunks}
    assert sorted(chunks) == ["bin/tool::<module>", "bin/tool::install_plugin", "lib/util.sh::log_info",
                              "libexec/rotate-logs::<module>", "libexec/rotate-logs::rotate", "shop/paths.py::aside"]
    assert chunks["bin/tool::install_plugin"].language == "bash"
    assert chunks["bin/tool::install_plugin"].script_language == "bash"
    assert chunks["lib/util.sh::log_info"].script_language == ""  # a name that says its language stores nothing
    assert chunks["libexec/rotate-logs::rotate"].docstring == "Move path aside."  # Python's ast read it
    assert chunks["libexec/rotate-logs::<module>"].language == "python"


def test_a_script_is_searched_filtered_highlighted_and_in_the_graph(tmp_path: Path, embedder) -> None:
    project = _project(tmp_path / "repo")
    settings = settings_for(tmp_path / "db")
    build_index(project, settings, embedder=embedder)
    searcher = Searcher(settings, embedder=embedder)
    hits = searcher.search("clone a plugin from its repository", k=3, filters=SearchFilters(languages=("bash",)))
    assert hits and hits[0].chunk.chunk_id == "bin/tool::install_plugin"
    assert {hit.chunk.language for hit in hits} == {"bash"}
    python_hits = searcher.search("rotate the log files", k=5, filters=SearchFilters(languages=("python",)))
    assert python_hits[0].chunk.path == "libexec/rotate-logs"
    assert lexer_for("bin/tool", "bash").name == "Bash"  # its lines shown as shell, not plain text

    found = run_cli("-m", "codelens", "search", "clone a plugin", "--db", str(settings.db_path), "--json", "-k", "1")
    assert found.returncode == 0, found.stderr
    assert [(h["chunk_id"], h["language"]) for h in json.loads(found.stdout)] == [("bin/tool::install_plugin", "bash")]
    callees = run_cli("-m", "codelens", "callees", "bin/tool::install_plugin", "--db", str(settings.db_path))
    assert callees.returncode == 0, callees.stderr
    assert "lib/util.sh::log_info" in callees.stdout  # `source ../lib/util.sh` and the call, read as Bash
    callers = run_cli("-m", "codelens", "callers", "shop/paths.py::aside", "--db", str(settings.db_path))
    assert callers.returncode == 0, callers.stderr
    assert "libexec/rotate-logs::rotate" in callers.stdout  # the script's import and call, read as Python
    code_map = run_cli("-m", "codelens", "map", "--db", str(settings.db_path), "--json")
    assert code_map.returncode == 0, code_map.stderr
    mapped = json.loads(code_map.stdout)
    assert {"bin/tool", "libexec/rotate-logs"} <= {m["path"] for m in mapped["modules"]}
    assert mapped["files"] == []  # a script is a module of the map, not a file beside the code
