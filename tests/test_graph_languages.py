"""The code graph for languages other than Python: small multi-file projects per language
(tests/fixtures/graph_languages/), chunked by the real chunker and parsed by the real grammars,
with every call, import and inherits edge they must have (and nothing else): calls resolved in
the file, through an import, on `this`/a receiver/a declared type, and by a unique name only
(marked uncertain, `via="name"`); then the store, the queries, the map and the CLI on them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codelens.cli.main import main
from codelens.graph.codemap import code_map, library_name
from codelens.graph.model import BY_NAME, CodeGraph, build_graph
from codelens.graph.query import callees, callers, dependencies, neighbour_detail, neighbourhood_dot, resolve_node
from codelens.graph.store import load_graph, save_graph
from codelens.index.build import build_index
from codelens.index.layout import GRAPH_FILE
from codelens.ingest.codebase import chunk_codebase
from tests.conftest import FIXTURES, settings_for

LANGUAGES = FIXTURES / "graph_languages"
MAX_FILE_BYTES = 1_000_000


def graph_of(root: Path) -> CodeGraph:
    chunked = chunk_codebase(root, MAX_FILE_BYTES)
    return build_graph(chunked.chunks, chunked.sources)


def edges_of(graph: CodeGraph) -> set[tuple[str, str, str, str]]:
    return {(e.source, e.target, e.kind, e.via) for e in graph.edges if e.kind != "contains"}


CLIENT = "src/api/client.ts"
TYPESCRIPT = {
    (CLIENT, "src/util/format.ts", "imports", ""),
    (CLIENT, "src/util/log.ts", "imports", ""),
    (CLIENT, "src/api/http.ts", "imports", ""),
    (f"{CLIENT}::ApiClient", "src/api/http.ts::Http", "inherits", ""),
    (f"{CLIENT}::ApiClient.fetchUser", "src/util/log.ts::debug", "calls", ""),  # `import * as log`
    (f"{CLIENT}::ApiClient.fetchUser", "src/util/format.ts::formatUrl", "calls", ""),  # `{ formatUrl as fmt }`
    (f"{CLIENT}::ApiClient.fetchUser", f"{CLIENT}::ApiClient.check", "calls", ""),  # this.check()
    (f"{CLIENT}::ApiClient.fetchUser", "src/api/http.ts::Http.get", "calls", ""),  # this.get(): the base class's
    (f"{CLIENT}::ApiClient.check", "ext:Error", "calls", ""),
    (f"{CLIENT}::makeClient", f"{CLIENT}::ApiClient", "calls", ""),  # new ApiClient()
    (f"{CLIENT}::makeClient", f"{CLIENT}::ApiClient.fetchUser", "calls", ""),  # a variable of a known class
    ("src/api/http.ts::Http.get", "src/util/retry.ts::retryLater", "calls", BY_NAME),  # never imported
    ("src/util/log.ts::debug", "ext:console.log", "calls", ""),
    # through src/util/index.ts: `export { formatUrl } from "./format"` and `export * from "./log"`
    ("src/api/cache.ts", "src/util/index.ts", "imports", ""),
    ("src/api/cache.ts::cacheKey", "src/util/log.ts::debug", "calls", ""),
    ("src/api/cache.ts::cacheKey", "src/util/format.ts::formatUrl", "calls", ""),
    ("src/util/index.ts", "src/util/format.ts", "imports", ""),
    ("src/util/index.ts", "src/util/log.ts", "imports", ""),
}

MAIN = "cmd/server/main.go"
DB = "internal/store/db.go"
GO = {
    (MAIN, "ext:fmt", "imports", ""),
    (MAIN, DB, "imports", ""),  # the package folder of example.com/shop/internal/store
    (f"{MAIN}::Server.Start", "cmd/server/listen.go::Server.listen", "calls", ""),  # receiver, another file
    (f"{MAIN}::Server.Start", "ext:fmt.Println", "calls", ""),
    (f"{MAIN}::Server.Start", f"{DB}::DB.Close", "calls", ""),  # s.db: a field of type *store.DB
    (f"{MAIN}::main", f"{MAIN}::Server", "calls", ""),  # &Server{...}
    (f"{MAIN}::main", f"{DB}::Open", "calls", ""),  # store.Open: through the import
    (f"{MAIN}::main", f"{MAIN}::Server.Start", "calls", ""),  # srv := &Server{}; srv.Start()
    (f"{MAIN}::main", "internal/audit/audit.go::Record", "calls", BY_NAME),  # not imported: by name only
    (f"{DB}::Open", f"{DB}::DB", "calls", ""),
}  # `len` is a builtin: dropped

ACME = "src/main/java/com/acme/"
PAY = f"{ACME}pay/PayService.java"
LEDGER = f"{ACME}ledger/Ledger.java"
PAY_TEST = "src/test/java/com/acme/pay/PayServiceTest.java"
JAVA = {
    (PAY, LEDGER, "imports", ""),
    (PAY, "ext:java.util.List", "imports", ""),
    (f"{PAY}::PayService", f"{ACME}pay/BaseService.java::BaseService", "inherits", ""),  # same package
    (f"{PAY}::PayService", f"{ACME}pay/Handler.java::Handler", "inherits", ""),
    (f"{PAY}::PayService", f"{LEDGER}::Ledger", "calls", ""),  # the field's `new Ledger()`
    (f"{PAY}::PayService.handle", f"{PAY}::PayService.validate", "calls", ""),  # a bare call is this's
    (f"{PAY}::PayService.handle", f"{ACME}pay/BaseService.java::BaseService.audit", "calls", ""),
    (f"{PAY}::PayService.handle", f"{LEDGER}::Ledger.record", "calls", ""),  # the field `ledger`
    (f"{PAY}::PayService.handle", f"{LEDGER}::Ledger.open", "calls", ""),  # a static call, imported class
    (f"{PAY}::PayService.handle", "ext:java.util.List.of", "calls", ""),
    (f"{PAY}::PayService.handle", f"{ACME}util/Strings.java::Strings.trim", "calls", BY_NAME),  # not imported
    (f"{PAY}::PayService.validate", "ext:System.out.println", "calls", ""),
    (f"{LEDGER}::Ledger.open", f"{LEDGER}::Ledger", "calls", ""),
    (f"{LEDGER}::Ledger.record", f"{LEDGER}::Ledger.record#2", "calls", ""),  # record(id, 1): the other overload
    (f"{ACME}util/Strings.java::Strings.trim", "ext:String.trim", "calls", ""),  # a parameter of type String
    # a test in src/test/java, in the same package as PayService: no import needed
    (f"{PAY_TEST}::PayServiceTest.handlesAPayment", f"{PAY}::PayService", "calls", ""),
    (f"{PAY_TEST}::PayServiceTest.handlesAPayment", f"{PAY}::PayService.handle", "calls", ""),
    # Object's toString: never Ledger.toString (the only toString in the code) by its name alone
    (f"{PAY_TEST}::PayServiceTest.handlesAPayment", "ext:anything.toString", "calls", ""),
}

PARSER = "src/parser.rs"
ROUTING = "src/routing/mod.rs"
RUST = {
    ("src/lib.rs", PARSER, "imports", ""),
    ("src/lib.rs", ROUTING, "imports", ""),  # `use crate::routing::{get, Router}`: routing/mod.rs
    ("src/lib.rs::app", f"{PARSER}::Parser.new", "calls", ""),  # Parser::new: the impl's function
    ("src/lib.rs::app", f"{PARSER}::Parser.parse", "calls", ""),  # let parser = Parser::new(..)
    ("src/lib.rs::app", "ext:crate::routing::Router.default", "calls", ""),  # derived: no code of its own
    ("src/lib.rs::app", f"{ROUTING}::Router.route", "calls", ""),
    ("src/lib.rs::app", f"{ROUTING}::get", "calls", ""),
    ("src/lib.rs::index", f"{ROUTING}::helper_text", "calls", BY_NAME),
    (f"{PARSER}::Parser", "ext:Display", "inherits", ""),  # impl std::fmt::Display for Parser
    (f"{PARSER}::Parser.new", "ext:input.to_string", "calls", ""),
    (f"{PARSER}::Parser.new", f"{PARSER}::Parser", "calls", ""),  # Parser { .. }
    (f"{PARSER}::Parser.parse", f"{PARSER}::Parser.advance", "calls", ""),  # self.advance()
    (f"{PARSER}::Parser.parse", "ext:String.len", "calls", ""),  # self.input: a String field
    (f"{ROUTING}::helper_text", "ext:String.new", "calls", ""),  # a library's type: never `Parser::new`
}

CART = "src/cart.cpp"
ITEM = "include/shop/item.hpp"
CPP = {
    ("include/shop/cart.hpp", "ext:vector", "imports", ""),
    ("include/shop/cart.hpp", ITEM, "imports", ""),
    ("include/shop/cart.hpp::Cart", f"{ITEM}::Container", "inherits", ""),
    (CART, "include/shop/cart.hpp", "imports", ""),
    (CART, "ext:cstdio", "imports", ""),
    (f"{CART}::Cart.add", "ext:std.vector.push_back", "calls", ""),  # items_: a std::vector field
    (f"{CART}::Cart.add", f"{CART}::Cart.recount", "calls", ""),  # a bare call in a method: this's
    (f"{CART}::Cart.add", "ext:std.printf", "calls", ""),
    (f"{CART}::Cart.add", f"{ITEM}::Item.price", "calls", ""),  # const Item& item, included through cart.hpp
    (f"{CART}::Cart.total", f"{ITEM}::Container.size", "calls", ""),  # this->size(): the base class's
    (f"{CART}::Cart.total", "src/money.cpp::round_price", "calls", BY_NAME),  # no header declares it
}

LUA = {
    ("app/main.lua", "app/util.lua", "imports", ""),  # require("app.util")
    ("app/main.lua::M.run", "app/util.lua::U.log", "calls", ""),  # util.log: the table the module returns
    ("app/main.lua::M.run", "app/main.lua::M.finish", "calls", ""),  # M.finish beside `function M.finish`
    ("app/main.lua::M.run", "ext:job.done", "calls", ""),
    ("app/main.lua::M.finish", "app/format.lua::format_job", "calls", BY_NAME),  # a global of another file
}  # print and tostring are builtins: dropped

WORKER = "lib/my_app/worker.ex"
ELIXIR = {
    (WORKER, "lib/my_app/repo.ex", "imports", ""),  # alias MyApp.Repo: the file that defines the module
    (WORKER, "ext:Enum", "imports", ""),
    (f"{WORKER}::MyApp.Worker.run", "lib/my_app/repo.ex::MyApp.Repo.insert", "calls", ""),  # Repo.insert(x)
    (f"{WORKER}::MyApp.Worker.run", f"{WORKER}::MyApp.Worker.helper", "calls", ""),  # the module's own defp
    (f"{WORKER}::MyApp.Worker.run", "ext:transform", "calls", ""),  # nothing defines it: external
    (f"{WORKER}::MyApp.Worker.run", "lib/my_app/other.ex::MyApp.Other.go", "calls", ""),  # fully qualified
    (f"{WORKER}::MyApp.Worker.helper", "ext:IO.puts", "calls", ""),
}  # `def run(x)` is a definition's head, never a call; defmodule, alias, import are no calls

DART_WORKER = "lib/worker.dart"
DART = {
    (DART_WORKER, "lib/repo.dart", "imports", ""),  # package:app/repo.dart: under lib/
    (DART_WORKER, "lib/util.dart", "imports", ""),
    (f"{DART_WORKER}::Worker", "lib/util.dart::Base", "inherits", BY_NAME),  # util.Base: the name only
    (f"{DART_WORKER}::Worker", "lib/repo.dart::Repo", "calls", ""),  # the field's Repo()
    (f"{DART_WORKER}::Worker.run", "ext:helper", "calls", ""),
    (f"{DART_WORKER}::Worker.run", "lib/util.dart::Base.other", "calls", ""),  # this.other(): the base class's
    (f"{DART_WORKER}::Worker.run", "lib/repo.dart::Repo.save", "calls", BY_NAME),  # a field Dart types aren't read
    (f"{DART_WORKER}::Worker.run", "lib/util.dart::log", "calls", ""),  # util.log: `as util`
    (f"{DART_WORKER}::Worker.run", "lib/repo.dart::Repo.create", "calls", ""),  # a static member
    ("lib/repo.dart::Repo.create", "lib/repo.dart::Repo", "calls", ""),
}  # Dart has no call node: a selector holding arguments calls what comes just before it

EXPECTED = {"typescript": TYPESCRIPT, "go": GO, "java": JAVA, "rust": RUST, "cpp": CPP, "lua": LUA,
            "elixir": ELIXIR, "dart": DART}


@pytest.fixture(scope="module")
def graphs() -> dict[str, CodeGraph]:
    return {name: graph_of(LANGUAGES / name) for name in EXPECTED}


@pytest.mark.parametrize("language", sorted(EXPECTED))
def test_every_call_import_and_inherits_edge(graphs: dict[str, CodeGraph], language: str) -> None:
    found = edges_of(graphs[language])
    expected = EXPECTED[language]
    assert found - expected == set(), f"edges nobody asked for in {language}"
    assert expected - found == set(), f"edges missing in {language}"


def test_the_fixtures_cover_each_way_of_resolving() -> None:
    """Each language's fixture has a call through an import, one on the object itself or a receiver,
    and one by a unique name only: what the issue asks each language to show."""
    for language, edges in EXPECTED.items():
        if language in ("lua", "elixir", "dart"):  # the small ones: their edges above are enough
            continue
        calls = [e for e in edges if e[2] == "calls"]
        assert any(via == BY_NAME for *_, via in calls), language
        assert any(not target.startswith("ext:") and source.split("::")[0] != target.split("::")[0]
                   and via == "" for source, target, _, via in calls), language
        assert any(source.split("::")[1].split(".")[0] == target.split("::")[1].split(".")[0]
                   and "." in source.split("::")[1] for source, target, _, _ in calls if "::" in target), language


def test_store_keeps_the_uncertain_mark(tmp_path: Path, graphs: dict[str, CodeGraph]) -> None:
    save_graph(graphs["go"], tmp_path / GRAPH_FILE)
    assert edges_of(load_graph(tmp_path)) == GO


def test_callers_and_callees_say_which_edges_are_uncertain(graphs: dict[str, CodeGraph]) -> None:
    graph = graphs["go"]
    found = {n.node.node_id: n for n in callees(graph, resolve_node(graph, "main"))}
    assert found["internal/audit/audit.go::Record"].via == BY_NAME
    assert "uncertain: matched by name only" in neighbour_detail(found["internal/audit/audit.go::Record"])
    assert "uncertain" not in neighbour_detail(found[f"{DB}::Open"])
    assert [n.node.node_id for n in callers(graph, f"{DB}::DB.Close")] == [f"{MAIN}::Server.Start"]
    assert 'label="by name?"' in neighbourhood_dot(graph, f"{MAIN}::main")


def test_names_deps_and_file_imports_in_another_language(graphs: dict[str, CodeGraph]) -> None:
    graph = graphs["java"]
    assert resolve_node(graph, "PayService.handle") == f"{PAY}::PayService.handle"
    downstream = {s.node_id for s in dependencies(graph, f"{PAY}::PayService.handle", 2, upstream=False)}
    assert {f"{LEDGER}::Ledger.record", f"{LEDGER}::Ledger.open", f"{LEDGER}::Ledger"} <= downstream
    assert [n.node.node_id for n in callers(graph, LEDGER)] == [PAY]  # a file: who imports it
    assert graph.nodes[PAY].symbol == "src.main.java.com.acme.pay.PayService"


def test_code_map_lists_another_language_and_its_libraries(graphs: dict[str, CodeGraph]) -> None:
    text = code_map(graphs["typescript"], 2000)
    assert "client.ts: ApiClient" in text and "formatUrl" in text
    assert library_name("github.com/gin-gonic/gin/render") == "github.com/gin-gonic/gin"
    assert library_name("@trpc/server/http") == "@trpc/server"
    assert library_name("serde::de") == "serde"
    assert library_name("com.google.errorprone.annotations", "java") == "com.google.errorprone"
    assert "Uses:" not in code_map(graphs["go"], 2000)  # fmt is Go's own library, never "used"


def test_cli_graph_commands_on_a_mixed_project(tmp_path: Path, embedder, capsys) -> None:
    """A TypeScript front end and a Go service indexed as one: callers, callees, deps and map."""
    project = tmp_path / "project"
    for name in ("typescript", "go"):
        for path in (LANGUAGES / name).rglob("*"):
            if path.is_file():
                target = project / name / path.relative_to(LANGUAGES / name)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(path.read_bytes())
    settings = settings_for(tmp_path / "chroma_db")
    build_index(project, settings, embedder=embedder)
    db = str(settings.db_path)
    assert main(["callees", "ApiClient.fetchUser", "--json", "--db", db]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {c["id"] for c in data["callees"]} == {
        "typescript/src/util/log.ts::debug", "typescript/src/util/format.ts::formatUrl",
        "typescript/src/api/client.ts::ApiClient.check", "typescript/src/api/http.ts::Http.get"}
    assert main(["callers", "go/internal/audit/audit.go::Record", "--db", db]) == 0
    assert "go/cmd/server/main.go::main  (line 25, uncertain: matched by name only)" in capsys.readouterr().out
    assert main(["deps", "Server.Start", "--db", db]) == 0
    assert "-> go/internal/store/db.go::DB.Close" in capsys.readouterr().out
    assert main(["map", "--db", db]) == 0
    text = capsys.readouterr().out
    assert "main.go" in text and "client.ts" in text
    beside = text.split("Docs and config:")[1] if "Docs and config:" in text else ""
    assert ".ts" not in beside and ".go" not in beside  # code files are the map's modules, not "docs and config"


def test_a_workspace_resolves_a_name_in_the_callers_repository_first(tmp_path: Path) -> None:
    """Two repositories each define `helper`: a call nothing imports means the caller's own."""
    for repo in ("front", "tools"):
        (tmp_path / repo / "src").mkdir(parents=True)
        (tmp_path / repo / "src" / "helper.ts").write_text("export function helper(): number {\n  return 1;\n}\n")
        (tmp_path / repo / "src" / "main.ts").write_text("export function main(): number {\n  return helper();\n}\n")
    chunked = chunk_codebase(tmp_path, MAX_FILE_BYTES)
    graph = build_graph(chunked.chunks, chunked.sources, ("front", "tools"))
    calls = {(e.source, e.target, e.via) for e in graph.edges if e.kind == "calls"}
    assert calls == {("front/src/main.ts::main", "front/src/helper.ts::helper", BY_NAME),
                     ("tools/src/main.ts::main", "tools/src/helper.ts::helper", BY_NAME)}
