"""Bad input everywhere (issue 22, part 4): property-based tests over what a client can send
`codelens serve`, the MCP tools' arguments and an uploaded questions file. Each input either
works or gets a CodeLensError that says what is wrong; nothing else ever escapes, and the
servers keep answering."""

from __future__ import annotations

import http.client
import json
import threading

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codelens.cli.main import build_parser
from codelens.errors import EXIT_USAGE, BadInput, CodeLensError
from codelens.evaluation import MAX_QUESTIONS, parse_questions_file
from codelens.mcp.server import build_server
from codelens.mcp.tools import CodeLensTools, ServedIndex
from codelens.search.limits import MAX_K
from codelens.serve.server import _handler, _Server, search_payload
from codelens.serve.worker import ModelThread
from tests.conftest import examples

# Every code point, lone surrogates and control characters included.
ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=300)
HUGE_TEXT = st.integers(20_000, 200_000).map(lambda n: ("пароль password \x00\x1b " * n)[:n])
ANYTHING = st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | ANY_TEXT,
                        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(ANY_TEXT, inner, max_size=4),
                        max_leaves=8)
FUZZ = settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                       HealthCheck.too_slow])

requests = st.fixed_dictionaries({}, optional={
    "query": ANY_TEXT | HUGE_TEXT | ANYTHING, "k": st.integers(-10**9, 10**9) | ANYTHING,
    "kinds": st.lists(st.sampled_from(["function", "class", "method", "module"]) | ANY_TEXT, max_size=3) | ANYTHING,
    "path_prefix": ANY_TEXT | st.just("../" * 500) | ANYTHING, "include_tests": ANYTHING})


@FUZZ
@given(request=requests)
def test_serve_request_fields(mini_searcher, request) -> None:
    try:
        payload = search_payload(mini_searcher, request)
    except CodeLensError as exc:
        assert str(exc)
        return
    assert isinstance(request.get("query"), str)
    assert len(payload["hits"]) <= request.get("k", 5)
    json.dumps(payload)  # whatever came in, the answer serialises


@pytest.fixture(scope="module")
def serve_port(mini_index, embedder):
    """The real request handler on a real socket, over the mini index."""
    from codelens.search.searcher import Searcher

    models = ModelThread()
    searcher = models.call(Searcher, mini_index, embedder)
    server = _Server(("127.0.0.1", 0), _handler(searcher, "secret-token", lambda model: None, models))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()
    models.close()


def post(port: int, body: bytes, headers: dict | None = None) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("POST", "/search", body, headers or {})
        response = connection.getresponse()
        json.loads(response.read())  # every answer is JSON, errors included
        return response.status
    finally:
        connection.close()


@FUZZ
@given(body=st.binary(min_size=1, max_size=2000) | requests.map(lambda r: json.dumps(
    {**r, "token": "secret-token"}, ensure_ascii=True).encode()))
def test_serve_http_bodies(serve_port, body) -> None:
    assert post(serve_port, body) in (200, 400, 403, 404, 422)


def test_serve_refuses_bad_lengths_and_wrong_tokens(serve_port) -> None:
    assert post(serve_port, b"{}", {"Content-Length": "-5"}) == 404
    assert post(serve_port, b"{}", {"Content-Length": "lots"}) == 404
    assert post(serve_port, json.dumps({"query": "x", "token": "wrong"}).encode()) == 403
    assert post(serve_port, json.dumps({"query": "x", "token": "сикрет"}).encode()) == 403
    assert post(serve_port, b"[" * 100_000) == 400  # nested past any parser's depth
    good = json.dumps({"query": "check the password", "token": "secret-token"}).encode()
    assert post(serve_port, good) == 200  # and after all that, it still answers


@pytest.fixture(scope="module")
def tools(mini_index):
    return CodeLensTools(ServedIndex(mini_index))


@FUZZ
@given(query=ANY_TEXT | HUGE_TEXT, k=st.integers(-5, 200), kinds=st.lists(ANY_TEXT | st.just("class"), max_size=3),
       path=ANY_TEXT | st.sampled_from(["pkg/", "../../etc/passwd", "/" * 4000]), include_tests=st.booleans())
def test_mcp_search_arguments(tools, query, k, kinds, path, include_tests) -> None:
    try:
        output = tools.search(query, k, kinds, path, include_tests)
    except CodeLensError as exc:
        assert str(exc)
        return
    assert len(output.data["hits"]) <= k
    json.dumps(output.data)


@FUZZ
@given(target=ANY_TEXT | st.sampled_from(["pkg/auth.py::login", "pkg/auth.py", "login", "::", "pkg.auth.login"]),
       depth=st.integers(-3, 50), chars=st.integers(-10, 10**7))
def test_mcp_graph_and_chunk_arguments(tools, target, depth, chars) -> None:
    for call in (lambda: tools.get_chunk(target), lambda: tools.callers(target), lambda: tools.callees(target),
                 lambda: tools.deps(target, depth), lambda: tools.code_map(chars)):
        try:
            output = call()
        except CodeLensError as exc:
            assert str(exc)
            continue
        assert isinstance(output.text, str)


def test_one_k_limit_for_the_cli_serve_and_mcp(mini_index, mini_searcher, tools, capsys) -> None:
    """MAX_K hits may be asked of every edge that takes k, one more of none, and each says the limit."""
    assert search_payload(mini_searcher, {"query": "check the password", "k": MAX_K})["hits"]
    assert tools.search("check the password", MAX_K).data["hits"]
    assert build_parser().parse_args(["search", "check the password", "-k", str(MAX_K)]).k == MAX_K
    for too_many in (lambda: search_payload(mini_searcher, {"query": "check the password", "k": MAX_K + 1}),
                     lambda: tools.search("check the password", MAX_K + 1)):
        with pytest.raises(BadInput, match=f"1 to {MAX_K} hits"):
            too_many()
    with pytest.raises(SystemExit) as usage:
        build_parser().parse_args(["search", "check the password", "-k", str(MAX_K + 1)])
    assert usage.value.code == EXIT_USAGE
    assert f"argument -k: k={MAX_K + 1} is out of range - ask for 1 to {MAX_K} hits" in capsys.readouterr().err
    # MCP clients read the limit from the tool's schema (the SDK refuses more before the call).
    tools_listed = {tool.name: tool for tool in anyio.run(build_server(mini_index, watch=False).list_tools)}
    k = tools_listed["search"].input_schema["properties"]["k"]
    assert (k["minimum"], k["maximum"]) == (1, MAX_K)


@pytest.mark.parametrize("command", [["eval"], ["ask", "how are passwords hashed"]])
def test_eval_and_ask_take_the_same_k_limit(command, capsys) -> None:
    """`eval -k` and `ask -k` run searches too: the same limit and message as `search -k`."""
    assert build_parser().parse_args([*command, "-k", str(MAX_K)]).k == MAX_K
    for too_many in (str(MAX_K + 1), "0"):
        with pytest.raises(SystemExit) as usage:
            build_parser().parse_args([*command, "-k", too_many])
        assert usage.value.code == EXIT_USAGE
        assert f"argument -k: k={too_many} is out of range - ask for 1 to {MAX_K} hits" in capsys.readouterr().err


question_files = (st.binary(max_size=300)
                  | ANYTHING.map(lambda value: json.dumps(value).encode())
                  | st.lists(st.fixed_dictionaries({}, optional={"id": ANYTHING, "query": ANYTHING,
                                                                 "relevant": ANYTHING, "lang": ANYTHING}),
                             max_size=4).map(lambda items: json.dumps({"questions": items}).encode()))


@settings(max_examples=examples(300), deadline=None)
@given(raw=question_files)
def test_uploaded_questions_files(raw) -> None:
    try:
        questions = parse_questions_file(raw, "upload.json")
    except BadInput as exc:
        assert "upload.json" in str(exc)
        return
    assert questions and all(isinstance(q.relevant, tuple) for q in questions)


def test_huge_and_oversized_questions_files() -> None:
    many = {"questions": [{"id": str(i), "query": "q", "relevant": []} for i in range(MAX_QUESTIONS + 1)]}
    with pytest.raises(BadInput, match="at most"):
        parse_questions_file(json.dumps(many).encode(), "many.json")
    with pytest.raises(BadInput, match="byte limit"):
        parse_questions_file(b" " * 6_000_000, "big.json")
    with pytest.raises(BadInput, match="not valid JSON"):
        parse_questions_file(b"[" * 100_000, "deep.json")
