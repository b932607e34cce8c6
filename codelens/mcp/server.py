"""`python -m codelens mcp`: CodeLens inside coding agents and editors, over the Model
Context Protocol (official `mcp` SDK; stdio by default, streamable HTTP with --http PORT).

Every call that touches the index or the models runs on one dedicated thread, in arrival
order: the searcher is not built for concurrent use, and one long-lived thread keeps each
OpenMP runtime's thread pool warm. The models load on that thread as soon as the server
starts, so a tool call that comes early waits for the warm-up and every later call is a
warm search. Only `ask`'s wait for the LLM runs elsewhere, so searches go on meanwhile.

Off loopback (a team's server) every HTTP request must carry the team token as a bearer token
(codelens/tokens.py). The SDK's own resource-server auth does the checking: `TeamToken` is its
TokenVerifier for one shared token, and AuthSettings without a resource URL or an OAuth provider
advertises no authorization server; a request without the token gets the SDK's 401 before the
session manager, the DNS-rebinding check or any tool sees it.

Tool failures the user can fix (empty query, unknown chunk id, no index yet) come back as
MCP tool errors whose message says what to do; the server keeps serving.
"""

from __future__ import annotations

import sys
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, Any, Literal, TypeVar

import anyio.to_thread
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from codelens.answer.llm import ChatClient, LLMConfig
from codelens.answer.task_context import DEFAULT_BUDGET, MAX_BUDGET, MIN_BUDGET
from codelens.answer.token_count import DEFAULT_TOKENIZER
from codelens.errors import CodeLensError, LLMError
from codelens.exposure import SERVER_EXPOSED_WARNING, is_loopback
from codelens.graph.codemap import DEFAULT_MAP_CHARS
from codelens.mcp.tools import MAX_ASK_K, CodeLensTools, ServedIndex, ToolOutput, write_answer
from codelens.models import tune_threads_for_search
from codelens.search.limits import MAX_K
from codelens.serve.worker import ModelThread
from codelens.settings import Settings
from codelens.tokens import same_token

SERVER_NAME = "codelens"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
INSTRUCTIONS = """CodeLens searches one indexed codebase (Python, TypeScript, Go, Java...) by meaning,
in Russian or English.
Start with `search` (a question in words, or identifiers); read a whole hit with `get_chunk`;
follow the static code graph with `callers`, `callees` and `deps`; get an overview of an unknown
codebase with `code_map`; `index_status` says what is indexed. Chunk ids look like
`path/to/file.py::Class.method` and are accepted wherever a target is asked for; docs and
configuration are searched too (`README.md::How to run`, `docker-compose.yaml::services.db`),
the code graph is Python only."""

Kind = Literal["function", "method", "class", "module", "doc", "config", "text"]  # chunk.KINDS
Target = Annotated[str, Field(description="a chunk id from search (`pkg/auth.py::login`), a qualified name "
                                          "(`UserRepository.authenticate`), a plain name (`login`), "
                                          "a dotted name (`pkg.auth.login`) or a file path (then: imports)")]
IncludeTests = Annotated[bool, Field(description="also list test code")]
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
T = TypeVar("T")


class ToolCalls:
    """Runs tool bodies on the model thread and turns CodeLensErrors into MCP tool errors."""

    def __init__(self, tools: CodeLensTools) -> None:
        self.tools = tools
        self.thread = ModelThread()
        self._warm_up: Future[None] | None = None

    def start_warm_up(self) -> None:
        """Queue the warm-up once, first in line: early calls then wait for it, never race it."""
        if self._warm_up is None:
            self._warm_up = self.thread.submit(self._warm)

    def _warm(self) -> None:
        started = time.perf_counter()
        try:
            self.tools.index.warm_up()
        except CodeLensError as exc:  # no index yet: every tool says what to run, the server stays up
            log(f"not warmed up: {exc}")
            return
        stats = self.tools.index.searcher.stats
        log(f"warm in {time.perf_counter() - started:.1f} s: {stats.total_chunks} chunks of {stats.source}")

    async def compute(self, fn: Callable[..., T], *args: Any) -> T:
        try:
            return await self.thread.run(fn, *args)
        except CodeLensError as exc:
            raise ToolError(str(exc)) from exc

    async def run(self, fn: Callable[..., ToolOutput], *args: Any) -> CallToolResult:
        return tool_result(await self.compute(fn, *args))


@dataclass(frozen=True)
class TeamToken:
    """The SDK's TokenVerifier (mcp.server.auth.provider) for one shared team token."""

    token: str

    async def verify_token(self, token: str) -> AccessToken | None:
        if not same_token(token, self.token):
            return None
        # a placeholder, not the token: the SDK keeps this record in each request's scope
        return AccessToken(token="team-token", client_id="codelens-team", scopes=[])


def team_auth() -> AuthSettings:
    """Resource-server settings with nothing to advertise: issuer_url is a required field, but the SDK
    reads it only for an OAuth provider's routes or resource metadata, and neither is set here."""
    return AuthSettings(issuer_url="http://localhost", resource_server_url=None)


def tool_result(output: ToolOutput) -> CallToolResult:
    """Text the model reads, plus the same facts as structured content for clients that parse."""
    return CallToolResult(content=[TextContent(type="text", text=output.text)], structured_content=output.data)


def log(message: str) -> None:
    """stderr only: on stdio, stdout carries the protocol."""
    print(f"codelens mcp: {message}", file=sys.stderr, flush=True)


def build_server(settings: Settings, *, allow_reindex: bool = False, watch: bool = True,
                 team_token: str | None = None) -> MCPServer:
    """The MCP server over the index settings name; the index may be missing at start. With
    `watch`, the folder the index was built from is followed (index/watch.py). With `team_token`,
    its HTTP transport answers only requests that carry it as a bearer token."""
    calls = ToolCalls(CodeLensTools(ServedIndex(settings)))
    llm_config, llm_problem = _llm_config()
    ask_enabled = llm_config is not None

    @asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[dict]:
        calls.start_warm_up()  # here, not before: on stdio the SDK has moved stray stdout to stderr by now
        watcher = _start_watching(settings) if watch else None
        try:
            yield {}
        finally:
            if watcher is not None:
                watcher.stop()
            calls.thread.close()

    auth = {} if team_token is None else {"token_verifier": TeamToken(team_token), "auth": team_auth()}
    server = MCPServer(SERVER_NAME, title="CodeLens", instructions=INSTRUCTIONS, lifespan=lifespan,
                       log_level="WARNING", **auth)
    _add_search_tools(server, calls)
    _add_graph_tools(server, calls)
    _add_context_tools(server, calls)

    @server.tool(annotations=READ_ONLY)
    async def index_status() -> CallToolResult:
        """What is indexed: the source, files, chunks per kind, the embedding model, when it was indexed,
        dense-vector coverage (e5, MiniLM, the Russian->English word bridge), the code graph's size,
        whether `ask` and `reindex` are on, and an index run under way (its stage, share done, time left)."""
        return await calls.run(calls.tools.index_status, ask_enabled, allow_reindex)

    if llm_config is not None or llm_problem:
        _add_ask_tool(server, calls, llm_config, llm_problem)
    if allow_reindex:
        _add_reindex_tool(server, calls)
    return server


def _start_watching(settings: Settings):
    from codelens.index.watch import watcher_for

    watcher, line = watcher_for(settings)
    log(line)
    if watcher is not None:
        watcher.start()
    return watcher


def _llm_config() -> tuple[LLMConfig | None, str]:
    """The answer endpoint; a half-done configuration is reported by `ask` itself, not by a crash."""
    try:
        return LLMConfig.from_env(), ""
    except LLMError as exc:
        return None, str(exc)


def _add_search_tools(server: MCPServer, calls: ToolCalls) -> None:
    @server.tool(annotations=READ_ONLY)
    async def search(
        query: Annotated[str, Field(description="a question in Russian or English ('where is the password "
                                                "hashed?', 'как создаётся JWT-токен'), or identifiers")],
        k: Annotated[int, Field(ge=1, le=MAX_K, description="how many hits")] = 5,
        kind: Annotated[Kind | list[Kind] | None, Field(description="only these kinds of chunk: code (function, "
                                                        "method, class, module), or doc / config / text "
                                                        "(documents, configuration, build files)")] = None,
        path: Annotated[str, Field(description="only files whose path starts with this, e.g. `app/api/`")] = "",
        include_tests: Annotated[bool, Field(description="also search test code")] = False,
        repo: Annotated[str | list[str] | None, Field(description="only these repositories of a workspace index "
                                                      "(index_status lists them)")] = None,
        lang: Annotated[str | list[str] | None, Field(description="only these languages: python, typescript, go, "
                                                      "java... or doc / config / text (index_status counts "
                                                      "each)")] = None,
    ) -> CallToolResult:
        """Semantic search over the indexed codebase (every language): the functions, methods, classes and module
        blocks (and the sections of its docs, keys of its configuration, targets of its build files)
        that best answer the query, best first, each with its chunk id, file path, line range,
        kind, language, relevance (0-100%; null with matched "keywords" for a chunk without a
        vector yet) and code with line numbers. Pass a chunk id on to `get_chunk`,
        `callers`, `callees` or `deps`."""
        kinds = (kind,) if isinstance(kind, str) else tuple(kind or ())
        repos = (repo,) if isinstance(repo, str) else tuple(repo or ())
        languages = (lang,) if isinstance(lang, str) else tuple(lang or ())
        return await calls.run(calls.tools.search, query, k, kinds, path, include_tests, repos, languages)

    @server.tool(annotations=READ_ONLY)
    async def get_chunk(
        chunk_id: Annotated[str, Field(description="`path::qualified.name`, as search returns it, "
                                                   "e.g. `app/security.py::verify_password`")],
    ) -> CallToolResult:
        """The whole code of one chunk with its file line numbers, and what calls it and what it calls."""
        return await calls.run(calls.tools.get_chunk, chunk_id)


def _add_graph_tools(server: MCPServer, calls: ToolCalls) -> None:
    @server.tool(annotations=READ_ONLY)
    async def callers(target: Target, include_tests: IncludeTests = False) -> CallToolResult:
        """Who calls a function, method or class (where a class is instantiated; for a file: who imports
        it), from the static code graph, with the line of each call."""
        return await calls.run(calls.tools.callers, target, include_tests)

    @server.tool(annotations=READ_ONLY)
    async def callees(target: Target, include_tests: IncludeTests = False) -> CallToolResult:
        """What a function, method or class calls (for a file: what it imports), in call order; library
        and builtin calls are listed apart as external."""
        return await calls.run(calls.tools.callees, target, include_tests)

    @server.tool(annotations=READ_ONLY)
    async def deps(
        target: Target,
        depth: Annotated[int, Field(ge=1, le=6, description="how many steps each way")] = 2,
        include_tests: IncludeTests = False,
        include_external: Annotated[bool, Field(description="also list library and builtin calls")] = False,
    ) -> CallToolResult:
        """Transitive dependencies: upstream (callers of callers...) and downstream (callees of callees...,
        base classes), each node at its shortest distance. For impact analysis before a change."""
        return await calls.run(calls.tools.deps, target, depth, include_tests, include_external)

    @server.tool(annotations=READ_ONLY)
    async def code_map(
        chars: Annotated[int, Field(ge=300, le=20_000, description="length budget in characters")]
        = DEFAULT_MAP_CHARS,
        repo: Annotated[str, Field(description="map one repository of a workspace index (index_status "
                                               "lists them); default: all of it")] = "",
    ) -> CallToolResult:
        """A compact map of the codebase: packages, modules, their main classes and functions (most
        used first) and the libraries it imports. A good first call in an unknown codebase."""
        return await calls.run(calls.tools.code_map, chars, repo)


def _add_context_tools(server: MCPServer, calls: ToolCalls) -> None:
    @server.tool(annotations=READ_ONLY)
    async def context(
        task: Annotated[str, Field(description="the task: an issue, a bug report or a change request, in words")],
        budget: Annotated[int, Field(ge=MIN_BUDGET, le=MAX_BUDGET, description="tokens the pieces may take in all "
                                                                               "(in `tokenizer`'s)")] = DEFAULT_BUDGET,
        path: Annotated[str, Field(description="seeds only from paths starting with this")] = "",
        include_tests: Annotated[bool, Field(description="seeds may be test code too")] = False,
        repo: Annotated[str | list[str] | None, Field(description="seeds only from these repositories of a "
                                                      "workspace index")] = None,
        tokenizer: Annotated[Literal["o200k", "cl100k", "e5"], Field(
            description="what the budget is counted in: o200k (GPT-4o and later), cl100k (GPT-4), e5 (the "
                        "search model's own)")] = DEFAULT_TOKENIZER,
        line_numbers: Annotated[bool, Field(description="number every line of code (else each piece's header "
                                                        "gives its path:start-end)")] = False,
    ) -> CallToolResult:
        """The code a task needs, packed to a token budget: the search's seeds, then what they call (and the
        classes they pass), the exceptions they raise, their callers, the tests that call them, the
        configuration they read and the documents that name them; nearest first, each piece once with its
        path:start-end, far ones as signatures, what is called before what calls it."""
        repos = (repo,) if isinstance(repo, str) else tuple(repo or ())
        return await calls.run(calls.tools.context, task, budget, path, include_tests, repos, tokenizer,
                               line_numbers)

    @server.tool(annotations=READ_ONLY)
    async def impact(
        diff: Annotated[str, Field(description="a unified diff (`git diff` output); empty: git's diff of the "
                                               "indexed repository")] = "",
        revision: Annotated[str, Field(description="with no diff: diff the working tree against this revision, "
                                                   "or A..B")] = "",
        staged: Annotated[bool, Field(description="with no diff: the staged change")] = False,
        depth: Annotated[int, Field(ge=1, le=10, description="how many steps of callers")] = 2,
        repo: Annotated[str, Field(description="the repository of a workspace index the change is in")] = "",
    ) -> CallToolResult:
        """What a change touches: the definitions it adds, changes or removes, their callers to `depth`, the
        tests that reach them through the code graph (pytest ids, a list to run) and the documents and
        configuration that name them."""
        return await calls.run(calls.tools.impact, diff, revision, staged, depth, repo)


def _add_ask_tool(server: MCPServer, calls: ToolCalls, config: LLMConfig | None, problem: str) -> None:
    @server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=True))
    async def ask(
        question: Annotated[str, Field(description="a question in Russian or English")],
        k: Annotated[int, Field(ge=1, le=MAX_ASK_K, description="search hits to answer from")] = 5,
    ) -> CallToolResult:
        """Answer a question in words from the indexed code only, written by the configured LLM. Every
        path:line and symbol the answer cites is checked against the index (unverified ones are marked);
        the search hits it used are listed. Takes seconds: prefer `search` when code is what you need."""
        if config is None:
            raise ToolError(problem)
        material = await calls.compute(calls.tools.ask_material, question, k)
        try:
            output = await anyio.to_thread.run_sync(write_answer, material, ChatClient(config),
                                                    config.context_tokens)
        except CodeLensError as exc:
            raise ToolError(str(exc)) from exc
        return tool_result(output)


def _add_reindex_tool(server: MCPServer, calls: ToolCalls) -> None:
    @server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                                             open_world_hint=False))
    async def reindex(
        full: Annotated[bool, Field(description="rebuild from scratch instead of only what changed")] = False,
    ) -> CallToolResult:
        """Re-index the codebase this index was built from (the source recorded in the index; no other
        path can be given), then search the new index. Other tools wait while it runs."""
        return await calls.run(calls.tools.reindex, full)


def transport_security(host: str, allowed_hosts: tuple[str, ...] = ()) -> TransportSecuritySettings:
    """DNS-rebinding protection on every address: requests must name this server in their Host
    header (loopback names, the listening host, or one given with --allow-host), and a browser's
    Origin must be one of those. The SDK turns it on by itself only for loopback hosts."""
    names = [*LOOPBACK_HOSTS, *allowed_hosts]
    if host not in ("0.0.0.0", "::", ""):
        names.append(host)
    bracketed = [f"[{name}]" if ":" in name else name for name in dict.fromkeys(names)]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[pattern for name in bracketed for pattern in (name, f"{name}:*")],
        allowed_origins=[f"{scheme}://{name}{port}" for name in bracketed for scheme in ("http", "https")
                         for port in ("", ":*")])


def serve(settings: Settings, *, http_port: int | None = None, host: str = "127.0.0.1",
          allow_reindex: bool = False, allowed_hosts: tuple[str, ...] = (), watch: bool = True,
          team_token: str | None = None) -> int:
    """Run until the client goes away (stdio) or Ctrl-C (HTTP). Over HTTP off loopback, `team_token`
    is required (codelens/tokens.team_token makes it; the CLI has checked before the models load)."""
    if http_port is not None and team_token is None and not is_loopback(host):
        raise CodeLensError(f"serving MCP on {host} needs a team token (codelens/tokens.py)")
    tune_threads_for_search()
    server = build_server(settings, allow_reindex=allow_reindex, watch=watch,
                          team_token=team_token if http_port is not None else None)
    if http_port is None:
        server.run("stdio")
        return 0
    if host not in LOOPBACK_HOSTS:
        log(f"warning: {SERVER_EXPOSED_WARNING.format(address=host)}")
        if host in ("0.0.0.0", "::") and not allowed_hosts:
            log("warning: only requests naming a loopback host are accepted; add --allow-host NAME for the "
                "name or address clients use to reach this machine")
    log(f"serving {settings.index_dir} on http://{host}:{http_port}/mcp"
        + (" (team token required: Authorization: Bearer <token>)" if team_token else ""))
    server.run("streamable-http", host=host, port=http_port,
               transport_security=transport_security(host, allowed_hosts))
    return 0
