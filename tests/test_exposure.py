"""Nothing exposed by default: the app listens on loopback, an exposed page indexes only what the
operator chose, and the MCP HTTP transport refuses requests that name a foreign host."""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from streamlit import config as streamlit_config
from streamlit.testing.v1 import AppTest

from codelens.errors import BadInput
from codelens.exposure import EXPOSED_WARNING, START_EXPOSED_WARNING, allowed_roots, check_index_source, is_loopback
from codelens.tokens import TOKEN_FILE_VARIABLE, TOKEN_VARIABLE
from tests.conftest import PROJECT_ROOT, free_port

TEAM_TOKEN = "a-team-token-of-32-characters-ok"
LISTEN = "0A"  # TCP_LISTEN in /proc/net/tcp


def listening_addresses(port: int) -> set[str]:
    """The local addresses of the sockets listening on `port` (from /proc/net/tcp and tcp6)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            address, port_hex = fields[1].split(":")
            if fields[3] == LISTEN and int(port_hex, 16) == port:
                found.add(_address(address))
    return found


def _address(hex_address: str) -> str:
    raw = bytes.fromhex(hex_address)
    if len(raw) == 4:
        return ".".join(str(b) for b in raw[::-1])
    words = [raw[i:i + 4][::-1].hex() for i in range(0, 16, 4)]
    return ":".join(w[j:j + 4] for w in words for j in (0, 4))


def make_run_command(db: Path, port: int, host: str | None = None) -> str:
    """The command `make run` executes (make -n prints it; the install steps are already done)."""
    args = ["make", "-n", "run", f"DB={db}", f"PORT={port}", *([f"HOST={host}"] if host else [])]
    recipe = subprocess.run(args, cwd=PROJECT_ROOT, capture_output=True, text=True, check=True).stdout
    return recipe[recipe.index("CODELENS_DB="):].replace("\\\n", " ")


def wait_healthy(port: int, timeout_s: float = 120.0) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.3)


# each case starts the page as `make run` does, a streamlit process: the exposed one is in the slow tier
@pytest.mark.parametrize("host, expected", [(None, {"127.0.0.1"}),
                                            pytest.param("0.0.0.0", {"0.0.0.0"}, marks=pytest.mark.slow)])
def test_make_run_listens_on_loopback_unless_asked(tmp_path, mini_index, host, expected) -> None:
    port = free_port()
    command = make_run_command(mini_index.db_path, port, host)
    if not Path(PROJECT_ROOT / ".venv" / "bin" / "streamlit").exists():
        command = command.replace(".venv/bin/streamlit", f"{sys.executable} -m streamlit")
    with (tmp_path / "app.log").open("w") as log:
        app = subprocess.Popen(["bash", "-c", command], cwd=PROJECT_ROOT, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
        try:
            wait_healthy(port)
            assert listening_addresses(port) == expected
        finally:
            os.killpg(app.pid, signal.SIGTERM)
            app.wait(timeout=60)
    assert "Network URL" not in (tmp_path / "app.log").read_text() or host


def test_make_run_warns_on_the_terminal_when_exposed() -> None:
    recipe = subprocess.run(["make", "run", "-n", "HOST=0.0.0.0", "DB=/nonexistent"], cwd=PROJECT_ROOT,
                            capture_output=True, text=True).stdout
    warning_line = next(line for line in recipe.splitlines() if line.startswith("case "))
    warned = subprocess.run(["bash", "-c", warning_line], capture_output=True, text=True)
    assert f"warning: {START_EXPOSED_WARNING.format(address='0.0.0.0')}\n" == warned.stderr  # as `codelens app` says
    for warning in (warned.stderr, EXPOSED_WARNING):  # the token's real variables (codelens/tokens.py)
        assert f"{TOKEN_FILE_VARIABLE}" in warning and f"{TOKEN_VARIABLE})" in warning


def test_loopback_addresses() -> None:
    assert all(is_loopback(a) for a in ("127.0.0.1", "127.0.1.1", "localhost", "::1", "[::1]"))
    assert not any(is_loopback(a) for a in ("", "0.0.0.0", "::", "192.168.1.5", "example.com"))


def test_an_exposed_server_indexes_only_configured_sources_and_allowed_roots(tmp_path) -> None:
    configured, root, other = tmp_path / "demo.zip", tmp_path / "allowed", tmp_path / "home"
    (root / "project").mkdir(parents=True)
    other.mkdir()
    (root / "escape").symlink_to(other)
    assert check_index_source(other, exposed=False, configured=[]) == other.resolve()
    assert check_index_source(configured, exposed=True, configured=[configured, None]) == configured.resolve()
    assert check_index_source(root / "project", True, [], [root]) == (root / "project").resolve()
    for foreign in (other, root / "escape", root / ".." / "home", Path("/")):
        with pytest.raises(BadInput, match="CODELENS_ALLOWED_ROOTS"):
            check_index_source(foreign, True, [configured], [root])
    assert allowed_roots({"CODELENS_ALLOWED_ROOTS": f"{root}{os.pathsep}{os.pathsep}"}) == [root.resolve()]


@pytest.fixture()
def exposed_page():
    """The page as `make run HOST=0.0.0.0` serves it (the option the app reads)."""
    before = streamlit_config.get_option("server.address")
    streamlit_config.set_option("server.address", "0.0.0.0")
    yield
    streamlit_config.set_option("server.address", before)


def test_an_exposed_page_warns_and_refuses_a_foreign_path(monkeypatch, tmp_path, mini_project, exposed_page) -> None:
    monkeypatch.setenv("CODELENS_DB", str(tmp_path / "fresh_db"))
    monkeypatch.delenv("CODELENS_ALLOWED_ROOTS", raising=False)
    monkeypatch.setenv("CODELENS_TOKEN", TEAM_TOKEN)
    app = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=120).run()
    app.text_input[0].input(TEAM_TOKEN).run()  # the team token first (tests/test_team_access.py)
    assert any("доступна по сети (0.0.0.0)" in w.value for w in app.warning)
    app.text_input[0].input(str(mini_project)).run()
    next(b for b in app.button if "Построить индекс" in b.label).click().run()
    assert any("Не индексирую" in e.value and "CODELENS_ALLOWED_ROOTS" in e.value for e in app.error)
    assert not (tmp_path / "fresh_db" / "index_metadata.json").exists()


def test_a_loopback_page_does_not_warn(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("CODELENS_DB", str(tmp_path / "no_db"))
    app = AppTest.from_file(str(PROJECT_ROOT / "app.py"), default_timeout=120).run()
    assert not any("доступна по сети" in w.value for w in app.warning)


def mcp_request(port: int, host_header: str, token: str = TEAM_TOKEN) -> int:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("POST", "/mcp", body, {"Host": host_header, "Content-Type": "application/json",
                                                 "Accept": "application/json, text/event-stream",
                                                 "Authorization": f"Bearer {token}"})
        return connection.getresponse().status
    finally:
        connection.close()


# an MCP HTTP server process per case: the exposed one is in the slow tier
@pytest.mark.parametrize("host", ["127.0.0.1", pytest.param("0.0.0.0", marks=pytest.mark.slow)])
def test_mcp_http_refuses_a_foreign_host_header(tmp_path, mini_index, host) -> None:
    port = free_port()
    command = [sys.executable, "-m", "codelens", "mcp", "--db", str(mini_index.db_path), "--http", str(port),
               "--host", host, "--allow-host", "box.example"]
    env = {**os.environ, "CODELENS_TOKEN": TEAM_TOKEN}  # required off loopback, ignored on it
    with (tmp_path / "mcp.log").open("w") as log:
        server = subprocess.Popen(command, cwd=PROJECT_ROOT, stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    status = mcp_request(port, f"127.0.0.1:{port}")
                    break
                except OSError:
                    assert time.monotonic() < deadline
                    time.sleep(0.3)
            assert status == 200
            assert mcp_request(port, f"evil.example:{port}") == 421  # a DNS-rebinding page's Host
            assert mcp_request(port, f"box.example:{port}") == 200  # named with --allow-host
        finally:
            server.terminate()
            server.wait(timeout=30)
