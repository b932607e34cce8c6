"""`codelens serve`: one resident Searcher (on 127.0.0.1 unless --host says otherwise), so a CLI
search skips the model and index loading a cold process pays (seconds) and answers in the time of
the search itself.

The server is the same Searcher the CLI would build (never a second search implementation):
it opens the index and loads the models once, warms them with one English and one Russian
question, then announces its port in the file `codelens.serve.client.announcement_file` names. Requests
carry a random token from that file (readable by this user only), so other local users cannot
query it. On any other address (a team's server) every request must also carry the team token
as `Authorization: Bearer <token>` (codelens/tokens.py), or this run's token the same way (the
owner's CLI); anything else gets 401 and the one word "unauthorized", before the path or the body
is looked at. Connections are served on threads of their own (many clients wait in line, none is
refused); every search runs on one model thread (serve/worker.py), since the Searcher is not
shared between threads.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import sys
from collections.abc import Callable
from contextlib import suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from codelens.chunk import KINDS
from codelens.errors import BadInput, CodeLensError
from codelens.exposure import SERVER_EXPOSED_WARNING, is_loopback
from codelens.index.layout import IndexLayout
from codelens.search.filters import SearchFilters, language_filter
from codelens.search.limits import k_problem
from codelens.search.searcher import Searcher
from codelens.serve.client import SERVE_HOST, announcement_file, connect_host, find_server
from codelens.serve.lifetime import IdleTimer, ServeLock, holder_pid, idle_exit_s
from codelens.serve.worker import ModelThread
from codelens.settings import Settings
from codelens.tokens import UNAUTHORIZED, bearer_token, same_token

_MAX_BODY = 1_000_000


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a client that hangs never holds up the stop
    request_queue_size = 128  # the listen backlog: 32 clients connecting at once are all accepted


class _Server6(_Server):
    address_family = socket.AF_INET6  # --host ::1, --host :: (every interface)


def search_payload(searcher: Searcher, request: dict) -> dict:
    """The hits for one request: `search --json`'s dicts plus the rank and relevance the text
    output shows."""
    query = request.get("query")
    if not isinstance(query, str):
        raise BadInput("the request needs a 'query' string")
    try:
        query.encode("utf-8")
    except UnicodeEncodeError:
        raise BadInput("the query is not valid text (a lone UTF-16 surrogate)") from None
    k = request.get("k", 5)
    if k_problem(k):
        raise BadInput(k_problem(k))
    kinds = request.get("kinds") or ()
    if not isinstance(kinds, list | tuple) or not all(isinstance(kind, str) for kind in kinds):
        raise BadInput("'kinds' must be a list of kind names")
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise BadInput(f"unknown kind {unknown[0]!r}: choose from {', '.join(KINDS)}")
    prefix = request.get("path_prefix", "")
    if not isinstance(prefix, str):
        raise BadInput("'path_prefix' must be a string")
    repos = request.get("repos") or ()
    if not isinstance(repos, list | tuple) or not all(isinstance(repo, str) for repo in repos):
        raise BadInput("'repos' must be a list of repository names")
    languages = request.get("languages") or ()
    if not isinstance(languages, list | tuple) or not all(isinstance(name, str) for name in languages):
        raise BadInput("'languages' must be a list of language names")
    prefer_repo = request.get("prefer_repo") or ""
    if not isinstance(prefer_repo, str):
        raise BadInput("'prefer_repo' must be a repository name")
    filters = SearchFilters(kinds=tuple(kinds), path_prefix=prefix,
                            include_tests=bool(request.get("include_tests", False)), repos=tuple(repos),
                            languages=language_filter(languages))
    hits = searcher.search(query, k=k, filters=filters, prefer_repo=prefer_repo)
    return {"hits": [hit.to_row() for hit in hits]}


class ContextOfSearcher:
    """`codelens context` over a served Searcher: its chunk catalog and Stage B links, built once and
    again only when the searcher has reopened a newer index (its chunks are then a new mapping)."""

    def __init__(self, searcher: Searcher) -> None:
        self.searcher = searcher
        self._links: tuple[object, object] | None = None  # (the chunks they were built from, the links)

    def links(self):
        from codelens.answer.context import ChunkCatalog
        from codelens.answer.task_context import ContextLinks
        from codelens.graph.store import GraphNotFound, load_graph

        chunks = self.searcher.chunks
        if self._links is None or self._links[0] is not chunks:
            try:
                graph = load_graph(self.searcher.settings.index_dir)
            except GraphNotFound:
                graph = None
            self._links = (chunks, ContextLinks(ChunkCatalog(chunks.values()), graph, self.searcher.workspace.repo_of))
        return self._links[1]

    def warm_up(self) -> None:
        from codelens.answer.token_count import counter_for

        self.links().warm_up()
        counter_for()  # the default tokenizer; another is loaded by its first request

    def payload(self, request: dict) -> dict:
        """POST /context: {"task", "budget"?, "path_prefix"?, "include_tests"?, "repos"?, "tokenizer"?,
        "line_numbers"?} -> the context JSON."""
        from codelens.answer.pack import context_rules
        from codelens.answer.task_context import DEFAULT_BUDGET, task_context, task_lookups
        from codelens.answer.token_count import DEFAULT_TOKENIZER, check_tokenizer, counter_for

        task, budget = request.get("task"), request.get("budget", DEFAULT_BUDGET)
        if not isinstance(task, str):
            raise BadInput("the request needs a 'task' string")
        prefix, repos = request.get("path_prefix", ""), request.get("repos") or ()
        if not isinstance(prefix, str) or not isinstance(repos, list | tuple):
            raise BadInput("'path_prefix' must be a string and 'repos' a list of repository names")
        tokenizer, line_numbers = request.get("tokenizer", DEFAULT_TOKENIZER), request.get("line_numbers", False)
        check_tokenizer(tokenizer)
        if not isinstance(line_numbers, bool):
            raise BadInput(f"'line_numbers' must be true or false, not {line_numbers!r}")
        filters = SearchFilters(path_prefix=prefix, include_tests=bool(request.get("include_tests", False)),
                                repos=tuple(str(repo) for repo in repos))
        packed = task_context(task, lambda text, k, scope, depth=None: self.searcher.search(
                                  text, k=k, filters=scope, depth=depth),
                              self.links(), counter_for(tokenizer), budget, filters,
                              task_lookups(self.searcher, filters), rules=context_rules(line_numbers))
        return packed.to_dict()


def _same_token(given: object, token: str) -> bool:
    return isinstance(given, str) and secrets.compare_digest(given.encode("utf-8", "replace"), token.encode())


def _handler(searcher: Searcher, token: str, requested_model_ok: Callable[[str | None], None],
             models: ModelThread, before_search: Callable[[], None] = lambda: None,
             team_token: str | None = None, context: ContextOfSearcher | None = None) -> type:
    """With a team token, a request passes on its Authorization header alone (the team's token, or
    this run's); without one (loopback), on this run's token in its body, as the CLI sends it."""
    context = context or ContextOfSearcher(searcher)

    def answer(request: dict, path: str = "/search") -> dict:
        requested_model_ok(request.get("model"))
        before_search()
        return context.payload(request) if path == "/context" else search_payload(searcher, request)

    def authorized(header: str | None) -> bool:
        given = bearer_token(header)
        # both compared, always: which one matched (or how far a guess got) takes the same time
        return bool(same_token(given, team_token or "") | same_token(given, token))

    class Handler(BaseHTTPRequestHandler):
        server_version = "codelens"  # not BaseHTTP's Python version, to anyone who knocks
        sys_version = ""

        def do_POST(self) -> None:
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            if team_token is not None and not authorized(self.headers.get("Authorization")):
                if 0 < length <= _MAX_BODY:
                    self.rfile.read(length)  # read first: closing on unread bytes resets the connection
                self._reply(401, {"error": UNAUTHORIZED}, {"WWW-Authenticate": "Bearer"})
                return
            if self.path not in ("/search", "/context") or not 0 < length <= _MAX_BODY:
                self._reply(404, {"error": "POST /search (or /context) with a JSON body"})
                return
            try:
                request = json.loads(self.rfile.read(length).decode("utf-8"))
            except (ValueError, RecursionError):  # not UTF-8, not JSON, or nested past all reason
                self._reply(400, {"error": "the body is not JSON"})
                return
            if not isinstance(request, dict) or (team_token is None and not _same_token(request.get("token"), token)):
                self._reply(403, {"error": "wrong token"})
                return
            try:
                self._reply(200, models.call(answer, request, self.path))
            except CodeLensError as exc:
                self._reply(422, {"error": str(exc), "exit_code": exc.exit_code})
            except Exception as exc:  # a bug must cost one request, never the server
                self._reply(500, {"error": f"{type(exc).__name__}: {exc}", "exit_code": 1})

        def do_GET(self) -> None:
            if team_token is not None and not authorized(self.headers.get("Authorization")):
                self._reply(401, {"error": UNAUTHORIZED}, {"WWW-Authenticate": "Bearer"})
                return
            self._reply(404, {"error": "POST /search with a JSON body"})

        do_PUT = do_DELETE = do_PATCH = do_GET

        def _reply(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
            body = json.dumps(payload).encode("ascii")  # escaped: any text, even a lone surrogate, goes out
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return  # one line per search on stderr is noise (and no request line reaches a log)

    return Handler


def serve(settings: Settings, port: int = 0, on_ready: Callable[[str], None] = print, watch: bool = True,
          background: bool = False, host: str = SERVE_HOST, team_token: str | None = None) -> None:
    """Open the index, warm up, announce, answer until SIGTERM or Ctrl-C; then withdraw. With
    `watch`, a folder source is followed (index/watch.py): searches switch to each update's index.
    `background` is the server a search starts in a repository (cli/project.py): it builds the
    index when there is none, brings it up to date with the folder before every search, and
    exits after 15 minutes (lifetime.idle_exit_s) without a request; a second one for the same index leaves at once.
    With `team_token` (codelens/tokens.team_token: required off loopback), every request must carry it
    or this run's token as a bearer token."""
    if team_token is None and not is_loopback(host):  # the CLI checks first; this is the last line of defence
        raise CodeLensError(f"serving on {host} needs a team token (codelens/tokens.py)")
    lock = ServeLock(settings.index_dir, settings.chroma_url)
    if not lock.acquire():
        if background:
            return  # another search started one a moment ago: it serves
        running = find_server(settings.index_dir, settings.chroma_url)
        where = f" on http://{running.host}:{running.port}" if running else " (it is still starting)"
        raise CodeLensError(f"{settings.index_dir} is already served by process "
                            f"{running.pid if running else holder_pid(settings.index_dir, settings.chroma_url)}"
                            f"{where}: searches use it; stop it first (codelens serve --stop)")
    try:
        _serve_locked(settings, port, on_ready, watch, background, host, team_token)
    finally:
        lock.release()


def _serve_locked(settings: Settings, port: int, on_ready: Callable[[str], None], watch: bool,
                  background: bool, host: str, team_token: str | None) -> None:
    from codelens.errors import ModelMismatch
    from codelens.models import normalize_model_id, tune_threads_for_search

    signal.signal(signal.SIGTERM, _stop)
    if background and settings.project is not None and not IndexLayout(settings.index_dir).is_index():
        from codelens.index.build import build_index

        on_ready(f"indexing {settings.project}")
        # answering as soon as the index is complete for searches: the watcher's catch-up adds the tests' vectors
        build_index(settings.project, settings.with_overrides(show_progress=False), finish_tests=not watch)
    tune_threads_for_search()
    models = ModelThread()
    searcher = models.call(Searcher, settings)
    models.call(searcher.warm_up)
    context = ContextOfSearcher(searcher)
    models.call(context.warm_up)  # the tokenizer and the name indexes: the first /context is warm
    idle: IdleTimer | None = None  # a background server's, set once the HTTP server exists

    def before_search() -> None:
        if idle is not None:
            idle.touch()
        if background and settings.project is not None:
            from codelens.cli.project import refresh_index

            refresh_index(settings, embedder=searcher.embedder)

    def requested_model_ok(model: str | None) -> None:
        if model and normalize_model_id(model) != searcher.model:
            raise ModelMismatch(searcher.model, model)

    token = secrets.token_hex(16)
    server_class = _Server6 if ":" in host else _Server
    server = server_class((host, port), _handler(searcher, token, requested_model_ok, models, before_search,
                                                 team_token, context))
    if background:
        idle = IdleTimer(idle_exit_s(settings.idle_exit_s), server.shutdown)
        idle.start()
    chroma_url = settings.chroma_url
    announcement = announcement_file(settings.index_dir, chroma_url)
    bound_port = server.server_address[1]
    _announce(announcement, {"port": bound_port, "token": token, "pid": os.getpid(), "host": connect_host(host),
                             "index_dir": str(Path(settings.index_dir).resolve()), "chroma_url": chroma_url})
    if not is_loopback(host):  # stderr: stdout's first line is the "serving" one scripts wait for
        print(f"warning: {SERVER_EXPOSED_WARNING.format(address=host)}", file=sys.stderr, flush=True)
    shown = f"[{host}]" if ":" in host else host
    on_ready(f"serving {settings.index_dir} on http://{shown}:{bound_port} "
             f"(model {searcher.model}{', team token required' if team_token else ''}); "
             f"`python -m codelens search` now uses it. Ctrl-C stops.")
    watcher = _start_watching(settings, on_ready) if watch else None
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        if watcher is not None:
            watcher.stop()
        server.server_close()
        models.close()
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
