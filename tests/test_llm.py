"""The OpenAI-compatible client against a real HTTP server on loopback that speaks the chat API.

`StubLLM` is shared with test_answer.py: replies are queued per test, requests are recorded.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from codelens.errors import EXIT_LLM, LLMError
from codelens.llm import (
    HOW_TO_ENABLE,
    ChatClient,
    LLMConfig,
    iter_sse_data,
    parse_completion,
    parse_stream_event,
)

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]


@dataclass(frozen=True)
class Reply:
    """One scripted answer of the stub."""

    content: str = "Hello from the stub."
    status: int = 200
    body: bytes | None = None  # sent as is instead of a completion (malformed JSON, error pages)
    stream: bool | None = None  # None: stream exactly when the request asks for it
    stream_events: tuple[str, ...] | None = None  # raw SSE data payloads instead of the content's
    delay_s: float = 0.0  # before the status line
    stall_after: int | None = None  # stream this many events, then hang until the test ends
    piece: int = 3  # characters per streamed delta


class StubLLM:
    """A ThreadingHTTPServer on 127.0.0.1, free port, POST /v1/chat/completions."""

    def __init__(self) -> None:
        self.replies: deque[Reply] = deque()
        self.requests: list[dict] = []
        self.headers: list[dict[str, str]] = []
        self.paths: list[str] = []
        self.release = threading.Event()  # ends every delay and stall at teardown
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def queue(self, *replies: Reply) -> StubLLM:
        self.replies.extend(replies)
        return self

    def config(self, **overrides: object) -> LLMConfig:
        return LLMConfig(**{"url": self.url, "model": "stub-model", "timeout_s": 5.0, **overrides})

    def env(self) -> dict[str, str]:
        return {"CODELENS_LLM_URL": self.url, "CODELENS_LLM_MODEL": "stub-model", "CODELENS_LLM_TIMEOUT": "5"}

    def next_reply(self) -> Reply:
        if self.replies:
            return self.replies.popleft()
        return Reply(status=500, body=b'{"error": {"message": "the stub has no reply queued"}}')

    def __enter__(self) -> StubLLM:
        self.thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def _handler(stub: StubLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            stub.paths.append(self.path)
            stub.headers.append(dict(self.headers))
            request = json.loads(body)
            stub.requests.append(request)
            reply = stub.next_reply()
            if reply.delay_s:
                stub.release.wait(reply.delay_s)
            streaming = request.get("stream") if reply.stream is None else reply.stream
            if reply.body is not None or reply.status != 200:
                self._send(reply.status, b"{}" if reply.body is None else reply.body)
            elif streaming:
                self._stream(reply)
            else:
                self._send(200, json.dumps(_completion(reply.content)).encode())

        def _send(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def _stream(self, reply: Reply) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()  # HTTP/1.0: the body ends when the connection closes
            events = _events(reply.content, reply.piece) if reply.stream_events is None else reply.stream_events
            for number, payload in enumerate(events):
                if reply.stall_after is not None and number == reply.stall_after:
                    stub.release.wait(30)
                    return
                self.wfile.write(f"data: {payload}\n\n".encode())
                self.wfile.flush()

    return Handler


def _completion(content: str) -> dict:
    return {"id": "chatcmpl-stub", "object": "chat.completion", "model": "stub-model",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": "stop"}]}


def _events(content: str, piece: int) -> list[str]:
    """What OpenAI and Ollama send: a role chunk, content deltas, a finish chunk, [DONE]."""
    def chunk(delta: dict, finish: str | None = None) -> str:
        return json.dumps({"id": "chatcmpl-stub", "object": "chat.completion.chunk",
                           "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    deltas = [chunk({"content": content[i : i + piece]}) for i in range(0, len(content), piece)]
    return [chunk({"role": "assistant", "content": ""}), *deltas, chunk({}, "stop"), "[DONE]"]


@pytest.fixture()
def stub() -> Iterator[StubLLM]:
    with StubLLM() as server:
        yield server


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# ----------------------------------------------------------------- configuration


def test_off_unless_configured() -> None:
    assert LLMConfig.from_env({}) is None
    assert LLMConfig.from_env({"CODELENS_LLM_KEY": "sk-x"}) is None
    assert "CODELENS_LLM_URL" in HOW_TO_ENABLE and "CODELENS_LLM_MODEL" in HOW_TO_ENABLE


@pytest.mark.parametrize(("env", "says"), [
    ({"CODELENS_LLM_URL": "http://127.0.0.1:1/v1"}, "CODELENS_LLM_MODEL"),
    ({"CODELENS_LLM_MODEL": "m"}, "CODELENS_LLM_URL"),
    ({"CODELENS_LLM_URL": "127.0.0.1:11434", "CODELENS_LLM_MODEL": "m"}, r"not an http\(s\) URL"),
    ({"CODELENS_LLM_URL": "http://127.0.0.1:1", "CODELENS_LLM_MODEL": "m", "CODELENS_LLM_TIMEOUT": "0"},
     "CODELENS_LLM_TIMEOUT"),
    ({"CODELENS_LLM_URL": "http://127.0.0.1:1", "CODELENS_LLM_MODEL": "m", "CODELENS_LLM_TEMPERATURE": "hot"},
     "CODELENS_LLM_TEMPERATURE"),
])
def test_half_a_configuration_is_an_error_with_the_fix(env: dict, says: str) -> None:
    with pytest.raises(LLMError, match=says) as caught:
        LLMConfig.from_env(env)
    assert caught.value.exit_code == EXIT_LLM == 7


def test_config_from_env_and_endpoint_forms() -> None:
    config = LLMConfig.from_env({"CODELENS_LLM_URL": "http://127.0.0.1:11434/v1/", "CODELENS_LLM_MODEL": "qwen",
                                 "CODELENS_LLM_KEY": "sk-secret", "CODELENS_LLM_TIMEOUT": "7.5",
                                 "CODELENS_LLM_TEMPERATURE": "none", "CODELENS_LLM_CONTEXT_TOKENS": "900"})
    assert config == LLMConfig("http://127.0.0.1:11434/v1/", "qwen", "sk-secret", 7.5, None, 900)
    assert config.endpoint == "http://127.0.0.1:11434/v1/chat/completions"
    assert "sk-secret" not in repr(config)
    assert LLMConfig("http://127.0.0.1:11434", "m").endpoint == "http://127.0.0.1:11434/v1/chat/completions"
    full = "http://127.0.0.1:8080/openai/chat/completions"
    assert LLMConfig(full, "m").endpoint == full


# ----------------------------------------------------------------- replies


def test_non_streaming_completion_and_request(stub: StubLLM) -> None:
    stub.queue(Reply("Ответ: `login`."))
    assert ChatClient(stub.config()).complete(MESSAGES) == "Ответ: `login`."
    assert stub.paths == ["/v1/chat/completions"]
    assert stub.requests[0] == {"model": "stub-model", "messages": MESSAGES, "stream": False, "temperature": 0.0}
    assert "Authorization" not in stub.headers[0]


def test_key_is_sent_as_bearer_and_temperature_can_be_left_out(stub: StubLLM) -> None:
    stub.queue(Reply())
    ChatClient(stub.config(key="sk-test", temperature=None)).complete(MESSAGES)
    assert stub.headers[0]["Authorization"] == "Bearer sk-test"
    assert "temperature" not in stub.requests[0]


def test_streaming_passes_each_delta_as_it_arrives(stub: StubLLM) -> None:
    content = "Пароль хешируется в `hash_password` (pkg/auth.py:7-9)."
    stub.queue(Reply(content, piece=4))
    deltas: list[str] = []
    assert ChatClient(stub.config()).complete(MESSAGES, on_token=deltas.append) == content
    assert stub.requests[0]["stream"] is True
    assert len(deltas) == -(-len(content) // 4) and "".join(deltas) == content


def test_stream_without_done_and_with_usage_only_chunk_still_ends(stub: StubLLM) -> None:
    events = (json.dumps({"choices": [{"delta": {"content": "ok"}}]}), json.dumps({"choices": [], "usage": {}}))
    stub.queue(Reply(stream_events=events))
    assert ChatClient(stub.config()).complete(MESSAGES, on_token=lambda _: None) == "ok"


def test_server_that_ignores_stream_still_answers_through_on_token(stub: StubLLM) -> None:
    stub.queue(Reply("whole answer at once", stream=False))
    deltas: list[str] = []
    assert ChatClient(stub.config()).complete(MESSAGES, on_token=deltas.append) == "whole answer at once"
    assert deltas == ["whole answer at once"]


def test_sse_parsing_follows_the_event_stream_format() -> None:
    raw = [b": keep-alive comment\n", b"data: first\r\n", b"data: second line\n", b"\n",
           b"event: message\n", b"data:{\"x\": 1}\n", b"\n", b"data: tail without blank line\n"]
    assert list(iter_sse_data(raw)) == ["first\nsecond line", '{"x": 1}', "tail without blank line"]
    assert parse_stream_event("[DONE]") is None
    assert parse_stream_event('{"choices": [{"delta": {"role": "assistant"}}]}') == ""
    assert parse_stream_event('{"choices": [{"delta": {"content": "да"}}]}') == "да"


# ----------------------------------------------------------------- errors


@pytest.mark.parametrize(("status", "says"), [
    (500, "HTTP 500: CUDA out of memory.*check the server's log"),
    (401, "HTTP 401.*CODELENS_LLM_KEY"),
    (404, "HTTP 404.*/v1.*CODELENS_LLM_MODEL='stub-model'"),
    (429, "rate limiting"),
    (400, "HTTP 400.*CODELENS_LLM_TEMPERATURE=none"),
])
def test_http_errors_carry_the_servers_words_and_the_fix(stub: StubLLM, status: int, says: str) -> None:
    detail = "CUDA out of memory" if status == 500 else "nope"
    stub.queue(Reply(status=status, body=json.dumps({"error": {"message": detail}}).encode()))
    with pytest.raises(LLMError, match=says):
        ChatClient(stub.config()).complete(MESSAGES)


def test_plain_text_error_page_is_quoted(stub: StubLLM) -> None:
    stub.queue(Reply(status=502, body=b"<html>Bad Gateway</html>"))
    with pytest.raises(LLMError, match="HTTP 502: <html>Bad Gateway</html>"):
        ChatClient(stub.config()).complete(MESSAGES, on_token=lambda _: None)


@pytest.mark.parametrize(("body", "says"), [
    (b"{not json", "not JSON"),
    (b"", "not JSON"),
    (b'{"id": "x", "object": "chat.completion"}', "no choices"),
    (b'{"choices": [{"message": {"role": "assistant", "content": null}}]}', "no text content"),
    (b'{"error": "model is loading"}', "model is loading"),
])
def test_malformed_replies_are_clear_errors(stub: StubLLM, body: bytes, says: str) -> None:
    stub.queue(Reply(body=body))
    with pytest.raises(LLMError, match=says):
        ChatClient(stub.config()).complete(MESSAGES)


@pytest.mark.parametrize(("events", "says"), [
    (('{"choices": [{"delta": {"content": "ok"}}]}', "{broken"), "streamed malformed JSON"),
    (('{"error": {"message": "context length exceeded"}}',), "mid-stream: context length exceeded"),
    (("[1, 2]",), "not a chat chunk"),
    ((), "without sending anything"),
])
def test_malformed_streams_are_clear_errors(stub: StubLLM, events: tuple[str, ...], says: str) -> None:
    stub.queue(Reply(stream_events=events))
    with pytest.raises(LLMError, match=says):
        ChatClient(stub.config()).complete(MESSAGES, on_token=lambda _: None)


def test_timeout_before_the_reply(stub: StubLLM) -> None:
    stub.queue(Reply(delay_s=10))
    started = time.monotonic()
    with pytest.raises(LLMError, match=r"did not answer within 0\.3 s - raise CODELENS_LLM_TIMEOUT"):
        ChatClient(stub.config(timeout_s=0.3)).complete(MESSAGES)
    assert time.monotonic() - started < 3


def test_timeout_mid_stream_keeps_what_was_shown(stub: StubLLM) -> None:
    stub.queue(Reply("a long answer that stalls", stall_after=3))
    deltas: list[str] = []
    with pytest.raises(LLMError, match=r"stopped sending within 0\.3 s"):
        ChatClient(stub.config(timeout_s=0.3)).complete(MESSAGES, on_token=deltas.append)
    assert "".join(deltas) == "a long"  # the role chunk, then two 3-character deltas


def test_unreachable_endpoint() -> None:
    config = LLMConfig(f"http://127.0.0.1:{free_port()}/v1", "m", timeout_s=2)
    with pytest.raises(LLMError, match=r"cannot reach the LLM endpoint .* is the server running"):
        ChatClient(config).complete(MESSAGES)


def test_parse_completion_reads_the_openai_shape() -> None:
    assert parse_completion(json.dumps(_completion("ok")).encode()) == "ok"


def test_loopback_endpoint_bypasses_the_environment_proxy(stub: StubLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    dead_proxy = f"http://127.0.0.1:{free_port()}"
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.setenv(name, dead_proxy)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    stub.queue(Reply("direct"))
    assert ChatClient(stub.config()).complete(MESSAGES) == "direct"
