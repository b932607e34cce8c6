"""A chat client for any OpenAI-compatible endpoint (Ollama's /v1, llama.cpp, vLLM, hosted APIs).

Standard library only. Off unless configured: `LLMConfig.from_settings(settings)` (the llm_* rows
of settings.SETTING_ROWS) and `LLMConfig.from_env()` return None when neither CODELENS_LLM_URL nor
CODELENS_LLM_MODEL is set. The key (CODELENS_LLM_KEY) is a secret: read from the environment here,
never carried in Settings. Every failure is an `LLMError` whose message says what to change.
"""

from __future__ import annotations

import email.utils
import http.client
import ipaddress
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from codelens.errors import LLMError
from codelens.settings import Settings, environment_value

ENV_URL = "CODELENS_LLM_URL"
ENV_MODEL = "CODELENS_LLM_MODEL"
ENV_KEY = "CODELENS_LLM_KEY"
ENV_TIMEOUT = "CODELENS_LLM_TIMEOUT"
ENV_TEMPERATURE = "CODELENS_LLM_TEMPERATURE"
ENV_CONTEXT_TOKENS = "CODELENS_LLM_CONTEXT_TOKENS"
ENV_RETRY = "CODELENS_LLM_RETRY_S"
# The Settings fields of the endpoint's configuration (settings.SETTING_ROWS: the variables above).
LLM_SETTINGS = ("llm_url", "llm_model", "llm_timeout", "llm_temperature", "llm_context_tokens", "llm_retry_s")

# Seconds without a byte from the server. A non-streaming reply sends nothing until the whole
# answer is written, so this has to cover a slow local model's full generation.
DEFAULT_TIMEOUT_S = 120.0
# Context sent with each question. Leaves room for the prompt and the answer inside Ollama's
# default 4096-token window; raise it for hosted models.
DEFAULT_CONTEXT_TOKENS = 2500
_DETAIL_CHARS = 300
# A 429 or 5xx is asked again after 1, 2, 4, 8 s (or what the server's Retry-After says), at most
# this many seconds of waiting in all: a rate limit or a model still loading usually clears in that.
DEFAULT_RETRY_S = 30.0
RETRY_FIRST_WAIT_S = 1.0
MAX_ATTEMPTS = 5

HOW_TO_ENABLE = f"""To turn answers in words on, point CodeLens at an OpenAI-compatible chat endpoint:
  export {ENV_URL}=http://localhost:11434/v1      # Ollama; or your provider's /v1 URL
  export {ENV_MODEL}=qwen2.5-coder:7b             # a model that endpoint serves
  export {ENV_KEY}=...                            # only for hosted APIs
Optional: {ENV_TIMEOUT} (seconds, default {DEFAULT_TIMEOUT_S:.0f}), \
{ENV_CONTEXT_TOKENS} (default {DEFAULT_CONTEXT_TOKENS}),
{ENV_TEMPERATURE} (default 0; "none" for models that reject it),
{ENV_RETRY} (seconds of waiting to retry a 429 or 5xx, default {DEFAULT_RETRY_S:.0f}; 0: no retry)."""

Message = Mapping[str, str]  # {"role": "system" | "user" | "assistant", "content": ...}
TokenCallback = Callable[[str], None]
_Number = TypeVar("_Number", int, float)


@dataclass(frozen=True)
class LLMConfig:
    url: str  # the API base (".../v1") or the full ".../chat/completions" endpoint
    model: str
    key: str = field(default="", repr=False)
    timeout_s: float = DEFAULT_TIMEOUT_S
    temperature: float | None = 0.0  # None: not sent (some hosted models accept only their default)
    context_tokens: int = DEFAULT_CONTEXT_TOKENS
    retry_s: float = DEFAULT_RETRY_S  # the most seconds spent waiting to retry a 429 or 5xx

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> LLMConfig | None:
        """from_settings with the llm_* settings read from the environment alone."""
        values = {name: environment_value(name, environ) or "" for name in LLM_SETTINGS}
        return cls.from_settings(Settings(**values), environ)

    @classmethod
    def from_settings(cls, settings: Settings, environ: Mapping[str, str] | None = None) -> LLMConfig | None:
        """The endpoint `settings` configure, its key from the environment; None when answers are
        off; half a configuration is an error."""
        url, model = settings.llm_url.strip(), settings.llm_model.strip()
        if not url and not model:
            return None
        if not url:
            raise LLMError(f"{ENV_MODEL} is set but {ENV_URL} is not - set {ENV_URL}=http://localhost:11434/v1 "
                           "(Ollama) or your provider's /v1 URL")
        if not model:
            raise LLMError(f"{ENV_URL} is set but {ENV_MODEL} is not - set it to a model the endpoint serves, "
                           f"e.g. {ENV_MODEL}=qwen2.5-coder:7b")
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise LLMError(f"{ENV_URL}={url!r} is not an http(s) URL - e.g. http://localhost:11434/v1")
        env = os.environ if environ is None else environ  # the key: a secret (settings.py's exceptions)
        return cls(
            url=url, model=model, key=env.get(ENV_KEY, "").strip(),
            timeout_s=_positive(settings.llm_timeout, ENV_TIMEOUT, DEFAULT_TIMEOUT_S, float),
            temperature=_temperature(settings.llm_temperature),
            context_tokens=_positive(settings.llm_context_tokens, ENV_CONTEXT_TOKENS, DEFAULT_CONTEXT_TOKENS, int),
            retry_s=_retry_budget(settings.llm_retry_s),
        )

    @property
    def endpoint(self) -> str:
        """`http://host:11434` and `.../v1` both mean `.../v1/chat/completions`."""
        base = self.url.rstrip("/")
        if base.endswith("/chat/completions"):
            return base
        if not urllib.parse.urlsplit(base).path:
            base += "/v1"
        return base + "/chat/completions"


def _positive(raw: str, name: str, default: _Number, kind: Callable[[str], _Number]) -> _Number:
    raw = raw.strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        value = 0
    if value <= 0:
        raise LLMError(f"{name}={raw!r} is not a positive number - unset it for the default {default}")
    return value


def _temperature(raw: str) -> float | None:
    raw = raw.strip().lower()
    if not raw:
        return 0.0
    if raw == "none":
        return None
    try:
        return float(raw)
    except ValueError:
        raise LLMError(f"{ENV_TEMPERATURE}={raw!r} is not a number - use e.g. 0, 0.2 or none") from None


def _retry_budget(raw: str) -> float:
    raw = raw.strip()
    if not raw:
        return DEFAULT_RETRY_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value < float("inf"):
        raise LLMError(f"{ENV_RETRY}={raw!r} is not a number of seconds - use e.g. 30, or 0 for no retry")
    return value


def retry_after_s(header: str | None, now: float | None = None) -> float | None:
    """The wait a `Retry-After` header asks for: delay-seconds or an HTTP date (None when absent
    or unreadable; a date in the past is 0)."""
    if not header or not header.strip():
        return None
    value = header.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def is_retryable(status: int) -> bool:
    """Rate limited, or the server failed: worth asking again. Other 4xx are the request's fault."""
    return status == 429 or status >= 500


class ChatModel(Protocol):
    """What answering needs from a model: messages in, text out, deltas to on_token when given."""

    model: str

    def complete(self, messages: Sequence[Message], on_token: TokenCallback | None = None) -> str: ...


class ChatClient:
    """POST /chat/completions; streams (SSE) when on_token is given, else one JSON reply."""

    def __init__(self, config: LLMConfig, sleep: Callable[[float], None] = time.sleep) -> None:
        self.config = config
        self.model = config.model
        self._opener = _opener_for(config.endpoint)
        self._sleep = sleep

    def complete(self, messages: Sequence[Message], on_token: TokenCallback | None = None) -> str:
        stream = on_token is not None
        response = self._post(self._payload(messages, stream), stream)
        try:
            with response:
                if stream and response.headers.get_content_type() == "text/event-stream":
                    return read_stream(response, on_token)
                body = response.read()
        except TimeoutError:
            raise LLMError(self._timeout_message("stopped sending")) from None
        except (OSError, http.client.HTTPException) as exc:
            raise LLMError(f"the connection to {self.config.endpoint} broke mid-reply ({exc}) - retry") from exc
        if stream and body.lstrip().startswith(b"data:"):  # an event stream under another content type
            return read_stream(body.splitlines(keepends=True), on_token)
        text = parse_completion(body)
        if on_token is not None:  # the server ignored "stream": true
            on_token(text)
        return text

    def _payload(self, messages: Sequence[Message], stream: bool) -> bytes:
        payload: dict = {"model": self.config.model, "messages": [dict(m) for m in messages], "stream": stream}
        if self.config.temperature is not None:
            payload["temperature"] = self.config.temperature
        return json.dumps(payload, ensure_ascii=False).encode("utf-8")

    def _post(self, data: bytes, stream: bool) -> http.client.HTTPResponse:
        """The response to the request; a 429 or 5xx is retried with exponential backoff (or the
        server's Retry-After) while the retry budget lasts. Nothing is retried once a reply has
        begun, so a streamed answer is never shown twice."""
        waited = 0.0
        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                return self._open(data, stream)
            except urllib.error.HTTPError as exc:
                detail = _read_detail(exc)
                wait, why_not = self._retry_wait(exc, attempt, waited)
                if wait is None:
                    raise LLMError(http_error_message(exc.code, detail, self.config) + why_not) from None
            self._sleep(wait)
            waited += wait
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _retry_wait(self, error: urllib.error.HTTPError, attempt: int, waited: float) -> tuple[float | None, str]:
        """(seconds to wait before the next attempt, "") or (None, why the error is final)."""
        if not is_retryable(error.code):
            return None, ""
        tried = f" (gave up after {attempt} attempts)" if attempt > 1 else ""
        if attempt == MAX_ATTEMPTS:
            return None, tried
        asked = retry_after_s(error.headers.get("Retry-After") if error.headers else None)
        wait = RETRY_FIRST_WAIT_S * 2 ** (attempt - 1) if asked is None else asked
        if waited + wait <= self.config.retry_s:
            return wait, ""
        if asked is not None:
            return None, f" (it asked to wait {asked:g} s; {ENV_RETRY}={self.config.retry_s:g} allows less)"
        return None, tried

    def _open(self, data: bytes, stream: bool) -> http.client.HTTPResponse:
        """One request; every failure but an HTTP status becomes an LLMError here."""
        headers = {"Content-Type": "application/json",
                   "Accept": "text/event-stream" if stream else "application/json"}
        if self.config.key:
            headers["Authorization"] = f"Bearer {self.config.key}"
        request = urllib.request.Request(self.config.endpoint, data=data, headers=headers, method="POST")
        try:
            return self._opener.open(request, timeout=self.config.timeout_s)
        except urllib.error.HTTPError:
            raise
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise LLMError(self._timeout_message("did not answer")) from None
            raise LLMError(f"cannot reach the LLM endpoint {self.config.endpoint} ({exc.reason}) - "
                           f"is the server running? check {ENV_URL}") from None
        except TimeoutError:
            raise LLMError(self._timeout_message("did not answer")) from None
        except (OSError, http.client.HTTPException) as exc:
            raise LLMError(f"the LLM endpoint {self.config.endpoint} dropped the connection ({exc!r}) - "
                           f"is {ENV_URL} an OpenAI-compatible API?") from None

    def _timeout_message(self, what: str) -> str:
        return (f"the LLM endpoint {what} within {self.config.timeout_s:g} s - raise {ENV_TIMEOUT}, "
                "use a smaller model, or check that the server is not overloaded")


def _opener_for(endpoint: str) -> urllib.request.OpenerDirector:
    """A local model server is never reached through the environment's HTTP proxy."""
    host = urllib.parse.urlsplit(endpoint).hostname or ""
    if host == "localhost" or _is_loopback_ip(host):
        return urllib.request.build_opener(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener()


def _is_loopback_ip(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _read_detail(exc: urllib.error.HTTPError) -> str:
    try:
        return error_detail(exc.read(4096))
    except (OSError, http.client.HTTPException):
        return ""


def error_detail(body: bytes) -> str:
    """The server's own words from an error body: `{"error": {"message": ...}}`, `{"error": "..."}` or text."""
    text = body.decode("utf-8", errors="replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text[:_DETAIL_CHARS]
    error = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(error, dict):
        error = error.get("message") or error
    return str(error)[:_DETAIL_CHARS]


def http_error_message(status: int, detail: str, config: LLMConfig) -> str:
    said = f": {detail}" if detail else ""
    where = f"{config.endpoint} (HTTP {status}{said})"
    if status in (401, 403):
        return f"the LLM endpoint refused the request {where} - set {ENV_KEY} to a valid API key"
    if status == 404:
        return (f"not found at {where} - {ENV_URL} should be the API base ending in /v1, and "
                f"{ENV_MODEL}={config.model!r} a model the endpoint serves")
    if status == 429:
        return f"the LLM endpoint is rate limiting {where} - wait and ask again"
    if status >= 500:
        return f"the LLM endpoint failed {where} - check the server's log and ask again"
    return (f"the LLM endpoint rejected the request {where} - check {ENV_MODEL}; if it complains about "
            f"temperature, set {ENV_TEMPERATURE}=none")


def parse_completion(body: bytes) -> str:
    """`choices[0].message.content` of a non-streaming chat completion."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise LLMError(f"the LLM endpoint's reply is not JSON ({body[:120]!r}) - is {ENV_URL} an "
                       "OpenAI-compatible /v1 API?") from None
    if isinstance(data, dict) and data.get("error"):
        raise LLMError(f"the LLM endpoint reported an error: {error_detail(body)}")
    try:
        content = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise LLMError("the LLM endpoint's reply has no choices[0].message.content - is "
                       f"{ENV_URL} an OpenAI-compatible chat completions API?") from None
    if not isinstance(content, str):
        raise LLMError("the LLM endpoint's reply has no text content - the model may have refused or "
                       "called a tool; try another model")
    return content


def iter_sse_data(lines: Iterable[bytes]) -> Iterator[str]:
    """The `data:` payload of each server-sent event (multi-line data joined with newlines)."""
    data: list[str] = []
    for raw in lines:
        try:
            line = raw.decode("utf-8").rstrip("\r\n")
        except UnicodeDecodeError:
            raise LLMError(f"the LLM endpoint streamed bytes that are not UTF-8 ({raw[:60]!r})") from None
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        name, _, value = line.partition(":")
        if name == "data":
            data.append(value.removeprefix(" "))
    if data:
        yield "\n".join(data)


def parse_stream_event(payload: str) -> str | None:
    """The text delta of one streamed chunk: "" when it carries none, None at `[DONE]`."""
    if payload.strip() == "[DONE]":
        return None
    try:
        data = json.loads(payload)
    except ValueError:
        raise LLMError(f"the LLM endpoint streamed malformed JSON ({payload[:120]!r}) - is {ENV_URL} an "
                       "OpenAI-compatible /v1 API?") from None
    if not isinstance(data, dict):
        raise LLMError(f"the LLM endpoint streamed something that is not a chat chunk ({payload[:120]!r})")
    if data.get("error"):
        raise LLMError(f"the LLM endpoint reported an error mid-stream: {error_detail(payload.encode())}")
    choices = data.get("choices") or [{}]  # a usage-only final chunk has no choices
    delta = choices[0].get("delta") if isinstance(choices[0], dict) else None
    content = delta.get("content") if isinstance(delta, dict) else None
    return content if isinstance(content, str) else ""


def read_stream(lines: Iterable[bytes], on_token: TokenCallback) -> str:
    """Join the deltas of an SSE chat stream, passing each to on_token as it arrives."""
    parts: list[str] = []
    events = 0
    for payload in iter_sse_data(lines):
        events += 1
        delta = parse_stream_event(payload)
        if delta is None:
            break
        if delta:
            parts.append(delta)
            on_token(delta)
    if not events:
        raise LLMError("the LLM endpoint closed the stream without sending anything - check the server's log")
    return "".join(parts)
