"""Issue 30, team access: off loopback `serve` and `mcp --http` answer only requests that carry the
team token as a bearer token (401 and one word otherwise), refuse to start without one, never print
it; an exposed page asks for it before it shows anything.

Real servers on 127.0.0.1 cannot be "non-loopback", so the requiring mode is forced there with
--require-token, and also run on this machine's own network address when `hostname -I` gives one."""

from __future__ import annotations

import http.client
import ipaddress
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import anyio
import pytest
from streamlit import config as streamlit_config
from streamlit.testing.v1 import AppTest

from codelens.app.access import page_token, unlocks
from codelens.errors import EXIT_USAGE
from codelens.serve.client import find_server, remote_search
from codelens.tokens import TokenError, bearer_token, load_token, same_token, team_token, token_required
from tests.conftest import PROJECT_ROOT, free_port, run_cli

TOKEN = "team-token-Kx7yQ2vN9pL4sT8wZ3mR6bD1"
WRONG = "team-token-Kx7yQ2vN9pL4sT8wZ3mR6bD2"  # one character off


def own_network_address() -> str | None:
    """A non-loopback IPv4 address of this machine (`hostname -I`), or None: never another host's."""
    try:
        listed = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=10).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return None
    for text in listed:
        address = ipaddress.ip_address(text)
        if address.version == 4 and not address.is_loopback:
            return text
    return None


NETWORK_ADDRESS = own_network_address()
needs_address = pytest.mark.skipif(NETWORK_ADDRESS is None, reason="no non-loopback address on this machine")


def token_file(folder: Path, token: str = TOKEN, mode: int = 0o600) -> Path:
    target = folder / "token"
    target.write_text(token + "\n", encoding="utf-8")
    target.chmod(mode)
    return target


# ------------------------------------------------------------ the rule and the token, as functions


def test_a_token_is_required_off_loopback_or_when_asked() -> None:
    assert not token_required("127.0.0.1") and not token_required("::1") and not token_required("localhost")
    assert token_required("0.0.0.0") and token_required("::") and token_required("192.0.2.7")
    assert token_required("box.example")  # a name is not provably local
    assert token_required("127.0.0.1", require=True)


def test_the_token_comes_from_the_file_then_the_environment(tmp_path) -> None:
    assert load_token(token_file(tmp_path), {"CODELENS_TOKEN": WRONG}) == TOKEN  # the flag wins
    assert load_token(None, {"CODELENS_TOKEN": f"  {TOKEN}\n"}) == TOKEN
    assert load_token(None, {}) is None
    assert team_token("127.0.0.1", environ={"CODELENS_TOKEN": TOKEN}) is None  # loopback: the old behaviour
    assert team_token("127.0.0.1", require=True, environ={"CODELENS_TOKEN": TOKEN}) == TOKEN
    assert team_token("127.0.0.1", token_file=token_file(tmp_path), environ={}) == TOKEN  # a file given is used
    assert team_token("0.0.0.0", environ={"CODELENS_TOKEN": TOKEN}) == TOKEN


def test_no_token_off_loopback_says_how_to_make_one() -> None:
    with pytest.raises(TokenError, match=r"secrets\.token_urlsafe\(32\)") as missing:
        team_token("0.0.0.0", environ={})
    assert missing.value.exit_code == EXIT_USAGE and "0.0.0.0" in str(missing.value)


@pytest.mark.parametrize("mode", [0o644, 0o606, 0o666])
def test_a_token_file_others_can_read_or_write_is_refused(tmp_path, mode) -> None:
    with pytest.raises(TokenError, match="chmod 600") as refused:
        load_token(token_file(tmp_path, mode=mode), {})
    assert TOKEN not in str(refused.value)


@pytest.mark.parametrize("bad", ["short", "with a space inside it, long enough", "токен-токен-токен-токен"])
def test_a_token_that_is_not_one_long_ascii_word_is_refused(tmp_path, bad) -> None:
    with pytest.raises(TokenError, match="at least 16") as refused:
        load_token(token_file(tmp_path, bad), {})
    assert bad not in str(refused.value)
    with pytest.raises(TokenError):
        load_token(None, {"CODELENS_TOKEN": bad})
    with pytest.raises(TokenError, match="cannot read"):
        load_token(tmp_path / "missing", {})


def test_tokens_compare_whole_and_exact() -> None:
    assert same_token(TOKEN, TOKEN) and same_token(TOKEN.encode(), TOKEN)
    for given in (WRONG, TOKEN[:-1], TOKEN + "x", "", None, "\ud800" * 40):
        assert not same_token(given, TOKEN)
    assert not same_token(TOKEN, "")  # no expected token never matches
    assert bearer_token(f"Bearer {TOKEN}") == TOKEN and bearer_token(f"bearer  {TOKEN} ") == TOKEN
    assert bearer_token(f"Basic {TOKEN}") is None and bearer_token("Bearer ") is None and bearer_token(None) is None


# ------------------------------------------------------------ refusing to start


@pytest.mark.parametrize("command", [["serve"], ["mcp", "--http", "8765"]])
def test_a_server_on_the_network_without_a_token_is_a_usage_error(tmp_path, mini_index, command) -> None:
    db = ["--db", str(mini_index.db_path)]
    done = run_cli("-m", "codelens", *command, "--host", "0.0.0.0", *db, env={"CODELENS_TOKEN": ""})
    assert done.returncode == EXIT_USAGE, done.stderr
    assert "secrets.token_urlsafe(32)" in done.stderr and "--token-file" in done.stderr
    readable = token_file(tmp_path, mode=0o644)
    done = run_cli("-m", "codelens", *command, "--host", "0.0.0.0", "--token-file", str(readable), *db)
    assert done.returncode == EXIT_USAGE and f"chmod 600 {readable}" in done.stderr
    assert TOKEN not in done.stdout + done.stderr


# ------------------------------------------------------------ serve


def request(host: str, port: int, method: str, path: str, body: dict | None,
            authorization: str | None) -> tuple[int, dict]:
    headers = {"Content-Type": "application/json"}
    if authorization is not None:
        headers["Authorization"] = authorization
    connection = http.client.HTTPConnection(host, port, timeout=60)
    try:
        connection.request(method, path, json.dumps(body).encode() if body is not None else None, headers)
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"{}")
    finally:
        connection.close()


@contextmanager
def serving(db: Path, host: str, log: Path, *flags: str) -> Iterator[tuple[str, int, str]]:
    """`codelens serve` on `host` with the team token in its environment: (address, port, run token)."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "CODELENS_TOKEN": TOKEN}
    with log.open("w") as errors:
        process = subprocess.Popen([sys.executable, "-m", "codelens", "serve", "--db", str(db), "--host", host,
                                    "--no-watch", *flags], stdout=subprocess.PIPE, stderr=errors, text=True,
                                   cwd=PROJECT_ROOT, env=env)
        try:
            first = process.stdout.readline()  # printed once warm and announced
            assert first.startswith("serving"), first + log.read_text()
            address = find_server(db)
            assert address is not None and address.host == host
            yield host, address.port, address.token
        finally:
            process.terminate()
            assert process.wait(timeout=60) == 0
            log.write_text(log.read_text() + first + process.stdout.read())


SEARCH = {"query": "check the user's password", "k": 3}


@pytest.mark.slow  # a `serve` process loading the models, per address
@pytest.mark.parametrize("host", ["127.0.0.1", pytest.param("network", marks=needs_address)])
def test_serve_with_a_team_token_answers_only_requests_that_carry_it(tmp_path, mini_index, host) -> None:
    db, log = mini_index.db_path, tmp_path / "serve.log"
    flags = ("--require-token",) if host == "127.0.0.1" else ()
    with serving(db, NETWORK_ADDRESS if host == "network" else host, log, *flags) as (address, port, run_token):
        unauthorized = (401, {"error": "unauthorized"})  # nothing else: no hits, no hint
        assert request(address, port, "POST", "/search", SEARCH, None) == unauthorized
        assert request(address, port, "POST", "/search", SEARCH, f"Bearer {WRONG}") == unauthorized
        assert request(address, port, "POST", "/search", SEARCH, f"Basic {TOKEN}") == unauthorized
        assert request(address, port, "POST", "/elsewhere", SEARCH, None) == unauthorized  # before the path
        assert request(address, port, "GET", "/", None, None) == unauthorized
        # the loopback rule's body token alone no longer opens it
        assert request(address, port, "POST", "/search", {**SEARCH, "token": run_token}, None) == unauthorized

        status, answer = request(address, port, "POST", "/search", SEARCH, f"Bearer {TOKEN}")
        assert status == 200 and answer["hits"][0]["chunk_id"] == "pkg/auth.py::login"
        # the owner's CLI: the run's token from the announcement, as a bearer token
        assert remote_search(find_server(db), SEARCH)[0]["chunk_id"] == "pkg/auth.py::login"
    printed = log.read_text()
    assert "team token required" in printed
    assert TOKEN not in printed and WRONG not in printed and run_token not in printed
    if host == "network":
        assert "anyone who can reach this address" in printed


@pytest.mark.slow  # a `serve` process loading the models
def test_serve_on_loopback_keeps_the_run_token_rule(tmp_path, mini_index) -> None:
    db = mini_index.db_path
    with serving(db, "127.0.0.1", tmp_path / "serve.log") as (address, port, run_token):
        assert request(address, port, "POST", "/search", SEARCH, None) == (403, {"error": "wrong token"})
        status, answer = request(address, port, "POST", "/search", {**SEARCH, "token": run_token}, None)
        assert status == 200 and answer["hits"]
    assert "team token" not in (tmp_path / "serve.log").read_text()


# ------------------------------------------------------------ mcp --http


def test_mcp_checks_the_token_with_the_sdks_own_verifier_and_advertises_no_oauth_server(mini_index) -> None:
    from mcp.server.auth.middleware.bearer_auth import RequireAuthMiddleware

    from codelens.mcp.server import TeamToken, build_server

    verifier = TeamToken(TOKEN)
    granted = anyio.run(verifier.verify_token, TOKEN)
    assert granted is not None and TOKEN not in repr(granted)  # the request scope keeps no copy of it
    assert anyio.run(verifier.verify_token, WRONG) is None and anyio.run(verifier.verify_token, "") is None
    app = build_server(mini_index, watch=False, team_token=TOKEN).streamable_http_app()
    assert [route.path for route in app.routes] == ["/mcp"]  # no /.well-known metadata, no OAuth endpoints
    assert isinstance(app.routes[0].endpoint, RequireAuthMiddleware)
    open_app = build_server(mini_index, watch=False).streamable_http_app()
    assert not isinstance(open_app.routes[0].endpoint, RequireAuthMiddleware)  # loopback: as before



def mcp_initialize(host: str, port: int, authorization: str | None) -> tuple[int, bytes]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if authorization is not None:
        headers["Authorization"] = authorization
    connection = http.client.HTTPConnection(host, port, timeout=60)
    try:
        connection.request("POST", "/mcp", body, headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


async def search_with_token(url: str, token: str) -> list[str]:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    async with (create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as http,
                streamable_http_client(url, http_client=http) as (read, write), ClientSession(read, write) as session):
        await session.initialize()
        result = await session.call_tool("search", {"query": "check the user's password", "k": 3})
        return [hit["chunk_id"] for hit in result.structured_content["hits"]]


@pytest.mark.slow  # an MCP server process loading the models, per address
@pytest.mark.parametrize("host", ["127.0.0.1", pytest.param("network", marks=needs_address)])
def test_mcp_http_with_a_team_token_answers_only_requests_that_carry_it(tmp_path, mini_index, host) -> None:
    address, port, log = NETWORK_ADDRESS if host == "network" else host, free_port(), tmp_path / "mcp.log"
    flags = ["--require-token"] if host == "127.0.0.1" else []
    command = [sys.executable, "-m", "codelens", "mcp", "--db", str(mini_index.db_path), "--http", str(port),
               "--host", address, "--token-file", str(token_file(tmp_path)), "--no-watch", *flags]
    with log.open("w") as output:
        server = subprocess.Popen(command, cwd=PROJECT_ROOT, stdout=output, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    status, body = mcp_initialize(address, port, None)
                    break
                except OSError:
                    assert time.monotonic() < deadline and server.poll() is None, log.read_text()
                    time.sleep(0.3)
            assert status == 401 and b"codelens" not in body and b"serverInfo" not in body
            assert mcp_initialize(address, port, f"Bearer {WRONG}")[0] == 401
            assert mcp_initialize(address, port, TOKEN)[0] == 401  # no scheme
            assert mcp_initialize(address, port, f"Bearer {TOKEN}")[0] == 200
            hits = anyio.run(search_with_token, f"http://{address}:{port}/mcp", TOKEN)
            assert hits[0] == "pkg/auth.py::login"
        finally:
            server.terminate()
            server.wait(timeout=30)
    printed = log.read_text()
    assert "team token required" in printed and TOKEN not in printed and WRONG not in printed


# ------------------------------------------------------------ the page


def test_the_page_token_comes_from_its_environment(tmp_path) -> None:
    assert page_token({"CODELENS_TOKEN_FILE": str(token_file(tmp_path))}) == TOKEN
    assert page_token({"CODELENS_TOKEN": TOKEN}) == TOKEN
    with pytest.raises(TokenError, match="CODELENS_TOKEN_FILE=token"):
        page_token({})
    assert unlocks(f" {TOKEN}\n", TOKEN) and not unlocks(WRONG, TOKEN) and not unlocks("", TOKEN)


@pytest.fixture()
def exposed_page(monkeypatch, tmp_path):
    """The page as `make run HOST=0.0.0.0` serves it, over an empty --db."""
    monkeypatch.setenv("CODELENS_DB", str(tmp_path / "no_db"))
    monkeypatch.delenv("CODELENS_TOKEN_FILE", raising=False)
    before = streamlit_config.get_option("server.address")
    streamlit_config.set_option("server.address", "0.0.0.0")
    yield
    streamlit_config.set_option("server.address", before)


def shown(app: AppTest) -> str:
    return " ".join(str(element.value) for kind in (app.markdown, app.warning, app.info, app.code, app.caption)
                    for element in kind)


def test_an_exposed_page_shows_nothing_before_the_token(monkeypatch, exposed_page) -> None:
    monkeypatch.setenv("CODELENS_TOKEN", TOKEN)
    app = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=120).run()
    assert [field.label for field in app.text_input] == ["Токен команды · team token"]
    assert not app.selectbox and not app.button and "Индекс не найден" not in shown(app)
    app.text_input[0].input(WRONG).run()
    assert [error.value for error in app.error] == ["Неверный токен · wrong token"]
    assert "Индекс не найден" not in shown(app)
    app.text_input[0].input(TOKEN).run()
    assert not app.error and "Индекс не найден" in shown(app)  # the page itself, with its network warning
    assert any("доступна по сети" in warning.value for warning in app.warning)


def test_an_exposed_page_without_a_configured_token_says_how_to_make_one(monkeypatch, exposed_page) -> None:
    monkeypatch.delenv("CODELENS_TOKEN", raising=False)
    app = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=120).run()
    assert len(app.error) == 1 and "secrets.token_urlsafe(32)" in app.error[0].value
    assert not app.text_input and "Индекс не найден" not in shown(app)
