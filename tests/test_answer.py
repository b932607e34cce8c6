"""Answers over the found code: packing, prompt, citation checking, regeneration, the `ask` command.

Real components throughout: the mini project's ChromaDB index searched with the real e5, the real
HTTP client, and the loopback stub server from test_llm.py speaking the OpenAI chat API.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence

import pytest

from codelens.answer.ask import NOT_FOUND, answer_question, build_messages, question_language
from codelens.answer.citations import UNVERIFIED_MARK, check_citations, find_refs, mark_unverified
from codelens.answer.context import ChunkCatalog, estimate_tokens, pack_context
from codelens.answer.llm import ChatClient
from codelens.cli.main import build_parser, main
from codelens.errors import LLMError
from codelens.search.searcher import Searcher
from codelens.settings import Settings
from tests.stub_llm import Reply, StubLLM

HASH = "pkg/auth.py::hash_password"
LOGIN = "pkg/auth.py::login"
AUTH_MODULE = "pkg/auth.py::<module>"
REPO = "pkg/storage.py::Repository"
SAVE = "pkg/storage.py::Repository.save"
STORAGE_MODULE = "pkg/storage.py::<module>"
TEST_HASH = "tests/test_auth.py::test_hash_password"

# Direct edges over the mini project's real chunk ids (login -> hash_password is real; save -> login is
# made up to give a two-hop chain), plus an id the index does not hold, as a graph may return.
GRAPH: dict[str, tuple[list[str], list[str]]] = {
    LOGIN: ([SAVE], [HASH]),
    HASH: ([LOGIN, TEST_HASH], ["stdlib::hashlib.sha256"]),
    SAVE: ([], [LOGIN]),
}

GOOD_RU = "Пароль хешируется в `hash_password` (pkg/auth.py:7-9), а `login` сравнивает хеши (pkg/auth.py:14)."
INVENTED_RU = "Пароль хешируется в `make_password_hash` (pkg/security.py:40), а `login` сравнивает хеши."


def neighbours(chunk_id: str) -> tuple[Sequence[str], Sequence[str]]:
    return GRAPH.get(chunk_id, ([], []))


@pytest.fixture(scope="module")
def searcher(mini_searcher: Searcher) -> Searcher:
    return mini_searcher


@pytest.fixture(scope="module")
def catalog(searcher: Searcher) -> ChunkCatalog:
    return ChunkCatalog(searcher.store.all_chunks())


@pytest.fixture()
def llm() -> Iterator[StubLLM]:
    with StubLLM() as server:
        yield server


@pytest.fixture()
def llm_env(llm: StubLLM, monkeypatch: pytest.MonkeyPatch) -> StubLLM:
    for name, value in llm.env().items():
        monkeypatch.setenv(name, value)
    return llm


@pytest.fixture()
def no_llm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("URL", "MODEL", "KEY", "TIMEOUT", "TEMPERATURE", "CONTEXT_TOKENS"):
        monkeypatch.delenv(f"CODELENS_LLM_{name}", raising=False)


# ----------------------------------------------------------------- language


@pytest.mark.parametrize(("question", "language"), [
    ("как создаётся JWT-токен?", "ru"),
    ("где вызывается get_user_by_email_and_password", "ru"),
    ("что делает `Repository.save`?", "ru"),
    ("where are DB settings stored?", "en"),
    ("where is the токен created", "en"),
    ("hash_password", "en"),
])
def test_question_language(question: str, language: str) -> None:
    assert question_language(question) == language


# ----------------------------------------------------------------- context packing


def ids(context) -> list[str]:
    return [block.chunk.chunk_id for block in context.blocks]


def test_hits_then_direct_neighbours_with_code_then_far_ones_as_signatures(catalog: ChunkCatalog) -> None:
    context = pack_context([catalog.get(SAVE)], catalog, neighbours, budget_tokens=2500)
    assert ids(context) == [SAVE, LOGIN, HASH]
    assert [(b.role, b.hops, b.full) for b in context.blocks] == [
        ("hit", 0, True), ("callee", 1, True), ("callee", 2, False)]
    save, login, far = (block.text for block in context.blocks)
    assert save.startswith("### pkg/storage.py:14-16 method `Repository.save` (search hit 1)")
    assert "14 |     def save(self, record: dict) -> None:" in save
    assert "(called by `Repository.save`)" in login and "14 | " in login
    assert far.splitlines()[1:] == ["def hash_password(password: str) -> str:",
                                    '    """Hash a password with SHA-256 so it is never stored in plain text."""']
    assert "hexdigest" not in far and "signature only" in far


def test_each_chunk_once_unknown_ids_skipped_and_tests_only_on_request(catalog: ChunkCatalog) -> None:
    hits = [catalog.get(HASH), catalog.get(LOGIN)]
    context = pack_context(hits, catalog, neighbours)
    assert ids(context) == [HASH, LOGIN, SAVE]  # login is a hit and a caller: shown once, as a hit
    assert ids(pack_context(hits, catalog, neighbours, include_tests=True)) == [HASH, LOGIN, TEST_HASH, SAVE]
    assert ids(pack_context(hits, catalog, None)) == [HASH, LOGIN]


def test_budget_degrades_neighbours_to_signatures_then_leaves_them_out(catalog: ChunkCatalog) -> None:
    hits = [catalog.get(SAVE)]
    full = pack_context(hits, catalog, neighbours)
    save_tokens = full.blocks[0].tokens
    tight = pack_context(hits, catalog, neighbours, budget_tokens=save_tokens + 62)  # login: 69 full, 56 signature
    assert [b.full for b in tight.blocks] == [True, False] and tight.left_out == (HASH,)
    assert tight.tokens <= tight.budget_tokens
    only_hit = pack_context(hits, catalog, neighbours, budget_tokens=save_tokens)
    assert ids(only_hit) == [SAVE] and only_hit.left_out == (LOGIN, HASH)


def test_best_hit_bigger_than_the_budget_is_cut_not_dropped(catalog: ChunkCatalog) -> None:
    context = pack_context([catalog.get(REPO), catalog.get(LOGIN)], catalog, budget_tokens=60)
    assert ids(context) == [REPO] and context.left_out == (LOGIN,)
    text = context.blocks[0].text
    assert text.endswith("... (cut to fit the context budget)") and "class Repository:" in text
    assert context.tokens <= 60 == estimate_tokens("x" * 240)


def test_method_of_a_class_already_shown_is_not_repeated(catalog: ChunkCatalog) -> None:
    context = pack_context([catalog.get(REPO), catalog.get(SAVE), catalog.get(HASH)], catalog)
    assert ids(context) == [REPO, HASH]


def test_module_block_is_not_numbered_because_its_lines_are_not_contiguous(catalog: ChunkCatalog) -> None:
    block = pack_context([catalog.get(AUTH_MODULE)], catalog).blocks[0].text
    assert block.splitlines() == ["### pkg/auth.py:1-4 module-level code (search hit 1)",
                                  '"""Authentication helpers for the mini project."""', "SECRET_SALT_LENGTH = 16"]


# ----------------------------------------------------------------- prompt


def test_prompt_grounds_the_answer_and_sets_language_and_not_found(catalog: ChunkCatalog) -> None:
    context = pack_context([catalog.get(HASH)], catalog)
    system, user = build_messages("как хешируется пароль?", context, "ru")
    assert system["role"] == "system" and user["role"] == "user"
    assert "Answer only from the excerpts" in system["content"]
    assert f"exactly this sentence and nothing else: {NOT_FOUND['ru']}" in system["content"]
    assert "in Russian" in system["content"] and "pkg/auth.py:7" in system["content"]
    assert user["content"].startswith("Code excerpts from the index:\n\n### pkg/auth.py:7-9")
    assert user["content"].endswith("Question: как хешируется пароль?")
    english = build_messages("how?", context, "en")[0]["content"]
    assert NOT_FOUND["en"] in english and "in English" in english


# ----------------------------------------------------------------- citations


@pytest.mark.parametrize(("text", "ref", "chunk_id"), [
    ("see pkg/auth.py:8.", "pkg/auth.py:8", HASH),
    ("see pkg/auth.py:12-14", "pkg/auth.py:12-14", LOGIN),
    ("see pkg/storage.py:L15", "pkg/storage.py:L15", SAVE),
    ("see pkg/storage.py:10–20", "pkg/storage.py:10–20", REPO),  # a range across methods: the class
    ("see `./pkg/auth.py:7`", "./pkg/auth.py:7", HASH),
    ("see auth.py:13", "auth.py:13", LOGIN),  # unique path suffix
    ("see pkg/storage.py::Repository.save.", "pkg/storage.py::Repository.save", SAVE),
    ("see pkg/storage.py", "pkg/storage.py", STORAGE_MODULE),
    ("calls `hash_password()`", "hash_password", HASH),
    ("calls `Repository.save(record)`", "Repository.save", SAVE),
    ("calls `save`", "save", SAVE),
    ("reads `DATABASE_URL`", "DATABASE_URL", STORAGE_MODULE),  # defined there, also used in __init__
    ("uses `hashlib.sha256`", "hashlib.sha256", HASH),  # code the chunk contains
    ("module `pkg.storage`", "pkg.storage", STORAGE_MODULE),
    ("see pkg/auth.py:99", "pkg/auth.py:99", None),
    ("see pkg/auth.py:9-7", "pkg/auth.py:9-7", None),
    ("see pkg/security.py:12", "pkg/security.py:12", None),
    ("calls `create_access_token`", "create_access_token", None),
    ("see pkg/auth.py::verify_token", "pkg/auth.py::verify_token", None),
])
def test_citations_resolve_against_the_index(catalog: ChunkCatalog, text: str, ref: str, chunk_id: str | None) -> None:
    (citation,) = check_citations(text, catalog)
    assert (citation.ref, citation.chunk_id, citation.verified) == (ref, chunk_id, chunk_id is not None)


def test_keywords_builtins_and_expressions_are_not_citations(catalog: ChunkCatalog) -> None:
    assert check_citations("returns `None`, a `dict`, `self`, `x == y`, `'text'` or `True`", catalog) == ()


def test_ties_between_same_named_chunks_go_to_the_context(catalog: ChunkCatalog) -> None:
    assert check_citations("`__init__`", catalog, prefer=[SAVE, "pkg/storage.py::Repository.__init__"])[0].chunk_id \
        == "pkg/storage.py::Repository.__init__"


def test_invented_citations_are_marked_everywhere_and_only_once(catalog: ChunkCatalog) -> None:
    text = "`make_jwt` (see `pkg/jwt.py:3`) wraps `hash_password`; `make_jwt` again, pkg/auth.py:99."
    citations = check_citations(text, catalog)
    assert [c.ref for c in citations if not c.verified] == ["make_jwt", "pkg/jwt.py:3", "pkg/auth.py:99"]
    marked = mark_unverified(text, citations, "en")
    assert marked == ("`make_jwt` [not in the index] (see `pkg/jwt.py:3` [not in the index]) wraps "
                      "`hash_password`; `make_jwt` [not in the index] again, pkg/auth.py:99 [not in the index].")
    assert mark_unverified(marked, citations, "en") == marked
    assert_no_unmarked_invention(marked, check_citations(marked, catalog), "en")


def assert_no_unmarked_invention(text: str, citations, language: str) -> None:
    invented = {c.ref for c in citations if not c.verified}
    for ref in find_refs(text):
        if ref.ref in invented:
            assert text[ref.end :].startswith(f" {UNVERIFIED_MARK[language]}"), (ref, text)


def test_catalog_lookups(catalog: ChunkCatalog) -> None:
    assert len(catalog) == 10
    assert catalog.at_lines("pkg/storage.py", 15).chunk_id == SAVE
    assert catalog.at_lines("pkg/storage.py", 8).chunk_id == REPO
    assert catalog.at_lines("pkg/storage.py", 25) is None
    assert catalog.resolve_path("pkg/__init__.py") == "pkg/__init__.py"  # imports only: one module chunk
    assert catalog.resolve_path("pkg/missing.py") is None
    assert [c.chunk_id for c in catalog.named("save")] == [SAVE]


# ----------------------------------------------------------------- answering end to end


def hits_for(searcher: Searcher, question: str, k: int = 3):
    hits = searcher.search(question, k=k)
    assert hits and hits[0].chunk_id in (HASH, LOGIN)
    return hits


def test_grounded_answer_with_verified_citations(llm: StubLLM, searcher: Searcher, catalog: ChunkCatalog) -> None:
    llm.queue(Reply(GOOD_RU))
    question = "как хешируется пароль пользователя?"
    answer = answer_question(question, hits_for(searcher, question), ChatClient(llm.config()), catalog,
                             neighbours=neighbours)
    assert (answer.text, answer.found, answer.attempts, answer.language) == (GOOD_RU, True, 1, "ru")
    assert [c.to_dict() for c in answer.citations] == [
        {"ref": "hash_password", "chunk_id": HASH, "verified": True},
        {"ref": "pkg/auth.py:7-9", "chunk_id": HASH, "verified": True},
        {"ref": "login", "chunk_id": LOGIN, "verified": True},
        {"ref": "pkg/auth.py:14", "chunk_id": LOGIN, "verified": True},
    ]
    (request,) = llm.requests
    assert request["stream"] is False and "in Russian" in request["messages"][0]["content"]
    assert "### pkg/auth.py:7-9 function `hash_password`" in request["messages"][1]["content"]
    assert answer.to_dict() == {"answer": GOOD_RU, "citations": [c.to_dict() for c in answer.citations]}


def test_invented_citation_makes_it_answer_again_once(llm: StubLLM, searcher: Searcher,
                                                      catalog: ChunkCatalog) -> None:
    llm.queue(Reply(INVENTED_RU), Reply(GOOD_RU))
    question = "как хешируется пароль?"
    answer = answer_question(question, hits_for(searcher, question), ChatClient(llm.config()), catalog)
    assert (answer.text, answer.attempts, answer.unverified) == (GOOD_RU, 2, ())
    first, second = llm.requests
    assert second["messages"][:2] == first["messages"]
    assert second["messages"][2] == {"role": "assistant", "content": INVENTED_RU}
    feedback = second["messages"][3]["content"]
    assert "make_password_hash, pkg/security.py:40" in feedback and NOT_FOUND["ru"] in feedback


def test_still_invented_after_the_retry_is_marked_never_left_bare(llm: StubLLM, searcher: Searcher,
                                                                   catalog: ChunkCatalog) -> None:
    llm.queue(Reply(INVENTED_RU), Reply(INVENTED_RU), Reply("a third call must not happen"))
    question = "как хешируется пароль?"
    answer = answer_question(question, hits_for(searcher, question), ChatClient(llm.config()), catalog)
    assert len(llm.requests) == 2 and answer.attempts == 2
    assert [(c.ref, c.chunk_id) for c in answer.unverified] == [("make_password_hash", None),
                                                                ("pkg/security.py:40", None)]
    assert "`make_password_hash` [нет в индексе]" in answer.text
    assert "pkg/security.py:40 [нет в индексе]" in answer.text
    assert_no_unmarked_invention(answer.text, answer.citations, "ru")


def test_retry_that_invents_more_keeps_the_first_answer(llm: StubLLM, searcher: Searcher,
                                                        catalog: ChunkCatalog) -> None:
    worse = "`make_password_hash`, `bcrypt_hash` and `argon_hash` in pkg/security.py:40."
    llm.queue(Reply(INVENTED_RU), Reply(worse))
    answer = answer_question("как хешируется пароль?", hits_for(searcher, "как хешируется пароль?"),
                             ChatClient(llm.config()), catalog)
    assert answer.attempts == 2 and answer.text.startswith("Пароль хешируется в `make_password_hash` [")


def test_regeneration_can_be_switched_off(llm: StubLLM, searcher: Searcher, catalog: ChunkCatalog) -> None:
    llm.queue(Reply(INVENTED_RU))
    answer = answer_question("как хешируется пароль?", hits_for(searcher, "как хешируется пароль?"),
                             ChatClient(llm.config()), catalog, regenerate=False)
    assert len(llm.requests) == 1 and answer.attempts == 1 and len(answer.unverified) == 2


def test_streaming_answer_with_a_retry(llm: StubLLM, searcher: Searcher, catalog: ChunkCatalog) -> None:
    llm.queue(Reply(INVENTED_RU), Reply(GOOD_RU))
    shown: list[str] = []

    def retry() -> None:
        shown.append("<retry>")

    answer = answer_question("как хешируется пароль?", hits_for(searcher, "как хешируется пароль?"),
                             ChatClient(llm.config()), catalog, on_token=shown.append, on_retry=retry)
    assert [r["stream"] for r in llm.requests] == [True, True]
    assert "".join(shown) == f"{INVENTED_RU}<retry>{GOOD_RU}"
    assert answer.text == GOOD_RU


def test_not_found_in_the_index(llm: StubLLM, searcher: Searcher, catalog: ChunkCatalog) -> None:
    llm.queue(Reply(f"{NOT_FOUND['ru']}"))
    answer = answer_question("как отправляется email?", searcher.search("как отправляется email?", 3),
                             ChatClient(llm.config()), catalog)
    assert (answer.found, answer.citations, answer.text) == (False, (), NOT_FOUND["ru"])


def test_no_hits_means_no_model_call(llm: StubLLM, catalog: ChunkCatalog) -> None:
    answer = answer_question("where is the cache?", [], ChatClient(llm.config()), catalog)
    assert (answer.found, answer.attempts, answer.text, llm.requests) == (False, 0, NOT_FOUND["en"], [])


def test_endpoint_errors_reach_the_caller(llm: StubLLM, searcher: Searcher, catalog: ChunkCatalog) -> None:
    llm.queue(Reply(status=500, body=b'{"error": {"message": "boom"}}'))
    with pytest.raises(LLMError, match="HTTP 500: boom"):
        answer_question("how is a password hashed?", searcher.search("how is a password hashed?", 3),
                        ChatClient(llm.config()), catalog)


# ----------------------------------------------------------------- the ask command


def test_ask_is_listed_in_help() -> None:
    assert "ask" in build_parser().format_help()


def test_ask_without_an_endpoint_prints_hits_and_how_to_enable(mini_index: Settings, no_llm_env, capsys) -> None:
    assert main(["ask", "как хешируется пароль?", "--db", str(mini_index.db_path)]) == 0
    out = capsys.readouterr().out
    assert "1. pkg/auth.py:" in out and "Answers in words are off. To turn" in out
    assert "export CODELENS_LLM_URL=" in out and "CODELENS_LLM_MODEL" in out


def test_ask_json_without_an_endpoint(mini_index: Settings, no_llm_env, capsys) -> None:
    assert main(["ask", "как хешируется пароль?", "--json", "-k", "2", "--db", str(mini_index.db_path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["answer"], result["citations"], result["enabled"]) == ("", [], False)
    assert len(result["hits"]) == 2 and "CODELENS_LLM_URL" in result["how_to_enable"]


def test_ask_json_with_an_endpoint(mini_index: Settings, llm_env: StubLLM, capsys) -> None:
    llm_env.queue(Reply(INVENTED_RU), Reply(INVENTED_RU))
    assert main(["ask", "как хешируется пароль?", "--json", "--db", str(mini_index.db_path)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert set(result) == {"answer", "citations", "hits"}
    assert result["citations"] == [
        {"ref": "make_password_hash", "chunk_id": None, "verified": False},
        {"ref": "pkg/security.py:40", "chunk_id": None, "verified": False},
        {"ref": "login", "chunk_id": LOGIN, "verified": True},
    ]
    assert "`make_password_hash` [нет в индексе]" in result["answer"]


def test_ask_prints_sources_answer_and_checked_citations(mini_index: Settings, llm_env: StubLLM, capsys) -> None:
    llm_env.queue(Reply(GOOD_RU))
    assert main(["ask", "как хешируется пароль?", "--budget", "300", "--db", str(mini_index.db_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Sources:\n1. pkg/auth.py:")
    assert f"Answer:\n{GOOD_RU}\n" in out and f"pkg/auth.py:7-9  -> {HASH}" in out
    assert estimate_tokens(llm_env.requests[0]["messages"][1]["content"]) < 360


def test_ask_streams_on_a_terminal_then_shows_the_checked_text(mini_index: Settings, llm_env: StubLLM,
                                                              monkeypatch, capsys) -> None:
    llm_env.queue(Reply(INVENTED_RU), Reply(INVENTED_RU))
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["ask", "как хешируется пароль?", "--db", str(mini_index.db_path)]) == 0
    out = capsys.readouterr().out
    assert [r["stream"] for r in llm_env.requests] == [True, True]
    streamed, checked = out.split("With citations checked:\n")
    assert streamed.count(f"Answer:\n{INVENTED_RU}") == 2 and "asking again" in streamed
    assert checked.startswith("Пароль хешируется в `make_password_hash` [нет в индексе] (pkg/security.py:40 [нет")
    assert "make_password_hash  NOT IN THE INDEX" in checked and f"login  -> {LOGIN}" in checked


def test_ask_endpoint_failure_is_exit_7_with_the_fix(mini_index: Settings, llm_env: StubLLM, capsys) -> None:
    llm_env.queue(Reply(status=404, body=b'{"error": {"message": "model \'stub-model\' not found"}}'))
    assert main(["ask", "how is a password hashed?", "--db", str(mini_index.db_path)]) == 7
    err = capsys.readouterr().err
    assert err.startswith("error: not found at") and "CODELENS_LLM_MODEL='stub-model'" in err


def test_ask_half_configured_is_exit_7(mini_index: Settings, no_llm_env, monkeypatch, capsys) -> None:
    monkeypatch.setenv("CODELENS_LLM_URL", "http://127.0.0.1:9/v1")
    assert main(["ask", "anything", "--db", str(mini_index.db_path)]) == 7
    assert "CODELENS_LLM_MODEL" in capsys.readouterr().err
