"""The MCP server (`python -m codelens mcp`), driven as a subprocess by the SDK's own client,
over stdio and streamable HTTP, against real indexes."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import anyio
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from codelens.chunk import Chunk
from codelens.cli.main import build_parser
from codelens.errors import EXIT_BAD_INPUT, EXIT_USAGE
from codelens.graph.query import UnknownSymbol, callers
from codelens.graph.store import load_graph
from codelens.index.build import build_index
from codelens.index.metadata import read_stats
from codelens.locations import has_index, index_for
from codelens.mcp.tools import CodeLensTools, ServedIndex, numbered_code
from codelens.search.limits import MAX_K
from tests.conftest import PROJECT_ROOT, run_cli, settings_for
from tests.stub_llm import Reply

READ_ONLY_TOOLS = {"search", "get_chunk", "callers", "callees", "deps", "code_map", "index_status", "context", "impact"}
VERIFY_PASSWORD = "gymhero/security.py::verify_password"


@asynccontextmanager
async def mcp_session(args: list[str], errlog: Path, env: dict[str, str] | None = None,
                      cwd: Path = PROJECT_ROOT) -> AsyncIterator[ClientSession]:
    """The real server as a subprocess, connected over stdio, initialized. The SDK hands a child
    only a few variables of its own: the test's cache roots go with them, so no server touches
    a real user folder."""
    cache_roots = {name: os.environ[name] for name in ("CODELENS_CACHE_DIR", "CODELENS_MODEL_CACHE",
                                                       "CODELENS_AUTOSERVE", "PYTHONPATH") if name in os.environ}
    params = StdioServerParameters(command=sys.executable, args=["-m", "codelens", "mcp", *args],
                                   cwd=str(cwd), env={**cache_roots, **(env or {})})
    with errlog.open("w", encoding="utf-8") as log:
        async with stdio_client(params, errlog=log) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


class Client:
    """A session in a background event loop, called from synchronous tests."""

    def __init__(self, portal: BlockingPortal, session: ClientSession) -> None:
        self.portal = portal
        self.session = session

    def call(self, name: str, **arguments: object) -> CallToolResult:
        return self.portal.call(self.session.call_tool, name, arguments)

    def tools(self) -> dict:
        return {tool.name: tool for tool in self.portal.call(self.session.list_tools).tools}


@contextmanager
def serving(args: list[str], errlog: Path, env: dict[str, str] | None = None,
            cwd: Path = PROJECT_ROOT) -> Iterator[Client]:
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(
            mcp_session(args, errlog, env, cwd)) as session:
        yield Client(portal, session)


def text(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content)


@pytest.fixture(scope="module")
def demo_server(demo_index, tmp_path_factory) -> Iterator[Client]:
    errlog = tmp_path_factory.mktemp("mcp") / "server.log"
    with serving(["--db", str(demo_index.db_path)], errlog) as client:
        yield client


# ------------------------------------------------------------ the demo index over stdio


@pytest.mark.slow
def test_lists_the_read_only_tools_with_typed_inputs(demo_server: Client) -> None:
    tools = demo_server.tools()
    assert set(tools) == READ_ONLY_TOOLS  # no LLM configured: no ask; no --allow-reindex: no reindex
    for tool in tools.values():
        assert tool.description and tool.annotations.read_only_hint
    k = tools["search"].input_schema["properties"]["k"]
    assert (k["type"], k["minimum"], k["maximum"]) == ("integer", 1, MAX_K)
    assert tools["search"].input_schema["required"] == ["query"]


@pytest.mark.slow
@pytest.mark.parametrize(("query", "expected"), [
    ("как создаётся JWT-токен", {"gymhero/security.py::create_access_token"}),
    ("where are DB settings", {"gymhero/config.py::Settings", "gymhero/config.py::get_settings"}),
])
def test_search_in_russian_and_english(demo_server: Client, query: str, expected: set[str]) -> None:
    result = demo_server.call("search", query=query, k=5)
    assert not result.is_error
    hits = result.structured_content["hits"]
    assert expected & {hit["chunk_id"] for hit in hits}
    first = hits[0]
    assert {"chunk_id", "path", "symbol", "kind", "start_line", "end_line", "relevance", "code"} <= set(first)
    assert 0 < first["relevance"] <= 100
    assert first["code"].lstrip().startswith(f"{first['start_line']}  ")
    assert f"1. {first['chunk_id']}" in text(result)


@pytest.mark.slow
def test_search_filters(demo_server: Client) -> None:
    result = demo_server.call("search", query="password", k=10, kind="function", path="gymhero/security")
    hits = result.structured_content["hits"]
    assert hits and all(h["kind"] == "function" and h["path"] == "gymhero/security.py" for h in hits)
    with_tests = demo_server.call("search", query="test password hashing", k=10, include_tests=True)
    assert any(h["path"].startswith("tests/") for h in with_tests.structured_content["hits"])


@pytest.mark.slow
def test_get_chunk_of_a_hit_has_the_file_line_numbers(demo_server: Client) -> None:
    hit = demo_server.call("search", query="how is the password hashed?").structured_content["hits"][0]
    result = demo_server.call("get_chunk", chunk_id=hit["chunk_id"])
    assert not result.is_error
    data = result.structured_content
    assert (data["path"], data["start_line"], data["end_line"]) == (hit["path"], hit["start_line"], hit["end_line"])
    numbered = [line for line in text(result).splitlines() if line.strip()[:1].isdigit()]
    first_number, first_code = numbered[0].strip().split("  ", 1)
    assert int(first_number) == hit["start_line"]
    assert data["code"].splitlines()[0].strip() == first_code.strip()


@pytest.mark.slow
def test_callers_of_a_known_function_match_the_graph(demo_server: Client, demo_index) -> None:
    graph = load_graph(demo_index.index_dir)
    expected = [n.node.node_id for n in callers(graph, VERIFY_PASSWORD, include_tests=False)]
    assert expected == ["gymhero/crud/user.py::UserCRUDRepository.authenticate_user"]
    for target in (VERIFY_PASSWORD, "verify_password", "gymhero.security.verify_password"):
        result = demo_server.call("callers", target=target)
        assert [c["id"] for c in result.structured_content["callers"]] == expected
        assert expected[0] in text(result)
    with_tests = demo_server.call("callers", target="verify_password", include_tests=True).structured_content
    assert "tests/unit/test_security.py::test_matching_passwords" in [c["id"] for c in with_tests["callers"]]


@pytest.mark.slow
def test_callees_deps_and_code_map(demo_server: Client) -> None:
    found = demo_server.call("callees", target="UserCRUDRepository.authenticate_user").structured_content
    assert {c["id"] for c in found["callees"]} >= {VERIFY_PASSWORD}
    deps = demo_server.call("deps", target=VERIFY_PASSWORD, depth=2).structured_content
    upstream = {(step["id"], step["depth"]) for step in deps["upstream"]}
    assert ("gymhero/crud/user.py::UserCRUDRepository.authenticate_user", 1) in upstream
    assert ("gymhero/api/routes/auth.py::login_for_access_token", 2) in upstream
    code_map = demo_server.call("code_map", chars=1500)
    assert "gymhero/" in text(code_map) and len(text(code_map)) <= 1500


@pytest.mark.slow
def test_index_status(demo_server: Client, demo_index) -> None:
    stats = read_stats(demo_index.index_dir)
    data = demo_server.call("index_status").structured_content
    assert (data["total_chunks"], data["files"], data["model"]) == (stats.total_chunks, stats.files, stats.model)
    assert data["dense"]["e5_vectors"] == data["dense"]["chunks"] == stats.total_chunks
    assert data["dense"]["minilm_vectors"] == stats.total_chunks and data["dense"]["bridge_words"] > 0
    assert data["graph"]["nodes"] > stats.total_chunks
    assert (data["ask_enabled"], data["reindex_allowed"]) == (False, False)


@pytest.mark.slow
@pytest.mark.parametrize(("tool", "arguments", "says"), [
    ("get_chunk", {"chunk_id": "gymhero/security.py::verify_pasword"}, f"did you mean: {VERIFY_PASSWORD}"),
    ("get_chunk", {"chunk_id": "no/such/file.py::f"}, "take an id from a search hit"),
    ("search", {"query": "   "}, "empty query - ask a question"),
    ("search", {"query": "token", "k": MAX_K + 1}, f"less than or equal to {MAX_K}"),
    ("search", {"query": "token", "k": 0}, "greater than or equal to 1"),
    ("search", {"query": "token", "kind": "lambda"}, "'function', 'method', 'class', 'module', 'doc', 'config' or"),
    ("search", {"query": "token", "path": "src/"},
     "no indexed path starts with 'src/' - indexed paths start with: .github/, gymhero/, migrations/"),
    ("callers", {"target": "verify_pasword"}, "did you mean: verify_password"),
    ("callers", {"target": ""}, "empty target"),
])
def test_bad_input_is_a_tool_error_that_says_what_to_do(demo_server: Client, tool: str, arguments: dict,
                                                         says: str) -> None:
    result = demo_server.call(tool, **arguments)
    assert result.is_error
    assert says in text(result)
    assert not demo_server.call("search", query="token").is_error  # and the server goes on serving


# ------------------------------------------------------------ no index, ask, reindex, HTTP


def test_a_missing_index_is_reported_by_every_tool_until_one_is_built(tmp_path, embedder, mini_project) -> None:
    db = tmp_path / "chroma_db"
    with serving(["--db", str(db)], tmp_path / "server.log") as client:
        assert set(client.tools()) == READ_ONLY_TOOLS
        for tool, arguments in (("search", {"query": "login"}), ("get_chunk", {"chunk_id": "a.py::f"}),
                                ("callers", {"target": "login"}), ("code_map", {}), ("index_status", {})):
            result = client.call(tool, **arguments)
            assert result.is_error
            assert f"no index in {db} - run: python index.py --db {db}" in text(result)
        build_index(mini_project, settings_for(db), embedder=embedder)
        found = client.call("search", query="check the user's password")
        assert not found.is_error
        assert "pkg/auth.py::login" in [h["chunk_id"] for h in found.structured_content["hits"]]
    assert "not warmed up: no index in" in (tmp_path / "server.log").read_text(encoding="utf-8")


@pytest.mark.slow  # an MCP server process loading the models (one such test stays in the fast tier)
def test_ask_answers_with_checked_citations_when_an_llm_is_configured(tmp_path, mini_index, stub) -> None:
    stub.queue(Reply("Passwords are checked in `pkg/auth.py:12-14` (`login`), see also `pkg/nowhere.py:3`."),
               Reply("Passwords are checked in `pkg/auth.py:12-14` (`login`)."))
    with serving(["--db", str(mini_index.db_path)], tmp_path / "server.log", env=stub.env()) as client:
        assert "ask" in client.tools()
        result = client.call("ask", question="how is the password checked?", k=3)
        assert not result.is_error, text(result)
        data = result.structured_content
        assert data["citations"] and all(c["verified"] for c in data["citations"])
        assert "pkg/auth.py::login" in [c["chunk_id"] for c in data["citations"]]
        assert "Sources:" in text(result) and "pkg/auth.py::login" in text(result)
        assert client.call("index_status").structured_content["ask_enabled"] is True
    assert len(stub.requests) == 2  # the invented citation made it answer again


@pytest.mark.slow  # an MCP server process loading the models (one such test stays in the fast tier)
def test_half_an_llm_configuration_is_reported_by_ask_not_by_a_crash(tmp_path, mini_index) -> None:
    env = {"CODELENS_LLM_MODEL": "qwen2.5-coder:7b"}  # no CODELENS_LLM_URL
    with serving(["--db", str(mini_index.db_path)], tmp_path / "server.log", env=env) as client:
        result = client.call("ask", question="how is the password checked?")
        assert result.is_error
        assert "CODELENS_LLM_MODEL is set but CODELENS_LLM_URL is not" in text(result)
        assert not client.call("search", query="password").is_error


@pytest.mark.slow  # an MCP server process loading the models (one such test stays in the fast tier)
def test_reindex_only_with_the_flag_and_only_the_recorded_source(tmp_path, mini_index, copy_of) -> None:
    db = copy_of(mini_index.db_path)
    with serving(["--db", str(db), "--allow-reindex"], tmp_path / "server.log") as client:
        tool = client.tools()["reindex"]
        assert set(tool.input_schema["properties"]) == {"full"}  # no path can be passed
        assert tool.annotations.read_only_hint is False
        result = client.call("reindex")
        assert not result.is_error, text(result)
        assert result.structured_content["source"] == read_stats(mini_index.index_dir).source
        assert result.structured_content["total_chunks"] == read_stats(mini_index.index_dir).total_chunks
        assert not client.call("search", query="password").is_error


@pytest.mark.slow  # an MCP server process loading the models (one such test stays in the fast tier)
def test_streamable_http(tmp_path, mini_index) -> None:
    port = _free_port()
    command = [sys.executable, "-m", "codelens", "mcp", "--db", str(mini_index.db_path), "--http", str(port)]
    with (tmp_path / "server.log").open("w") as log:
        server = subprocess.Popen(command, cwd=PROJECT_ROOT, stdout=log, stderr=subprocess.STDOUT)
        try:
            hits = anyio.run(_search_over_http, f"http://127.0.0.1:{port}/mcp")
        finally:
            server.terminate()
            server.wait(timeout=30)
    assert "pkg/auth.py::login" in hits
    assert f"on http://127.0.0.1:{port}/mcp" in (tmp_path / "server.log").read_text()


async def _search_over_http(url: str) -> list[str]:
    deadline = time.monotonic() + 120
    while True:
        try:
            async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool("search", {"query": "check the user's password"})
                return [hit["chunk_id"] for hit in result.structured_content["hits"]]
        except Exception:
            if time.monotonic() > deadline:
                raise
            await anyio.sleep(0.5)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# ------------------------------------------------------------ pieces


def test_the_mcp_command_line() -> None:
    args = build_parser().parse_args(["mcp", "--db", "/tmp/x", "--http", "8765", "--allow-reindex"])
    assert (args.command, args.db, args.http, args.host, args.allow_reindex) == ("mcp", "/tmp/x", 8765, "127.0.0.1",
                                                                                 True)
    with pytest.raises(SystemExit) as usage:
        build_parser().parse_args(["mcp", "--http", "0"])
    assert usage.value.code == EXIT_USAGE


def test_numbered_code_keeps_the_real_lines_of_a_module_chunk() -> None:
    chunk = Chunk(chunk_id="a.py::<module>", path="a.py", symbol="<module>", kind="module", start_line=1,
                  end_line=12, code="import os\nX = 1\nmain()", line_spans=((1, 2), (12, 12)))
    text_, cut = numbered_code(chunk, max_lines=10)
    assert text_.splitlines() == [" 1  import os", " 2  X = 1", "    ...", "12  main()"]
    assert cut == 0
    assert numbered_code(chunk, max_lines=2) == (" 1  import os\n 2  X = 1", 1)


# ------------------------------------------------------------ as an agent starts it: in the repository, no flags


@pytest.mark.slow
def test_started_inside_a_repository_with_no_arguments_it_searches_that_repositorys_index(
        tmp_path, mini_project) -> None:
    """What `codelens install-agent` configures: the agent starts `codelens mcp` in (a folder of)
    the project and passes nothing; the index is the repository's own, in the user cache."""
    repo = tmp_path / "myrepo"
    shutil.copytree(mini_project, repo)
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    status_before = subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=repo, check=True,
                                   capture_output=True, text=True).stdout
    # The SDK gives the child only a few safe variables plus `env`: pass this test's user cache
    # (CODELENS_CACHE_DIR, set by the autouse fixture) and the models' cache along.
    env = {**{k: v for k, v in os.environ.items() if k != "CODELENS_DB"}, "PYTHONPATH": str(PROJECT_ROOT)}
    built = subprocess.run([sys.executable, "-m", "codelens", "index"], cwd=repo, env=env,
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    assert has_index(index_for(repo)), "no --db: the index belongs in the user cache, keyed by the repository"
    status_after = subprocess.run(["git", "status", "--porcelain", "--ignored"], cwd=repo, check=True,
                                  capture_output=True, text=True).stdout
    assert status_after == status_before  # nothing new in the repository

    with serving([], tmp_path / "server.log", env=env, cwd=repo / "pkg") as client:
        result = client.call("search", query="hash a password", k=5)
        assert not result.is_error, text(result)
        assert "pkg/auth.py::hash_password" in {hit["chunk_id"] for hit in result.structured_content["hits"]}
        status = client.call("index_status")
        assert not status.is_error and str(repo.resolve()) in str(status.structured_content["source"])


# ------------------------------------------------------------ documents and configuration in the graph tools

APP = 'from pkg.db import connect\n\n\ndef run() -> None:\n    """Start the app."""\n    connect()\n'
DB = 'def connect() -> str:\n    """Open the database connection."""\n    return "sqlite://"\n'
ALEMBIC = "[alembic]\nscript_location = migrations\n\n[loggers]\nkeys = root\n"
README = "# Demo app\n\n## Running\n\nRun `python -m pkg.app` to start it.\n"


@pytest.fixture(scope="module")
def mixed_index(tmp_path_factory, embedder):
    """Two Python files, an INI file and a README, indexed."""
    project = tmp_path_factory.mktemp("mixed") / "project"
    (project / "pkg").mkdir(parents=True)
    for name, content in (("pkg/app.py", APP), ("pkg/db.py", DB), ("alembic.ini", ALEMBIC), ("README.md", README)):
        (project / name).write_text(content, encoding="utf-8")
    settings = settings_for(project.parent / "chroma_db")
    build_index(project, settings, embedder=embedder)
    return settings


def test_callers_of_a_document_or_configuration_piece_say_it_has_no_call_graph(mixed_index) -> None:
    tools = CodeLensTools(ServedIndex(mixed_index))
    assert [n["id"] for n in tools.callers("pkg/db.py::connect").data["callers"]] == ["pkg/app.py::run"]
    for call, target, says in ((tools.callers, "alembic.ini::loggers", "a piece of the configuration file alembic.ini"),
                               (tools.callees, "README.md::Running", "a section of the document README.md"),
                               (tools.deps, "alembic.ini", "alembic.ini is not a Python file")):
        with pytest.raises(UnknownSymbol) as error:
            call(target)
        assert says in str(error.value) and "has no call graph" in str(error.value)
        assert "no function, class or file named" not in str(error.value)
    with pytest.raises(UnknownSymbol, match="no function, class or file named 'nowhere'"):
        tools.callers("nowhere")  # a name nothing has: the usual message
    # The CLI's graph commands say the same.
    result = run_cli("-m", "codelens", "callers", "alembic.ini::loggers", "--db", str(mixed_index.db_path))
    assert result.returncode == EXIT_BAD_INPUT and "has no call graph" in result.stderr, result.stderr


def test_the_latency_bench_asks_callers_of_code_hits_only() -> None:
    sys.path.insert(0, str(PROJECT_ROOT / "bench"))
    from mcp_latency import graph_target

    config = {"chunk_id": "alembic.ini::alembic (2)", "kind": "config"}
    code = {"chunk_id": "migrations/env.py::run_migrations_online", "kind": "function"}
    assert graph_target([config, code]) == code["chunk_id"]
    assert graph_target([config]) is None
