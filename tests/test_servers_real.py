"""The town against real servers on 127.0.0.1: llama-cpp-python's OpenAI-compatible server
with the embedded model, and Chroma's own server (`chroma run`), with residents thinking in
parallel."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from simulacra.llm.calllog import read_calls, summarise
from simulacra.sim.eventlog import EVENTS_FILE, read_events

pytestmark = pytest.mark.real

ROOT = Path(__file__).resolve().parent.parent
WORLD = ROOT / "worlds" / "smallville-3"
T0 = datetime(2023, 2, 13, 8, 0)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_up(proc: subprocess.Popen, url: str, log: Path, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the server exited: {log.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"the server did not come up: {log.read_text()[-2000:]}")


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def simulacra(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "simulacra", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
        env=os.environ.copy(),
    )


@pytest.fixture
def model_server(tmp_path):
    """llama-cpp-python's own server with the embedded SmolLM2, on a free local port."""
    needed = ("uvicorn", "fastapi", "sse_starlette", "starlette_context", "pydantic_settings")
    missing = [name for name in needed if importlib.util.find_spec(name) is None]
    if missing:
        pytest.skip(f"llama-cpp-python's server needs {', '.join(missing)} (the test extra)")
    from simulacra.llm.resolve import embedded_model

    port = free_port()
    log = tmp_path / "model-server.log"
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(embedded_model())]
    command += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096"]
    command += ["--model_alias", "smollm2-135m"]
    with log.open("w") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(proc, url + "/v1/models", log)
        yield url
    finally:
        stop(proc)


@pytest.fixture
def chroma_server(tmp_path):
    """Chroma's server on a free local port, its data in a temporary directory."""
    chroma = shutil.which("chroma") or str(Path(sys.executable).with_name("chroma"))
    if not Path(chroma).is_file():
        pytest.skip("the `chroma` command (from the chromadb package) is not installed")
    port = free_port()
    log = tmp_path / "chroma-server.log"
    env = {**os.environ, "ANONYMIZED_TELEMETRY": "False"}
    command = [chroma, "run", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--path", str(tmp_path / "chroma-server-data")]
    with log.open("w") as out:
        proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(proc, url + "/api/v2/heartbeat", log)
        yield url
    finally:
        stop(proc)


def test_a_town_thinks_in_parallel_through_servers_and_replays_without_them_thinking(
    tmp_path, model_server, chroma_server
):
    """Three residents at concurrency 3 against the model server, their vectors on the Chroma
    server; the same run again replays every answer and logs the same events."""

    def run(out: str):
        done = simulacra(
            "run", WORLD, "--hours", 0.05, "--concurrency", 3, "--server", model_server,
            "--chroma", chroma_server, "--out", tmp_path / out, cwd=tmp_path,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert "finished at" in done.stdout
        return summarise(read_calls(tmp_path / out / "calls.jsonl")).total

    totals = run("a")
    assert totals.calls > 0 and totals.generated_tokens > 0
    assert totals.parse_failures <= totals.calls // 4  # the server's grammar holds
    assert len(list(read_events(tmp_path / "a" / EVENTS_FILE))) == 18
    meta = json.loads((tmp_path / "a" / "meta.json").read_text())
    assert meta["settings"]["llm"]["server"] == model_server
    assert meta["settings"]["vectors"]["server"] == chroma_server
    assert not (tmp_path / "a" / "chroma").exists()  # no vectors on disk
    interview = simulacra(
        "interview", tmp_path / "a", "Isabella", "What are you doing?", cwd=tmp_path
    )
    assert interview.returncode == 0, interview.stderr

    # Every answer comes from the replay cache, keyed by the served model.
    replayed = run("b")
    assert replayed.calls == 0 and replayed.cache_hits == totals.calls + totals.cache_hits
    assert list(read_events(tmp_path / "a" / EVENTS_FILE)) == list(
        read_events(tmp_path / "b" / EVENTS_FILE)
    )


def test_vectors_live_on_a_chroma_server(tmp_path, chroma_server, word_embedder):
    from simulacra.memory import MemoryStore, NewMemory
    from simulacra.memory.vectors import VectorStore
    from simulacra.settings import RetrievalSettings

    vectors = VectorStore(tmp_path / "unused", server=chroma_server, namespace="t1")
    isabella = vectors.collection("Isabella Rodriguez")
    isabella.upsert([1, 2], np.eye(2, 3, dtype=np.float32))
    isabella.delete([2])
    again = VectorStore(tmp_path / "unused", server=chroma_server, namespace="t1")
    assert again.collection("Isabella Rodriguez").all()[0] == [1]
    elsewhere = VectorStore(tmp_path / "x", server=chroma_server, namespace="t2")
    assert elsewhere.collection("Isabella Rodriguez").count() == 0  # another namespace
    assert not (tmp_path / "unused").exists()  # nothing embedded on disk

    store = MemoryStore(tmp_path / "store", vector_server=chroma_server)
    stream = store.stream("Klaus Mueller", word_embedder, RetrievalSettings())
    stream.add([NewMemory("Klaus is reading about gentrification", importance=5)], T0)
    store.commit()
    store.close()
    assert not (tmp_path / "store" / "chroma").exists()

    # A copy of the store (a forked run) gets collections of its own, refilled from SQLite.
    shutil.copytree(tmp_path / "store", tmp_path / "fork")
    namespaces = set()
    for where in ("store", "fork"):
        store = MemoryStore(tmp_path / where, vector_server=chroma_server)
        namespaces.add(store._vectors.namespace)
        stream = store.stream("Klaus Mueller", word_embedder, RetrievalSettings())
        assert stream._vectors.all()[0] == [1]
        stream.add([NewMemory(f"Klaus is writing in the {where}", importance=3)], T0)
        store.commit()
        ids, vectors = stream._vectors.all()
        assert sorted(ids) == [1, 2]
        fresh = word_embedder.embed_one(f"Klaus is writing in the {where}")
        assert np.allclose(vectors[ids.index(2)], fresh, atol=1e-5)
        store.close()
    assert len(namespaces) == 2


def test_a_dead_chroma_server_is_one_line(tmp_path):
    url = f"http://127.0.0.1:{free_port()}"
    done = simulacra(
        "run", WORLD, "--hours", 0.05, "--chroma", url, "--out", tmp_path / "r", cwd=tmp_path
    )
    assert done.returncode == 2
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and url in last and "Traceback" not in done.stderr
