"""Find and ask a running `codelens serve` for an index; the CLI's fast path.

Standard library only, on purpose: a cold `codelens search` that finds a server must not
import numpy, ChromaDB or a model. The server announces itself in a small file named after
the index folder (in the temp folder, not inside the index: an index run swaps that folder).
Anything wrong with the announcement (no file, dead process, refused connection, another
index) means "no server": the caller then searches in-process.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import tempfile
from dataclasses import dataclass
from pathlib import Path

from codelens.errors import CodeLensError

SERVE_HOST = "127.0.0.1"
CONNECT_TIMEOUT_S = 0.5
SEARCH_TIMEOUT_S = 60.0  # a search itself is ~0.1 s; the slack is for a busy machine


class RemoteError(CodeLensError):
    """An error the server's Searcher raised, with the exit code it maps to."""

    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code


@dataclass(frozen=True)
class ServerAddress:
    port: int
    token: str
    pid: int
    index_dir: str
    chroma_url: str
    host: str = SERVE_HOST  # where this machine reaches it (serve --host); older announcements lack it


def connect_host(listening_on: str) -> str:
    """The address this machine reaches a server listening on `listening_on` at: every interface
    includes loopback, a named address is reached at itself."""
    if listening_on in ("", "0.0.0.0"):
        return SERVE_HOST
    if listening_on == "::":
        return "::1"
    return listening_on


def index_key(index_dir: Path, chroma_url: str = "") -> str:
    """One server per index folder (and vector server): the resolved path names it."""
    return f"{Path(index_dir).resolve()}|{chroma_url}"


def announcement_file(index_dir: Path, chroma_url: str = "") -> Path:
    digest = hashlib.sha256(index_key(index_dir, chroma_url).encode("utf-8")).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"codelens-serve-{os.getuid()}-{digest}.json"


def find_server(index_dir: Path, chroma_url: str = "") -> ServerAddress | None:
    """The server announced for this index, if its process is alive; None otherwise."""
    target = announcement_file(index_dir, chroma_url)
    try:
        if target.stat().st_uid != os.getuid():  # the temp folder is shared: only our own files count
            return None
        raw = json.loads(target.read_text(encoding="utf-8"))
        address = ServerAddress(port=int(raw["port"]), token=str(raw["token"]), pid=int(raw["pid"]),
                                index_dir=str(raw["index_dir"]), chroma_url=str(raw.get("chroma_url", "")),
                                host=str(raw.get("host", SERVE_HOST)))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if address.index_dir != str(Path(index_dir).resolve()) or address.chroma_url != chroma_url:
        return None
    try:
        os.kill(address.pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:  # alive, another user's: not ours to use
        return None
    return address


def remote_search(address: ServerAddress, request: dict) -> list[dict] | None:
    """Hits from the server (hit dicts with rank and relevance), or None when it cannot be
    reached (the caller falls back). Errors the search itself raised come back as RemoteError.
    The run's token goes in the body (a loopback server reads it there) and as a bearer token (a
    server with a team token accepts the run's token there too)."""
    body = json.dumps({**request, "token": address.token}).encode("utf-8")
    try:
        status, raw = _post(address.host, address.port, "/search", body, address.token)
        payload = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError, IndexError):
        return None
    if not isinstance(payload, dict):
        return None
    if status == 200 and isinstance(payload.get("hits"), list):
        return payload["hits"]
    if "error" in payload:
        raise RemoteError(str(payload["error"]), int(payload.get("exit_code", 1)))
    return None


def remote_context(address: ServerAddress, request: dict) -> dict | None:
    """`codelens context`'s answer from the server (POST /context), or None when it cannot give one
    (not reachable, or a server older than /context): the caller packs in-process then. Errors of
    the task itself come back as RemoteError."""
    body = json.dumps({**request, "token": address.token}).encode("utf-8")
    try:
        status, raw = _post(address.host, address.port, "/context", body, address.token)
        payload = json.loads(raw.decode("utf-8"))
    except (OSError, ValueError, IndexError):
        return None
    if not isinstance(payload, dict):
        return None
    if status == 200 and isinstance(payload.get("pieces"), list):
        return payload
    if status == 422 and "error" in payload:
        raise RemoteError(str(payload["error"]), int(payload.get("exit_code", 1)))
    return None


def _post(host: str, port: int, path: str, body: bytes, token: str) -> tuple[int, bytes]:
    """One HTTP/1.1 POST to the server: (status, body). A socket, not http.client: that module's
    import (the email package) is most of a fast-path process's start-up."""
    named = f"[{host}]" if ":" in host else host
    head = (f"POST {path} HTTP/1.1\r\nHost: {named}:{port}\r\nContent-Type: application/json\r\n"
            f"Authorization: Bearer {token}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode("ascii")
    with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S) as connection:
        connection.settimeout(SEARCH_TIMEOUT_S)
        connection.sendall(head + body)
        received = []
        while data := connection.recv(65536):
            received.append(data)
    header, _, payload = b"".join(received).partition(b"\r\n\r\n")
    return int(header.split(b" ", 2)[1]), payload
