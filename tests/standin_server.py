"""A stand-in OpenAI-compatible model server for the tests, on 127.0.0.1: it answers
``POST /v1/chat/completions`` well (the scripted town's answers, valid for the request's
schema) for a number of requests, then fails the way it was told to:

``http500``      an HTTP 500 with an error message
``not-json``     an HTTP 200 whose body is an HTML page
``garbled``      a chat completion whose answer is cut in half (it does not parse)
``wrong-types``  a good answer whose ``usage`` and ``timings`` hold the wrong types
``trickle``      a good answer, sent one byte every ``trickle_seconds``

Everything it does is bounded: each request is answered once (a trickle stops at the end of
its answer or when the client goes), and the server shuts itself down after ``lifetime``
seconds if the test did not close it first.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from scripted_town import SCRIPTS

from simulacra.llm.completion import Request
from simulacra.llm.scripted import ScriptedModel

FAILURES = ("http500", "not-json", "garbled", "wrong-types", "trickle")
MODEL = "standin"
WRONG_TYPES = {"usage": {"prompt_tokens": "many", "prompt_tokens_details": [3]}, "timings": "fast"}

# The field that tells which template asked: the server is not told the template's name.
_TEMPLATE_OF_FIELD = {
    "wake_up": "day_plan",
    "involves": "decompose",
    "kind_of_place": "act",
    "object_state": "event",
    "emergency": "decide",
    "says": "respond",
    "for_planning": "after_chat",
    "ratings": "importance",
    "core_characteristics": "summary",
}
_HOUR = re.compile(r"^\d\d:\d\d$")


def template_of(schema: dict | None) -> str:
    """The template a request came from, told by the fields its answer has."""
    fields = list((schema or {}).get("properties", {}))
    if fields and all(_HOUR.match(f) for f in fields):
        return "hourly_schedule"
    return next((_TEMPLATE_OF_FIELD[f] for f in fields if f in _TEMPLATE_OF_FIELD), "other")


def schema_of(body: dict) -> dict | None:
    """The answer's schema in either form ServerModel sends (json_schema or json_object)."""
    form = body.get("response_format")
    if form is None:
        return None
    return form["json_schema"]["schema"] if form["type"] == "json_schema" else form["schema"]


class StandIn:
    """``good`` requests answered well (None: all of them), then each one fails as
    ``failure`` says. ``scripts`` replaces the scripted town's answers by template."""

    def __init__(
        self,
        *,
        good: int | None = None,
        failure: str = "http500",
        scripts: dict | None = None,
        wrong_types: dict | None = None,
        trickle_seconds: float = 0.05,
        lifetime: float = 300.0,
    ) -> None:
        if failure not in FAILURES:
            raise ValueError(f"failure is one of {FAILURES}")
        self.good = good
        self.failure = failure
        self.wrong_types = WRONG_TYPES if wrong_types is None else wrong_types
        self.trickle_seconds = trickle_seconds
        self.model = ScriptedModel({**SCRIPTS, **(scripts or {})})
        self.bodies: list[dict] = []  # every chat request, in the order received
        self.failed = 0  # requests answered badly
        self.bytes_trickled = 0  # of bytes_to_trickle, the answers a trickle began
        self.bytes_to_trickle = 0
        self._lock = threading.Lock()
        standin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as the client's pool expects

            def log_message(self, *args):  # keep test output clean
                pass

            def do_GET(self):
                if self.path == "/v1/models":
                    self._send(200, {"object": "list", "data": [{"id": MODEL}]})
                else:
                    self._send(404, {"error": {"message": "no such path"}})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                status, payload, trickle = standin._reply(body)
                # The client may have given up and gone: that is what some tests are about.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self._send(status, payload, trickle=trickle)

            def _send(self, status: int, payload: object, *, trickle: bool = False) -> None:
                raw = (payload if isinstance(payload, str) else json.dumps(payload)).encode()
                head = (
                    f"HTTP/1.1 {status} {'OK' if status == 200 else 'Error'}\r\n"
                    "Content-Type: application/json\r\n"
                    f"Content-Length: {len(raw)}\r\n\r\n"
                ).encode()
                if not trickle:
                    self.wfile.write(head + raw)
                    return
                self.close_connection = True
                with standin._lock:
                    standin.bytes_to_trickle += len(head + raw)
                for i in range(len(head + raw)):  # bounded: the answer's length
                    self.wfile.write((head + raw)[i : i + 1])
                    self.wfile.flush()
                    with standin._lock:
                        standin.bytes_trickled += 1
                    time.sleep(standin.trickle_seconds)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self._timer = threading.Timer(lifetime, self.close)
        self._timer.daemon = True
        self._timer.start()

    # -- answers -------------------------------------------------------------------------------

    def answer(self, body: dict) -> str:
        """The scripted town's answer to a request, as the text of a chat completion."""
        messages = {m["role"]: m["content"] for m in body["messages"]}
        schema = schema_of(body)
        request = Request(
            template=template_of(schema) if schema else "text",
            system=messages.get("system", ""),
            user=messages.get("user", ""),
            schema=schema,
            max_tokens=body["max_tokens"],
            temperature=body["temperature"],
            top_p=body["top_p"],
            seed=body["seed"],
        )
        return self.model.complete(request).text

    def _reply(self, body: dict) -> tuple[int, object, bool]:
        with self._lock:
            self.bodies.append(body)
            good = self.good is None or len(self.bodies) <= self.good
            self.failed += not good
        if not good and self.failure == "http500":
            return 500, {"error": {"message": "the stand-in failed as told"}}, False
        if not good and self.failure == "not-json":
            return 200, "<html><body>502 Bad Gateway</body></html>", False
        text = self.answer(body)
        if not good and self.failure == "garbled":
            text = text[: len(text) // 2]
        reply = completion(text)
        if not good and self.failure == "wrong-types":
            reply |= self.wrong_types
        return 200, reply, not good and self.failure == "trickle"

    def close(self) -> None:
        self._timer.cancel()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> StandIn:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def completion(content: str) -> dict:
    """A chat completion as llama-server sends it."""
    return {
        "object": "chat.completion",
        "model": MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
        "usage": {
            "prompt_tokens": 50,
            "completion_tokens": 9,
            "prompt_tokens_details": {"cached_tokens": 20},
        },
        "timings": {"cache_n": 20},
    }
