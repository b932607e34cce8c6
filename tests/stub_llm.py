"""A real HTTP server on loopback that speaks the OpenAI chat completions API.

Replies are queued per test and requests are recorded; shared by the LLM, answer and app tests.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from codelens.answer.llm import LLMConfig


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
    times: int = 1  # sent to this many requests in a row (a 429 that persists)
    headers: tuple[tuple[str, str], ...] = ()  # extra response headers (Retry-After)


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
        """A client config for the stub; retries off unless a test turns them on (retry_s=...)."""
        return LLMConfig(**{"url": self.url, "model": "stub-model", "timeout_s": 5.0, "retry_s": 0.0, **overrides})

    def env(self) -> dict[str, str]:
        return {"CODELENS_LLM_URL": self.url, "CODELENS_LLM_MODEL": "stub-model", "CODELENS_LLM_TIMEOUT": "5"}

    def next_reply(self) -> Reply:
        if self.replies:
            reply = self.replies[0]
            if reply.times > 1:
                self.replies[0] = replace(reply, times=reply.times - 1)
            else:
                self.replies.popleft()
            return reply
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
                self._send(reply.status, b"{}" if reply.body is None else reply.body, reply.headers)
            elif streaming:
                self._stream(reply)
            else:
                self._send(200, json.dumps(completion(reply.content)).encode())

        def _send(self, status: int, body: bytes, headers: tuple[tuple[str, str], ...] = ()) -> None:
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
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


def completion(content: str) -> dict:
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
