"""Ranking stages on tiny fixtures with exact expected orders."""

from __future__ import annotations

import sqlite3
import sys
from contextlib import closing
from dataclasses import replace

import numpy as np
import pytest

from codelens.chunk import Chunk
from codelens.graph.hubs import file_hubs
from codelens.graph.store import call_neighbour_files, load_graph, stored_file_hubs
from codelens.index.layout import IndexLayout
from codelens.search.bridge import WordBridge
from codelens.search.file_vectors import FileVectors
from codelens.search.lexical import file_words_index, load_file_words
from codelens.search.query import Fused, Query
from codelens.search.ranking import ranking_stages
from codelens.search.ranking_files import FileMeaning, FileWords, GraphFiles, HubFiles, NamedFile, PathSignal
from codelens.search.ranking_order import FileDiversity
from codelens.search.ranking_symbols import RankingIndex, SymbolIntent
from codelens.search.terms import bare_identifier, code_identifiers, written_names
from tests.conftest import PROJECT_ROOT

sys.path.insert(0, str(PROJECT_ROOT / "bench"))
from variants import BareSymbolIntent, ClassMethodDedup, FileDiversityVariant, FileEvidence, bench_stages


def chunk(chunk_id: str, kind: str = "function", is_test: bool = False) -> Chunk:
    path, symbol = chunk_id.split("::")
    parent = symbol.rsplit(".", 1)[0] if kind == "method" else ""
    return Chunk(chunk_id=chunk_id, path=path, symbol=symbol, kind=kind, start_line=1, end_line=2,
                 code=f"def {symbol.rsplit('.', 1)[-1]}(): pass", parent=parent, is_test=is_test)


CHUNKS = {c.chunk_id: c for c in [
    chunk("pkg/models.py::Response", "class"),
    chunk("pkg/models.py::Response.__repr__", "method"),
    chunk("pkg/models.py::Response.__bool__", "method"),
    chunk("pkg/models.py::Response.json", "method"),
    chunk("pkg/api.py::make_response"),
    chunk("pkg/api.py::Session", "class"),
    chunk("pkg/sessions.py::Session", "class"),
    chunk("pkg/sessions.py::Session.send", "method"),
    chunk("tests/test_models.py::Response", "class", is_test=True),
    chunk("pkg/cookies.py::jar_from_dict"),
    chunk("pkg/cookies.py::<module>", "module"),
]}
INDEX = RankingIndex.build(CHUNKS)


def fused(*ids_scores: tuple[str, float]) -> list[Fused]:
    return [Fused(chunk_id, score) for chunk_id, score in ids_scores]


def order(stage, text: str, items: list[Fused]) -> list[str]:
    return [f.chunk_id for f in stage(Query.from_text(text), items)]


MEMBERS_FIRST = fused(("pkg/models.py::Response.__repr__", 0.9), ("pkg/models.py::Response.__bool__", 0.8),
                      ("pkg/api.py::make_response", 0.7), ("pkg/models.py::Response", 0.5))


def test_bare_identifier_puts_its_class_first_then_the_test_copy() -> None:
    assert order(SymbolIntent(INDEX), "Response", MEMBERS_FIRST) == [
        "pkg/models.py::Response", "tests/test_models.py::Response",
        "pkg/models.py::Response.__repr__", "pkg/models.py::Response.__bool__", "pkg/api.py::make_response"]


def test_filtered_definitions_are_never_pinned() -> None:
    stage = SymbolIntent(INDEX, accept=lambda c: not CHUNKS[c].is_test)
    assert order(stage, "`Response`", MEMBERS_FIRST)[:2] == [
        "pkg/models.py::Response", "pkg/models.py::Response.__repr__"]


def test_a_definition_the_legs_missed_is_added_on_top() -> None:
    items = fused(("pkg/api.py::make_response", 0.9))
    assert order(SymbolIntent(INDEX), "Session", items) == [
        "pkg/api.py::Session", "pkg/sessions.py::Session", "pkg/api.py::make_response"]


def test_qualified_and_case_insensitive_names() -> None:
    assert order(SymbolIntent(INDEX), "Session.send", MEMBERS_FIRST)[0] == "pkg/sessions.py::Session.send"
    assert order(SymbolIntent(INDEX), "sessions.Session", MEMBERS_FIRST)[:2] == [
        "pkg/sessions.py::Session", "pkg/models.py::Response.__repr__"]
    assert order(SymbolIntent(INDEX), "response", MEMBERS_FIRST)[0] == "pkg/models.py::Response"


def test_a_sentence_is_left_alone_unless_it_names_code() -> None:
    assert order(SymbolIntent(INDEX), "how is a response built", MEMBERS_FIRST) == [f.chunk_id for f in MEMBERS_FIRST]
    assert order(SymbolIntent(INDEX), "where does jar_from_dict read cookies", MEMBERS_FIRST)[0] == (
        "pkg/cookies.py::jar_from_dict")
    bare_only = BareSymbolIntent(INDEX)
    unchanged = [f.chunk_id for f in MEMBERS_FIRST]
    assert order(bare_only, "where does jar_from_dict read cookies", MEMBERS_FIRST) == unchanged


def test_a_name_every_class_overrides_written_in_a_sentence_is_the_concept_not_a_definition() -> None:
    """slf4j: "what happens if an argument's toString throws" pinned StopWatch's, Level's and Profiler's."""
    from codelens.search.ranking_symbols import COMMON_NAME_FILES

    overrides = [chunk(f"pkg/m{i}.java::M{i}.toString", "method") for i in range(COMMON_NAME_FILES + 1)]
    chunks = {c.chunk_id: c for c in [*overrides, chunk("pkg/fmt.java::Fmt.safeAppend", "method")]}
    stage = SymbolIntent(RankingIndex.build(chunks))
    items = fused(("pkg/fmt.java::Fmt.safeAppend", 0.9), *((c.chunk_id, 0.5) for c in overrides))
    assert order(stage, "what happens if an argument's toString throws", items)[0] == "pkg/fmt.java::Fmt.safeAppend"
    assert order(stage, "toString", items)[0].endswith(".toString")  # the name alone still asks for them
    few = {c.chunk_id: c for c in [*overrides[:2], chunk("pkg/fmt.java::Fmt.safeAppend", "method")]}
    assert order(SymbolIntent(RankingIndex.build(few)), "what happens if an argument's toString throws",
                 items[:3])[0].endswith(".toString")


def test_in_a_workspace_each_repository_defining_the_name_gets_a_pin_first() -> None:
    """`Request` defined in two files of `client` and one of `web`: alone, the shortest paths win
    (both client files); in a workspace, web's definition comes before client's second."""
    chunks = {c.chunk_id: c for c in [chunk("client/a/_models.py::Request", "class"),
                                      chunk("client/a/_api.py::Request", "class"),
                                      chunk("web/web/requests.py::Request", "class")]}
    index = RankingIndex.build(chunks)
    items = fused(*((c, 0.5) for c in chunks))
    assert order(SymbolIntent(index), "Request", items)[:2] == ["client/a/_api.py::Request",
                                                                "client/a/_models.py::Request"]
    in_workspace = SymbolIntent(index, repo_of=lambda path: path.split("/")[0])
    assert order(in_workspace, "Request", items)[:2] == ["client/a/_api.py::Request", "web/web/requests.py::Request"]


def test_a_copy_of_better_code_in_another_file_goes_below_the_head() -> None:
    """A fork's copy in a workspace, and a module's copy in one repository (sttp's akka and pekko
    compressors): the list shows the code once. A few characters alike are no copy."""
    from codelens.search.ranking_order import Copies

    def piece(chunk_id: str, code: str) -> Chunk:
        path, symbol = chunk_id.split("::")
        return Chunk(chunk_id=chunk_id, path=path, symbol=symbol, kind="function", start_line=1, end_line=1, code=code)

    send = "def send(request):\n    return transport.send(request)\n"
    chunks = {c.chunk_id: c for c in [piece("fork/a.py::send", send), piece("main/a.py::send", send),
                                      piece("main/b.py::send", send), piece("fork/c.py::other", "def other(): pass"),
                                      piece("main/d.py::other", "def other(): pass")]}
    items = fused(("main/a.py::send", 0.9), ("fork/a.py::send", 0.9), ("main/b.py::send", 0.8),
                  ("fork/c.py::other", 0.5), ("main/d.py::other", 0.4))
    assert order(Copies(chunks), "send", items) == ["main/a.py::send", "fork/c.py::other", "main/d.py::other",
                                                   "fork/a.py::send", "main/b.py::send"]


def test_identifier_shapes() -> None:
    assert bare_identifier(" Depends() ") == "Depends"
    assert bare_identifier("how routes work") is None
    assert code_identifiers("how ClientSession acquires connections; model_post_init and app.state") == [
        "ClientSession", "model_post_init", "app.state"]
    assert code_identifiers("how does Field work with Routing and URL") == []
    assert code_identifiers("OpenAPI schema, OAuth2 login and FastAPI, via getUser") == ["getUser"]
    assert bare_identifier("Sinatra::Helpers") == "Sinatra.Helpers"
    assert code_identifiers("how fmt::format writes to std::ostream") == ["fmt.format", "std.ostream"]


def test_a_russian_question_s_latin_names_pin_their_definitions_in_their_own_case() -> None:
    assert written_names("определения трейтов Serialize и Serializer, SQL и http") == ["Serialize", "Serializer"]
    assert written_names("Serialize and Serializer trait definitions") == []
    chunks = {c.chunk_id: c for c in [chunk("src/ser/mod.rs::Serialize", "class"),
                                      chunk("src/ser/impls.rs::serialize"),
                                      chunk("src/de/mod.rs::visitor")]}
    items = fused(("src/ser/impls.rs::serialize", 0.9), ("src/de/mod.rs::visitor", 0.8),
                  ("src/ser/mod.rs::Serialize", 0.5))
    intent = SymbolIntent(RankingIndex.build(chunks))
    assert order(intent, "определения трейта Serialize", items)[0] == "src/ser/mod.rs::Serialize"
    assert order(intent, "паттерн Visitor для десериализатора", items) == [f.chunk_id for f in items]
    assert order(SymbolIntent(RankingIndex.build(chunks), russian_names=False), "определения трейта Serialize",
                 items) == [f.chunk_id for f in items]


def test_a_qualified_name_reaches_a_definition_through_its_folder() -> None:
    """`Sinatra::Helpers` is the Ruby module's nested symbol; a Java class's package and a C++
    namespace are the folders the file lives in; a name whose qualifier names neither pins nothing."""
    chunks = {c.chunk_id: c for c in [
        chunk("lib/sinatra/base.rb::Sinatra.Helpers", "class"),
        chunk("lib/sinatra/base.rb::Sinatra.Helpers.helpers", "method"),
        chunk("src/main/java/com/google/gson/JsonElement.java::JsonElement", "class"),
        chunk("src/main/java/com/google/gson/JsonElement.java::JsonElement.toString", "method"),
        chunk("src/main/java/com/google/gson/JsonObject.java::JsonObject.toString", "method"),
        chunk("include/fmt/format.h::format"),
        chunk("include/fmt/base.h::print"),
        chunk("src/os.cc::print")]}
    items = fused(*((c, 0.5) for c in reversed(chunks)))
    intent = SymbolIntent(RankingIndex.build(chunks))
    assert order(intent, "Sinatra::Helpers", items)[0] == "lib/sinatra/base.rb::Sinatra.Helpers"
    assert order(intent, "com.google.gson.JsonElement", items)[0] == (
        "src/main/java/com/google/gson/JsonElement.java::JsonElement")
    assert order(intent, "gson.JsonObject.toString", items)[0] == (
        "src/main/java/com/google/gson/JsonObject.java::JsonObject.toString")
    assert order(intent, "how do fmt::format and fmt::print write", items)[:2] == [
        "include/fmt/format.h::format", "include/fmt/base.h::print"]
    assert order(intent, "Rails::Helpers", items) == [f.chunk_id for f in items]


def test_file_diversity_interleaves_files() -> None:
    items = fused(("a.py::x", 1.0), ("a.py::y", 0.9), ("a.py::z", 0.8), ("b.py::w", 0.6))
    chunks = {c: chunk(c) for c in ["a.py::x", "a.py::y", "a.py::z", "b.py::w"]}
    assert order(FileDiversity(chunks, decay=0.5), "q", items) == ["a.py::x", "b.py::w", "a.py::y", "a.py::z"]
    assert order(FileDiversity(chunks, decay=0.9), "q", items) == ["a.py::x", "a.py::y", "a.py::z", "b.py::w"]


def test_file_diversity_does_not_count_a_definition_holding_the_chunk() -> None:
    """valtio's `proxySet` (262 lines) above its own `add`: the function shown in part, not another answer of
    the file; a sibling above it counts."""
    items = fused(("a.ts::proxySet", 1.0), ("a.ts::proxySet.add", 0.9), ("a.ts::other", 0.85), ("b.ts::w", 0.6))
    chunks = {c: chunk(c) for c in ["a.ts::other", "b.ts::w"]}
    chunks["a.ts::proxySet"] = replace(chunk("a.ts::proxySet"), start_line=1, end_line=262)
    chunks["a.ts::proxySet.add"] = replace(chunk("a.ts::proxySet.add", "method"), start_line=40, end_line=52)
    chunks["a.ts::other"] = replace(chunks["a.ts::other"], start_line=270, end_line=280)
    assert order(FileDiversity(chunks, decay=0.5), "q", items) == [
        "a.ts::proxySet", "a.ts::proxySet.add", "b.ts::w", "a.ts::other"]


def test_file_diversity_keeps_the_head_as_fused() -> None:
    items = fused(("a.py::x", 1.0), ("a.py::y", 0.9), ("a.py::z", 0.8), ("b.py::w", 0.6), ("a.py::v", 0.5))
    chunks = {c: chunk(c) for c in ["a.py::x", "a.py::y", "a.py::z", "b.py::w", "a.py::v"]}
    # the first two stay; below them a.py's third chunk (x 0.25) falls under b.py's first
    assert order(FileDiversityVariant(chunks, keep=2), "q", items) == [
        "a.py::x", "a.py::y", "b.py::w", "a.py::z", "a.py::v"]


def test_file_diversity_lifts_only_close_runners_up_into_the_first_places() -> None:
    items = fused(("a.py::x", 1.0), ("a.py::y", 0.9), ("c.py::u", 0.75), ("a.py::z", 0.7), ("b.py::w", 0.6))
    chunks = {c: chunk(c) for c in ["a.py::x", "a.py::y", "c.py::u", "a.py::z", "b.py::w"]}
    # c.py is close to the top (0.75 >= 0.7 x 1.0) and is lifted; b.py (0.6) waits until place 5
    assert order(FileDiversity(chunks, close=0.7, guarded=4), "q", items) == [
        "a.py::x", "c.py::u", "a.py::y", "a.py::z", "b.py::w"]
    assert order(FileDiversity(chunks), "q", items) == ["a.py::x", "c.py::u", "b.py::w", "a.py::y", "a.py::z"]
    (shipped,) = ranking_stages(INDEX, ["diverse-close"])
    assert (type(shipped), shipped.close, shipped.guarded, shipped.decay) == (FileDiversity, 0.7, 4, 0.5)


def test_file_diversity_decays_a_chunk_close_to_the_top_once_at_most() -> None:
    """hyper's `Bdp.calculate` (75% of the top score) sat below its file's module doc and struct: decayed
    twice (x 0.25) it fell under other files' weaker chunks; decayed once it stays above them."""
    items = fused(("ping.rs::<module>", 1.0), ("ping.rs::Bdp", 0.95), ("ping.rs::Bdp.calculate", 0.8),
                  ("http2.rs::Builder.adaptive_window", 0.38), ("io.rs::ReadBuf.remaining", 0.3))
    chunks = {f.chunk_id: chunk(f.chunk_id) for f in items}
    assert order(FileDiversity(chunks), "q", items)[2:] == [
        "http2.rs::Builder.adaptive_window", "io.rs::ReadBuf.remaining", "ping.rs::Bdp.calculate"]
    assert order(FileDiversity(chunks, strong=0.75), "q", items) == [
        "ping.rs::<module>", "ping.rs::Bdp", "ping.rs::Bdp.calculate", "http2.rs::Builder.adaptive_window",
        "io.rs::ReadBuf.remaining"]
    (shipped,) = ranking_stages(INDEX, ["diverse-close"])
    assert shipped.strong == 0.75


def test_file_diversity_never_groups_pathless_snippets() -> None:
    snippets = {c: Chunk(chunk_id=c, path="", symbol="f", kind="function", start_line=1, end_line=1, code="")
                for c in ["d1", "d2", "d3"]}
    items = fused(("d1", 1.0), ("d2", 0.9), ("d3", 0.1))
    assert order(FileDiversity(snippets), "q", items) == ["d1", "d2", "d3"]


def test_file_evidence_lifts_a_chunk_whose_file_many_candidates_point_to() -> None:
    items = fused(("a.py::x", 1.0), ("b.py::y", 0.96), ("b.py::z", 0.6))
    chunks = {c: chunk(c) for c in ["a.py::x", "b.py::y", "b.py::z"]}
    result = FileEvidence(chunks, weight=0.1)(Query.from_text("q"), items)
    assert [f.chunk_id for f in result] == ["b.py::y", "a.py::x", "b.py::z"]
    assert [round(f.score, 3) for f in result] == [1.02, 1.0, 0.696]


def test_a_question_naming_a_files_subject_in_words_lifts_that_definition() -> None:
    """`JsonElement` in JsonElement.java (or json_element.py), named "JSON element": its class rises above the
    small methods that repeat the words, and joins the list when fusion missed it; a subject two files share,
    a test's, or words that are not consecutive lift nothing."""
    chunks = {c.chunk_id: c for c in [
        chunk("gson/JsonElement.java::JsonElement", "class"),
        chunk("gson/JsonTreeReader.java::JsonTreeReader.nextJsonElement", "method"),
        chunk("gson/JsonObject.java::JsonObject.add", "method"),
        chunk("gson/json_array.py::JsonArray", "class"),
        chunk("a/Column.kt::Column", "class"), chunk("b/Column.kt::Column", "class"),
        chunk("gson/tests/JsonNull.java::JsonNull", "class", is_test=True),
    ]}
    stage = NamedFile(RankingIndex.build(chunks))
    items = fused(("gson/JsonTreeReader.java::JsonTreeReader.nextJsonElement", 1.0),
                  ("gson/JsonObject.java::JsonObject.add", 0.9), ("gson/JsonElement.java::JsonElement", 0.8))
    assert order(stage, "JSON element hierarchy and tree model", items)[0] == "gson/JsonElement.java::JsonElement"
    assert order(stage, "the JSON array of elements", items)[-1] == "gson/json_array.py::JsonArray"  # joined
    for unlifted in ("an element of JSON", "column definitions", "the JSON null value"):
        assert order(stage, unlifted, items) == [f.chunk_id for f in items], unlifted
    assert INDEX.by_file_subject == {}  # `Response` in models.py, `Session` in api.py: no file named after them


def test_path_signal_matches_file_name_words_by_stem() -> None:
    items = fused(("pkg/api.py::make_response", 1.0), ("pkg/cookies.py::jar_from_dict", 0.95))
    assert order(PathSignal(CHUNKS, bonus=0.1), "cookie handling", items) == [
        "pkg/cookies.py::jar_from_dict", "pkg/api.py::make_response"]
    assert order(PathSignal(CHUNKS, bonus=0.1), "request handling", items) == [
        "pkg/api.py::make_response", "pkg/cookies.py::jar_from_dict"]


def test_path_signal_ranks_the_file_holding_more_of_the_question_first() -> None:
    chunks = {c.chunk_id: c for c in [chunk("gson/JsonStreamParser.java::parse"), chunk("gson/JsonReader.java::peek"),
                                      chunk("gson/Streams.java::write")]}
    items = fused(("gson/JsonStreamParser.java::parse", 1.0), ("gson/JsonReader.java::peek", 0.9),
                  ("gson/Streams.java::write", 0.85))
    # "json" is in both Json files' names, "reader" in one: it gains 0.5 x 1.0 x 2/3, the other 0.5 x 1.0 x 1/3
    # (lead 1: every chunk of a file alike; the shipped lead 1.5 gives each file's first chunk half as much again)
    result = PathSignal(chunks, lead=1.0)(Query.from_text("json reader tokens"), items)
    assert [(f.chunk_id, round(f.score, 3)) for f in result] == [
        ("gson/JsonReader.java::peek", 1.233), ("gson/JsonStreamParser.java::parse", 1.167),
        ("gson/Streams.java::write", 0.85)]
    result = PathSignal(chunks)(Query.from_text("json reader tokens"), items)
    assert [(f.chunk_id, round(f.score, 3)) for f in result] == [
        ("gson/JsonReader.java::peek", 1.4), ("gson/JsonStreamParser.java::parse", 1.25),
        ("gson/Streams.java::write", 0.85)]


def test_a_files_gain_lifts_its_first_chunk_most() -> None:
    """The file the question is about rises by its best chunk; its other chunks gain as before, so
    another file's first chunk can stand between them."""
    from codelens.search.ranking_files import LEAD, with_gains

    items = fused(("a.py::x", 1.0), ("a.py::y", 0.95), ("b.py::z", 0.9), ("c.py::w", 0.5))
    paths = ["a.py", "a.py", "b.py", "c.py"]
    result = with_gains(items, paths, [0.2, 0.2, 0.2, 0.0], lead=LEAD)
    assert LEAD == 1.5
    assert [(f.chunk_id, round(f.score, 3)) for f in result] == [
        ("a.py::x", 1.3), ("b.py::z", 1.2), ("a.py::y", 1.15), ("c.py::w", 0.5)]
    alike = with_gains(items, paths, [0.2, 0.2, 0.2, 0.0], lead=1.0)
    assert [f.chunk_id for f in alike] == ["a.py::x", "a.py::y", "b.py::z", "c.py::w"]
    # chunks without a file (snippet corpora) are nobody's first: they gain their gain once
    snippets = with_gains(fused(("s1", 1.0), ("s2", 0.9)), ["", ""], [0.1, 0.3], lead=LEAD)
    assert [(f.chunk_id, round(f.score, 3)) for f in snippets] == [("s2", 1.2), ("s1", 1.1)]


def test_a_russian_questions_english_words_name_no_file() -> None:
    """"... в Exposed" names the project, whose folder every file is in: no file gains from it."""
    chunks = {c.chunk_id: c for c in [chunk("exposed/Op.kt::eq"), chunk("exposed/Column.kt::Column", "class")]}
    items = fused(("exposed/Op.kt::eq", 1.0), ("exposed/Column.kt::Column", 0.9))
    assert [f.score for f in PathSignal(chunks)(Query.from_text("типы столбцов в Exposed"), items)] == [1.0, 0.9]


def test_tests_sink_below_the_code_unless_the_question_asks_for_tests() -> None:
    from codelens.search.ranking_order import CodeBeforeTests

    items = fused(("tests/test_models.py::Response", 1.0), ("pkg/api.py::make_response", 0.7))
    stage = CodeBeforeTests(CHUNKS)
    assert [(f.chunk_id, f.score) for f in stage(Query.from_text("how is a response built"), items)] == [
        ("pkg/api.py::make_response", 0.7), ("tests/test_models.py::Response", 0.3)]
    for asks in ("which tests cover the response", "как тестируется ответ"):
        assert order(stage, asks, items) == ["tests/test_models.py::Response", "pkg/api.py::make_response"]


def test_example_programs_sink_below_the_code_unless_the_question_asks_for_examples() -> None:
    from codelens.search.file_roles import is_example_path
    from codelens.search.ranking_order import CodeBeforeTests

    chunks = {c.chunk_id: c for c in [chunk("_examples/rest/main.go::adminRouter"),
                                      chunk("mux.go::Mux.Route", "method")]}
    items = fused(("_examples/rest/main.go::adminRouter", 1.0), ("mux.go::Mux.Route", 0.7))
    stage = CodeBeforeTests(chunks)
    assert order(stage, "how are sub-routers mounted", items) == [
        "mux.go::Mux.Route", "_examples/rest/main.go::adminRouter"]
    for asks in ("an example of a REST router", "пример REST-роутера"):
        assert order(stage, asks, items) == ["_examples/rest/main.go::adminRouter", "mux.go::Mux.Route"]
    assert order(CodeBeforeTests(chunks, examples=False), "how are sub-routers mounted", items) == [
        f.chunk_id for f in items]
    assert is_example_path("docs/Samples/app.cs") and not is_example_path("src/examples.py")
    assert is_example_path("packages/playground/src/stores/cart.ts")
    # a folder named for what it shows (dio's `example_dart/` above its `DioForNative.download`)
    assert is_example_path("example_dart/lib/download.dart") and is_example_path("flutter_example/lib/main.dart")
    assert not is_example_path("lib/resample/audio.c") and not is_example_path("src/example_test.go")
    assert is_example_path("src/Snippets/Docs/Retry.cs") and not is_example_path("src/snippet.ts")
    # code under the documentation's folder builds or illustrates the docs; the docs themselves answer
    assert is_example_path("doc/ext/refcounting.py", code=True) and not is_example_path("doc/apiref.rst")
    assert not is_example_path("src/docs.py", code=True)
    # what a generator writes into the user's project (Rails' generator templates, ERB in `.rb`)
    assert is_example_path("lib/generators/devise/templates/controllers/sessions_controller.rb")
    assert not is_example_path("lib/devise/generators.rb") and not is_example_path("app/templates/cart.rb")


def test_a_message_bundle_sinks_furthest_unless_the_question_asks_about_texts_or_translations() -> None:
    """spring-petclinic's `messages_ru.properties` holds every word of «валидация владельца питомца»."""
    from codelens.search.file_roles import is_translation_path
    from codelens.search.ranking_order import CodeBeforeTests

    bundle = Chunk(chunk_id="resources/messages/messages_ru.properties::<keys>", kind="config", start_line=1,
                   end_line=9, path="resources/messages/messages_ru.properties", symbol="<keys>",
                   code="owner=Владелец\npet=Питомец")
    chunks = {c.chunk_id: c for c in [bundle, chunk("owner/PetValidator.java::PetValidator.validate", "method")]}
    items = fused(("resources/messages/messages_ru.properties::<keys>", 2.0),
                  ("owner/PetValidator.java::PetValidator.validate", 0.7))
    stage = CodeBeforeTests(chunks)
    assert order(stage, "валидация владельца питомца", items)[0] == "owner/PetValidator.java::PetValidator.validate"
    for asks in ("перевод сообщений об ошибках", "where are the translations of the form"):
        assert order(stage, asks, items)[0] == "resources/messages/messages_ru.properties::<keys>"
    # «перевод строки» is a line break, no translation
    assert order(stage, "где удаляются переводы строк", items)[0] == "owner/PetValidator.java::PetValidator.validate"
    for path in ("src/locales/ru.json", "app/locale/ru/LC_MESSAGES/django.po", "res/values-ru/strings.xml",
                 "resources/lang/ru/validation.php", "Properties/Resources.ru.resx", "i18n/en.yaml",
                 # the documentation translated (pinia's Chinese API pages answered a Russian question)
                 "packages/docs/zh/api/index.md", "docs/pt-BR/guide.md", "README.zh-CN.md", "README_ja.md",
                 "language/phpmailer.lang-ru.php", "lang_de.js"):  # PHPMailer's locale files
        assert is_translation_path(path), path
    for path in ("src/messages.py", "app/models/message.rb", "config/application.yml", "src/lang.ts",
                 "README.md", "docs/ru/guide.md", "docs/en/guide.md", "src/de/acme/App.java", "src/it/README.md",
                 "src/language/parser.ts", "golang-ru.go"):
        assert not is_translation_path(path), path


def test_a_change_log_sinks_unless_the_question_asks_about_changes_or_releases() -> None:
    """hanami's CHANGELOG.md section fourth for «как настраиваются переменные окружения приложения»."""
    from codelens.search.file_roles import is_history_path
    from codelens.search.ranking_order import CodeBeforeTests

    log = Chunk(chunk_id="CHANGELOG.md::v2.0.0 > Changed", path="CHANGELOG.md", symbol="v2.0.0 > Changed",
                kind="doc", start_line=1, end_line=9, code="- Settings are read from the environment (ENV)")
    chunks = {c.chunk_id: c for c in [log, chunk("lib/hanami/env.rb::Hanami.Env.load", "method")]}
    items = fused(("CHANGELOG.md::v2.0.0 > Changed", 1.0), ("lib/hanami/env.rb::Hanami.Env.load", 0.7))
    stage = CodeBeforeTests(chunks)
    assert order(stage, "как настраиваются переменные окружения", items)[0] == "lib/hanami/env.rb::Hanami.Env.load"
    for asks in ("what changed in 2.0", "что нового в последнем релизе"):
        assert order(stage, asks, items)[0] == "CHANGELOG.md::v2.0.0 > Changed"
    assert all(map(is_history_path, ("CHANGES.rst", "docs/HISTORY.md", "changes/1234.feature.md", "NEWS",
                                          "doc/release_notes/3.1.0.txt")))
    assert not any(map(is_history_path, ("src/changes.py", "lib/history/store.rb", "docs/news_feed.md")))
    # a named part of one (jsoup's `change-archive.txt`, `CHANGES-2.x.md`); never code named so
    assert all(map(is_history_path, ("change-archive.txt", "CHANGES-2.x.md", "changelog_old.rst")))
    assert not any(map(is_history_path, ("history_test.go", "changes_view.rb", "bin/history-cleanup")))


def test_a_licence_sinks_unless_the_question_asks_about_licensing() -> None:
    """petclinic's LICENSE.txt ("Source form", "Object form", "submitted") ranked first for "how is a pet type
    converted from the text submitted in a form"; a module named license is code."""
    from codelens.search.file_roles import is_legal_path
    from codelens.search.ranking_order import CodeBeforeTests

    licence = Chunk(chunk_id="LICENSE.txt::<file> (2)", path="LICENSE.txt", symbol="<file> (2)", kind="text",
                    start_line=1, end_line=9, code='"Source" form shall mean the preferred form for making changes')
    chunks = {c.chunk_id: c for c in [licence, chunk("src/owner/PetTypeFormatter.java::PetTypeFormatter.parse")]}
    items = fused(("LICENSE.txt::<file> (2)", 1.0), ("src/owner/PetTypeFormatter.java::PetTypeFormatter.parse", 0.7))
    stage = CodeBeforeTests(chunks)
    assert order(stage, "how is a pet type converted from the text submitted in a form", items)[0] == (
        "src/owner/PetTypeFormatter.java::PetTypeFormatter.parse")
    for asks in ("under which license is this project", "какая лицензия у проекта"):
        assert order(stage, asks, items)[0] == "LICENSE.txt::<file> (2)"
    assert all(map(is_legal_path, ("LICENSE", "LICENSE.txt", "docs/LICENSE-MIT", "COPYING", "NOTICE.md")))
    assert not any(map(is_legal_path, ("src/license.rs", "notice.py", "LicenseManager.java")))


def test_benchmark_programs_sink_as_examples_do_unless_the_question_asks_for_a_benchmark() -> None:
    """Hono's `benchmarks/routers/src/tool.mts::Route` ranked third for "how are route parameters parsed"."""
    from codelens.search.file_roles import is_example_path
    from codelens.search.ranking_order import CodeBeforeTests

    chunks = {c.chunk_id: c for c in [chunk("benchmarks/routers/src/tool.mts::Route", "class"),
                                      chunk("src/request.ts::HonoRequest.param", "method")]}
    items = fused(("benchmarks/routers/src/tool.mts::Route", 1.0), ("src/request.ts::HonoRequest.param", 0.7))
    stage = CodeBeforeTests(chunks)
    assert order(stage, "how are route parameters parsed", items)[0] == "src/request.ts::HonoRequest.param"
    for asks in ("the router benchmark", "бенчмарк роутеров", "which benches measure parsing"):
        assert order(stage, asks, items)[0] == "benchmarks/routers/src/tool.mts::Route"
    assert is_example_path("crates/core/benches/parse.rs") and is_example_path("bench/index_speed.py")
    assert is_example_path("zio-json/jvm/src/jmh/scala/zio/json/UUIDBenchmarks.scala")  # the JVM's benchmark set
    assert not is_example_path("src/benchmark.rs")


def test_a_legacy_version_s_code_sinks_unless_the_question_names_it() -> None:
    from codelens.search.ranking_order import LegacyBelow
    from codelens.search.ranking_symbols import legacy_folders

    assert legacy_folders(["src/v3/types.ts", "src/v4/core/schemas.ts", "src/v4-mini/index.ts", "lib/legacy/io.py",
                           "api/v1/users.go", "api/v2/users.go", "api/v10/users.go", "exposed/v1/core/Op.kt",
                           "manual/v1.7/manual.yml", "manual/v1.10/manual.yml", "manual/dev/manual.yml",
                           "warp/attic/undrained.hs"]) == {
        "src/v3/", "lib/legacy/", "api/v1/", "api/v2/", "manual/v1.7/", "warp/attic/"}  # a lone v1 is the current one
    chunks = {c.chunk_id: c for c in [chunk("src/v3/types.ts::ZodType", "class"),
                                      chunk("src/v4/classic/schemas.ts::ZodType", "class"),
                                      chunk("src/v4/core/schemas.ts::$ZodType", "class"),
                                      chunk("src/v4/core/schemas.ts::parse")]}
    index = RankingIndex.build(chunks)
    assert index.legacy_folder("src/v3/types.ts") == "src/v3/" and index.legacy_folder("src/v4/x.ts") is None
    items = fused(("src/v3/types.ts::ZodType", 1.0), ("src/v4/core/schemas.ts::parse", 0.8))
    assert order(LegacyBelow(index), "how a schema parses its input", items) == [
        "src/v4/core/schemas.ts::parse", "src/v3/types.ts::ZodType"]
    assert order(LegacyBelow(index), "the v3 schema types", items) == [f.chunk_id for f in items]
    # a name's definitions: the current version's first, then its `$` variant, the legacy one last
    assert order(SymbolIntent(index), "ZodType", items)[:3] == [
        "src/v4/classic/schemas.ts::ZodType", "src/v4/core/schemas.ts::$ZodType", "src/v3/types.ts::ZodType"]
    assert index.definitions("$ZodType") == ["src/v4/core/schemas.ts::$ZodType"]


def test_what_only_declares_sinks_below_what_implements_it() -> None:
    """guzzle's `ClientInterface.sendAsync` answered "how is a request sent asynchronously" above
    `Client.sendAsync`; ky's `RetryOptions` type above the code that retries. A Rust trait's method is what a
    question asks about (serde's `Visitor`): its language declares no contracts."""
    from codelens.search.ranking_order import DeclarationsBelow

    def code(chunk_id: str, kind: str, text: str) -> Chunk:
        path, symbol = chunk_id.split("::")
        return Chunk(chunk_id=chunk_id, path=path, symbol=symbol, kind=kind, start_line=1, end_line=3, code=text)

    chunks = {c.chunk_id: c for c in [
        code("src/ClientInterface.php::ClientInterface.sendAsync", "method",
             "/**\n * Sends a request {@see send} asynchronously.\n */\n"
             "public function sendAsync(RequestInterface $request, array $options = []): PromiseInterface;"),
        code("src/Client.php::Client.sendAsync", "method",
             "public function sendAsync(RequestInterface $request, array $options = []): PromiseInterface\n"
             "{\n    return $this->transfer($request, $options);\n}"),
        code("source/types/retry.ts::RetryOptions", "class",
             "/**\nOptions of a retry.\n*/\nexport type RetryOptions = {\n\tlimit?: number;\n};"),
        code("source/core/Ky.ts::Ky.#retry", "method", "async #retry(fn) {\n\treturn fn();\n}"),
        code("src/de/mod.rs::Visitor.visit_str", "method",
             "fn visit_str<E>(self, v: &str) -> Result<Self::Value, E>;"),
        # a TypeScript declaration file's class (winston's typings beside its container.js)
        code("index.d.ts::Container", "class", "declare class Container {\n  add(id: string): Logger;\n}"),
        # a Kotlin multiplatform `expect class` (kotlinx-datetime's common `LocalDate`; each platform's `actual` one
        # does the work), not the `actual` one
        code("common/src/LocalDate.kt::LocalDate", "class",
             "/** A date. */\npublic expect class LocalDate(year: Int, month: Int, day: Int) {\n}"),
        code("jvm/src/LocalDate.kt::LocalDate", "class",
             "public actual class LocalDate(val value: jtLocalDate) {\n    actual val year: Int get() = value.year\n}"),
    ]}
    stage = DeclarationsBelow(RankingIndex.build(chunks))
    items = fused(("src/ClientInterface.php::ClientInterface.sendAsync", 1.0),
                  ("source/types/retry.ts::RetryOptions", 0.95), ("src/de/mod.rs::Visitor.visit_str", 0.9),
                  ("src/Client.php::Client.sendAsync", 0.8), ("source/core/Ky.ts::Ky.#retry", 0.65),
                  ("index.d.ts::Container", 0.6), ("common/src/LocalDate.kt::LocalDate", 0.5),
                  ("jvm/src/LocalDate.kt::LocalDate", 0.4))
    asked = stage(Query.from_text("how is a request sent asynchronously"), items)
    assert {f.chunk_id: round(f.score, 3) for f in asked} == {
        "src/ClientInterface.php::ClientInterface.sendAsync": 0.7, "source/types/retry.ts::RetryOptions": 0.665,
        "src/de/mod.rs::Visitor.visit_str": 0.9, "src/Client.php::Client.sendAsync": 0.8,
        "source/core/Ky.ts::Ky.#retry": 0.65,  # JavaScript's `#retry` is a private method, no comment
        "index.d.ts::Container": 0.42, "common/src/LocalDate.kt::LocalDate": 0.35,
        "jvm/src/LocalDate.kt::LocalDate": 0.4}
    for question in ("ClientInterface", "how do I configure the client"):  # the symbol stage's; the project's setup
        assert order(stage, question, items) == [f.chunk_id for f in items]


def test_a_typescript_interface_beside_a_value_of_its_name_types_that_value_and_keeps_its_score() -> None:
    """zod's classic `interface ZodString` (its methods' signatures) beside `const ZodString = $constructor(...)`
    is the value's own API; an abstract class's abstract method still declares (its class does something), and
    so does an interface merged into a class of its name."""
    from codelens.search.ranking_order import DeclarationsBelow

    def code(chunk_id: str, kind: str, text: str, parent: str = "") -> Chunk:
        path, symbol = chunk_id.split("::")
        return Chunk(chunk_id=chunk_id, path=path, symbol=symbol, kind=kind, start_line=1, end_line=3, code=text,
                     parent=parent)

    chunks = {c.chunk_id: c for c in [
        code("v4/schemas.ts::ZodString", "class",
             "export interface ZodString extends _ZodString {\n\temail(): this;\n}"),
        code("v4/schemas.ts::ZodString.email", "method", "\temail(): this;", parent="ZodString"),
        code("v4/schemas.ts::ZodString#2", "function", "export const ZodString = $constructor((inst) => {\n});"),
        code("v4/checks.ts::ZodCheck", "class", "export interface ZodCheck {\n\tcheck(): void;\n}"),
        code("v4/base.ts::Schema", "class", "export abstract class Schema {\n\tabstract parse(): unknown;\n}"),
        code("v4/base.ts::Schema.parse", "method", "\tabstract parse(): unknown;", parent="Schema"),
        # yup's `interface StringSchema` merged into `class StringSchema`: the class implements, the interface's
        # members only declare its overloads' types
        code("src/string.ts::StringSchema", "class",
             "export default class StringSchema extends Schema {\n\tmin(n) {\n\t\treturn this.test(n);\n\t}\n}"),
        code("src/string.ts::StringSchema.min", "method", "\tmin(n) {\n\t\treturn this.test(n);\n\t}",
             parent="StringSchema"),
        code("src/string.ts::StringSchema#2", "class",
             "export default interface StringSchema {\n\tdefined(msg?: string): StringSchema;\n}"),
        code("src/string.ts::StringSchema.defined", "method", "\tdefined(msg?: string): StringSchema;",
             parent="StringSchema"),
    ]}
    stage = DeclarationsBelow(RankingIndex.build(chunks))
    items = fused(*((chunk_id, 1.0) for chunk_id in chunks))
    kept = {f.chunk_id: round(f.score, 2) for f in stage(Query.from_text("string schema with validations"), items)}
    assert kept == {"v4/schemas.ts::ZodString": 1.0, "v4/schemas.ts::ZodString.email": 1.0,
                    "v4/schemas.ts::ZodString#2": 1.0, "v4/checks.ts::ZodCheck": 0.7, "v4/base.ts::Schema": 1.0,
                    "v4/base.ts::Schema.parse": 0.7, "src/string.ts::StringSchema": 1.0,
                    "src/string.ts::StringSchema.min": 1.0, "src/string.ts::StringSchema#2": 0.7,
                    "src/string.ts::StringSchema.defined": 0.7}


def test_every_object_s_own_methods_sink_unless_the_question_asks_about_them() -> None:
    """moshi's `EnumJsonAdapter.toString` (`"EnumJsonAdapter(Foo)"`) answered "how are enums converted to and from
    JSON strings" above the adapter's `fromJson`; Go's `String`, Python's `__eq__` are the same kind."""
    from codelens.search.ranking_order import ObjectMethodsBelow

    chunks = {c.chunk_id: c for c in [
        chunk("adapters/EnumJsonAdapter.kt::EnumJsonAdapter.toString", "method"),
        chunk("adapters/EnumJsonAdapter.kt::EnumJsonAdapter.fromJson", "method"),
        chunk("status.go::Status.String", "method"), chunk("money.py::Money.__eq__", "method"),
        chunk("money.py::to_string"),  # a function of that name is no object's method
    ]}
    stage = ObjectMethodsBelow(chunks)
    items = fused(*((chunk_id, 1.0) for chunk_id in chunks))

    def kept(question: str) -> set[str]:
        return {f.chunk_id for f in stage(Query.from_text(question), items) if f.score == 1.0}

    assert kept("how are enums converted to and from JSON strings") == {
        "adapters/EnumJsonAdapter.kt::EnumJsonAdapter.fromJson", "money.py::to_string"}
    assert "adapters/EnumJsonAdapter.kt::EnumJsonAdapter.toString" in kept("where is toString of the enum adapter")
    assert {"status.go::Status.String", "adapters/EnumJsonAdapter.kt::EnumJsonAdapter.toString"} <= kept(
        "how is a status displayed")  # how a thing reads as text, asked
    compared = kept("how are two amounts compared")
    assert "money.py::Money.__eq__" in compared and "status.go::Status.String" not in compared
    assert kept("Status") == set(chunks)  # an identifier: the symbol stage's


def test_a_name_the_index_only_re_exports_puts_that_statement_first() -> None:
    """axum's `IntoResponse` is axum-core's: response/mod.rs's `pub use axum_core::response::{IntoResponse}` is
    where the code takes it from. A plain word ("response") is left to the other stages."""

    def piece(chunk_id: str, kind: str, code: str) -> Chunk:
        path, symbol = chunk_id.split("::")
        return Chunk(chunk_id=chunk_id, path=path, symbol=symbol, kind=kind, start_line=1, end_line=3, code=code)

    chunks = {c.chunk_id: c for c in [
        piece("src/response/mod.rs::<module>", "module",
              "pub use axum_core::response::{\n    ErrorResponse, IntoResponse,\n};"),
        piece("src/routing/mod.rs::<module>", "module", "pub use self::into_response_parts::IntoResponseParts;"),
        piece("src/handler/mod.rs::IntoResponseHandler", "class", "pub struct IntoResponseHandler;"),
        piece("src/app.rs::<module>", "module", "let response = build();"),
    ]}
    stage = SymbolIntent(RankingIndex.build(chunks))
    items = fused(("src/handler/mod.rs::IntoResponseHandler", 1.0), ("src/routing/mod.rs::<module>", 0.9),
                  ("src/app.rs::<module>", 0.8), ("src/response/mod.rs::<module>", 0.5))
    assert order(stage, "IntoResponse", items)[0] == "src/response/mod.rs::<module>"
    assert order(stage, "response", items) == [f.chunk_id for f in items]
    assert order(stage, "IntoResponseHandler", items)[0] == "src/handler/mod.rs::IntoResponseHandler"  # defined


def test_a_property_s_getter_and_setter_sink_below_the_code_that_does_the_work() -> None:
    """got's `Options.followRedirect` getter (the option's doc, `return this.#internals.followRedirect`) and its
    setter filled "how are redirects followed"; Python's `@property` is left alone (it often computes), and so
    is an accessor that computes (koa's `set body` choosing the content type). Java's `getMaxCount()` returning
    its field is an accessor by its name (commons-io's filled "how is the number of bytes read limited")."""
    from codelens.search.ranking_order import AccessorsBelow

    def method(chunk_id: str, signature: str, decorators: tuple[str, ...] = (), body: str = "") -> Chunk:
        path, symbol = chunk_id.split("::")
        return Chunk(chunk_id=chunk_id, path=path, symbol=symbol, kind="method", start_line=1, end_line=3,
                     code=f"/** The doc. */\n{signature} {{\n{body}}}", signature=signature,
                     parent=symbol.split(".")[0], decorators=decorators)

    setter = "    assert.boolean(value);\n    this.#internals.followRedirect = value;\n"
    choosing = "".join(f"    if (typeof val === '{t}') this.type = '{t}';\n" for t in ("string", "object", "blob"))

    chunks = {c.chunk_id: c for c in [
        method("source/options.ts::Options.followRedirect", "get followRedirect(): boolean"),
        method("source/options.ts::Options.followRedirect#2", "set followRedirect(value: boolean)", body=setter),
        method("source/index.ts::Request._onResponse", "async _onResponse(response: Response)"),
        method("lib/response.js::response.body#2", "set body (val)", body=choosing + "    this._body = val\n"),
        method("pkg/client.py::Client.timeout", "def timeout(self)", decorators=("property",)),
        # Java names its accessors: one that returns its field sinks, one that computes is code
        method("src/Bounded.java::Bounded.getMaxCount", "public long getMaxCount()", body="    return maxCount;\n"),
        method("src/Bounded.java::Bounded.getMaxWaitMillis", "public long getMaxWaitMillis()",
               body="    return maxWait.toMillis();\n"),  # a field in another unit
        method("src/Bounded.java::Bounded.getRemaining", "public long getRemaining()",
               body="    if (count >= maxCount) return 0;\n    return maxCount - count;\n"),
        Chunk(chunk_id="src/Bounded.java::Bounded.getLimit", path="src/Bounded.java", symbol="Bounded.getLimit",
              kind="method", start_line=1, end_line=1, code="@Override public long getLimit() { return limit; }",
              signature="public long getLimit()", parent="Bounded"),
        # a signature wrapped over two lines (commons-pool's `setSwallowedExceptionListener(\n final ...)`), and
        # C++'s capitalised names and `this->` (cpr's `GetIdleThreadNum`)
        method("src/Pool.java::Pool.setListener", "public void setListener(\n        final Listener listener)",
               body="    this.listener = listener;\n"),
        method("src/pool.cpp::ThreadPool.GetIdleThreadNum", "size_t GetIdleThreadNum() const",
               body="    return idle_thread_num;\n"),
        method("src/pool.cpp::ThreadPool.SetMaxIdle", "void SetMaxIdle(size_t n)", body="    this->max_idle = n;\n"),
        # Go names a getter for what it returns: one returning its receiver's field sinks (sqlx's `DriverName`
        # above the code that picks the bind style), one computing what it returns is code
        Chunk(chunk_id="sqlx.go::DB.DriverName", path="sqlx.go", symbol="DB.DriverName", kind="method",
              start_line=1, end_line=1, code="func (db *DB) DriverName() string { return db.driverName }",
              signature="func (db *DB) DriverName() string", parent="DB"),
        Chunk(chunk_id="sqlx.go::DB.Rebind", path="sqlx.go", symbol="DB.Rebind", kind="method", start_line=1,
              end_line=3, code="func (db *DB) Rebind(query string) string {\n\treturn Rebind(BindType(db.driverName), "
                               "query)\n}", signature="func (db *DB) Rebind(query string) string", parent="DB"),
    ]}
    stage = AccessorsBelow(chunks)
    items = fused(*((chunk_id, 1.0) for chunk_id in chunks))

    def kept(question: str) -> set[str]:
        return {f.chunk_id for f in stage(Query.from_text(question), items) if f.score == 1.0}

    assert kept("how are redirects followed") == {"source/index.ts::Request._onResponse",
                                                  "pkg/client.py::Client.timeout", "lib/response.js::response.body#2",
                                                  "src/Bounded.java::Bounded.getRemaining",
                                                  "src/Bounded.java::Bounded.getLimit", "sqlx.go::DB.Rebind"}
    assert "source/options.ts::Options.followRedirect" in kept("what does followRedirect default to")  # written


def test_a_constructor_that_only_stores_its_arguments_sinks_below_the_code_that_uses_them() -> None:
    """Polly's `AdvancedCircuitBehavior(failureRatio, minimumThroughput, ...)`, six lines of `_x = x;`, came
    above the `OnActionFailure` that trips the circuit on them. A constructor that does work stays, and so does
    Python's `__init__` (never sunk) and one the question names."""
    from codelens.search.ranking_order import ConstructorsBelow

    def method(chunk_id: str, body: str) -> Chunk:
        path, symbol = chunk_id.split("::")
        owner, name = symbol.rsplit(".", 1)
        return Chunk(chunk_id=chunk_id, path=path, symbol=symbol, kind="method", start_line=1, end_line=9,
                     code=f"/// <summary>The doc.</summary>\npublic {name}(double failureRatio, int throughput)\n"
                          f"{{\n{body}}}", parent=owner)

    storing = "    _failureRatio = failureRatio;\n    _minimumThroughput = minimumThroughput ?? 10;\n"
    chunks = {c.chunk_id: c for c in [
        method("src/Advanced.cs::AdvancedCircuitBehavior.AdvancedCircuitBehavior", storing),
        method("src/Advanced.cs::AdvancedCircuitBehavior.OnActionFailure", "    if (_failureRatio > 0.5) Break();\n"),
        method("src/Policy.cs::Policy.Policy", "    : base(options)\n    _strategies = Build(options).ToList();\n"
                                                "    foreach (var s in _strategies) s.Attach(this);\n"),
        method("src/Cart.ts::Cart.constructor", "    super(items);\n    this.items = items;\n"),
        method("pkg/client.py::Client.__init__", "    self.ratio = ratio\n"),
    ]}
    stage = ConstructorsBelow(chunks)
    items = fused(*((chunk_id, 1.0) for chunk_id in chunks))

    def kept(question: str) -> set[str]:
        return {f.chunk_id for f in stage(Query.from_text(question), items) if f.score == 1.0}

    assert kept("how does the circuit trip on the failure ratio") == {
        "src/Advanced.cs::AdvancedCircuitBehavior.OnActionFailure", "src/Policy.cs::Policy.Policy",
        "pkg/client.py::Client.__init__"}
    assert "src/Cart.ts::Cart.constructor" in kept("what does `Cart.constructor` do")  # written in code form


def test_a_function_that_only_calls_another_of_its_file_goes_below_it() -> None:
    """viper's package-level `SetEnvPrefix(in)` is `{ v.SetEnvPrefix(in) }` under the method's doc word for word,
    a Java overload hands its arguments to the full one, Carbon's `ago()` returns `diffForHumans()`: each callee
    takes its forwarder's place and the forwarder goes below it; one calling a name of another file keeps its
    place (httpx's `HTTPTransport.close` calls its pool's). Chunked by the real grammars."""
    from codelens.ingest.syntax import chunk_code_file
    from codelens.search.ranking_order import ForwardersBelow

    go = ("package viper\n\n// SetEnvPrefix defines a prefix that environment variables will use.\n"
          "func SetEnvPrefix(in string) { v.SetEnvPrefix(in) }\n\n"
          "// SetEnvPrefix defines a prefix that environment variables will use.\n"
          "func (v *Viper) SetEnvPrefix(in string) {\n\tif in != \"\" {\n\t\tv.envPrefix = in\n\t}\n}\n\n"
          "func (v *Viper) mergeWithEnvPrefix(in string) string {\n\treturn v.envPrefix + \"_\" + in\n}\n")
    java = ("class Strings {\n    /** Joins the elements with a separator. */\n"
            "    static String join(Object[] a, char sep) {\n        return join(a, sep, 0, a.length);\n    }\n\n"
            "    static String join(Object[] a, char sep, int from, int to) {\n"
            "        StringBuilder b = new StringBuilder();\n        for (int i = from; i < to; i++) b.append(a[i]);\n"
            "        return b.toString();\n    }\n}\n")
    kotlin = "class Wrapper(val inner: Strings) {\n    fun join(a: Array<Any>, sep: Char) = inner.join(a, sep)\n}\n"
    php = ("<?php\ntrait Difference\n{\n    /** A relative difference for humans: \"3 days ago\". */\n"
           "    public function ago($other = null)\n    {\n        return $this->diffForHumans($other);\n    }\n\n"
           "    public function diffForHumans($other = null)\n    {\n        $parts = $this->diff($other);\n"
           "        return implode(' ', $parts) . ' ago';\n    }\n}\n")
    chunks = {c.chunk_id: c for path, text in (("viper.go", go), ("Strings.java", java), ("Wrapper.kt", kotlin),
                                               ("Difference.php", php))
              for c in chunk_code_file(path, text)[0]}
    stage = ForwardersBelow(chunks)
    items = fused(("viper.go::SetEnvPrefix", 2.0), ("Strings.java::Strings.join", 1.8),
                  ("Wrapper.kt::Wrapper.join", 1.6), ("viper.go::Viper.SetEnvPrefix", 1.5),
                  ("Strings.java::Strings.join#2", 1.2), ("viper.go::Viper.mergeWithEnvPrefix", 1.0))
    ranked = stage(Query.from_text("how is the environment variable prefix set"), items)
    assert [f.chunk_id for f in ranked] == [
        "viper.go::Viper.SetEnvPrefix", "Strings.java::Strings.join#2", "Wrapper.kt::Wrapper.join",
        "viper.go::SetEnvPrefix", "Strings.java::Strings.join", "viper.go::Viper.mergeWithEnvPrefix"]
    assert [f.score for f in ranked[:4]] == [2.0, 1.8, 1.6, pytest.approx(2.0 * 0.7)]
    # cpr's `SetOption(const UserAgent&)` calls `SetUserAgent`, which only calls curl's `curl_easy_setopt`: the
    # latter forwards outside the results of its file, so it is the one doing the work here
    cpp = ("class Session {\n    /** Sets the user agent. */\n"
           "    void SetOption(const UserAgent& ua) { SetUserAgent(ua); }\n"
           "    void SetUserAgent(const UserAgent& ua) { curl_easy_setopt(curl_, CURLOPT_USERAGENT, ua.c_str()); }\n"
           "};\n")
    wrappers = {c.chunk_id: c for c in chunk_code_file("session.cpp", cpp)[0]}
    assert [f.chunk_id for f in ForwardersBelow(wrappers)(Query.from_text("user agent"), fused(
        ("session.cpp::Session.SetOption", 1.5), ("session.cpp::Session.SetUserAgent", 0.9)))] == [
        "session.cpp::Session.SetUserAgent", "session.cpp::Session.SetOption"]
    aliases = fused(("Difference.php::Difference.ago", 1.5), ("Difference.php::Difference.diffForHumans", 0.9))
    assert [(f.chunk_id, f.score) for f in stage(Query.from_text("3 days ago"), aliases)] == [
        ("Difference.php::Difference.diffForHumans", 1.5), ("Difference.php::Difference.ago", pytest.approx(1.05))]
    # two statements (Kotlin writes them without `;`) forward nothing; one call is the name it forwards to
    from codelens.languages.model import forwarded_call
    assert forwarded_call("override fun onCreate(state: Bundle?)",
                          "override fun onCreate(state: Bundle?) {\n    super.onCreate(state)\n    load()\n}") is None
    assert forwarded_call("def get(url)", "def get(url)\n  request(:get, url)\nend") == "request"
    assert forwarded_call("def get(url)", "def get(url)\n  Basement.get(url).body\nend") is None
    # without the callee among the results, nothing moves
    alone = fused(("viper.go::SetEnvPrefix", 2.0), ("viper.go::Viper.mergeWithEnvPrefix", 1.0))
    assert stage(Query.from_text("environment prefix"), alone) == alone


def test_a_schema_s_definitions_are_code_and_the_statements_between_them_sink() -> None:
    from codelens.search.ranking_order import KindPrior

    def piece(chunk_id: str) -> Chunk:
        path, symbol = chunk_id.split("::")
        return Chunk(chunk_id=chunk_id, path=path, symbol=symbol, kind="text", start_line=1, end_line=2,
                     code="ALTER TABLE ONLY public.payment ATTACH PARTITION public.payment_p1;")

    chunks = {c.chunk_id: c for c in [
        piece("schema.sql::<statements> (3)"), piece("schema.sql::public.payment"),
        piece("db/0002_payments.sql::<statements>"), piece("docs/payments.md::Payments"),
        chunk("app/pay.py::pay")]}
    stage = KindPrior(chunks, RankingIndex.build(chunks).sql_schemas)
    assert RankingIndex.build(chunks).sql_schemas == frozenset({"schema.sql"})
    items = fused(("schema.sql::<statements> (3)", 1.0), ("docs/payments.md::Payments", 1.0),
                  ("db/0002_payments.sql::<statements>", 1.0), ("schema.sql::public.payment", 0.9),
                  ("app/pay.py::pay", 0.8))
    scores = {f.chunk_id: round(f.score, 3) for f in stage(Query.from_text("the payment table"), items)}
    assert scores == {"schema.sql::public.payment": 0.9,  # a table is code: it keeps its score
                      "docs/payments.md::Payments": 0.85, "db/0002_payments.sql::<statements>": 0.85,  # a migration's
                      "app/pay.py::pay": 0.8, "schema.sql::<statements> (3)": 0.6}  # a schema's glue sinks


def test_an_application_s_sql_sinks_below_its_code_unless_the_question_asks_about_the_database() -> None:
    """spring-petclinic: `db/h2/schema.sql` (and its MySQL and Postgres copies) above VetController for "how are
    vets listed". A repository of SQL with a script or two beside it (pagila) keeps its tables as its code."""
    from codelens.search.ranking_order import KindPrior

    def piece(chunk_id: str, sql: str) -> Chunk:
        path, symbol = chunk_id.split("::")
        return Chunk(chunk_id=chunk_id, path=path, symbol=symbol, kind="text", start_line=1, end_line=2, code=sql)

    sql = [piece("db/h2/schema.sql::vets", "CREATE TABLE vets (id INTEGER, last_name VARCHAR(30));"),
           piece("db/h2/data.sql::<statements>", "INSERT INTO vets VALUES (1, 'Carter');")]
    code = [chunk(f"vet/VetController.java::VetController.show{n}", "method") for n in ("List", "One")]
    app = {c.chunk_id: c for c in sql + code}
    index = RankingIndex.build(app)
    assert index.code_beside_sql
    stage = KindPrior(app, index.sql_schemas, index.code_beside_sql)
    items = fused(("db/h2/schema.sql::vets", 1.0), ("db/h2/data.sql::<statements>", 0.95),
                  ("vet/VetController.java::VetController.showList", 0.8))
    for question in ("how are vets listed", "как устроен базовый класс врачей"):  # «базовый»: no database
        assert order(stage, question, items)[0] == "vet/VetController.java::VetController.showList"
    for asks in ("which table holds the vets", "какие столбцы у таблицы врачей"):
        assert order(stage, asks, items)[0] == "db/h2/schema.sql::vets"
    schema = {c.chunk_id: c for c in [*sql, piece("db/h2/schema.sql::pets", "CREATE TABLE pets (id INTEGER);"),
                                      chunk("scripts/load.sh::load")]}
    assert not RankingIndex.build(schema).code_beside_sql  # more SQL definitions than code: the schema is the code


def test_a_question_about_running_or_configuring_the_project_lets_its_configuration_keep_its_score() -> None:
    from codelens.search.ranking_order import KindPrior, asks_for_setup

    chunks = {c.chunk_id: c for c in [
        Chunk(chunk_id="docker-compose.yaml::services.db", path="docker-compose.yaml", symbol="services.db",
              kind="config", start_line=1, end_line=3, code="db:\n  image: postgres\n  ports: ['5432:5432']"),
        chunk("app/db.py::connect")]}
    items = fused(("docker-compose.yaml::services.db", 1.0), ("app/db.py::connect", 0.9))
    stage = KindPrior(chunks)
    for question in ("which port does the database listen on", "how do I run the tests",
                     "на каком порту поднимается база", "как запустить проект в докере",
                     "which docker container runs the worker"):
        assert asks_for_setup(question) and order(stage, question, items) == [f.chunk_id for f in items]
    # a question about the code: the configuration keeps 0.85 of its score, below the code
    # a DI library's container is its code (tsyringe: 9 of 16 questions say "container", and an interface's
    # signature kept its score above the method that does it); Docker's is the setup's, by its name
    for question in ("how does the app connect to the database", "how does dependency injection work",
                     "как установить заголовок ответа", "how does the container resolve a singleton",
                     "как контейнер создаёт дочерний контейнер"):
        assert not asks_for_setup(question)
        assert order(stage, question, items) == ["app/db.py::connect", "docker-compose.yaml::services.db"]
    assert order(KindPrior(chunks, listens=False), "which port does the database listen on", items)[0] == (
        "app/db.py::connect")


def test_a_names_definitions_go_named_file_then_shallow_path_then_the_legs_order() -> None:
    chunks = {c.chunk_id: c for c in [chunk("src/DynamicParameters.ParamInfo.cs::DynamicParameters", "class"),
                                      chunk("src/DynamicParameters.cs::DynamicParameters", "class"),
                                      chunk("pkg/v1/main.py::BaseModel", "class"),
                                      chunk("pkg/main.py::BaseModel", "class"),
                                      chunk("fmt/std.h::formatter", "class"),
                                      chunk("fmt/format.h::formatter", "class")]}
    index = RankingIndex.build(chunks)
    items = fused(("src/DynamicParameters.ParamInfo.cs::DynamicParameters", 0.9), ("pkg/v1/main.py::BaseModel", 0.9),
                  ("fmt/format.h::formatter", 0.8), ("fmt/std.h::formatter", 0.3))
    assert order(SymbolIntent(index), "DynamicParameters", items)[0] == "src/DynamicParameters.cs::DynamicParameters"
    assert order(SymbolIntent(index), "BaseModel", items)[0] == "pkg/main.py::BaseModel"
    # two headers as deep, neither named after it: the one the legs scored higher, not the shorter path
    assert order(SymbolIntent(index), "formatter", items)[:2] == ["fmt/format.h::formatter", "fmt/std.h::formatter"]


def test_a_method_below_its_class_sinks() -> None:
    items = fused(("pkg/models.py::Response", 1.0), ("pkg/models.py::Response.json", 0.9),
                  ("pkg/api.py::make_response", 0.6), ("pkg/sessions.py::Session.send", 0.5))
    assert order(ClassMethodDedup(CHUNKS), "q", items) == [
        "pkg/models.py::Response", "pkg/api.py::make_response", "pkg/sessions.py::Session.send",
        "pkg/models.py::Response.json"]


def test_stages_by_name() -> None:
    assert [type(s).__name__ for s in bench_stages(INDEX, ["diverse", "symbol"])] == ["FileDiversity", "SymbolIntent"]
    with pytest.raises(ValueError, match="choose from"):
        ranking_stages(INDEX, ["nope"])
    with pytest.raises(ValueError, match="choose from"):
        ranking_stages(INDEX, ["diverse"])  # a variant: the benchmark's, not the product's


def test_path_signal_reaches_english_file_names_from_russian_words(embedder) -> None:
    words = ["cookies", "request", "session", "response"]
    bridge = WordBridge(words, embedder.embed_queries(words), embedder.embed_queries)
    items = fused(("pkg/api.py::make_response", 1.0), ("pkg/cookies.py::jar_from_dict", 0.95))
    assert order(PathSignal(CHUNKS, bonus=0.1, bridge=bridge), "хранение кук", items) == [
        "pkg/cookies.py::jar_from_dict", "pkg/api.py::make_response"]
    assert order(PathSignal(CHUNKS, bonus=0.1), "хранение кук", items) == [
        "pkg/api.py::make_response", "pkg/cookies.py::jar_from_dict"]


# ---------------------------------------------------------------- file meaning


def unit(*values: float) -> np.ndarray:
    vector = np.asarray(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_file_vectors_are_the_normalised_mean_of_each_files_chunks() -> None:
    chunks = {**CHUNKS, "snippet::q1": Chunk(chunk_id="snippet::q1", path="", symbol="q1", kind="function",
                                              start_line=1, end_line=1, code="x")}
    files = FileVectors.from_chunks(chunks, {
        "pkg/models.py::Response": unit(1, 0), "pkg/models.py::Response.json": unit(0, 1),
        "pkg/api.py::make_response": unit(1, 1), "snippet::q1": unit(1, 0)})  # no path: no file
    assert files.paths == ("pkg/api.py", "pkg/models.py")
    assert np.allclose(files.vectors[files.rows["pkg/models.py"]], unit(1, 1))
    closeness = files.similarity(unit(1, 1), ["pkg/api.py", "pkg/cookies.py"])
    assert closeness[0] == pytest.approx(1.0) and np.isnan(closeness[1])


def test_file_meaning_lifts_chunks_of_the_file_that_is_about_the_question() -> None:
    files = FileVectors.from_chunks(CHUNKS, {
        "pkg/models.py::Response": unit(1, 0), "pkg/models.py::Response.json": unit(1, 0.1),
        "pkg/api.py::make_response": unit(0, 1)})
    stage = FileMeaning(CHUNKS, files, weight=0.2)
    query = Query(text="how is a response built", vector=unit(1, 0))
    items = fused(("pkg/api.py::make_response", 1.0), ("pkg/models.py::Response.json", 0.9),
                  ("pkg/cookies.py::jar_from_dict", 0.85))  # cookies.py has no file vector: no gain
    assert [f.chunk_id for f in stage(query, items)] == [
        "pkg/models.py::Response.json", "pkg/api.py::make_response", "pkg/cookies.py::jar_from_dict"]
    # without file vectors, or without a question vector, the list is left as fused
    assert FileMeaning(CHUNKS, None)(query, items) == items
    assert stage(Query(text="no vector"), items) == items


def test_the_index_keeps_one_file_vector_per_indexed_file(mini_searcher) -> None:
    files = mini_searcher.file_vectors
    assert files is not None
    assert set(files.paths) == {c.path for c in mini_searcher.chunks.values()}
    assert np.allclose(np.linalg.norm(files.vectors, axis=1), 1.0, atol=1e-5)


def test_a_partial_index_trusts_file_meaning_as_much_as_it_is_embedded() -> None:
    files = FileVectors.from_chunks(CHUNKS, {"pkg/api.py::make_response": unit(1, 0)})
    (complete,) = ranking_stages(INDEX, ["file-meaning"], files=files)
    (half,) = ranking_stages(INDEX, ["file-meaning"], files=files, coverage=0.5)
    assert complete.weight == pytest.approx(0.2) and half.weight == pytest.approx(0.1)


# ---------------------------------------------------------------- file words


def code_chunk(chunk_id: str, code: str) -> Chunk:
    path, symbol = chunk_id.split("::")
    return Chunk(chunk_id=chunk_id, path=path, symbol=symbol, kind="function", start_line=1, end_line=2, code=code)


WORDY = {c.chunk_id: c for c in [
    code_chunk("net/pool.py::acquire", "def acquire(self):\n    return self.connections.pop()"),
    code_chunk("net/pool.py::release", "def release(self, conn):\n    self.connections.append(conn)  # keep alive"),
    code_chunk("net/log.py::note", "def note(msg):\n    print('connection', msg)"),
    code_chunk("snippet::q1", "connection connection"),
]}
WORDY["snippet::q1"] = Chunk(chunk_id="snippet::q1", path="", symbol="q1", kind="function", start_line=1,
                             end_line=1, code="connection connection")


def test_file_words_index_has_one_document_per_file() -> None:
    files = file_words_index(WORDY.values())
    assert files.chunk_ids == ("net/log.py", "net/pool.py")  # the pathless snippet has no file
    scores = dict(zip(files.chunk_ids, files.scores({"connect": 1.0, "aliv": 1.0}), strict=True))
    assert scores["net/pool.py"] > scores["net/log.py"] > 0


def test_file_words_lift_the_file_where_the_question_words_gather() -> None:
    stage = FileWords(WORDY, file_words_index(WORDY.values()), weight=0.3)
    items = fused(("net/log.py::note", 1.0), ("net/pool.py::acquire", 0.8), ("snippet::q1", 0.75))
    question = "how are connections kept alive and released"
    assert order(stage, question, items) == ["net/pool.py::acquire", "net/log.py::note", "snippet::q1"]
    # a Russian question counts the names it writes in Latin letters, not its Russian words
    assert order(stage, "как соединения остаются открытыми", items) == [f.chunk_id for f in items]
    assert order(stage, "как release держит connections открытыми", items)[0] == "net/pool.py::acquire"
    # no index, or no known word: the list is left as fused
    assert order(FileWords(WORDY, None), question, items) == [f.chunk_id for f in items]
    assert order(stage, "zebra quokka", items) == [f.chunk_id for f in items]


def test_file_words_reach_russian_named_code_from_an_english_question() -> None:
    """An English question's words crossed to the Russian words a 1C codebase is named in (the glossary read
    backwards: build -> собрать) score its files too; without the bridge nothing of the question is there."""
    named = {c.chunk_id: c for c in [
        code_chunk("src/Журнал.os::ЗаписатьЖурнал", "Процедура ЗаписатьЖурнал(Текст)\n    Сообщить(Текст);"),
        code_chunk("src/Сборщик.os::ПодготовитьКаталог", "Процедура ПодготовитьКаталог(Путь)\n    Собрать(Путь);"),
    ]}
    words = ["собрать", "записать", "журнал", "каталог"]
    vectors = np.eye(len(words) + 8, dtype=np.float32)  # orthogonal: only the glossary crosses
    bridge = WordBridge(["query"], vectors[:1], lambda asked: vectors[-len(asked):],
                        russian=(words, vectors[1 : len(words) + 1]))
    items = fused(("src/Журнал.os::ЗаписатьЖурнал", 1.0), ("src/Сборщик.os::ПодготовитьКаталог", 0.9))
    files = file_words_index(named.values())
    assert order(FileWords(named, files, bridge=bridge), "how to build the project", items)[0] == (
        "src/Сборщик.os::ПодготовитьКаталог")
    assert order(FileWords(named, files), "how to build the project", items) == [f.chunk_id for f in items]


def test_the_index_keeps_file_words_for_every_indexed_file(mini_index, mini_searcher) -> None:
    saved = load_file_words(mini_index.index_dir)
    assert saved is not None
    assert set(saved.chunk_ids) == {c.path for c in mini_searcher.chunks.values()}
    assert mini_searcher.file_words.chunk_ids == saved.chunk_ids


# ---------------------------------------------------------------- graph files


def test_call_neighbour_files_come_from_the_index_graph(mini_index, tmp_path) -> None:
    graph = IndexLayout(mini_index.index_dir).graph
    found = call_neighbour_files(graph, ["pkg/auth.py::hash_password", "pkg/nothing.py::nope"])
    # hash_password is called by check_password (its own file) and by the test
    assert found == {"pkg/auth.py::hash_password": frozenset({"pkg/auth.py", "tests/test_auth.py"})}
    assert call_neighbour_files(tmp_path / "missing.sqlite", ["pkg/auth.py::hash_password"]) == {}
    assert call_neighbour_files(graph, []) == {}


def test_graph_files_lift_the_files_the_first_results_call() -> None:
    calls = {"pkg/api.py::make_response": frozenset({"pkg/models.py", "pkg/api.py"})}
    stage = GraphFiles(CHUNKS, lambda ids: {i: calls[i] for i in ids if i in calls}, bonus=0.3, seeds=1)
    items = fused(("pkg/api.py::make_response", 1.0), ("pkg/cookies.py::jar_from_dict", 0.9),
                  ("pkg/api.py::Session", 0.85), ("pkg/models.py::Response", 0.8),
                  ("pkg/models.py::Response.json", 0.2))
    result = stage(Query.from_text("q"), items)
    # models.py chunks gain 0.3 x 1.0; api.py (the seed's own file) gains nothing
    assert [f.chunk_id for f in result] == [
        "pkg/api.py::make_response", "pkg/models.py::Response", "pkg/cookies.py::jar_from_dict",
        "pkg/api.py::Session", "pkg/models.py::Response.json"]
    assert result[1].score == pytest.approx(1.0) and result[1].score < 1.0  # never above the first
    assert GraphFiles(CHUNKS, None)(Query.from_text("q"), items) == items
    assert GraphFiles(CHUNKS, lambda ids: {})(Query.from_text("q"), items) == items
    assert [type(s).__name__ for s in ranking_stages(INDEX, ["graph-files"])] == ["GraphFiles"]


def test_hub_files_lift_a_mechanisms_hub_for_a_how_question(mini_index) -> None:
    stage = HubFiles(CHUNKS, {"pkg/models.py": 1.0, "pkg/api.py": 0.25}, weight=0.4)
    items = fused(("pkg/cookies.py::jar_from_dict", 1.0), ("pkg/models.py::Response", 0.9),
                  ("pkg/api.py::Session", 0.85))
    result = stage(Query.from_text("how are responses built"), items)
    assert [(f.chunk_id, round(f.score, 3)) for f in result] == [
        ("pkg/models.py::Response", 1.26), ("pkg/cookies.py::jar_from_dict", 1.0), ("pkg/api.py::Session", 0.935)]
    for how in ("как строятся ответы", "Каким образом строятся ответы"):
        assert stage(Query.from_text(how), items)[0].chunk_id == "pkg/models.py::Response"
    for other in ("response object", "Response", "where is the cookie jar", "how do I run the tests",
                  "как применить миграции"):  # asks for a thing, not how it works; how to run or set up
        assert stage(Query.from_text(other), items) == items
    assert HubFiles(CHUNKS, {})(Query.from_text("how are responses built"), items) == items
    # an index run writes them beside its graph, as the graph's own computes them
    graph = IndexLayout(mini_index.index_dir).graph
    with closing(sqlite3.connect(graph)) as connection:
        assert connection.execute("SELECT count(*) FROM file_hubs").fetchone() is not None
    assert dict(stored_file_hubs(graph)) == file_hubs(load_graph(mini_index.index_dir))
