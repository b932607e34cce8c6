"""The Streamlit page through AppTest, on real indexes: cards, states, filters, evaluation."""

from __future__ import annotations

import html
import json
import re
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from codelens.app.highlight import code_view, has_real_line_numbers, query_terms, render_html
from codelens.cli.score import main as score_main
from codelens.evaluation import load_questions
from tests.conftest import PROJECT_ROOT

APP = str(PROJECT_ROOT / "app.py")
HEADER = re.compile(r"^\*\*#(\d+)\*\* &nbsp; `([^`]+):(\d+)-(\d+)` &nbsp; \*\*`([^`]+)`\*\*")


def open_app(monkeypatch, db_path: Path, model: str | None = None) -> AppTest:
    monkeypatch.setenv("CODELENS_DB", str(db_path))
    if model:
        monkeypatch.setenv("CODELENS_MODEL", model)
    else:
        monkeypatch.delenv("CODELENS_MODEL", raising=False)
    app = AppTest.from_file(APP, default_timeout=120)
    return until_warm(app.run())


def until_warm(app: AppTest, timeout_s: float = 180.0) -> AppTest:
    """Rerun while the page says it is warming up (AppTest does not run the polling fragment)."""
    deadline = time.monotonic() + timeout_s
    while any("Прогрев" in i.value for i in app.info) and time.monotonic() < deadline:
        time.sleep(0.2)
        app.run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def search(app: AppTest, query: str) -> AppTest:
    app.text_input(key="query").input(query).run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def cards(app: AppTest) -> list[tuple[int, str, int, int, str]]:
    """(rank, path, start, end, symbol) of every result card, from its header line."""
    found = []
    for markdown in app.markdown:
        match = HEADER.match(markdown.value)
        if match:
            rank, path, start, end, symbol = match.groups()
            found.append((int(rank), path, int(start), int(end), symbol))
    return found


def text_of(rendered: str) -> str:
    """What the reader sees of rendered HTML: line numbers run straight into the code."""
    return html.unescape(re.sub(r"<[^>]+>", "", rendered))


def code_blocks(app: AppTest) -> list[str]:
    return [h.value for h in app.get("html") if 'class="codelens-code"' in h.value]


def test_query_renders_five_cards_with_highlighted_code_and_real_line_numbers(monkeypatch, demo_index) -> None:
    app = search(open_app(monkeypatch, demo_index.db_path), "как создаётся JWT-токен?")
    found = cards(app)
    assert [rank for rank, *_ in found] == [1, 2, 3, 4, 5]
    symbols = {symbol: (path, start) for _, path, start, _, symbol in found}
    assert symbols["create_access_token"] == ("gymhero/security.py", 12)
    previews = code_blocks(app)
    assert len(previews) >= 5  # one preview per card, plus the whole chunk where the preview is cut
    preview, whole = [block for block in previews if text_of(block).startswith("12def create_access_token(")]
    assert "25    " in text_of(preview) and "26    " not in text_of(preview)  # a 14-line preview...
    assert "35    return encoded_jwt" in text_of(whole)  # ...and the whole chunk, real numbers throughout
    assert "<mark" in whole  # 'jwt' from the query marks encoded_jwt (line 32)...
    assert "background-color: #ffffcc" in whole  # ...and its line is highlighted
    assert any("совпадения в строках 32, 35" in e.label for e in app.expander)
    assert any("результатов за" in c.value and "мс" in c.value for c in app.caption)


def test_default_is_top5_and_k_control_changes_the_count(monkeypatch, demo_index) -> None:
    app = search(open_app(monkeypatch, demo_index.db_path), "user password")
    assert len(cards(app)) == 5
    app.slider[0].set_value(12).run()
    assert len(cards(app)) == 12


def test_kind_and_path_filters(monkeypatch, demo_index) -> None:
    app = search(open_app(monkeypatch, demo_index.db_path), "create a training plan")
    app.multiselect[0].set_value(["method"]).run()
    assert cards(app) and all("метод" in m.value for m in app.markdown if HEADER.match(m.value))
    app.multiselect[0].set_value([]).run()
    assert app.sidebar.text_input[0].placeholder.startswith("gymhero/")  # an example from this index
    app.sidebar.text_input[0].input("gymhero/schemas/").run()
    assert cards(app) and all(path.startswith("gymhero/schemas/") for _, path, *_ in cards(app))
    app.sidebar.text_input[0].input("no/such/folder/").run()
    assert not cards(app)
    assert any("no indexed path starts with 'no/such/folder/' - indexed paths start with: .github/, gymhero/" in e.value
               for e in app.error)


def test_test_code_is_hidden_unless_toggled(monkeypatch, demo_index) -> None:
    app = search(open_app(monkeypatch, demo_index.db_path), "integration test for the login route")
    assert all(not path.startswith("tests/") for _, path, *_ in cards(app))
    app.toggle[0].set_value(True).run()
    assert any(path.startswith("tests/") for _, path, *_ in cards(app))


def test_empty_query_and_clickable_examples(monkeypatch, demo_index) -> None:
    app = open_app(monkeypatch, demo_index.db_path)
    assert any("Введите вопрос" in i.value for i in app.info)
    examples = app.pills(key="sample")
    assert len(examples.options) == 20
    examples.set_value(examples.options[0]).run()
    assert app.text_input(key="query").value == examples.options[0]
    assert len(cards(app)) == 5


def test_missing_index_says_how_to_build_one(monkeypatch, tmp_path: Path) -> None:
    app = open_app(monkeypatch, tmp_path / "no_index")
    assert any("Индекс не найден" in w.value for w in app.warning)
    assert any(f"python index.py --db {tmp_path / 'no_index'}" in c.value for c in app.code)
    assert any("Построить индекс" in b.label for b in app.button)
    assert not app.tabs


def test_build_button_indexes_and_the_page_searches(monkeypatch, tmp_path: Path, mini_project: Path) -> None:
    app = open_app(monkeypatch, tmp_path / "fresh_db")
    app.text_input[0].input(str(mini_project)).run()
    next(b for b in app.button if "Построить индекс" in b.label).click().run()
    assert not app.exception, [e.value for e in app.exception]
    assert any("Индекс построен" in s.value for s in app.success)
    assert any("Прогрев" in i.value for i in app.info)  # the new index warms up while the page shows it
    until_warm(app)
    assert (tmp_path / "fresh_db" / "index_metadata.json").is_file()
    search(app, "hash a password")
    assert cards(app)[0][4] == "hash_password"


def test_model_mismatch_is_a_message_not_a_traceback(monkeypatch, demo_index) -> None:
    app = open_app(monkeypatch, demo_index.db_path, model="st:some/other-model")
    assert any("Модель не совпадает" in e.value for e in app.error)
    assert any("--model st:some/other-model" in c.value for c in app.code)


def test_broken_index_metadata_is_an_error(monkeypatch, tmp_path: Path) -> None:
    db = tmp_path / "broken"
    db.mkdir()
    (db / "index_metadata.json").write_text("{oops", encoding="utf-8")
    app = open_app(monkeypatch, db)
    assert any("unreadable" in e.value for e in app.error)


def test_evaluation_tab_writes_results_json_that_score_py_agrees_with(
    monkeypatch, tmp_path: Path, demo_index, capsys
) -> None:
    monkeypatch.chdir(tmp_path)
    app = open_app(monkeypatch, demo_index.db_path)
    next(b for b in app.button if "Запустить оценку" in b.label).click().run()
    assert not app.exception and not app.error, [e.value for e in app.error]

    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    questions = load_questions(PROJECT_ROOT / "eval_questions.json")
    assert set(results) == {"model", "k", "results"} and results["k"] == 5
    assert [r["id"] for r in results["results"]] == [q.qid for q in questions]
    for entry in results["results"]:
        assert set(entry) == {"id", "query", "latency_ms", "hits"} and len(entry["hits"]) == 5
        for hit in entry["hits"]:
            assert set(hit) == {"chunk_id", "path", "symbol", "kind", "start_line", "end_line", "score", "repo",
                                "language", "matched"}

    assert score_main(["--predictions", "results.json", "--questions", str(PROJECT_ROOT / "eval_questions.json"),
                       "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["Средний P@5"] == f"{report['overall']['precision_at_5']:.2f}"
    assert metrics["P@5 · русский"] == f"{report['per_language']['ru']['precision_at_5']:.2f}"
    assert metrics["P@5 · английский"] == f"{report['per_language']['en']['precision_at_5']:.2f}"
    assert metrics["MRR@5"] == f"{report['overall']['mrr_at_5']:.2f}"
    table = app.dataframe[0].value
    assert list(table["ID"]) == [q.qid for q in questions]
    assert list(table["P@5"]) == pytest.approx([q["precision_at_5"] for q in report["questions"]], abs=1e-3)
    assert any("results.json" in d.label for d in app.get("download_button"))


# ----------------------------------------------------------------- the card's code rendering (pure)


def test_query_terms_keep_code_words_and_drop_question_words() -> None:
    assert query_terms("How is the password hashed?") == ("password", "hash")
    assert query_terms("где create_access_token?") == ("create_access_token", "create", "access", "token")
    assert query_terms("как создаётся JWT-токен?") == ("создаётся", "jwt", "токен")


def test_code_view_numbers_from_the_real_first_line_and_marks_matches() -> None:
    code = "\n".join(f"line_{n} = {n}" for n in range(1, 21)) + "\nsecret_token = 1"
    preview = code_view(code, start_line=100, terms=("token", "line_3"), max_lines=14)
    assert (preview.first_line, preview.shown_lines, preview.total_lines) == (100, 14, 21)
    assert preview.highlighted == (3,) and preview.hidden_matches == (120,)
    whole = code_view(code, start_line=100, terms=("token",), max_lines=None)
    assert not whole.truncated and whole.highlighted == (21,)
    rendered = text_of(render_html(whole, ("token",)))
    assert rendered.splitlines()[0].startswith("100line_1") and "120secret_token = 1" in rendered


def test_marks_never_land_inside_tags_or_entities() -> None:
    rendered = render_html(code_view('quote = "<span>"', 1, ("span", "quot")), ("span", "quot"))
    assert text_of(rendered).strip() == '1quote = "<span>"'
    assert rendered.count("<mark") == 2  # 'quot' in quote, 'span' in the string; none in markup


def test_module_chunks_with_gaps_are_not_numbered() -> None:
    assert has_real_line_numbers("a = 1\nb = 2", 10, 11)
    assert not has_real_line_numbers("a = 1\nb = 2", 10, 40)
    assert text_of(render_html(code_view("a = 1", 7, ()), numbered=False)).startswith("a = 1")
    assert text_of(render_html(code_view("a = 1", 7, ()))).startswith("7a = 1")


def test_cards_list_callers_and_callees_that_open_the_chunk(monkeypatch, demo_index) -> None:
    app = search(open_app(monkeypatch, demo_index.db_path), "как проверяется пароль пользователя")
    assert any(c.value.startswith("Вызывается из") for c in app.caption)
    assert app.get("graphviz_chart")
    caller = next(b for b in app.button if b.label.startswith("UserCRUDRepository.authenticate_user ·"))
    caller.click().run()
    assert not app.exception, [e.value for e in app.exception]
    assert any("open_in_new" in m.value and "UserCRUDRepository.authenticate_user" in m.value for m in app.markdown)
    app.button(key="close-opened").click().run()
    assert not any("open_in_new" in m.value for m in app.markdown)


def test_answer_panel_without_an_endpoint_says_how_to_enable(monkeypatch, demo_index) -> None:
    for name in ("CODELENS_LLM_URL", "CODELENS_LLM_MODEL"):
        monkeypatch.delenv(name, raising=False)
    app = search(open_app(monkeypatch, demo_index.db_path), "password hashing")
    assert any("CODELENS_LLM_URL" in block.value for block in app.code)


def test_answer_panel_marks_verified_and_invented_citations(monkeypatch, demo_index, stub) -> None:
    from tests.stub_llm import Reply

    for name, value in stub.env().items():
        monkeypatch.setenv(name, value)
    invented = "Токен создаёт `create_access_token` (gymhero/security.py:12-35), а проверяет `check_jwt_magic`."
    stub.queue(Reply(invented), Reply(invented))  # the retry invents it again: it must be marked
    app = search(open_app(monkeypatch, demo_index.db_path), "как создаётся JWT-токен?")
    app.button(key="ask").click().run()
    assert not app.exception, [e.value for e in app.exception]
    shown = [m.value for m in app.markdown]
    assert any("проверено" in m and "gymhero/security.py::create_access_token" in m for m in shown)
    assert any("нет в индексе" in m and "check_jwt_magic" in m for m in shown)
    assert len(stub.requests) == 2


def test_module_chunks_with_gaps_show_each_block_with_its_real_lines() -> None:
    from codelens.app.highlight import render_segments
    from codelens.ingest.chunker import chunk_file

    text = "X = 1\nimport os\n\n\ndef f():\n    pass\n\n\nY = 2; Z = 3\n"
    module = chunk_file("m.py", text).chunks[0]
    assert module.line_spans == ((1, 1), (9, 9))
    assert module.code == "X = 1\nY = 2; Z = 3"
    rendered, truncated = render_segments(module.code, module.line_spans, ())
    assert not truncated
    assert text_of(rendered).startswith("1X = 1") and "9Y = 2; Z = 3" in text_of(rendered)
    assert render_segments(module.code, module.line_spans, (), max_lines=1)[1]


def test_the_user_picks_one_of_several_codebases(monkeypatch, two_codebases: Path) -> None:
    app = open_app(monkeypatch, two_codebases)
    [picker] = [box for box in app.sidebar.selectbox if box.label.startswith("Кодовая база")]
    assert picker.options == ["основной индекс (--db)", "billing"]
    until_warm(picker.select("billing").run())
    search(app, "invoice")
    assert [symbol for *_, symbol in cards(app)] == ["send_invoice"]
