"""Languages at the edges: every hit says its language and how it was found, `--lang` filters
every entry point (CLI, serve, MCP, the app), stats count files and chunks per language, cards pick
the lexer of their language, and a hit found by its keywords alone never shows "0.0%".

Real components on small fixtures: the mini project with a README and a configuration file
beside its Python (real e5, ChromaDB on disk), and a partial index a progressive run left.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from codelens.app.highlight import lexer_for, render_html
from codelens.chunk import FILE_KINDS
from codelens.cli.common import hit_line, program_name
from codelens.cli.main import main
from codelens.errors import EXIT_BAD_INPUT, BadInput
from codelens.index.build import build_index
from codelens.languages import LANGUAGES, language_names, language_of
from codelens.mcp.tools import CodeLensTools, ServedIndex
from codelens.search.filters import (
    SearchFilters,
    UnknownLanguage,
    chunk_language,
    language_counts,
    language_filter,
)
from codelens.search.lexical import chunk_terms
from codelens.search.matched import BOTH, KEYWORDS, relevance_text
from codelens.search.query import Fused
from codelens.search.searcher import Searcher, relevance_percent
from codelens.search.terms import without_code_suffix
from codelens.serve.server import search_payload
from tests.conftest import PROJECT_ROOT, make_chunk, run_cli, settings_for

README = """# Mini project

## Storage

Records are kept in a repository object backed by SQLite; `Repository.save` inserts one.

## Passwords

Passwords are hashed before they are stored, and checked on login.
"""

CONFIG = """[database]
url = "sqlite:///app.db"
pool_size = 5

[auth]
token_minutes = 30
"""


CLIENT_TS = """/** Talks to the backend's REST API. */
export class ApiClient {
  constructor(private baseUrl: string) {}

  /** Fetches one user by id from the server. */
  async fetchUser(id: number): Promise<unknown> {
    const response = await fetch(`${this.baseUrl}/users/${id}`);
    return response.json();
  }
}
"""

MAIN_GO = """package main

import "net/http"

// main starts the HTTP server on port 8080.
func main() {
	http.HandleFunc("/health", health)
	http.ListenAndServe(":8080", nil)
}

// health answers the load balancer's health check.
func health(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(http.StatusOK)
}
"""


@pytest.fixture(scope="module")
def mixed_index(tmp_path_factory, embedder, mini_project: Path):
    """The mini project's Python with a README (doc), a TOML file (config), a TypeScript client
    and a Go server beside it: one workspace of every kind of file."""
    source = tmp_path_factory.mktemp("mixed") / "project"
    shutil.copytree(mini_project, source)
    (source / "README.md").write_text(README, encoding="utf-8")
    (source / "settings.toml").write_text(CONFIG, encoding="utf-8")
    for path, code in (("web/src/api/client.ts", CLIENT_TS), ("cmd/server/main.go", MAIN_GO)):
        (source / path).parent.mkdir(parents=True)
        (source / path).write_text(code, encoding="utf-8")
    settings = settings_for(source.parent / "chroma_db")
    build_index(source, settings, embedder=embedder)
    return settings


@pytest.fixture(scope="module")
def mixed_searcher(mixed_index, embedder) -> Searcher:
    return Searcher(mixed_index, embedder=embedder)


# ------------------------------------------------------------ a chunk's language, the filter


def test_a_chunk_language_is_its_code_language_else_its_kind() -> None:
    assert chunk_language(make_chunk("web/src/api/client.ts::ApiClient.fetchUser", "x", kind="method")) == "typescript"
    assert chunk_language(make_chunk("cmd/server/main.go::main", "x")) == "go"
    assert chunk_language(make_chunk("pkg/auth.py::hash_password", "x")) == "python"
    assert chunk_language(make_chunk("README.md::Storage", "x", kind="doc")) == "doc"
    assert chunk_language(make_chunk("settings.toml::database", "x", kind="config")) == "config"


def test_the_language_filter_keeps_its_languages_only() -> None:
    python, doc = make_chunk("a.py::f", "x"), make_chunk("README.md::Intro", "x", kind="doc")
    ts = make_chunk("web/app.ts::start", "x")
    assert SearchFilters(languages=("python",)).accepts(python)
    assert not SearchFilters(languages=("python",)).accepts(doc)
    assert not SearchFilters(languages=("python",)).accepts(ts)
    assert SearchFilters(languages=("typescript", "doc")).accepts(ts)
    assert SearchFilters(languages=("typescript", "doc")).accepts(doc)
    assert SearchFilters().accepts(ts)  # no languages named: every one


def test_an_unknown_language_is_bad_input_that_lists_the_known_ones() -> None:
    assert language_filter(["TypeScript", " go ", "typescript"]) == ("typescript", "go")
    with pytest.raises(UnknownLanguage) as error:
        language_filter(["cobol"])
    assert isinstance(error.value, BadInput) and error.value.exit_code == EXIT_BAD_INPUT
    message = str(error.value)
    assert "'cobol'" in message
    assert all(name in message for name in (*language_names(), *FILE_KINDS))


def test_language_counts_count_files_and_chunks_most_chunks_first() -> None:
    chunks = [make_chunk("a.py::f", "x"), make_chunk("a.py::g", "x"), make_chunk("b.py::h", "x"),
              make_chunk("web/app.ts::start", "x"), make_chunk("README.md::Intro", "x", kind="doc")]
    assert language_counts(chunks) == {"python": {"files": 2, "chunks": 3}, "doc": {"files": 1, "chunks": 1},
                                       "typescript": {"files": 1, "chunks": 1}}
    assert list(language_counts(chunks)) == ["python", "doc", "typescript"]


def test_a_search_under_a_language_returns_that_language_only(mixed_searcher: Searcher) -> None:
    question = "where is the database url configured"
    everything = mixed_searcher.search(question, k=10)
    assert {h.language for h in everything} >= {"python", "config"}  # the filter has something to remove
    for wanted in (("python",), ("config",), ("doc", "config")):
        hits = mixed_searcher.search(question, k=5, filters=SearchFilters(languages=wanted))
        assert hits and {h.language for h in hits} <= set(wanted)
    # the best config chunk of the unfiltered list is still found under the filter
    best_config = next(h.chunk_id for h in everything if h.language == "config")
    config_hits = mixed_searcher.search(question, k=5, filters=SearchFilters(languages=("Config",)))
    assert best_config in [h.chunk_id for h in config_hits]
    with pytest.raises(UnknownLanguage):
        mixed_searcher.search(question, k=5, filters=SearchFilters(languages=("klingon",)))


def test_typescript_go_and_python_search_as_one_and_apart(mixed_searcher: Searcher) -> None:
    assert {"typescript", "go", "python", "doc", "config"} <= set(language_counts(mixed_searcher.chunks.values()))
    question = "fetch a user from the REST API"
    assert "web/src/api/client.ts::ApiClient.fetchUser" in [h.chunk_id for h in mixed_searcher.search(question, k=5)]
    hits = mixed_searcher.search(question, k=5, filters=SearchFilters(languages=("typescript",)))
    assert hits[0].chunk_id == "web/src/api/client.ts::ApiClient.fetchUser"
    assert {h.language for h in hits} == {"typescript"}
    hits = mixed_searcher.search("health check endpoint of the server", k=5, filters=SearchFilters(languages=("go",)))
    assert hits[0].chunk_id == "cmd/server/main.go::health" and {h.language for h in hits} == {"go"}
    hits = mixed_searcher.search("health check", k=8, filters=SearchFilters(languages=("go", "typescript")))
    assert {h.language for h in hits} == {"go", "typescript"}


# ------------------------------------------------------------ the CLI


def test_cli_search_json_carries_language_and_lang_filters(mixed_index) -> None:
    db = str(mixed_index.db_path)
    result = run_cli("-m", "codelens", "search", "how are passwords hashed", "-k", "6", "--json", "--db", db)
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)
    assert all(h["language"] == (language_of(h["path"]) or h["kind"]) for h in hits)
    assert "python" in {h["language"] for h in hits}
    assert all(h["matched"] in ("meaning", "keywords", "meaning+keywords", "name") for h in hits)
    assert all(isinstance(h["score"], float) for h in hits)  # the fused score: a number on every hit

    result = run_cli("-m", "codelens", "search", "how are passwords hashed", "-k", "6", "--json", "--db", db,
                     "--lang", "doc", "--lang", "config")
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)
    assert hits and {h["language"] for h in hits} <= {"doc", "config"}

    result = run_cli("-m", "codelens", "search", "passwords", "--db", db, "--lang", "cobol")
    assert result.returncode == EXIT_BAD_INPUT
    assert "unknown language 'cobol'" in result.stderr and "typescript" in result.stderr


def test_a_search_through_a_running_server_asks_for_its_languages(mixed_index) -> None:
    from codelens.cli.main import build_parser
    from codelens.cli.search import search_request

    args = build_parser().parse_args(["search", "health", "--lang", "go", "--lang", "TypeScript"])
    assert search_request(args, mixed_index)["languages"] == ["go", "TypeScript"]  # the server checks them


def test_stats_count_files_and_chunks_per_language(mixed_index, mixed_searcher: Searcher, capsys) -> None:
    expected = language_counts(mixed_searcher.chunks.values())
    assert expected["doc"]["files"] == 1 and expected["config"]["files"] == 1
    assert expected["python"]["files"] == sum(1 for p in {c.path for c in mixed_searcher.chunks.values()}
                                              if p.endswith(".py"))
    assert main(["stats", "--db", str(mixed_index.db_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["languages"] == expected
    assert sum(row["chunks"] for row in data["languages"].values()) == data["total_chunks"]
    assert data["languages"]["typescript"]["files"] == 1 and data["languages"]["go"]["files"] == 1
    assert main(["stats", "--db", str(mixed_index.db_path)]) == 0
    out = capsys.readouterr().out
    python = expected["python"]
    assert f"Languages: python {python['files']} files / {python['chunks']} chunks" in out


def test_program_name_is_the_one_it_was_started_as(tmp_path: Path) -> None:
    assert program_name("/home/u/.venv/bin/codelens") == "codelens"
    assert program_name("/src/codelens/__main__.py") == "python -m codelens"
    assert program_name("index.py") == "index.py"
    # A console script as pip writes one: its own file calls the entry function.
    script = tmp_path / "bin" / "codelens"
    script.parent.mkdir()
    script.write_text("import sys\nfrom codelens.cli.entry import main\nsys.exit(main())\n", encoding="utf-8")
    env = {"PYTHONPATH": str(PROJECT_ROOT), "PATH": "/usr/bin:/bin"}
    for command, usage in (([str(script)], "usage: codelens "), (["-m", "codelens"], "usage: python -m codelens "),
                           ([str(PROJECT_ROOT / "index.py")], "usage: index.py ")):
        result = subprocess.run([sys.executable, *command, "--help"], cwd=tmp_path, env=env, capture_output=True,
                                text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith(usage), result.stdout[:200]


# ------------------------------------------------------------ serve and MCP


def test_serve_takes_languages_and_says_each_hit_language(mixed_searcher: Searcher) -> None:
    payload = search_payload(mixed_searcher, {"query": "database url", "k": 4, "languages": ["config"]})
    assert payload["hits"] and {h["language"] for h in payload["hits"]} == {"config"}
    assert all("relevance" in h and "matched" in h for h in payload["hits"])
    for bad in ({"languages": "config"}, {"languages": [1]}, {"languages": ["klingon"]}):
        with pytest.raises(BadInput):
            search_payload(mixed_searcher, {"query": "database url", **bad})


def test_mcp_search_filters_by_language_and_index_status_counts_them(mixed_index) -> None:
    tools = CodeLensTools(ServedIndex(mixed_index))
    found = tools.search("how are passwords hashed", k=3, languages=("python",))
    assert found.data["hits"] and {h["language"] for h in found.data["hits"]} == {"python"}
    assert "[python, " in found.text and "```python" in found.text
    docs = tools.search("how are passwords hashed", k=3, languages=("doc",))
    assert {h["language"] for h in docs.data["hits"]} == {"doc"}
    with pytest.raises(UnknownLanguage):
        tools.search("passwords", languages=("klingon",))
    status = tools.index_status(ask_enabled=False, reindex_allowed=False)
    assert status.data["languages"] == language_counts(tools.index.searcher.chunks.values())
    assert "languages: python " in status.text


@pytest.mark.slow  # an MCP server process loading the models
def test_mcp_protocol_takes_lang_as_one_name_or_a_list(mixed_index, tmp_path: Path) -> None:
    from tests.test_mcp import serving, text

    with serving(["--db", str(mixed_index.db_path)], tmp_path / "server.log") as client:
        schema = client.tools()["search"].input_schema
        assert "lang" in schema["properties"]
        for lang, wanted in (("config", {"config"}), (["doc", "config"], {"doc", "config"})):
            result = client.call("search", query="database url", k=4, lang=lang)
            assert not result.is_error, text(result)
            assert {h["language"] for h in result.structured_content["hits"]} <= wanted
        result = client.call("search", query="database url", lang="klingon")
        assert result.is_error and "unknown language 'klingon'" in text(result)
        assert "languages: python " in text(client.call("index_status"))


# ------------------------------------------------------------ a hit found by its keywords alone


@pytest.fixture
def partial_searcher(tmp_path: Path, mini_project: Path, embedder) -> Searcher:
    """A progressive run stopped after its first batch: most chunks have no e5 vector yet."""
    from tests.test_progressive import StopAfter

    settings = replace(settings_for(tmp_path / "db"), batch_size=3, progressive_min_chunks=1)
    with pytest.raises(KeyboardInterrupt):
        build_index(mini_project, settings, embedder=StopAfter(embedder, batches=1))
    return Searcher(settings, embedder=embedder)


def test_a_hit_without_a_vector_says_how_it_was_found(partial_searcher: Searcher, capsys) -> None:
    searcher = partial_searcher
    target = "pkg/storage.py::Repository.load_all"
    assert searcher.partial is not None and not searcher.has_vector(target)
    hits = searcher.search("load all stored records", k=5, filters=SearchFilters(include_tests=True))
    hit = next(h for h in hits if h.chunk_id == target)
    # by its words, and (the partial index's static leg) by meaning
    assert hit.relevance is None and hit.matched in (KEYWORDS, BOTH)
    row = hit.to_row()
    assert row["relevance"] is None and row["matched"] == hit.matched and isinstance(row["score"], float)
    assert "0.0%" not in hit_line(row) and "no vector yet" in hit_line(row)
    # a hit with a vector keeps its percentage
    embedded = [h for h in hits if searcher.has_vector(h.chunk_id)]
    assert all(h.relevance is not None and 0 <= h.relevance <= 100 for h in embedded)

    assert main(["search", "load all stored records", "--db", str(searcher.settings.db_path), "--include-tests",
                 "-k", "5", "--json"]) == 0
    rows = {r["chunk_id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows[target]["matched"] == hit.matched and isinstance(rows[target]["score"], float)


def test_a_hit_the_dense_leg_did_not_fetch_shows_its_own_cosine(mini_searcher: Searcher) -> None:
    """eShop, «как оформляется заказ и списываются товары со склада»: no hit of the five came from the dense
    leg, so every one read "matched by meaning (fast leg, no vector yet)" on a complete index. A hit without
    the leg's cosine now has its exact cosine from the vectors the searcher holds."""
    searcher = mini_searcher
    assert searcher.dense_vectors is not None
    chunk_id = searcher.dense_vectors.chunk_ids[0]
    query = searcher.prepare("load all stored records")
    row = searcher.dense_vectors.chunk_ids.index(chunk_id)
    expected = float(searcher.dense_vectors.vectors[row] @ query.vector)
    [hit] = searcher._hits([Fused(chunk_id, 1.0, cosine=None)], query.vector)
    assert hit.relevance == pytest.approx(relevance_percent(expected))
    [unknown] = searcher._hits([Fused(chunk_id, 1.0, cosine=None)])  # no question's vector: the old bound
    assert unknown.relevance is None


def test_mcp_says_keywords_instead_of_a_zero_relevance(partial_searcher: Searcher) -> None:
    tools = CodeLensTools(ServedIndex(partial_searcher.settings))
    found = tools.search("load all stored records", k=5, include_tests=True)
    by_id = {h["chunk_id"]: h for h in found.data["hits"]}
    assert by_id["pkg/storage.py::Repository.load_all"]["relevance"] is None
    assert "no vector yet" in found.text and "relevance 0.0%" not in found.text


def test_relevance_text() -> None:
    assert relevance_text(87.3, "meaning") == "87.3%" and relevance_text(0.0, "meaning+keywords") == "0.0%"
    assert relevance_text(None, "keywords") == "matched by keywords (no vector yet)"
    assert relevance_text(None, "name") == "matched by name"
    assert relevance_text(None, "meaning") == "matched by meaning (fast leg, no vector yet)"  # the static leg


# ------------------------------------------------------------ path words, lexers


@pytest.mark.parametrize("path", ["pkg/auth.py", "a.py", "src/flask/app.py", "x.py.py", "README.md", "setup.cfg",
                                  "py.py", "weird.PY", "dir.py/file"])
def test_path_words_of_python_and_other_files_are_unchanged(path: str) -> None:
    assert without_code_suffix(path) == path.removesuffix(".py")


def test_path_words_drop_any_code_extension() -> None:
    assert without_code_suffix("web/src/api/client.ts") == "web/src/api/client"
    assert without_code_suffix("cmd/server/main.go") == "cmd/server/main"
    assert without_code_suffix("src/main/java/com/acme/PayService.java") == "src/main/java/com/acme/PayService"
    chunk = make_chunk("web/src/api/client.ts::fetchUser", "function fetchUser() {}")
    assert "ts" not in chunk_terms(chunk)


def test_every_language_gets_its_own_lexer() -> None:
    expected = {"client.ts": "TypeScript", "view.tsx": "TSX", "main.go": "Go", "PayService.java": "Java",
                "App.kt": "Kotlin", "Tool.cs": "C#", "lib.rs": "Rust", "util.c": "C", "util.cpp": "C++",
                "model.rb": "Ruby", "index.php": "PHP", "View.swift": "Swift", "Job.scala": "Scala",
                "app.js": "JavaScript", "x.mts": "TypeScript", "build.sc": "Scala", "auth.py": "Python"}
    assert {name: lexer_for(f"src/{name}").name for name in expected} == expected
    for row in LANGUAGES:  # every extension of the table: a real lexer, never plain text
        for extension in row.extensions:
            assert lexer_for(f"src/file{extension}").name != "Text only", extension


def test_a_php_method_is_highlighted_without_its_files_opening_tag() -> None:
    from codelens.app.highlight import code_view

    rendered = render_html(code_view("function pay($order) {\n    return $order->total;\n}", 10, ()),
                           path="src/Pay.php")
    assert '<span style="color: #' in rendered.split("pay")[0]  # `function` is a keyword, not HTML text


# ------------------------------------------------------------ the app


def test_app_filters_by_language_and_counts_languages_in_its_index_tab(monkeypatch, mixed_index,
                                                                         mixed_searcher: Searcher) -> None:
    from tests.test_app import cards, open_app, search

    app = open_app(monkeypatch, mixed_index.db_path)
    counts = language_counts(mixed_searcher.chunks.values())
    choice = app.multiselect(key="languages")
    assert list(choice.options) == [f"{name} · {row['chunks']}" for name, row in counts.items()]
    table = next(frame.value for frame in app.dataframe if "Язык" in frame.value.columns)
    assert [tuple(row) for row in table.itertuples(index=False)] == [
        (name, row["files"], row["chunks"]) for name, row in counts.items()]

    search(app, "fetch a user from the REST API")
    header = next(m.value for m in app.markdown if "web/src/api/client.ts" in m.value and "fetchUser" in m.value)
    assert ":gray-badge[typescript]" in header
    search(app, "where is the database url configured")
    assert {path for _, path, *_ in cards(app)} & {"pkg/storage.py", "settings.toml"}
    app.multiselect(key="languages").set_value(["config"]).run()
    assert not app.exception
    assert cards(app) and {path for _, path, *_ in cards(app)} == {"settings.toml"}


def test_app_card_says_how_a_hit_without_a_vector_was_found(monkeypatch, partial_searcher: Searcher) -> None:
    from codelens.app.tabs.cards import FAST_MEANING, KEYWORDS_ONLY
    from tests.test_app import cards, open_app, search

    app = open_app(monkeypatch, partial_searcher.settings.db_path)
    app.toggle[0].set_value(True).run()  # tests shown: the partial index's chunks without vectors include them
    search(app, "load all stored records")
    assert "Repository.load_all" in [card[4] for card in cards(app)]
    captions = [c.value for c in app.caption]
    assert any(c in (KEYWORDS_ONLY, FAST_MEANING) for c in captions)  # keywords, or the static leg
    bars = [bar.proto.text for bar in app.get("progress") if bar.proto.text.startswith("релевантность")]
    assert len(bars) < len(cards(app)) and "релевантность **0%**" not in bars  # no bar for the keywords' hit
