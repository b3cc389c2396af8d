"""The model-server backend against a small fake OpenAI-compatible server on 127.0.0.1:
request shape, retries after 500s, timeouts, refusals and garbled bodies, the json_object
fallback, the replay cache, and many threads at once."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from simulacra.errors import UserError
from simulacra.llm import ModelOutputError, Prompt, open_model
from simulacra.llm.completion import Request
from simulacra.llm.schema import Answer, one_of, text
from simulacra.llm.server import SchemaFormat, ServerError, ServerModel, base_url
from simulacra.settings import LLMSettings


class Mood(Answer):
    mood: one_of(["calm", "busy"])
    reason: text(40)


GOOD = {"mood": "busy", "reason": "the cafe opens at seven"}


def completion(content: str, prompt_tokens: int = 50, cached: int = 20) -> dict:
    return {
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": 9,
            "prompt_tokens_details": {"cached_tokens": cached},
        },
    }


class FakeServer:
    """``reply(body) -> (status, payload)`` answers each chat request; payload is a dict (sent
    as JSON) or raw text. Records every request body."""

    def __init__(self, reply: Callable[[dict], tuple[int, object]]) -> None:
        self.reply = reply
        self.bodies: list[dict] = []
        self.active = 0
        self.most_active = 0
        lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def _send(self, status: int, payload: object) -> None:
                data = payload if isinstance(payload, str) else json.dumps(payload)
                raw = data.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def do_GET(self):
                if self.path == "/v1/models":
                    self._send(200, {"object": "list", "data": [{"id": "fake-model"}]})
                else:
                    self._send(404, {"error": {"message": "no such path"}})

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with lock:
                    fake.bodies.append(body)
                    fake.active += 1
                    fake.most_active = max(fake.most_active, fake.active)
                try:
                    status, payload = fake.reply(body)
                finally:
                    with lock:
                        fake.active -= 1
                # The client may have timed out and gone.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self._send(status, payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def fake():
    servers: list[FakeServer] = []

    def start(reply) -> FakeServer:
        server = FakeServer(reply)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.close()


@pytest.fixture(autouse=True)
def _no_backoff(monkeypatch):
    monkeypatch.setattr("simulacra.llm.server._BACKOFF_SECONDS", (0.0,))


def settings(url: str, **changes) -> LLMSettings:
    values = {"server": url, "cache": False, "server_retries": 2, **changes}
    return LLMSettings(**values)


def prompt() -> Prompt:
    return Prompt(template="mood", system="You are Isabella.", user="How is the morning?")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_structured_call_sends_the_schema_and_reads_usage(fake, tmp_path):
    server = fake(lambda body: (200, completion(json.dumps(GOOD))))
    model = open_model(settings(server.url), log_dir=tmp_path)

    assert model.generate(prompt(), Mood) == Mood(**GOOD)

    (body,) = server.bodies
    assert body["model"] == "fake-model"
    assert body["messages"][0] == {"role": "system", "content": "You are Isabella."}
    assert body["messages"][1]["content"].startswith("How is the morning?")
    assert "Answer with JSON only" in body["messages"][1]["content"]
    schema = body["response_format"]["json_schema"]["schema"]
    assert body["response_format"]["type"] == "json_schema"
    assert schema["properties"]["mood"]["enum"] == ["calm", "busy"]  # choices as enums
    assert schema["properties"]["reason"]["maxLength"] == 40
    assert 0 < body["max_tokens"] < 400  # bounded by the schema
    assert body["seed"] == 42 and body["stream"] is False
    entry = json.loads((tmp_path / "calls.jsonl").read_text())
    assert (entry["prompt_tokens"], entry["reused_tokens"], entry["generated_tokens"]) == (
        50,
        20,
        9,
    )


def test_free_text_has_no_response_format(fake):
    server = fake(lambda body: (200, completion("  Good morning!  ")))
    model = open_model(settings(server.url))
    assert model.text(prompt(), max_tokens=30) == "Good morning!"
    assert "response_format" not in server.bodies[0]
    assert server.bodies[0]["max_tokens"] == 30


def test_a_template_penalty_is_sent_and_none_is_left_out(fake):
    server = fake(lambda body: (200, completion(json.dumps(GOOD))))
    model = open_model(settings(server.url))
    model.generate(prompt(), Mood)
    model.generate(replace(prompt(), presence_penalty=1.0), Mood)
    assert "presence_penalty" not in server.bodies[0]
    assert server.bodies[1]["presence_penalty"] == 1.0


def test_500s_are_retried(fake):
    replies = iter([(500, {"error": {"message": "busy"}})] * 2 + [(200, completion('"x"'))])
    server = fake(lambda body: next(replies))
    backend = ServerModel(server.url, settings(server.url))
    request = Request("mood", "s", "u", None, 10, 0.5, 0.9, 1)
    assert backend.complete(request).text == '"x"'
    assert len(server.bodies) == 3


def test_a_server_that_keeps_failing_gets_a_one_line_error(fake):
    server = fake(lambda body: (500, {"error": {"message": "out of memory\nin slot 3"}}))
    model = open_model(settings(server.url))
    with pytest.raises(ServerError) as failed:
        model.generate(prompt(), Mood)
    message = str(failed.value)
    assert "\n" not in message
    assert server.url in message and "3 times" in message and "out of memory in slot 3" in message
    assert "--resume" in message
    assert len(server.bodies) == 3  # the request, then server_retries more
    assert isinstance(failed.value, UserError)


def test_a_timeout_is_retried_then_reported(fake):
    def slow(body):
        time.sleep(1.0)
        return 200, completion(json.dumps(GOOD))

    server = fake(slow)
    model = open_model(settings(server.url, server_timeout=0.2, server_retries=1))
    with pytest.raises(ServerError, match="no answer within 0.2 s"):
        model.generate(prompt(), Mood)
    assert len(server.bodies) == 2


def test_a_refused_connection_is_reported(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    model = open_model(settings(url, server_retries=1, server_model="m"))
    with pytest.raises(ServerError, match="could not connect"):
        model.generate(prompt(), Mood)


def test_a_body_that_is_not_a_chat_completion_is_retried(fake):
    replies = iter([(200, "<html>proxy error</html>"), (200, {"oops": 1}), (200, completion("1"))])
    server = fake(lambda body: next(replies))
    backend = ServerModel(server.url, settings(server.url))
    request = Request("mood", "s", "u", None, 10, 0.5, 0.9, 1)
    assert backend.complete(request).text == "1"
    assert len(server.bodies) == 3


def test_an_answer_off_the_schema_is_retried_with_another_seed_then_fails(fake, tmp_path):
    server = fake(lambda body: (200, completion('{"mood": "sleepy", "reason": "x"}')))
    model = open_model(settings(server.url), log_dir=tmp_path)
    with pytest.raises(ModelOutputError):
        model.generate(prompt(), Mood)
    seeds = [b["seed"] for b in server.bodies]
    assert len(seeds) == 3 and len(set(seeds)) == 3  # bounded: server_retries + 1 tries
    assert model.log.totals.parse_failures == 3


def test_a_server_without_json_schema_gets_the_json_object_form(fake):
    def llama_cpp_python(body):
        if body["response_format"]["type"] != "json_object":  # as llama-cpp-python says it
            error = "('body', 'response_format', 'type'): Input should be 'text' or 'json_object'"
            return 500, {"error": {"message": error}}
        assert body["response_format"]["schema"]["properties"]["mood"]["enum"]
        return 200, completion(json.dumps(GOOD))

    server = fake(llama_cpp_python)
    model = open_model(settings(server.url))
    model.generate(prompt(), Mood)
    model.generate(prompt(), Mood)
    kinds = [b["response_format"]["type"] for b in server.bodies]
    assert kinds == ["json_schema", "json_object", "json_object"]  # learnt once


def test_a_refusal_is_not_retried(fake):
    server = fake(lambda body: (400, {"error": {"message": "the prompt exceeds the context"}}))
    model = open_model(settings(server.url))
    with pytest.raises(ServerError, match="refused the request \\(HTTP 400\\): the prompt exceeds"):
        model.generate(prompt(), Mood)
    assert len(server.bodies) == 2  # once per schema form, no retries


def test_answers_replay_from_the_cache_keyed_by_the_served_model(fake, tmp_path):
    server = fake(lambda body: (200, completion(json.dumps(GOOD))))
    model = open_model(settings(server.url, cache=True, cache_dir=tmp_path))
    assert model.completer.identity == "server:fake-model"
    model.generate(prompt(), Mood)
    again = open_model(settings(server.url, cache=True, cache_dir=tmp_path))
    assert again.generate(prompt(), Mood) == Mood(**GOOD)
    assert len(server.bodies) == 1
    assert again.log.totals.cache_hits == 1 and again.log.totals.calls == 0
    other = open_model(settings(server.url, cache=True, cache_dir=tmp_path, server_model="m2"))
    other.generate(prompt(), Mood)
    assert len(server.bodies) == 2  # another model: another key
    assert server.bodies[-1]["model"] == "m2"


def test_many_threads_share_one_model_cache_and_log(fake, tmp_path):
    def answer(body):
        time.sleep(0.05)
        return 200, completion(json.dumps(GOOD))

    server = fake(answer)
    model = open_model(settings(server.url, cache=True, cache_dir=tmp_path), log_dir=tmp_path)
    prompts = [
        Prompt(template="mood", system=f"You are agent {i}.", user="How is it?") for i in range(16)
    ]
    errors: list[BaseException] = []

    def think(p: Prompt) -> None:
        try:
            model.generate(p, Mood)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=think, args=(p,)) for p in prompts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert server.most_active > 1  # the requests overlapped
    lines = (tmp_path / "calls.jsonl").read_text().splitlines()
    assert len(lines) == 16 and all(json.loads(line)["parsed"] for line in lines)
    assert model.log.totals.calls == 16
    replay = open_model(settings(server.url, cache=True, cache_dir=tmp_path))
    for p in prompts:
        replay.generate(p, Mood)
    assert replay.log.totals.cache_hits == 16 and len(server.bodies) == 16


def test_urls_are_normalised_and_checked():
    assert base_url("http://127.0.0.1:8080/") == "http://127.0.0.1:8080"
    assert base_url("http://gpu-box:8000/v1") == "http://gpu-box:8000"
    assert base_url("https://h/proxy/v1/chat/completions") == "https://h/proxy"
    with pytest.raises(UserError, match="not a server URL"):
        base_url("127.0.0.1:8080")
    assert SchemaFormat.JSON_OBJECT.response_format({"type": "object"}) == {
        "type": "json_object",
        "schema": {"type": "object"},
    }


def test_the_cli_reports_a_dead_server_in_one_line(tmp_path, capsys):
    from simulacra.cli import main

    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(SystemExit) as exited:
        main(
            ["prompts", "try", "importance", "--server", url, "--server-model", "m"]
            + ["--out", str(tmp_path / "out")]
        )
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err and url in err
    with pytest.raises(SystemExit):
        main(["prompts", "try", "importance", "--server", "localhost:8080"])
    assert "not a server URL" in capsys.readouterr().err
