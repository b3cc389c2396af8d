"""A model server as the backend: any server that speaks the OpenAI-compatible chat API with
JSON-schema constrained answers (llama.cpp's ``llama-server``, vLLM, llama-cpp-python's own
server), for GPU boxes and for batching the calls of many agents.

Only the URL the user gave is ever contacted (proxy variables are ignored). A server that
refuses, times out, fails with a 5xx or sends a body that is not a chat completion gets a
bounded number of retries, then a one-line :class:`ServerError`; everything the run had
already paid for is in the replay cache and its last checkpoint.
"""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import dataclass
from enum import Enum
from urllib.parse import urlsplit

import httpcore

from simulacra.errors import UserError
from simulacra.llm.completion import Completion, Request
from simulacra.settings import LLMSettings

API_KEY_ENV = "SIMULACRA_SERVER_KEY"  # sent as a bearer token when set (vLLM's --api-key)
_BACKOFF_SECONDS = (0.5, 1.0, 2.0, 4.0, 8.0)


class ServerError(UserError):
    """A model server that cannot answer; printed as one line like every user error."""


class SchemaFormat(Enum):
    """How a server takes the JSON schema of the answer.

    ``JSON_SCHEMA`` is OpenAI's ``{"type": "json_schema", "json_schema": {"schema": ...}}``
    (llama-server, vLLM); ``JSON_OBJECT`` is ``{"type": "json_object", "schema": ...}``, the
    only form llama-cpp-python's server knows (llama-server takes it too).
    """

    JSON_SCHEMA = "json_schema"
    JSON_OBJECT = "json_object"

    def response_format(self, schema: dict) -> dict:
        if self is SchemaFormat.JSON_SCHEMA:
            return {
                "type": "json_schema",
                "json_schema": {"name": "answer", "strict": True, "schema": schema},
            }
        return {"type": "json_object", "schema": schema}


def base_url(url: str) -> str:
    """``http://host:port`` (plus any path prefix) from what the user typed; ``/v1`` is added
    per request, so ``http://host:8000/v1`` works too."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UserError(
            f"not a server URL: {url!r}",
            field="--server / llm.server",
            fix="give the server's address, e.g. http://127.0.0.1:8080",
        )
    path = parts.path.rstrip("/")
    path = path.removesuffix("/chat/completions").removesuffix("/v1")
    return f"{parts.scheme}://{parts.netloc}{path}"


class _Retryable(Exception):
    """A failure worth another try (the server may be starting, busy or restarting)."""


@dataclass(frozen=True)
class _Reply:
    text: str
    prompt_tokens: int
    cached_tokens: int
    generated_tokens: int


class ServerModel:
    """A :class:`~simulacra.llm.completion.Completer` over ``POST /v1/chat/completions``.

    Thread-safe: the HTTP client is shared and each request is independent, so a pool of
    agents thinking at once keeps a batching server's slots busy.
    """

    def __init__(self, url: str, settings: LLMSettings) -> None:
        self.url = base_url(url)
        self.settings = settings
        self.retries = settings.server_retries
        self._headers = {"Content-Type": "application/json"}
        if key := os.environ.get(API_KEY_ENV):
            self._headers["Authorization"] = f"Bearer {key}"
        # httpcore reads no proxy from the environment: nothing but this URL is contacted.
        self._http = httpcore.ConnectionPool(max_connections=100, network_backend=_Bounded())
        self._lock = threading.Lock()
        self._model: str | None = settings.server_model
        self._format = SchemaFormat.JSON_SCHEMA

    # -- who answers -----------------------------------------------------------------------

    @property
    def model(self) -> str:
        """The model the server serves (``llm.server_model``, else the first it lists)."""
        with self._lock:
            if self._model is None:
                self._model = self._first_model()
            return self._model

    @property
    def identity(self) -> str:
        """The replay cache's key: the served model's name, not the URL, so moving the server
        to another box keeps the recorded answers."""
        return f"server:{self.model}"

    def _first_model(self) -> str:
        try:
            body = self._with_retries("GET /v1/models", lambda: self._send("GET", "/v1/models"))
        except _Rejected as e:
            raise e.error(self.url, "GET /v1/models") from None
        try:
            return str(body["data"][0]["id"])
        except (KeyError, IndexError, TypeError):
            raise ServerError(
                "the server lists no model at /v1/models",
                file=self.url,
                fix="set llm.server_model (--server-model) to the model's name",
            ) from None

    # -- one call --------------------------------------------------------------------------

    def complete(self, request: Request) -> Completion:
        start = time.perf_counter()
        reply = self._with_retries(request.template, lambda: self._chat(request))
        return Completion(
            text=reply.text,
            prompt_tokens=reply.prompt_tokens,
            reused_tokens=reply.cached_tokens,
            generated_tokens=reply.generated_tokens,
            seconds=time.perf_counter() - start,
        )

    def _body(self, request: Request, schema_format: SchemaFormat) -> dict:
        body = {
            "model": self.model,
            "messages": [
                {"role": "system", "content": request.system},
                {"role": "user", "content": request.user},
            ],
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "top_p": request.top_p,
            "seed": request.seed,
            "stream": False,
        }
        if request.presence_penalty:
            body["presence_penalty"] = request.presence_penalty
        if request.schema is not None:
            body["response_format"] = schema_format.response_format(request.schema)
        return body

    def _chat(self, request: Request) -> _Reply:
        schema_format = self._format
        try:
            body = self._send("POST", "/v1/chat/completions", self._body(request, schema_format))
        except _Rejected as e:
            # A server that does not know OpenAI's json_schema form (llama-cpp-python's) says
            # so with a 400 or 422: ask once more in the other form and keep whichever works.
            if request.schema is None or schema_format is not SchemaFormat.JSON_SCHEMA:
                raise e.error(self.url, request.template) from None
            other = SchemaFormat.JSON_OBJECT
            try:
                body = self._send("POST", "/v1/chat/completions", self._body(request, other))
            except _Rejected:
                raise e.error(self.url, request.template) from None
            self._format = other
        return _parse_reply(body)

    def _send(self, method: str, path: str, payload: dict | None = None) -> dict:
        seconds = self.settings.server_timeout
        # The whole answer within server_timeout: a server sending a byte at a time is
        # as stuck as one sending nothing.
        timeouts = {"connect": min(seconds, 10.0), "read": seconds, "write": seconds}
        _deadline.at = time.monotonic() + seconds
        try:
            response = self._http.request(
                method,
                self.url + path,
                headers=self._headers,
                content=None if payload is None else json.dumps(payload).encode(),
                extensions={"timeout": {**timeouts, "pool": seconds}},
            )
        except httpcore.TimeoutException as e:
            raise _Retryable(f"no answer within {seconds:g} s") from e
        except (httpcore.NetworkError, httpcore.ProtocolError) as e:
            # refused, reset, DNS, a broken reply: the server is not (yet) there
            raise _Retryable(f"could not connect ({type(e).__name__}: {e})") from e
        finally:
            _deadline.at = None
        status = response.status
        text = response.content.decode("utf-8", "replace")
        if status >= 400:
            message = _message(text) or response.extensions.get("reason_phrase", b"").decode()
            # llama-cpp-python's server reports a request it cannot validate as a 500.
            if status < 500 and status not in (408, 429) or "response_format" in message:
                raise _Rejected(status, message)
            raise _Retryable(f"HTTP {status}: {message}")
        try:
            return json.loads(text)
        except ValueError as e:
            raise _Retryable(f"the reply is not JSON: {text[:80]!r}") from e

    def _with_retries(self, what: str, call):
        for attempt in range(self.retries + 1):
            try:
                return call()
            except _Retryable as e:
                problem = str(e)
                if attempt < self.retries:
                    time.sleep(_BACKOFF_SECONDS[min(attempt, len(_BACKOFF_SECONDS) - 1)])
        raise ServerError(
            f"{what}: the model server failed {self.retries + 1} times; last: {problem}",
            file=self.url,
            fix="check that the server is running and reachable; `simulacra run --resume DIR` "
            "continues a run from its last checkpoint, and answers already received replay free",
        )

    def close(self) -> None:
        self._http.close()


class _Rejected(Exception):
    """A 4xx: the server understood and refused; the same request will not do better."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    def error(self, url: str, template: str) -> ServerError:
        return ServerError(
            f"{template}: the model server refused the request (HTTP {self.status}):"
            f" {self.message}",
            file=url,
            fix="it must accept OpenAI chat completions with a JSON-schema response_format "
            "(llama-server, vLLM, llama-cpp-python's server); a context overflow needs a "
            "larger context on the server",
        )


def _message(text: str) -> str:
    """The error text a server sent, in one short line."""
    try:
        body = json.loads(text)
    except ValueError:
        return text.strip()[:200]
    error = body.get("error", body.get("detail", body)) if isinstance(body, dict) else body
    if isinstance(error, dict):
        error = error.get("message", error)
    return " ".join(str(error).split())[:200]


def _parse_reply(body: dict) -> _Reply:
    try:
        choice = body["choices"][0]
        text = choice["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise _Retryable(f"not a chat completion: {json.dumps(body)[:120]}") from None
    if not isinstance(text, str):
        raise _Retryable("the chat completion has no text")
    usage = _fields(body.get("usage"), "usage")
    details = _fields(usage.get("prompt_tokens_details"), "usage.prompt_tokens_details")
    cached = details.get("cached_tokens")
    if cached is None:  # older llama-server builds report it in their timings only
        cached = _fields(body.get("timings"), "timings").get("cache_n")
    return _Reply(
        text=text,
        prompt_tokens=_count(usage.get("prompt_tokens"), "usage.prompt_tokens"),
        cached_tokens=_count(cached, "the cached tokens"),
        generated_tokens=_count(usage.get("completion_tokens"), "usage.completion_tokens"),
    )


def _fields(value: object, name: str) -> dict:
    """An object of the reply (absent or empty: none of its fields)."""
    if not value:
        return {}
    if not isinstance(value, dict):
        raise _Retryable(f"the chat completion's {name} is not an object: {_shown(value)}")
    return value


def _count(value: object, name: str) -> int:
    """A token count of the reply (absent: 0); anything but a count is a garbled reply."""
    if value is None:
        return 0
    if isinstance(value, str) and value.isdecimal():
        value = int(value)
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _Retryable(f"the chat completion's {name} is not a count: {_shown(value)}")
    return value


def _shown(value: object) -> str:
    return json.dumps(value)[:60]


# -- a deadline for the whole request ------------------------------------------------------


class _Deadline(threading.local):
    """When this thread's request must be done (a request runs on the thread that sends it)."""

    at: float | None = None


_deadline = _Deadline()


def _time_left(timeout: float | None) -> float | None:
    """A socket wait bounded by what is left of the request's time."""
    if _deadline.at is None:
        return timeout
    left = _deadline.at - time.monotonic()
    if left <= 0:
        raise httpcore.ReadTimeout("the request's time is up")
    return left if timeout is None else min(timeout, left)


class _BoundedStream(httpcore.NetworkStream):
    """A connection each of whose reads and writes waits at most for the time left."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _time_left(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _time_left(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None) -> _BoundedStream:
        tls = self._inner.start_tls(ssl_context, server_hostname, _time_left(timeout))
        return _BoundedStream(tls)

    def get_extra_info(self, info: str):
        return self._inner.get_extra_info(info)


class _Bounded(httpcore.SyncBackend):
    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        stream = super().connect_tcp(host, port, _time_left(timeout), local_address, socket_options)
        return _BoundedStream(stream)
