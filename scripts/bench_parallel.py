"""Agents thinking in parallel against a batching model server.

Runs the same smallville-3 stretch at concurrency 1, 2, 4 and 8, each against llama.cpp's
``llama-server`` started with ``--parallel N`` (continuous batching: N sequences decode in one
batch), and prints game-hours per wall-hour and generated tokens per second for each.

``llama-server`` is built once from the llama.cpp tree vendored in the sdist of the installed
llama-cpp-python (same llama.cpp as the in-process backend) and cached under
``~/.cache/simulacra/llama-server/VERSION/``. The build takes minutes on two cores; on a
shared machine run the whole script under the CPU lock:

    flock /tmp/simulacra-cpu.lock python scripts/bench_parallel.py --hours 0.25

On a GPU box, build with CUDA and offload every layer, with a model worth batching:

    python scripts/bench_parallel.py --cuda --gpu-layers -1 --jobs 16 \\
        --model models/qwen2.5-7b-instruct-q4_k_m.gguf --levels 1,4,8,16,32

``--server-only`` (used automatically when ``simulacra run`` has no ``--concurrency``) measures
the server alone: N threads sending structured requests of a representative prompt.

``--server-binary PATH`` uses a ``llama-server`` built elsewhere and skips the build (then
llama-cpp-python need not be installed), e.g. on a GPU machine without a network:

    python scripts/bench_parallel.py --server-only --server-binary build/bin/llama-server \\
        --model qwen2.5-coder-0.5b-instruct-q4_k_m.gguf --gpu-layers -1 --levels 1,4,16
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simulacra.llm.calllog import read_calls, summarise  # noqa: E402
from simulacra.llm.resolve import resolve_model  # noqa: E402

WORLD = ROOT / "worlds" / "smallville-3"
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "simulacra"
PACKAGE = "llama-cpp-python"


# -- building llama-server -------------------------------------------------------------------


def server_binary(*, cuda: bool, jobs: int) -> Path:
    """``llama-server`` of the installed llama-cpp-python's llama.cpp, built once."""
    release = version(PACKAGE)
    flavour = "cuda" if cuda else "cpu"
    home = CACHE / "llama-server" / f"{release}-{flavour}"
    binary = home / "build" / "bin" / "llama-server"
    if binary.is_file():
        return binary
    home.mkdir(parents=True, exist_ok=True)
    source = home / "src"
    if not (source / "vendor" / "llama.cpp" / "tools" / "server").is_dir():
        print(f"fetching the {PACKAGE} {release} sdist ...", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            subprocess.run(
                [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:"]
                + [f"{PACKAGE}=={release}", "-d", tmp, "--quiet"],
                check=True,
            )
            (sdist,) = Path(tmp).glob("*.tar.gz")
            with tarfile.open(sdist) as tar:
                tar.extractall(tmp, filter="data")
            shutil.rmtree(source, ignore_errors=True)
            shutil.move(next(p for p in Path(tmp).iterdir() if p.is_dir()), source)
    flags = [
        "-DCMAKE_BUILD_TYPE=Release",
        "-DLLAMA_BUILD_SERVER=ON",
        "-DLLAMA_BUILD_TESTS=OFF",
        "-DLLAMA_BUILD_EXAMPLES=OFF",
        # The web UI is not needed, and its prebuilt assets would be a download.
        "-DLLAMA_BUILD_UI=OFF",
        "-DLLAMA_USE_PREBUILT_UI=OFF",
        "-DLLAMA_OPENSSL=OFF",
        "-DLLAMA_CURL=OFF",
        f"-DGGML_CUDA={'ON' if cuda else 'OFF'}",
    ]
    build = home / "build"
    print(f"building llama-server in {build} (-j{jobs}; minutes) ...", flush=True)
    started = time.monotonic()
    subprocess.run(
        ["cmake", "-S", str(source / "vendor" / "llama.cpp"), "-B", str(build), *flags],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    subprocess.run(
        ["cmake", "--build", str(build), "--target", "llama-server", f"-j{jobs}"],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    print(f"built in {time.monotonic() - started:.0f} s", flush=True)
    return binary


def package_version() -> str:
    """The installed llama-cpp-python's version, only for printing."""
    try:
        return version(PACKAGE)
    except PackageNotFoundError:
        return "unknown"


# -- running it ------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``llama-server --parallel N`` on 127.0.0.1, each slot with the context of one call."""

    def __init__(self, binary: Path, model: Path, args: argparse.Namespace, parallel: int):
        self.url = f"http://127.0.0.1:{free_port()}"
        port = self.url.rsplit(":", 1)[1]
        command = [str(binary), "-m", str(model), "--host", "127.0.0.1", "--port", port]
        command += ["--parallel", str(parallel), "-c", str(args.slot_ctx * parallel)]
        command += ["-ngl", str(args.gpu_layers)]
        if args.threads:
            command += ["--threads", str(args.threads)]
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 - open while the server runs
            "w+", prefix="llama-server-", suffix=".log"
        )
        self.proc = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 300
        while True:
            if self.proc.poll() is not None:
                self.log.seek(0)
                raise SystemExit(f"llama-server exited:\n{self.log.read()[-2000:]}")
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=2) as reply:
                    if reply.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("llama-server did not become healthy in 300 s")
            time.sleep(0.25)

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


@dataclass
class Result:
    concurrency: int
    wall_seconds: float
    calls: int
    generated_tokens: int
    game_hours: float = 0.0  # 0 for the server-only measurement

    @property
    def tokens_per_second(self) -> float:
        return self.generated_tokens / self.wall_seconds

    @property
    def game_hours_per_wall_hour(self) -> float:
        return self.game_hours / (self.wall_seconds / 3600)


def has_concurrency_option() -> bool:
    """Whether ``simulacra run`` takes --concurrency (agents thinking in parallel)."""
    helptext = subprocess.run(
        [sys.executable, "-m", "simulacra", "run", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=_env(),
    ).stdout
    return "--concurrency" in helptext


def _env() -> dict:
    env = os.environ.copy()
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def town(url: str, n: int, hours: float, out: Path) -> Result:
    """The same town stretch, no replay cache, with ``n`` agents thinking at once."""
    command = [sys.executable, "-m", "simulacra", "run", str(WORLD), "--hours", str(hours)]
    command += ["--server", url, "--concurrency", str(n), "--no-cache", "--out", str(out)]
    started = time.monotonic()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=_env())
    wall = stepping_seconds(out) or time.monotonic() - started
    if done.returncode != 0:
        raise SystemExit(f"simulacra run failed:\n{done.stderr[-2000:]}")
    totals = summarise(read_calls(out / "calls.jsonl")).total
    return Result(n, wall, totals.calls, totals.generated_tokens, game_hours=hours)


def stepping_seconds(run: Path) -> float | None:
    """The run's own wall time spent stepping (saved with its checkpoint), which leaves out
    starting Python and loading the embedder."""
    try:
        with sqlite3.connect(run / "memory.sqlite") as db:
            (value,) = db.execute("SELECT value FROM state WHERE key = 'checkpoint'").fetchone()
        return float(json.loads(value)["wall_seconds"]) or None
    except (sqlite3.Error, TypeError, KeyError, ValueError):
        return None


def server_alone(url: str, n: int, requests_per_slot: int) -> Result:
    """``n`` threads each sending structured requests of a representative prompt (the
    importance rating of the template's example), each request with its own seed."""
    from simulacra.llm import open_model
    from simulacra.llm.templates import find_template
    from simulacra.settings import LLMSettings

    model = open_model(LLMSettings(server=url, cache=False), retries=1)
    template = find_template("importance")
    prompt = template.render(**template.example)
    schema = template.schema(**template.example)

    def one(i: int) -> None:
        model.generate(prompt, schema, seed=1000 + i)

    one(-1)  # warm: the model name, the connection, the prompt prefix
    before = model.log.totals.generated_tokens
    count = n * requests_per_slot
    started = time.monotonic()
    with ThreadPoolExecutor(n) as pool:
        list(pool.map(one, range(count)))
    wall = time.monotonic() - started
    return Result(n, wall, count, model.log.totals.generated_tokens - before)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hours", type=float, default=1.0, help="game hours per level")
    parser.add_argument("--levels", default="1,2,4,8", help="concurrency levels")
    parser.add_argument("--model", type=Path, help="GGUF file (default: the embedded SmolLM2)")
    parser.add_argument("--slot-ctx", type=int, default=4096, help="context per server slot")
    parser.add_argument("--threads", type=int, help="llama-server CPU threads")
    parser.add_argument("--gpu-layers", type=int, default=0, help="-1: every layer on the GPU")
    parser.add_argument("--cuda", action="store_true", help="build llama-server with CUDA")
    parser.add_argument("--jobs", type=int, default=2, help="parallel compile jobs")
    parser.add_argument("--server-only", action="store_true", help="measure the server alone")
    parser.add_argument("--requests", type=int, default=6, help="server-only requests per slot")
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument(
        "--server-binary", type=Path, help="a llama-server built elsewhere (skips the build)"
    )
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args()

    if args.server_binary is not None:
        binary = args.server_binary.resolve()
        if not binary.is_file():
            raise SystemExit(f"no llama-server at {binary}")
    else:
        binary = server_binary(cuda=args.cuda, jobs=args.jobs)
    if args.build_only:
        print(binary)
        return
    model = resolve_model(args.model).path
    levels = [int(x) for x in args.levels.split(",")]
    whole_town = not args.server_only and has_concurrency_option()
    if not args.server_only and not whole_town:
        print("`simulacra run` has no --concurrency yet: measuring the server alone")
    served = binary if args.server_binary is not None else package_version()
    print(f"model {model.name} · llama-server {served} · {os.cpu_count()} CPU cores")
    results: list[Result] = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in levels:
            server = Server(binary, model, args, parallel=n)
            try:
                if whole_town:
                    result = town(server.url, n, args.hours, Path(tmp) / f"run-{n}")
                else:
                    result = server_alone(server.url, n, args.requests)
            finally:
                server.close()
            results.append(result)
            print(_row(result, whole_town), flush=True)
    print()
    print(_table(results, whole_town))
    if args.json:
        args.json.write_text(json.dumps([r.__dict__ for r in results], indent=2))


def _row(r: Result, whole_town: bool) -> str:
    speed = f"{r.game_hours_per_wall_hour:.2f} game-h/wall-h · " if whole_town else ""
    return (
        f"concurrency {r.concurrency}: {speed}{r.tokens_per_second:.1f} tok/s · "
        f"{r.calls} calls in {r.wall_seconds:.1f} s"
    )


def _table(results: list[Result], whole_town: bool) -> str:
    base = results[0].tokens_per_second
    if whole_town:
        lines = [
            "| concurrency | game-hours per wall-hour | generated tokens/s | model calls"
            " | speed-up |",
            "|---|---|---|---|---|",
        ]
        for r in results:
            lines.append(
                f"| {r.concurrency} | {r.game_hours_per_wall_hour:.2f} | "
                f"{r.tokens_per_second:.1f} | {r.calls} | {r.tokens_per_second / base:.2f}x |"
            )
    else:
        lines = [
            "| concurrency | requests | requests/s | generated tokens/s | speed-up |",
            "|---|---|---|---|---|",
        ]
        for r in results:
            lines.append(
                f"| {r.concurrency} | {r.calls} | {r.calls / r.wall_seconds:.2f} | "
                f"{r.tokens_per_second:.1f} | {r.tokens_per_second / base:.2f}x |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
