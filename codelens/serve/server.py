"""`codelens serve`: one resident Searcher on localhost, so a CLI search skips the model and
index loading a cold process pays (seconds) and answers in the time of the search itself.

The server is the same Searcher the CLI would build (never a second search implementation):
it opens the index and loads the models once, warms them with one English and one Russian
question, then announces its port in the file `codelens.serve.client.announcement_file` names. Requests
carry a random token from that file (readable by this user only), so other local users cannot
query it. One request at a time: the Searcher is not shared between threads.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
from collections.abc import Callable
from contextlib import suppress
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

from codelens.errors import CodeLensError
from codelens.search.filters import SearchFilters
from codelens.search.searcher import Searcher
from codelens.serve.client import SERVE_HOST, announcement_file
from codelens.settings import Settings

_MAX_BODY = 1_000_000


def search_payload(searcher: Searcher, request: dict) -> dict:
    """The hits for one request: `search --json`'s dicts plus the rank and relevance the text
    output shows."""
    query = request.get("query")
    if not isinstance(query, str):
        raise CodeLensError("the request needs a 'query' string")
    filters = SearchFilters(kinds=tuple(request.get("kinds") or ()), path_prefix=str(request.get("path_prefix", "")),
                            include_tests=bool(request.get("include_tests", False)))
    hits = searcher.search(query, k=int(request.get("k", 5)), filters=filters)
    return {"hits": [hit.to_row() for hit in hits]}


def _handler(searcher: Searcher, token: str, requested_model_ok: Callable[[str | None], None]) -> type:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if self.path != "/search" or not 0 < length <= _MAX_BODY:
                self._reply(404, {"error": "POST /search with a JSON body"})
                return
            try:
                request = json.loads(self.rfile.read(length).decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                self._reply(400, {"error": "the body is not JSON"})
                return
            if not isinstance(request, dict) or not secrets.compare_digest(str(request.get("token", "")), token):
                self._reply(403, {"error": "wrong token"})
                return
            try:
                requested_model_ok(request.get("model"))
                self._reply(200, search_payload(searcher, request))
            except CodeLensError as exc:
                self._reply(422, {"error": str(exc), "exit_code": exc.exit_code})

        def _reply(self, status: int, payload: dict) -> None:
            body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return  # one line per search on stderr is noise

    return Handler


def serve(settings: Settings, port: int = 0, on_ready: Callable[[str], None] = print, watch: bool = True) -> None:
    """Open the index, warm up, announce, answer until SIGTERM or Ctrl-C; then withdraw. With
    `watch`, a folder source is followed (index/watch.py): searches switch to each update's index."""
    from codelens.embedding import normalize_model_id, tune_threads_for_search
    from codelens.errors import ModelMismatch

    tune_threads_for_search()
    searcher = Searcher(settings)
    searcher.warm_up()

    def requested_model_ok(model: str | None) -> None:
        if model and normalize_model_id(model) != searcher.model:
            raise ModelMismatch(searcher.model, model)

    token = secrets.token_hex(16)
    server = HTTPServer((SERVE_HOST, port), _handler(searcher, token, requested_model_ok))
    chroma_url = settings.chroma_url
    announcement = announcement_file(settings.index_dir, chroma_url)
    _announce(announcement, {"port": server.server_address[1], "token": token, "pid": os.getpid(),
                             "index_dir": str(Path(settings.index_dir).resolve()), "chroma_url": chroma_url})
    signal.signal(signal.SIGTERM, _stop)
    on_ready(f"serving {settings.index_dir} on http://{SERVE_HOST}:{server.server_address[1]} "
             f"(model {searcher.model}); `python -m codelens search` now uses it. Ctrl-C stops.")
    watcher = _start_watching(settings, on_ready) if watch else None
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        if watcher is not None:
            watcher.stop()
        server.server_close()
        with suppress(OSError):
            if json.loads(announcement.read_text(encoding="utf-8")).get("pid") == os.getpid():
                announcement.unlink()


def _start_watching(settings: Settings, on_ready: Callable[[str], None]):
    """The watcher of the index's folder, started (None for a zip source: said so)."""
    from codelens.index.watch import watcher_for

    watcher, line = watcher_for(settings)
    on_ready(f"{line} (--no-watch turns it off)" if watcher else line)
    if watcher is not None:
        watcher.start()
    return watcher


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM ends the server like Ctrl-C: the announcement is withdrawn


def _announce(target: Path, record: dict) -> None:
    """Write the announcement atomically, readable by this user only (it holds the token)."""
    temporary = target.with_suffix(f".{os.getpid()}.tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump(record, handle)
    os.replace(temporary, target)
