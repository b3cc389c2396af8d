"""Generated bad input (issue 12, "Done when"): malformed worlds, settings files, event logs and
command lines. Whatever comes in, the command either works or exits with code 2 and one line
naming the file or argument: no traceback, and nothing already saved is changed.

No language model is ever loaded: SIMULACRA_MODEL names a file that is not there, so any
command that got as far as needing the model stops with its one-line error.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hostile_helpers import WORLD, cli, copy_world, fingerprint
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FIXTURE_RUN = Path(__file__).parent / "fixtures" / "run-smallville-3"


def fuzz(examples: int):
    """Hypothesis settings: the same cases on every run (CI is reproducible), no database."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


@pytest.fixture(autouse=True)
def _no_model(monkeypatch, tmp_path_factory):
    monkeypatch.setenv("SIMULACRA_MODEL", str(tmp_path_factory.getbasetemp() / "no-model.gguf"))


def _assert_clean(done, *names: str) -> None:
    """Success, or code 2 with one error line naming one of ``names``."""
    assert "Traceback" not in done.err, done.err
    if done.code == 0:
        return
    line = done.one_line_error()
    assert any(n in line for n in names), (line, names)


# Text that breaks things: garbage, control characters, TOML-looking fragments, huge numbers.
_NASTY = st.sampled_from(
    [
        "",
        "=",
        "[",
        "[[x]]",
        '"',
        "'''",
        "\x00",
        "\x1b[31m",
        "\u202e",
        "nan",
        "inf",
        "-1",
        "1e999",
        "9" * 40,
        "2023-02-13T07:00:00+05:00",
        "9999-12-31T23:59:59",
        "{}",
        "[]",
        "name = 5",
        "age = -3",
        "map = ''' '''",
        'home = "nowhere"',
        "#",
        "+",
    ]
)
_TEXT = st.one_of(_NASTY, st.text(max_size=40))


@st.composite
def mutations(draw, data: bytes) -> bytes:
    """``data`` with one random change: a cut, a replaced line, inserted bytes or text."""
    kind = draw(st.sampled_from(["cut", "line", "bytes", "text", "swap"]))
    lines = data.split(b"\n")
    if kind == "cut":
        return data[: draw(st.integers(0, len(data)))]
    if kind == "bytes":
        at = draw(st.integers(0, len(data)))
        return data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    i = draw(st.integers(0, len(lines) - 1))
    if kind == "line":
        lines[i] = draw(_TEXT).encode("utf-8", "surrogatepass")
    elif kind == "text":
        lines.insert(i, draw(_TEXT).encode("utf-8", "surrogatepass"))
    else:
        j = draw(st.integers(0, len(lines) - 1))
        lines[i], lines[j] = lines[j], lines[i]
    return b"\n".join(lines)


# ------------------------------------------------------------------------- worlds


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> Path:
    return copy_world(tmp_path_factory.mktemp("fuzz-world"))


def _world_files(world: Path) -> list[Path]:
    return sorted(p for p in world.parent.rglob("*.toml"))


@fuzz(50)
@given(data=st.data())
def test_malformed_worlds(world, data):
    files = _world_files(world)
    target = data.draw(st.sampled_from(files))
    original = target.read_bytes()
    swap = data.draw(st.sampled_from(["edit"] * 6 + ["fifo", "loop", "folder"]))
    if swap == "edit":
        target.write_bytes(data.draw(mutations(original)))
    else:  # not a text file at all
        target.unlink()
        {"fifo": os.mkfifo, "loop": lambda p: p.symlink_to(p), "folder": os.mkdir}[swap](target)
    try:
        checked = cli("world", "check", world)
        assert "Traceback" not in checked.err, checked.err
        assert checked.code in (0, 2)
        for line in checked.err.splitlines():  # check lists every problem, one line each
            assert line.startswith("error: ") and str(world.parent) in line, line
    finally:
        if target.is_dir() and not target.is_symlink():
            target.rmdir()
        elif not target.is_file():
            target.unlink()
        target.write_bytes(original)


# ------------------------------------------------------------------------- settings files

_SECTIONS = ["llm", "embed", "retrieval", "reflection", "agent", "plan", "sim", "limits"]
_KEYS = ["n_ctx", "seed", "temperature", "top_k", "decay", "threshold", "memory_chars"]


@st.composite
def config_texts(draw) -> bytes:
    lines = []
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            lines.append(f"[{draw(st.one_of(st.sampled_from(_SECTIONS), _TEXT))}]")
        key = draw(st.one_of(st.sampled_from(_KEYS), _TEXT))
        lines.append(f"{key} = {draw(_TEXT)}")
    text = "\n".join(lines).encode("utf-8", "surrogatepass")
    return draw(st.one_of(st.just(text), mutations(text))) if text else text


@fuzz(100)
@given(text=config_texts())
def test_malformed_settings_files(tmp_path, text):
    config = tmp_path / "settings.toml"
    config.write_bytes(text)
    missing = tmp_path / "no-world"
    done = cli("--config", config, "world", "show", missing)
    # A bad settings file is named; a good one lets the command go on to the missing world.
    assert done.code == 2
    line = done.one_line_error()
    assert str(config) in line or str(missing) in line
    assert config.read_bytes() == text


# ------------------------------------------------------------------------- event logs


EVENT_LINES = (FIXTURE_RUN / "events.jsonl").read_bytes().split(b"\n")


@fuzz(80)
@given(data=st.data())
def test_malformed_event_logs(tmp_path, data):
    run = tmp_path / "run"
    if not run.exists():
        shutil.copytree(FIXTURE_RUN, run)
    lines = EVENT_LINES
    # Small logs keep this fast: the first steps, then a mutation.
    head = b"\n".join(lines[: data.draw(st.integers(1, 12))]) + b"\n"
    (run / "events.jsonl").write_bytes(data.draw(mutations(head)))
    before = fingerprint(run)
    for args in (["log", run], ["log", run, "--agent", "Maria"], ["stats", run]):
        done = cli(*args)
        _assert_clean(done, str(run))
    assert fingerprint(run) == before  # readers change nothing


# ------------------------------------------------------------------------- command lines

_COMMANDS = [
    ["run"],
    ["fork"],
    ["interview"],
    ["whisper"],
    ["set"],
    ["log"],
    ["stats"],
    ["world", "check"],
    ["world", "show"],
    ["world", "objects"],
    ["agent", "new"],
    ["agent", "observe"],
    ["agent", "memories"],
    ["agent", "interview"],
    ["agent", "whisper"],
    ["agent", "show"],
    ["prompts", "try"],
    ["doctor"],
]
_OPTIONS = [
    "--hours",
    "--agents",
    "--out",
    "--resume",
    "--model",
    "--n-ctx",
    "--threads",
    "--gpu-layers",
    "--seed",
    "--no-cache",
    "--agent",
    "--as",
    "--sector",
    "--arena",
    "--name",
    "--age",
    "--traits",
    "--at",
    "--vars",
    "-n",
]


@pytest.fixture(scope="module")
def places(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("fuzz-args")
    run = base / "run"
    shutil.copytree(FIXTURE_RUN, run)
    fifo = base / "fifo"
    os.mkfifo(fifo)
    loop = base / "loop"
    loop.symlink_to(loop)
    garbage = base / "garbage.toml"
    garbage.write_bytes(b"\xff\xfe\x00garbage = [")
    return {
        "run": run,
        "world": WORLD,
        "fifo": fifo,
        "loop": loop,
        "garbage": garbage,
        "missing": base / "missing",
        "dir": base,
        "zero": Path("/dev/zero"),
    }


@fuzz(150)
@given(data=st.data())
def test_malformed_command_lines(places, data):
    path = st.sampled_from(sorted(places)).map(lambda k: str(places[k]))
    word = st.one_of(path, _TEXT.filter(lambda t: "\x00" not in t))
    option = st.tuples(st.sampled_from(_OPTIONS), word).map(list)
    args: list[str] = []
    if data.draw(st.booleans()):
        args += ["--config", data.draw(path)]
    args += data.draw(st.sampled_from(_COMMANDS))
    args += data.draw(st.lists(word, max_size=3))  # positional: directories, names, text
    for pair in data.draw(st.lists(option, max_size=3)):
        args += pair
    before = fingerprint(places["run"])
    done = cli(*args)
    assert "Traceback" not in done.err, (args, done.err)
    assert done.code in (0, 2), (args, done.code, done.err)
    if done.code == 2:
        done.one_line_error()
        assert fingerprint(places["run"]) == before, args
