"""The OpenAI-compatible client against a real HTTP server on loopback that speaks the chat API.

The stub server lives in tests/stub_llm.py.
"""

from __future__ import annotations

import email.utils
import json
import time

import pytest

from codelens.answer.llm import (
    DEFAULT_RETRY_S,
    HOW_TO_ENABLE,
    MAX_ATTEMPTS,
    ChatClient,
    LLMConfig,
    iter_sse_data,
    parse_completion,
    parse_stream_event,
    retry_after_s,
)
from codelens.errors import EXIT_LLM, LLMError
from tests.conftest import free_port
from tests.stub_llm import Reply, StubLLM, completion

MESSAGES = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]


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
    ({"CODELENS_LLM_URL": "http://127.0.0.1:1", "CODELENS_LLM_MODEL": "m", "CODELENS_LLM_RETRY_S": "-1"},
     "CODELENS_LLM_RETRY_S"),
])
def test_half_a_configuration_is_an_error_with_the_fix(env: dict, says: str) -> None:
    with pytest.raises(LLMError, match=says) as caught:
        LLMConfig.from_env(env)
    assert caught.value.exit_code == EXIT_LLM == 7


def test_config_from_env_and_endpoint_forms() -> None:
    config = LLMConfig.from_env({"CODELENS_LLM_URL": "http://127.0.0.1:11434/v1/", "CODELENS_LLM_MODEL": "qwen",
                                 "CODELENS_LLM_KEY": "sk-secret", "CODELENS_LLM_TIMEOUT": "7.5",
                                 "CODELENS_LLM_TEMPERATURE": "none", "CODELENS_LLM_CONTEXT_TOKENS": "900"})
    assert config == LLMConfig("http://127.0.0.1:11434/v1/", "qwen", "sk-secret", 7.5, None, 900, DEFAULT_RETRY_S)
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


# ----------------------------------------------------------------- retries


class Waits(list):
    """Stands in for time.sleep: records each wait instead of sleeping."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.mark.parametrize("status", [429, 503])
def test_rate_limit_and_unavailable_are_retried_with_exponential_backoff(stub: StubLLM, status: int) -> None:
    stub.queue(Reply(status=status, body=b'{"error": "busy"}', times=3), Reply("answer after the storm"))
    waits = Waits()
    assert ChatClient(stub.config(retry_s=30), sleep=waits).complete(MESSAGES) == "answer after the storm"
    assert waits == [1.0, 2.0, 4.0]
    assert len(stub.requests) == 4 and stub.requests[0] == stub.requests[3]


def test_a_streamed_answer_is_retried_before_it_starts(stub: StubLLM) -> None:
    stub.queue(Reply(status=503, body=b"warming up"), Reply("streamed after a retry"))
    deltas: list[str] = []
    text = ChatClient(stub.config(retry_s=30), sleep=Waits()).complete(MESSAGES, on_token=deltas.append)
    assert text == "".join(deltas) == "streamed after a retry"


def test_retry_after_seconds_is_honoured(stub: StubLLM) -> None:
    stub.queue(Reply(status=429, body=b"{}", headers=(("Retry-After", "7"),)), Reply("ok"))
    waits = Waits()
    assert ChatClient(stub.config(retry_s=30), sleep=waits).complete(MESSAGES) == "ok"
    assert waits == [7.0]


def test_retry_after_as_an_http_date_is_honoured(stub: StubLLM) -> None:
    when = email.utils.formatdate(time.time() + 5, usegmt=True)
    stub.queue(Reply(status=503, body=b"{}", headers=(("Retry-After", when),)), Reply("ok"))
    waits = Waits()
    assert ChatClient(stub.config(retry_s=30), sleep=waits).complete(MESSAGES) == "ok"
    assert len(waits) == 1 and 3.0 <= waits[0] <= 5.0  # the date has whole seconds


def test_retry_after_parsing() -> None:
    now = 1_000_000.0
    assert retry_after_s("120", now) == 120.0
    assert retry_after_s(email.utils.formatdate(now + 30, usegmt=True), now) == 30.0
    assert retry_after_s(email.utils.formatdate(now - 30, usegmt=True), now) == 0.0
    assert retry_after_s(None) is None and retry_after_s("soon") is None and retry_after_s("") is None


def test_retries_stop_at_the_time_budget_with_the_servers_words(stub: StubLLM) -> None:
    stub.queue(Reply(status=429, body=json.dumps({"error": {"message": "slow down"}}).encode(), times=50))
    waits = Waits()
    with pytest.raises(LLMError, match=r"rate limiting .*slow down.*gave up after 3 attempts"):
        ChatClient(stub.config(retry_s=5), sleep=waits).complete(MESSAGES)
    assert waits == [1.0, 2.0] and sum(waits) <= 5  # 4 more would pass the budget
    assert len(stub.requests) == 3


def test_retries_stop_after_the_last_attempt(stub: StubLLM) -> None:
    stub.queue(Reply(status=500, body=b"{}", times=50))
    waits = Waits()
    with pytest.raises(LLMError, match=f"HTTP 500.*gave up after {MAX_ATTEMPTS} attempts"):
        ChatClient(stub.config(retry_s=1000), sleep=waits).complete(MESSAGES)
    assert len(stub.requests) == MAX_ATTEMPTS and len(waits) == MAX_ATTEMPTS - 1


def test_a_retry_after_beyond_the_budget_is_not_waited_for(stub: StubLLM) -> None:
    stub.queue(Reply(status=429, body=b"{}", headers=(("Retry-After", "3600"),)), Reply("never asked"))
    waits = Waits()
    with pytest.raises(LLMError, match=r"asked to wait 3600 s; CODELENS_LLM_RETRY_S=30 allows less"):
        ChatClient(stub.config(retry_s=30), sleep=waits).complete(MESSAGES)
    assert waits == [] and len(stub.requests) == 1


@pytest.mark.parametrize("status", [400, 401, 404])
def test_client_errors_are_not_retried(stub: StubLLM, status: int) -> None:
    stub.queue(Reply(status=status, body=b"{}"), Reply("never asked"))
    waits = Waits()
    with pytest.raises(LLMError, match=f"HTTP {status}"):
        ChatClient(stub.config(retry_s=30), sleep=waits).complete(MESSAGES)
    assert waits == [] and len(stub.requests) == 1


def test_the_retry_budget_comes_from_the_environment() -> None:
    base = {"CODELENS_LLM_URL": "http://127.0.0.1:1/v1", "CODELENS_LLM_MODEL": "m"}
    assert LLMConfig.from_env(base).retry_s == DEFAULT_RETRY_S
    assert LLMConfig.from_env({**base, "CODELENS_LLM_RETRY_S": "0"}).retry_s == 0.0


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
    assert parse_completion(json.dumps(completion("ok")).encode()) == "ok"


def test_loopback_endpoint_bypasses_the_environment_proxy(stub: StubLLM, monkeypatch: pytest.MonkeyPatch) -> None:
    dead_proxy = f"http://127.0.0.1:{free_port()}"
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.setenv(name, dead_proxy)
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    stub.queue(Reply("direct"))
    assert ChatClient(stub.config()).complete(MESSAGES) == "direct"
