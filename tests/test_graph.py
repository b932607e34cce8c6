"""The code graph: extraction on fixture projects with known edges, a hand-checked list of
the demo's call edges (precision and recall), the SQLite store, queries, the map, the CLI."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

import pytest

from codelens.cli.main import main
from codelens.errors import EXIT_BAD_INPUT, EXIT_NO_INDEX
from codelens.graph.codemap import code_map, code_map_data
from codelens.graph.hubs import file_hubs
from codelens.graph.model import CodeGraph, Edge, Node, build_graph, definition_ids
from codelens.graph.query import (
    UnknownSymbol,
    call_neighbours,
    callees,
    callers,
    dependencies,
    find_nodes,
    neighbourhood_dot,
    resolve_node,
)
from codelens.graph.store import GraphNotFound, build_graph_sidecar, load_graph, save_graph, stored_file_hubs
from codelens.index.build import build_index, sidecar_builders
from codelens.index.layout import GRAPH_FILE
from codelens.index.sidecar import SidecarInput
from codelens.ingest.chunker import chunk_file, parse_with_ast
from codelens.ingest.codebase import chunk_codebase
from codelens.ingest.source import open_codebase
from codelens.locations import IndexNotFound
from tests.conftest import DEMO_ZIP, FIXTURES, settings_for

MAX_FILE_BYTES = 1_000_000


def graph_of(root: Path) -> CodeGraph:
    chunked = chunk_codebase(root, MAX_FILE_BYTES)
    return build_graph(chunked.chunks, chunked.sources)


def edge_set(graph: CodeGraph, kind: str) -> set[tuple[str, str]]:
    return {(e.source, e.target) for e in graph.edges if e.kind == kind}


@pytest.fixture(scope="module")
def project_graph() -> CodeGraph:
    return graph_of(FIXTURES / "graph_project")


@pytest.fixture(scope="module")
def demo_chunks(tmp_path_factory):
    if not DEMO_ZIP.is_file():
        pytest.skip(f"demo codebase not found at {DEMO_ZIP}")
    codebase = open_codebase(DEMO_ZIP, tmp_path_factory.mktemp("demo_src"))
    return chunk_codebase(codebase.root, MAX_FILE_BYTES)


@pytest.fixture(scope="module")
def demo_graph(demo_chunks) -> CodeGraph:
    return build_graph(demo_chunks.chunks, demo_chunks.sources)


# ------------------------------------------------------------ fixture projects

UTIL = "app/util.py::"
MODELS = "app/models.py::"
SERVICES = "app/services.py::"

FIXTURE_CALLS = {
    # aliases and relative imports: `from .util import helper as h`, `from . import util`
    (SERVICES + "AuthService.login", UTIL + "helper"),
    (SERVICES + "AuthService.login", UTIL + "outer"),
    (SERVICES + "AuthService.login", UTIL + "run_later"),
    (SERVICES + "AuthService.login", MODELS + "User.create"),  # `from .models import User as U`
    # methods: self.method, an attribute set from an annotated parameter, cls(), super(), inherited
    (SERVICES + "AuthService.login", SERVICES + "AuthService.check"),
    (SERVICES + "AuthService.login", "app/repo.py::Repo.find"),
    (MODELS + "Base.save", MODELS + "Base.validate"),
    (MODELS + "User.validate", MODELS + "Base.validate"),
    (MODELS + "User.create", MODELS + "User"),
    (MODELS + "User.create", MODELS + "Base.save"),
    (SERVICES + "Admin.promote", MODELS + "User.validate"),
    # nested functions, a decorated function, a redefinition, code inside `except`
    (UTIL + "outer", UTIL + "outer.inner"),
    (UTIL + "outer.inner", UTIL + "helper"),
    (UTIL + "plugin", UTIL + "helper"),
    (UTIL + "schedule", UTIL + "run_later"),
    (UTIL + "schedule", UTIL + "plugin"),
    (UTIL + "dup#2", UTIL + "helper"),
    (UTIL + "fallback_loads", UTIL + "helper"),
    # across packages: `import app.services as svc` + module-level instance, a re-export
    # under an alias in __init__ (`from app import Auth`), `x = Foo(); x.bar()`
    ("main.py::run", SERVICES + "AuthService.login"),
    ("main.py::run", UTIL + "helper"),
    ("main.py::run", SERVICES + "AuthService"),
    ("main.py::run", "app/repo.py::Repo"),
    ("main.py::run", SERVICES + "AuthService.check"),
    ("main.py::run", "main.py::make_thing"),
    ("main.py::<module>", "main.py::run"),
    (SERVICES + "<module>", SERVICES + "AuthService"),
    (SERVICES + "<module>", "app/repo.py::Repo"),
    # a property's return annotation; `x: Box[Repo] = Box()`
    (MODELS + "Base.repo", "app/repo.py::Repo"),
    (MODELS + "Base.lookup", "app/repo.py::Repo.find"),
    (SERVICES + "<module>", SERVICES + "Box"),
    (SERVICES + "unbox", SERVICES + "Box.open"),
}


def test_fixture_call_edges_resolve(project_graph: CodeGraph) -> None:
    calls = edge_set(project_graph, "calls")
    assert FIXTURE_CALLS - calls == set()
    internal = {(s, t) for s, t in calls if not t.startswith("ext:")}
    assert internal - FIXTURE_CALLS == set(), "no internal call edge beyond the known ones"


def test_fixture_unresolved_calls_are_named_externals(project_graph: CodeGraph) -> None:
    calls = edge_set(project_graph, "calls")
    assert ("main.py::run", "ext:builtins.len") in calls
    assert ("main.py::run", "ext:thing.go") in calls  # unknown local: kept under its name
    assert (SERVICES + "AuthService.check", "ext:builtins.dict.get") in calls  # self.cache = {}
    # a parameter shadows the module's function of the same name
    assert (UTIL + "shadow", "ext:helper") in calls
    assert (UTIL + "shadow", UTIL + "helper") not in calls
    assert project_graph.nodes["ext:thing.go"].is_external


def test_fixture_reference_edges_are_marked(project_graph: CodeGraph) -> None:
    by_pair = {(e.source, e.target): e for e in project_graph.edges if e.kind == "calls"}
    assert by_pair[(UTIL + "schedule", UTIL + "plugin")].via == "reference"
    assert by_pair[(UTIL + "schedule", UTIL + "run_later")].via == ""
    # called directly (h()) and passed (run_later(h)): the direct call wins
    assert by_pair[(SERVICES + "AuthService.login", UTIL + "helper")].via == ""
    assert by_pair[(SERVICES + "AuthService.login", UTIL + "helper")].count == 2


def test_fixture_inherits_decorates_imports_contains(project_graph: CodeGraph) -> None:
    assert edge_set(project_graph, "inherits") == {
        (MODELS + "User", MODELS + "Base"),
        (SERVICES + "Admin", MODELS + "User"),  # through the alias U
        (SERVICES + "Box", "ext:typing.Generic"),
    }
    decorates = edge_set(project_graph, "decorates")
    assert (UTIL + "register", UTIL + "plugin") in decorates
    assert ("ext:builtins.classmethod", MODELS + "User.create") in decorates
    assert {
        ("main.py", "app/util.py"), ("main.py", "app/services.py"), ("main.py", "app/__init__.py"),
        ("main.py", "app/repo.py"), ("app/services.py", "app/util.py"), ("app/services.py", "app/models.py"),
        ("app/__init__.py", "app/services.py"), ("app/models.py", "app/repo.py"),
    } <= edge_set(project_graph, "imports")
    contains = edge_set(project_graph, "contains")
    assert {("app/util.py", UTIL + "outer"), (UTIL + "outer", UTIL + "outer.inner"),
            (MODELS + "User", MODELS + "User.create"), ("app/util.py", UTIL + "<module>")} <= contains


def test_unparsable_file_keeps_nodes_without_crashing(project_graph: CodeGraph) -> None:
    assert "app/broken.py" in project_graph.nodes
    assert ("app/broken.py", "app/broken.py::good") in edge_set(project_graph, "contains")
    assert not project_graph.out_edges("app/broken.py::good", ("calls",))


def test_layouts_src_scripts_and_ambiguous_modules() -> None:
    graph = graph_of(FIXTURES / "graph_layouts")
    calls = edge_set(graph, "calls")
    assert ("scripts/tool.py::main", "src/pkg/core.py::work") in calls  # src/ layout
    assert ("scripts/tool.py::main", "scripts/helpers.py::assist") in calls  # a script's own folder
    # two equally near app.py files: which one `import app` means is unknowable
    assert ("scripts/tool.py::main", "ext:app.start") in calls


@pytest.mark.parametrize("name", ["nested", "imports_only"])
def test_definition_ids_match_the_chunker_on_chunker_fixtures(name: str) -> None:
    text = (FIXTURES / "chunker" / f"{name}.py").read_text(encoding="utf-8")
    assert parse_with_ast(text) is not None
    assert_ids_match("m.py", text)


def test_a_file_ast_cannot_parse_has_chunks_but_no_graph_definitions() -> None:
    """The chunker falls back to tree-sitter; the graph, which needs `ast`, keeps only the
    chunks' nodes (contains edges), so it reports no definitions of its own."""
    text = (FIXTURES / "chunker" / "broken.py").read_text(encoding="utf-8")
    assert parse_with_ast(text) is None
    assert definition_ids("m.py", text) == []
    assert "m.py::good_after" in [c.chunk_id for c in chunk_file("m.py", text).chunks]


def assert_ids_match(path: str, text: str) -> None:
    """For a file `ast` parses, the graph's definitions are the chunker's, in order."""
    if parse_with_ast(text) is None:  # the demo's few unparseable files: covered by the test above
        return
    expected = [c.chunk_id for c in chunk_file(path, text).chunks if c.kind != "module"]
    assert definition_ids(path, text) == expected


def test_definition_ids_match_the_chunker_on_the_demo(demo_chunks) -> None:
    for path, text in demo_chunks.sources.items():
        assert_ids_match(path, text)


def test_defs_inside_except_blocks_get_the_chunker_ids() -> None:
    text = "try:\n    import x\nexcept ImportError:\n    def f():\n        pass\n\ndef g():\n    pass\n"
    assert definition_ids("m.py", text) == ["m.py::f", "m.py::g"]
    assert_ids_match("m.py", text)


# ------------------------------------------------------------ the demo, hand-checked

SEC = "gymhero/security.py::"
USER = "gymhero/crud/user.py::UserCRUDRepository."
BASE = "gymhero/crud/base.py::CRUDRepository."
DEP = "gymhero/api/dependencies.py::"
DB = "gymhero/database/db.py::"
SESSION = "gymhero/database/session.py::"
UTILS = "scripts/core/utils.py::"
CONFIG = "gymhero/config.py::"
CREDENTIAL_ERROR = "gymhero/exceptions.py::_get_credential_exception"
USER_IN_DB = "gymhero/schemas/user.py::UserInDB"

# Written by reading the demo's source: for each function below, EVERY function, method or
# class of the codebase it calls (a function passed to Depends()/partial() counts as called),
# so extra extracted edges from these functions are false positives.
DEMO_CALLS: dict[str, set[str]] = {
    "gymhero/api/routes/auth.py::login_for_access_token": {
        DB + "get_db", USER + "authenticate_user", USER + "is_active_user", SEC + "create_access_token"},
    "gymhero/api/routes/auth.py::register": {
        DB + "get_db", USER + "get_user_by_email", USER_IN_DB, SEC + "get_password_hash", BASE + "create"},
    USER + "authenticate_user": {USER + "get_user_by_email", SEC + "verify_password"},
    USER + "get_user_by_email": {BASE + "get_one"},
    "gymhero/crud/user.py::<module>": {"gymhero/crud/user.py::UserCRUDRepository"},
    DEP + "get_token": {"gymhero/schemas/auth.py::TokenPayload", CREDENTIAL_ERROR},
    DEP + "get_current_user": {DB + "get_db", DEP + "get_token", BASE + "get_one", CREDENTIAL_ERROR},
    DEP + "get_current_active_user": {DEP + "get_current_user", USER + "is_active_user", CREDENTIAL_ERROR},
    DEP + "get_current_superuser": {DEP + "get_current_user", USER + "is_super_user", CREDENTIAL_ERROR},
    DB + "get_db": {SESSION + "get_local_session"},
    SESSION + "get_local_session": {SESSION + "get_engine"},
    BASE + "get_many_for_owner": {BASE + "get_many"},
    CONFIG + "get_settings": {CONFIG + "ContainerDevSettings", CONFIG + "ContainerTestSettings",
                              CONFIG + "LocalDevSettings"},
    "gymhero/api/routes/training_plan.py::add_training_unit_to_training_plan": {
        DB + "get_db", DEP + "get_current_active_user", BASE + "get_one",
        "gymhero/crud/training_plan.py::TrainingPlanCRUD.add_training_unit_to_training_plan"},
    "gymhero/api/routes/user.py::create_user": {
        DB + "get_db", DEP + "get_current_superuser", USER + "get_user_by_email", USER_IN_DB,
        SEC + "get_password_hash", BASE + "create"},
    "scripts/core/_initdb.py::seed_database": {
        CONFIG + "get_settings", SESSION + "build_sqlalchemy_database_url_from_settings", DB + "get_ctx_db",
        UTILS + "_get_unique_values", UTILS + "create_first_superuser", UTILS + "create_initial_levels",
        UTILS + "create_initial_body_parts", UTILS + "create_initial_exercise_types",
        UTILS + "create_initial_exercises"},
    "scripts/core/_initsu.py::seed_superuser": {
        CONFIG + "get_settings", SESSION + "build_sqlalchemy_database_url_from_settings", DB + "get_ctx_db",
        UTILS + "create_first_superuser"},
    UTILS + "_create_first_user": {USER + "get_user_by_email", USER_IN_DB, SEC + "get_password_hash",
                                   BASE + "create"},
    UTILS + "create_first_superuser": {UTILS + "_create_first_user"},
    "scripts/initdb.py::<module>": {"gymhero/log.py::get_logger", UTILS + "get_argparser",
                                    "scripts/core/_initdb.py::seed_database"},
    "tests/unit/test_security.py::test_matching_passwords": {SEC + "get_password_hash", SEC + "verify_password"},
    SEC + "create_access_token": set(),  # jwt, datetime and settings only
    "tests/conftest.py::override_get_db": set(),  # sessionmaker and logging only
}


def precision_recall(graph: CodeGraph, gold: dict[str, set[str]]) -> tuple[float, float, set, set]:
    """Over the gold functions' internal call edges: precision = right / extracted,
    recall = right / gold. Returns (precision, recall, missed, extra)."""
    expected = {(source, target) for source, targets in gold.items() for target in targets}
    extracted = {(e.source, e.target) for e in graph.edges
                 if e.kind == "calls" and e.source in gold and not graph.nodes[e.target].is_external}
    right = expected & extracted
    precision = len(right) / len(extracted) if extracted else 1.0
    return precision, len(right) / len(expected), expected - extracted, extracted - expected


def test_demo_call_edges_precision_and_recall(demo_graph: CodeGraph) -> None:
    assert set(DEMO_CALLS) <= set(demo_graph.nodes), "every gold function is a chunk of the demo"
    edges = sum(len(t) for t in DEMO_CALLS.values())
    precision, recall, missed, extra = precision_recall(demo_graph, DEMO_CALLS)
    print(f"\ndemo call edges: {edges} hand-checked from {len(DEMO_CALLS)} functions; "
          f"precision {precision:.3f}, recall {recall:.3f}")
    assert edges >= 15
    assert recall >= 0.9, f"missed: {sorted(missed)}"
    assert precision >= 0.95, f"extra: {sorted(extra)}"


def test_demo_login_chain(demo_graph: CodeGraph) -> None:
    """login_for_access_token -> UserCRUDRepository.authenticate_user -> verify_password."""
    chain = dependencies(demo_graph, "gymhero/api/routes/auth.py::login_for_access_token", 2, upstream=False)
    reached = {(step.parent, step.node_id) for step in chain}
    assert ("gymhero/api/routes/auth.py::login_for_access_token", USER + "authenticate_user") in reached
    assert (USER + "authenticate_user", SEC + "verify_password") in reached


def test_demo_graph_covers_every_chunk_and_file(demo_chunks, demo_graph: CodeGraph) -> None:
    code = [c for c in demo_chunks.chunks if c.is_code]
    assert {c.chunk_id for c in code} <= set(demo_graph.nodes)
    python_files = {path for path in demo_chunks.sources if path.endswith(".py")}
    assert python_files <= set(demo_graph.nodes)
    # the graph is Python only: the README, the compose file and their pieces are no nodes
    assert len(code) < len(demo_chunks.chunks)
    assert not {n.path for n in demo_graph.nodes.values() if n.path and not n.path.endswith(".py")}
    counts = demo_graph.count_edges()
    assert counts["contains"] == len(code)  # every chunk has exactly one parent
    assert all(counts[kind] > 0 for kind in ("calls", "inherits", "imports", "decorates"))


# ------------------------------------------------------------ store


def test_store_round_trip(tmp_path: Path, demo_graph: CodeGraph) -> None:
    save_graph(demo_graph, tmp_path / GRAPH_FILE)
    (tmp_path / "index_metadata.json").write_text("{}")
    loaded = load_graph(tmp_path)
    assert dict(loaded.nodes) == dict(demo_graph.nodes)
    assert set(loaded.edges) == set(demo_graph.edges)
    assert load_graph(tmp_path) is loaded  # cached while the file is unchanged


def test_hubs_are_files_used_by_others_that_use_others(tmp_path: Path, project_graph: CodeGraph) -> None:
    hubs = file_hubs(project_graph)
    # services.py uses util, models and repo and main.py uses it; util.py and repo.py use nothing
    # of the project, main.py is used by nothing: no hubs
    assert max(hubs, key=hubs.get) == "app/services.py" and hubs["app/services.py"] == 1.0
    assert 0 < hubs["app/models.py"] < 1
    assert not {"app/util.py", "app/repo.py", "main.py"} & set(hubs)
    save_graph(project_graph, tmp_path / GRAPH_FILE)
    assert dict(stored_file_hubs(tmp_path / GRAPH_FILE)) == hubs
    old = tmp_path / "old.sqlite"  # a graph written before the table: no hubs, no error
    shutil.copy(tmp_path / GRAPH_FILE, old)
    with closing(sqlite3.connect(old)) as connection:
        connection.execute("DROP TABLE file_hubs")
        connection.commit()
    assert dict(stored_file_hubs(old)) == {} and dict(stored_file_hubs(tmp_path / "missing.sqlite")) == {}


def test_store_errors(tmp_path: Path) -> None:
    with pytest.raises(IndexNotFound):
        load_graph(tmp_path / "missing")
    (tmp_path / "index_metadata.json").write_text("{}")
    with pytest.raises(GraphNotFound, match="--full"):
        load_graph(tmp_path)


def test_sidecar_builder_is_registered_and_writes_the_graph(tmp_path: Path) -> None:
    assert build_graph_sidecar in sidecar_builders()
    chunked = chunk_codebase(FIXTURES / "graph_project", MAX_FILE_BYTES)
    build_graph_sidecar(SidecarInput(tmp_path, chunked.chunks, chunked.sources))
    (tmp_path / "index_metadata.json").write_text("{}")
    assert (UTIL + "plugin", UTIL + "helper") in edge_set(load_graph(tmp_path), "calls")


# ------------------------------------------------------------ queries


def test_callers_and_callees(demo_graph: CodeGraph) -> None:
    verify = SEC + "verify_password"
    assert [n.node.node_id for n in callers(demo_graph, verify, include_tests=False)] == [USER + "authenticate_user"]
    with_tests = [n.node.node_id for n in callers(demo_graph, verify)]
    assert "tests/unit/test_security.py::test_matching_passwords" in with_tests
    found = callees(demo_graph, DEP + "get_current_user")
    internal = [n.node.node_id for n in found if not n.node.is_external]
    assert set(internal[:2]) == {DB + "get_db", DEP + "get_token"}  # line order: both Depends() on line 59
    assert found[-1].node.is_external
    neighbours = call_neighbours(demo_graph, USER + "authenticate_user")
    assert neighbours.callers == ("gymhero/api/routes/auth.py::login_for_access_token",)
    assert neighbours.callees == (USER + "get_user_by_email", SEC + "verify_password")


def test_file_callers_are_importers(demo_graph: CodeGraph) -> None:
    importers = {n.node.node_id for n in callers(demo_graph, "gymhero/security.py")}
    assert "gymhero/crud/user.py" in importers
    assert "gymhero/api/routes/auth.py" in importers


def test_dependencies_depth_and_direction(demo_graph: CodeGraph) -> None:
    up = dependencies(demo_graph, SEC + "verify_password", 3, upstream=True, include_tests=False)
    assert [(s.node_id, s.depth) for s in up] == [
        (USER + "authenticate_user", 1), ("gymhero/api/routes/auth.py::login_for_access_token", 2)]
    down = dependencies(demo_graph, USER + "get_user_by_email", 1, upstream=False, include_external=True)
    assert {s.node_id for s in down} >= {BASE + "get_one"}
    assert all(s.depth == 1 for s in down)
    assert [s.node_id for s in dependencies(demo_graph, "gymhero/crud/user.py::UserCRUDRepository", 1,
                                            upstream=False)] == ["gymhero/crud/base.py::CRUDRepository"]


@pytest.mark.parametrize(("query", "expected"), [
    ("verify_password", SEC + "verify_password"),
    ("authenticate_user", USER + "authenticate_user"),
    ("UserCRUDRepository.authenticate_user", USER + "authenticate_user"),
    ("gymhero.security.verify_password", SEC + "verify_password"),
    ("user.py::UserCRUDRepository", "gymhero/crud/user.py::UserCRUDRepository"),
    ("gymhero/security.py", "gymhero/security.py"),
    (SEC + "verify_password", SEC + "verify_password"),
    ("test_settings", None),  # two conftest fixtures, both tests: ambiguous
])
def test_resolve_names(demo_graph: CodeGraph, query: str, expected: str | None) -> None:
    if expected is None:
        with pytest.raises(UnknownSymbol, match="ambiguous"):
            resolve_node(demo_graph, query)
    else:
        assert resolve_node(demo_graph, query) == expected


def test_unknown_name_suggests_close_ones(demo_graph: CodeGraph) -> None:
    with pytest.raises(UnknownSymbol, match="verify_password"):
        resolve_node(demo_graph, "verify_pasword")
    assert find_nodes(demo_graph, "jose.jwt.encode") == ["ext:jose.jwt.encode"]


def tiny_graph() -> CodeGraph:
    nodes = [Node(n, "function", "m.py", n.split("::")[1], 1, 2) for n in ("m.py::a", "m.py::b", "m.py::c", "m.py::d")]
    nodes.append(Node("t.py::test_a", "function", "t.py", "test_a", 1, 2, is_test=True))
    edges = [Edge("m.py::a", "m.py::b", "calls", 1), Edge("m.py::c", "m.py::a", "calls", 1),
             Edge("t.py::test_a", "m.py::a", "calls", 1), Edge("m.py::a", "ext:len", "calls", 1)]
    return CodeGraph.from_parts(nodes, edges)


def test_neighbourhood_dot(demo_graph: CodeGraph) -> None:
    dot = neighbourhood_dot(demo_graph, USER + "authenticate_user", depth=1)
    assert dot.startswith("digraph") and dot.rstrip().endswith("}")
    assert f'"{USER}authenticate_user" -> "{SEC}verify_password"' in dot
    assert f'"gymhero/api/routes/auth.py::login_for_access_token" -> "{USER}authenticate_user"' in dot
    assert "ext:" not in dot
    assert "#ffd966" in dot  # the centre is highlighted
    if shutil.which("dot"):
        subprocess.run(["dot", "-Tsvg"], input=dot, text=True, check=True, capture_output=True)


def test_neighbourhood_dot_escapes_and_caps() -> None:
    graph = CodeGraph.from_parts([Node('m.py::f"x', "function", "m.py", 'f"x', 1, 1)], [])
    assert '"m.py::f\\"x"' in neighbourhood_dot(graph, 'm.py::f"x')
    assert neighbourhood_dot(tiny_graph(), "m.py::a", depth=2, max_nodes=2).count("[label=") == 2


# ------------------------------------------------------------ code map


def test_code_map_fits_and_names_the_main_code(demo_graph: CodeGraph) -> None:
    text = code_map(demo_graph)
    assert 1500 <= len(text) <= 2000
    for expected in ("gymhero/crud/", "base.py: CRUDRepository(get_one", "security.py:", "get_db",
                     "Most called:", "Uses: sqlalchemy, fastapi"):
        assert expected in text
    assert "tests/" not in text.split("Most called")[0]  # test code is counted, not listed
    assert len(code_map(demo_graph, 600)) <= 600
    data = code_map_data(demo_graph)
    assert data["text"] == text and data["modules"][0]["symbols"]


# ------------------------------------------------------------ CLI and indexing


def test_cli_graph_commands(mini_index, capsys) -> None:
    db = str(mini_index.db_path)
    assert main(["callers", "hash_password", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "pkg/auth.py::login" in out and "test_hash_password" not in out
    assert main(["callers", "hash_password", "--include-tests", "--db", db]) == 0
    assert "tests/test_auth.py::test_hash_password" in capsys.readouterr().out
    assert main(["callees", "pkg.auth.login", "--json", "--db", db]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert [c["id"] for c in payload["callees"]] == ["pkg/auth.py::hash_password"]
    assert "dict.get" in " ".join(payload["external"]) or payload["external"]
    assert main(["deps", "login", "--depth", "2", "--json", "--db", db]) == 0
    deps = json.loads(capsys.readouterr().out)
    assert [d["id"] for d in deps["downstream"]] == ["pkg/auth.py::hash_password"]
    assert main(["map", "--db", db]) == 0
    assert "auth.py: " in capsys.readouterr().out


def test_cli_graph_errors(mini_index, tmp_path: Path, capsys) -> None:
    assert main(["callers", "no_such_function", "--db", str(mini_index.db_path)]) == EXIT_BAD_INPUT
    assert main(["map", "--db", str(tmp_path / "none")]) == EXIT_NO_INDEX
    old_index = tmp_path / "old"
    shutil.copytree(mini_index.db_path, old_index)
    (old_index / GRAPH_FILE).unlink()
    assert main(["callees", "login", "--db", str(old_index)]) == EXIT_NO_INDEX
    assert "--full" in capsys.readouterr().err


def test_graph_follows_incremental_index_runs(embedder, copy_of, mini_project, tmp_path: Path) -> None:
    project = copy_of(mini_project)
    settings = settings_for(tmp_path / "db")
    build_index(project, settings, embedder=embedder)
    assert not callers(load_graph(settings.db_path), "pkg/storage.py::Repository")
    storage = project / "pkg" / "storage.py"
    storage.write_text(storage.read_text() + "\n\ndef open_repository():\n    return Repository()\n")
    build_index(project, settings, embedder=embedder)
    graph = load_graph(settings.db_path)
    assert [n.node.node_id for n in callers(graph, "pkg/storage.py::Repository")] == [
        "pkg/storage.py::open_repository"]


# ------------------------------------------------------------ dispatch through a built name

PRINTERS = {
    "pp/printer.py": '''
class Printer:
    def _print(self, expr):
        for cls in type(expr).__mro__:
            name = "_print_" + cls.__name__
            if hasattr(self, name):
                return getattr(self, name)(expr)
        return self.emptyPrinter(expr)

    def emptyPrinter(self, expr):
        return str(expr)

    def _print_Basic(self, expr):
        return "basic"


class Unrelated:
    def _print_Add(self):
        return "not a printer"
''',
    "pp/latex.py": '''
from pp.printer import Printer


class LatexPrinter(Printer):
    def _print_Add(self, expr):
        return "+"

    def _print_Mul(self, expr):
        return getattr(self, f"_print_{expr.func}")(expr)

    def lookup(self, expr):
        return getattr(self, "precision")
''',
    "pp/visitor.py": '''
class Visitor:
    def visit(self, node):
        return node.accept(self)

    def visit_Name(self, node):
        return node.id

    def visit_Call(self, node):
        return node.func


def render(obj, kind):
    return getattr(obj, "render_%s" % kind)()
''',
}


def test_dispatch_edges_reach_the_family_a_built_name_calls(tmp_path: Path) -> None:
    for path, text in PRINTERS.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    graph = graph_of(tmp_path)
    dispatch = {(e.source, e.target) for e in graph.edges if e.kind == "calls" and e.via == "dispatch"}
    printer = "pp/printer.py::Printer._print"
    # self-dispatch: the class's own family and its subclasses', not a same-named method elsewhere
    assert (printer, "pp/printer.py::Printer._print_Basic") in dispatch
    assert (printer, "pp/latex.py::LatexPrinter._print_Add") in dispatch
    assert (printer, "pp/printer.py::Unrelated._print_Add") not in dispatch
    assert (printer, "pp/printer.py::Printer.emptyPrinter") not in dispatch  # a plain call
    assert ("pp/latex.py::LatexPrinter._print_Mul", "pp/latex.py::LatexPrinter._print_Add") in dispatch  # f-string
    assert not any(source == "pp/latex.py::LatexPrinter.lookup" for source, _ in dispatch)  # a constant name
    # the conventional family: visit -> visit_X
    assert ("pp/visitor.py::Visitor.visit", "pp/visitor.py::Visitor.visit_Name") in dispatch
    assert ("pp/visitor.py::Visitor.visit", "pp/visitor.py::Visitor.visit_Call") in dispatch
    # callers of a family member see its dispatcher
    assert printer in {n.node.node_id for n in callers(graph, "pp/latex.py::LatexPrinter._print_Add")}


def test_string_prefixes_of_built_names() -> None:
    import ast

    from codelens.graph.dispatch import string_prefix

    def prefix(code: str) -> str | None:
        return string_prefix(ast.parse(code, mode="eval").body)

    assert prefix('"_print_" + name') == "_print_"
    assert prefix('"_print_" + a + b') == "_print_"
    assert prefix('f"visit_{node}"') == "visit_"
    assert prefix('"handle_%s" % kind') == "handle_"
    assert prefix('"p_{}".format(x)') is None  # too short to name a family
    assert prefix('"on_{}".format(x)') == "on_"
    assert prefix('"do_it_{}".format(x)') == "do_it_"
    assert prefix('"_print_Add"') is None  # a constant: an ordinary getattr
    assert prefix('"a b" + x') is None  # not a name
