"""The languages of issue 44's third part: 1C:Enterprise (BSL, OneScript), Object Pascal / Delphi,
Vue and Svelte single-file components. Golden-style as tests/test_languages.py: a small realistic
file per language (tests/fixtures/languages/) with the exact chunks expected; then what their
grammars cannot read, Cyrillic identifiers in the keyword leg, and a 1C + Vue folder searched.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from codelens.index.build import build_index
from codelens.ingest.embed_text import embedding_text, split_identifier
from codelens.ingest.formats import file_format
from codelens.ingest.syntax import chunk_code_file
from codelens.ingest.syntax_source import markup_runs, parser_bytes
from codelens.languages import language_of, row_named
from codelens.search.lexical import LexicalIndex
from codelens.search.searcher import Searcher
from codelens.search.terms import tokenize
from tests.conftest import settings_for

FIXTURES = Path(__file__).parent / "fixtures" / "languages"

# (symbol, kind, first line, last line, parent, the doc comment's first line or "")
EXPECTED: dict[str, list[tuple[str, str, int, int, str, str]]] = {
    "CustomerModule.bsl": [
        ("<module>", "module", 22, 23, "", ""),
        ("ПолучитьДанныеКлиента", "function", 3, 13, "", "Возвращает данные клиента по ссылке."),
        # its `&НаСервере` annotation is the procedure's, and no doc comment
        ("ЗаписатьЖурнал", "function", 15, 18, "", ""),
    ],
    "Logger.os": [  # OneScript: English keywords beside Russian ones, `#Использовать` read past (after a BOM)
        ("<module>", "module", 3, 3, "", ""),
        ("SendMessage", "function", 5, 8, "", "Sends one message to the log."),
        ("ПриСозданииОбъекта", "function", 10, 12, "", ""),
    ],
    "Customers.pas": [
        ("<module>", "module", 18, 18, "", ""),  # the interface's forward declaration of LoadCustomer
        ("TCustomer", "class", 8, 16, "", "A customer of the shop."),
        ("TCustomer.Create", "method", 24, 27, "TCustomer", ""),
        ("TCustomer.DisplayName", "method", 29, 33, "TCustomer", "The name shown in lists."),
        ("TCustomer.Save", "method", 35, 38, "TCustomer", ""),
        ("LoadCustomer", "function", 40, 44, "", ""),
    ],
    "Shop.dpr": [  # `Customers in 'Customers.pas'` in its uses clause parses
        ("<module>", "module", 15, 18, "", ""),
        ("Run", "function", 9, 13, "", "Runs the application's main loop."),
    ],
    "TodoList.vue": [
        ("<module>", "module", 11, 11, "", ""),
        ("removeItem", "function", 13, 16, "", "Removes one item from the list."),
        ("addItem", "function", 18, 20, "", ""),
        ("<template>", "text", 1, 5, "", ""),
    ],
    "ArticleEditor.vue": [  # the options API: the exported object a class named after the file
        ("ArticleEditor", "class", 4, 23, "", ""),
        ("ArticleEditor.data", "method", 6, 8, "ArticleEditor", ""),
        ("ArticleEditor.isNew", "method", 11, 13, "ArticleEditor", ""),  # in `computed`
        ("ArticleEditor.onPublish", "method", 16, 18, "ArticleEditor", ""),  # in `methods`
        ("ArticleEditor.removeTag", "method", 19, 21, "ArticleEditor", ""),  # `removeTag: function (tag)`
        ("<template>", "text", 1, 1, "", ""),
    ],
    "Counter.svelte": [
        ("<module>", "module", 4, 12, "", ""),
        ("increment", "function", 7, 10, "", "Adds one to the counter."),  # its `//` comment its doc
        ("<template>", "text", 15, 18, "", ""),  # the markup between the script and the style
    ],
}


def chunks_of(name: str):
    return chunk_code_file(name, (FIXTURES / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_new_language_is_chunked_by_its_syntax_tree(name: str) -> None:
    chunks, warnings = chunks_of(name)
    assert warnings == []
    got = [(c.symbol, c.kind, c.start_line, c.end_line, c.parent, c.docstring.split("\n")[0]) for c in chunks]
    assert got == EXPECTED[name]
    lines = (FIXTURES / name).read_text(encoding="utf-8").split("\n")
    for chunk in chunks:
        assert chunk.chunk_id == f"{name}::{chunk.symbol}" and chunk.language == language_of(name)
        if not chunk.line_spans:  # the stored code is exactly the chunk's lines in the original file
            assert chunk.code == "\n".join(lines[chunk.start_line - 1 : chunk.end_line])


def test_signatures_are_the_headers_as_written() -> None:
    signatures = {c.symbol: c.signature for name in EXPECTED for c in chunks_of(name)[0]}
    assert signatures["ПолучитьДанныеКлиента"] == "Функция ПолучитьДанныеКлиента(Клиент) Экспорт"
    assert signatures["SendMessage"] == "Procedure SendMessage(Text) Export"
    assert signatures["TCustomer"] == "TCustomer = class(TObject)"
    assert signatures["TCustomer.Create"] == "constructor TCustomer.Create(const AName: string);"
    assert signatures["removeItem"] == "function removeItem(id: number)"


def test_the_file_formats_are_the_languages() -> None:
    assert [file_format(f"x{ext}") for ext in (".bsl", ".os", ".pas", ".dpr", ".vue", ".svelte")] == [
        "bsl", "bsl", "pascal", "pascal", "vue", "svelte"]
    assert language_of("src/CommonModules/ОбщегоНазначения/Ext/Module.bsl") == "bsl"


def test_a_pascal_generic_class_and_its_method_and_what_is_no_class() -> None:
    text = ("unit R;\ninterface\ntype\n  TFwd = class;\n  TId = Integer;\n  TList<T> = class\n"
            "    procedure Add(const Item: T);\n  end;\n  TPoint = record\n    X, Y: Integer;\n  end;\n"
            "implementation\nprocedure TList<T>.Add(const Item: T);\nvar\n  I: Integer;\nbegin\n  I := 1;\nend;\n"
            "end.\n")
    chunks, warnings = chunk_code_file("R.pas", text)
    assert warnings == []
    assert [(c.symbol, c.kind, c.start_line, c.end_line) for c in chunks] == [
        ("<module>", "module", 4, 5), ("TList", "class", 6, 8), ("TPoint", "class", 9, 11),
        ("TList.Add", "method", 13, 18)]
    assert chunks[-1].signature == "procedure TList<T>.Add(const Item: T);"  # its `var` section is no header


@pytest.mark.parametrize(("name", "text", "kept"), [
    ("Broken.bsl", "Функция Сломанная(А\n\tЕсли А Тогда\nКонецФункции\n\nПроцедура После()\n\tА = 1;\n"
                   "КонецПроцедуры\n", {"Сломанная", "После"}),
    ("Broken.pas", "unit B;\ninterface\nimplementation\nprocedure A;\nbegin\n  if then\nend;\n\n"
                   "procedure Later;\nbegin\n  WriteLn(1);\nend;\nend.\n", {"Later"}),
    ("Broken.vue", "<template><p>{{ x }}</p></template>\n<script>\nfunction ok() { return 1 }\n"
                   "function broken( {\n</script>\n", {"ok"}),
])
def test_broken_syntax_is_still_chunked_with_a_warning(name: str, text: str, kept: set[str]) -> None:
    chunks, warnings = chunk_code_file(name, text)
    assert kept <= {c.symbol for c in chunks}
    assert len(warnings) == 1 and warnings[0].startswith(f"{name}: the {language_of(name)} grammar could not parse")
    lines = text.split("\n")
    for chunk in chunks:
        assert 1 <= chunk.start_line <= chunk.end_line <= len(lines)


def test_a_component_s_script_is_parsed_where_it_stands_and_its_markup_is_text() -> None:
    source = (FIXTURES / "TodoList.vue").read_bytes()
    parsed = parser_bytes(row_named("vue"), source)
    assert len(parsed) == len(source) and parsed.count(b"\n") == source.count(b"\n")
    assert b"<template>" not in parsed and b"function removeItem" in parsed and b".todo-list" not in parsed
    assert markup_runs(source) == [(1, 5)]
    template = next(c for c in chunks_of("TodoList.vue")[0] if c.symbol == "<template>")
    assert "removeItem(item.id)" in template.code and not template.is_code
    # Vue with two script blocks and the template last
    two = (b"<script>\nexport default {}\n</script>\n<script setup>\nconst a = () => 1\n</script>\n\n"
           b"<template>\n<p/>\n</template>\n")
    assert markup_runs(two) == [(8, 10)]
    # the options object of the first block is the component (a class named after the file)
    assert [c.symbol for c in chunk_code_file("Two.vue", two.decode())[0]] == ["Two", "a", "<template>"]


def test_cyrillic_identifiers_split_as_latin_ones_do() -> None:
    assert split_identifier("ПолучитьДанныеКлиента") == ["получить", "данные", "клиента"]
    assert split_identifier("ОбщегоНазначения.ЗначениеРеквизита") == ["общего", "назначения", "значение", "реквизита"]
    assert split_identifier("ПолучитьXMLДанные") == ["получить", "xml", "данные"]
    assert split_identifier("СтрокаJSON") == ["строка", "json"]
    assert split_identifier("ВЫБРАТЬ") == ["выбрать"]
    assert split_identifier("HTTPClientError") == ["http", "client", "error"]  # ASCII as it always was
    assert split_identifier("café") == ["caf"]  # other alphabets too


def test_the_keyword_leg_stems_a_russian_identifier_s_words() -> None:
    assert tokenize("ПолучитьДанныеКлиента") == ["получитьданныеклиента", "получ", "дан", "клиент"]
    assert tokenize("данные клиентов") == ["дан", "клиент"]  # a question's words meet the identifier's
    assert tokenize("Возвращает") == ["возвраща"]  # a plain Russian word is what it was
    chunks = [c for name in ("CustomerModule.bsl", "Logger.os") for c in chunks_of(name)[0]]
    index = LexicalIndex.from_chunks(chunks)
    scores = index.scores(dict.fromkeys(tokenize("записать в журнал"), 1.0))
    assert index.chunk_ids[int(scores.argmax())] == "CustomerModule.bsl::ЗаписатьЖурнал"


def test_a_russian_named_procedure_is_embedded_with_its_words() -> None:
    chunk = next(c for c in chunks_of("CustomerModule.bsl")[0] if c.symbol == "ПолучитьДанныеКлиента")
    assert embedding_text(chunk).startswith(
        "function получить данные клиента (ПолучитьДанныеКлиента) in customer module\n"
        "Функция ПолучитьДанныеКлиента(Клиент) Экспорт\nВозвращает данные клиента по ссылке.")


def test_a_1c_and_vue_folder_is_searched_in_russian_and_english(tmp_path: Path, embedder) -> None:
    project = tmp_path / "shop"
    files = {"src/CommonModules/Клиенты/Ext/Module.bsl": "CustomerModule.bsl", "web/TodoList.vue": "TodoList.vue",
             "desktop/Customers.pas": "Customers.pas"}
    for rel, fixture in files.items():
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text((FIXTURES / fixture).read_text(encoding="utf-8"), encoding="utf-8")
    settings = settings_for(tmp_path / "db")
    build_index(project, settings, embedder=embedder)
    searcher = Searcher(settings, embedder=embedder)
    module = "src/CommonModules/Клиенты/Ext/Module.bsl"
    questions = {
        "получить данные клиента": f"{module}::ПолучитьДанныеКлиента",
        "записать текст в журнал": f"{module}::ЗаписатьЖурнал",
        "remove an item from the todo list": "web/TodoList.vue::removeItem",
        "name of the customer shown in lists": "desktop/Customers.pas::TCustomer.DisplayName",
        # English reaching Russian-named code: e5's, the English-only model's cosine set aside for it
        "return the data of a client": f"{module}::ПолучитьДанныеКлиента",
    }
    for question, expected in questions.items():
        hits = [hit.chunk.chunk_id for hit in searcher.search(question, k=3)]
        assert expected in hits, (question, hits)


def test_1c_code_is_highlighted_by_its_own_lexer() -> None:
    from pygments import lex
    from pygments.token import Comment, Keyword

    from codelens.app.highlight import lexer_for

    lexer = lexer_for("src/CommonModules/Клиенты/Ext/Module.bsl")
    tokens = list(lex((FIXTURES / "CustomerModule.bsl").read_text(encoding="utf-8"), lexer))
    assert lexer.name == "1C:Enterprise" and lexer_for("Logger.os").name == "1C:Enterprise"
    keywords = {text for kind, text in tokens if kind in Keyword}
    assert {"Функция", "КонецФункции", "Процедура", "КонецПроцедуры", "Экспорт", "Возврат"} <= keywords
    assert (Comment.Single, "// Возвращает данные клиента по ссылке.") in tokens
    assert not any("Error" in str(kind) for kind, _ in tokens)


def test_russian_named_code_is_what_the_english_model_cannot_read() -> None:
    from codelens.search.english import unreadable_in_english

    bsl = {c.symbol: c for c in chunks_of("CustomerModule.bsl")[0]}
    os_file = {c.symbol: c for c in chunks_of("Logger.os")[0]}
    assert unreadable_in_english(bsl["ПолучитьДанныеКлиента"]) and unreadable_in_english(os_file["ПриСозданииОбъекта"])
    assert not unreadable_in_english(os_file["SendMessage"])  # English name, English comment, one Russian call
    assert not any(unreadable_in_english(c) for c in chunks_of("TodoList.vue")[0])


def test_an_unreadable_chunk_gets_e5_s_cosine_on_the_second_model_s_scale() -> None:
    from codelens.search.english import _on_second_scale

    cosines = {"a": 0.80, "b": 0.84, "ru": 0.86, "ru_low": 0.78}
    seconds = {"a": 0.20, "b": 0.40, "ru": 0.05, "ru_low": 0.05}
    mapped = _on_second_scale(cosines, seconds, frozenset({"ru", "ru_low"}))
    # e5 over a, b: mean 0.82, spread 0.02; the second model's: mean 0.30, spread 0.10 -> 5x
    assert mapped == pytest.approx({"ru": 0.30 + 0.04 * 5, "ru_low": 0.30 - 0.04 * 5})
    assert _on_second_scale(cosines, seconds, frozenset()) == {}


def test_an_english_question_crosses_to_the_code_s_russian_words() -> None:
    import numpy as np

    from codelens.search.bridge import WordBridge, russian_vocabulary
    from codelens.search.glossary import russian_beginnings
    from codelens.search.query import Query

    chunks = [c for name in ("CustomerModule.bsl", "Logger.os", "TodoList.vue") for c in chunks_of(name)[0]]
    words = russian_vocabulary(chunks)
    assert {"получить", "данные", "клиента", "записать", "журнал", "запрос"} <= set(words)
    assert all(not w.isascii() for w in words) and russian_vocabulary(chunks_of("TodoList.vue")[0]) == []
    # English-named code with Russian messages (a locale file) sends no English question to Russian words
    from codelens.ingest.chunker import chunk_file

    locale = chunk_file("locales/ru.py", 'def error_message(issue):\n    return "Неверный ввод: ожидалось число"\n')
    assert russian_vocabulary(locale.chunks) == []
    # the noun's stem and the verb's («зависит», «зависеть»): every beginning the glossary gives the word
    assert russian_beginnings("dependencies")[0] == "зависим" and "зависит" in russian_beginnings("dependencies")
    assert russian_beginnings("зависимость") == ()
    # e5's vectors are not what this is about: orthogonal ones cross nothing, the glossary read backwards does
    vectors = np.eye(len(words) + 8, dtype=np.float32)
    bridge = WordBridge(["query"], vectors[:1], lambda asked: vectors[-len(asked):],
                        russian=(words, vectors[1 : len(words) + 1]))
    crossed = bridge.cross(Query.from_text("the client request"))
    assert set(crossed.bridged["request"]) == {"запрос"}
    assert set(crossed.bridged["client"]) == {"клиент", "клиента", "клиенты"}
    assert crossed.pseudo_english == "" and not bridge.cross(Query.from_text("зачем")).bridged
    # the glossary's «разрешен» (resolve) meets the code's разрешить (stem разреш); «собра» (build) собрать;
    # «сборк» (build too) is no собрать, and a verb the glossary lacks crosses nothing
    verbs = WordBridge(["query"], vectors[:1], lambda asked: vectors[-len(asked):],
                       russian=(["разрешить", "собрать", "сборка", "удалось"], vectors[1:5]))
    assert verbs.cross(Query.from_text("resolve, build and succeed")).bridged == {
        "resolve": {"разрешить": 1.0}, "build": {"сборка": 1.0, "собрать": 1.0 - 1e-3}}
    plain = WordBridge(["query"], vectors[:1], lambda asked: vectors[-len(asked):])  # no Russian words
    assert plain.russian is None and plain.cross(Query.from_text("the client request")).bridged == {}


def test_sql_is_cut_into_what_each_statement_creates() -> None:
    from codelens.ingest.formats import chunk_other_file

    text = (FIXTURES / "0001_init.sql").read_text(encoding="utf-8")
    chunks = chunk_other_file("db/migrations/0001_init.sql", text, "sql")
    assert [(c.symbol, c.kind, c.start_line, c.end_line) for c in chunks] == [
        ("public.users", "text", 1, 5),  # its comment above it
        ("users_email_idx", "text", 7, 7), ("active_users", "text", 9, 10),
        ("touch_updated_at", "text", 12, 17),  # PostgreSQL's $$ body
        ("archive_orders", "text", 19, 23),
        ("<statements>", "text", 25, 26)]  # ALTER TABLE users, INSERT: they follow no definition of users
    assert chunks[0].chunk_id == "db/migrations/0001_init.sql::public.users"
    assert chunks[3].code.startswith("CREATE OR REPLACE FUNCTION touch_updated_at()")


def test_sql_the_grammar_cannot_parse_keeps_its_lines() -> None:
    from codelens.ingest.sql import sql_pieces

    text = ("DELIMITER $$\nCREATE TRIGGER t BEFORE INSERT ON x FOR EACH ROW BEGIN SET NEW.a = 1; END$$\n"
            "DELIMITER ;\nCREATE TABLE orders (id int);\nSELECT FROM WHERE;\n")
    lines = text.rstrip("\n").split("\n")
    pieces = sql_pieces(text, lines)
    assert "orders" in {p.symbol for p in pieces}
    covered = {n for p in pieces for n in range(p.start_line, p.end_line + 1)}
    assert covered == set(range(1, len(lines) + 1))
    assert all(1 <= p.start_line <= p.end_line <= len(lines) for p in pieces)


GRAPHS = Path(__file__).parent / "fixtures" / "graph_languages"
CLIENTS, CATALOG = "src/CommonModules/РаботаСКлиентами/Ext/Module.bsl", "src/Catalogs/Клиенты/Ext/ObjectModule.bsl"
GRAPH_EDGES = {
    "bsl": {
        (f"{CLIENTS}::ПредставлениеКлиента", f"{CLIENTS}::КодКлиента", "calls", ""),  # in its module; СтрШаблон no edge
        (f"{CATALOG}::ПередЗаписью", f"{CATALOG}::ЗаписатьВЖурнал", "calls", ""),
        # `РаботаСКлиентами.ПредставлениеКлиента(...)`: the common module named by its folder
        (f"{CATALOG}::ПередЗаписью", f"{CLIENTS}::ПредставлениеКлиента", "calls", ""),
        (f"{CATALOG}::ЗаписатьВЖурнал", "ext:ВнешняяПроцедура", "calls", ""),  # Сообщить: the platform's
    },
    "pascal": {
        ("Main.dpr::<module>", "Main.dpr::Show", "calls", ""),
        ("Main.dpr::Show", "Shapes.pas::MakeSquare", "calls", "name"),
        ("Main.dpr::Show", "Shapes.pas::TShape.Describe", "calls", "name"),
        ("Main.dpr::Show", "ext:Report", "calls", ""),  # WriteLn: the language's
        ("Shapes.pas::MakeSquare", "Shapes.pas::TSquare.Create", "calls", ""),  # a constructor of its class
        ("Shapes.pas::TShape.Describe", "Shapes.pas::TShape.Area", "calls", ""),  # Self.Area()
    },
    "vue": {  # a component's script, its markup blanked: JavaScript's imports and calls
        ("src/components/ArticleEditor.vue", "src/common/api.js", "imports", ""),
        ("src/components/ArticleEditor.vue::ArticleEditor.onPublish", "src/common/api.js::saveArticle", "calls", ""),
        # this.reset(): a method of the options object, the component's class
        ("src/components/ArticleEditor.vue::ArticleEditor.onPublish",
         "src/components/ArticleEditor.vue::ArticleEditor.reset", "calls", ""),
        ("src/components/Counter.svelte", "src/common/api.js", "imports", ""),
        ("src/components/Counter.svelte::increment", "src/common/api.js::saveArticle", "calls", ""),
        ("src/common/api.js::saveArticle", "ext:fetch", "calls", ""),
        ("src/common/api.js::saveArticle", "ext:JSON.stringify", "calls", ""),
    },
}


@pytest.mark.parametrize("language", sorted(GRAPH_EDGES))
def test_the_code_graph_of_1c_delphi_and_components(language: str) -> None:
    from codelens.graph.model import build_graph
    from codelens.ingest.codebase import chunk_codebase

    chunked = chunk_codebase(GRAPHS / language, 1_000_000)
    graph = build_graph(chunked.chunks, chunked.sources)
    assert {(e.source, e.target, e.kind, e.via) for e in graph.edges if e.kind != "contains"} == GRAPH_EDGES[language]


def test_a_repository_of_sql_alone_is_code(tmp_path: Path) -> None:
    from codelens.errors import SourceError
    from codelens.ingest.codebase import chunk_source

    (tmp_path / "db").mkdir()
    schema = tmp_path / "db" / "schema.sql"
    schema.write_text((FIXTURES / "0001_init.sql").read_text(encoding="utf-8"), encoding="utf-8")
    assert "db/schema.sql::public.users" in {c.chunk_id for c in chunk_source(tmp_path, 1_000_000).chunks}
    schema.write_text("INSERT INTO users VALUES (1);\n", encoding="utf-8")
    with pytest.raises(SourceError, match="nor SQL definitions"):  # statements alone are no code
        chunk_source(tmp_path, 1_000_000)
