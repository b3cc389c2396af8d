"""Generated bad input (issue 12, "Done when"): malformed worlds, settings files, event logs and
command lines, and (issue 33) damaged run directories. Whatever comes in, the command either
works or exits with code 2 and one line naming the file or argument: no traceback, and nothing
already saved is changed. A damaged shared cache is reported in one line and set aside.

No language model is ever loaded: SIMULACRA_MODEL names a file that is not there, so any
command that got as far as needing the model stops with its one-line error.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from hostile_helpers import FIXTURE_RUN, WORLD, cli, copy_world, fingerprint, make_run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


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


# ------------------------------------------------------------------------- run directories
# Issue 33: a damaged run directory, opened for writing, is one line naming the damaged file
# (or, where the damage reads as a whole run, the missing model: nothing past it ran).


@pytest.fixture(scope="module")
def made_run(tmp_path_factory) -> Path:
    return make_run(tmp_path_factory.mktemp("fuzz-run") / "run")


def _saved(run: Path) -> dict[str, str]:
    found = fingerprint(run)
    found.pop(".lock", None)  # the pid of the last process to take the write lock
    return found


def _sql(path: Path, statement: str, params: tuple = ()) -> None:
    import sqlite3

    db = sqlite3.connect(path)
    db.execute(statement, params)
    db.commit()
    db.close()


@st.composite
def run_damages(draw, run: Path):
    """A function that damages a run directory: bytes of one of its files, rows or the
    checkpoint of memory.sqlite, a field of meta.json, or a file swapped for something else."""
    kind = draw(st.sampled_from(["bytes", "bytes", "rows", "checkpoint", "meta", "swap"]))
    if kind == "bytes":
        name = draw(st.sampled_from(["memory.sqlite", "chroma/chroma.sqlite3", "meta.json"]))
        data = draw(mutations((run / name).read_bytes()))
        return lambda r: (r / name).write_bytes(data)
    if kind == "rows":
        where = draw(st.sampled_from(["id > ?", "id <= ?", "id % 3 = ?", "id = ?"]))
        n = draw(st.integers(0, 9))
        return lambda r: _sql(r / "memory.sqlite", f"DELETE FROM memories WHERE {where}", (n,))
    if kind == "checkpoint":
        cut = draw(st.integers(0, 20_000))
        return lambda r: _sql(
            r / "memory.sqlite",
            "UPDATE state SET value = substr(value, 1, ?) WHERE key = 'checkpoint'",
            (cut,),
        )
    if kind == "meta":
        key = draw(
            st.sampled_from(["step_seconds", "agents", "start", "end", "seed", "world_folder"])
        )
        value = draw(
            st.one_of(
                st.sampled_from([0, -1, 10**9, "", None, [], {}, ["Nobody"], 1.5, True]),
                _TEXT,
            )
        )

        def meta(r: Path) -> None:
            data = json.loads((r / "meta.json").read_text("utf-8"))
            data[key] = value
            (r / "meta.json").write_text(json.dumps(data), "utf-8")

        return meta
    name = draw(st.sampled_from(["memory.sqlite", "chroma/chroma.sqlite3", "meta.json"]))
    swap = draw(st.sampled_from(["folder", "fifo", "loop", "empty"]))

    def swapped(r: Path) -> None:
        (r / name).unlink()
        {
            "folder": os.mkdir,
            "fifo": os.mkfifo,
            "loop": lambda p: p.symlink_to(p),
            "empty": lambda p: p.write_bytes(b""),
        }[swap](r / name)

    return swapped


@fuzz(60)
@given(data=st.data())
def test_damaged_run_directories(made_run, tmp_path, data):
    run = tmp_path / "run"
    shutil.rmtree(run, ignore_errors=True)
    shutil.copytree(made_run, run, symlinks=True)
    data.draw(run_damages(made_run))(run)
    before = _saved(run)
    model = tmp_path / "no-model.gguf"
    command = data.draw(
        st.sampled_from(
            [
                ["run", "--resume", run, "--hours", "0.1", "--model", model],
                ["whisper", run, "Maria", "I will paint"],
                ["set", run, "Hobbs Cafe: cafe: cafe counter", "is on fire"],
                ["interview", run, "Maria", "What are you working on?"],
            ]
        )
    )
    done = cli(*command)
    assert "Traceback" not in done.err, (command, done.err)
    line = done.one_line_error()  # no model is there: nothing succeeds
    assert str(run) in line or "model" in line, line
    if str(run) in line:
        assert "(" in line, line  # the fix, between brackets
    assert _saved(run) == before, line
    for reader in (["log", run], ["stats", run]):  # readers read what they can
        _assert_clean(cli(*reader), str(run))
    assert _saved(run) == before


# ------------------------------------------------------------------------- shared caches


@pytest.fixture(scope="module")
def filled_caches(tmp_path_factory) -> Path:
    """A replay cache and an embedding cache holding a few pages of entries."""
    from conftest import WordEmbedder

    from simulacra.embed.embedder import CachedEmbedder
    from simulacra.llm.replay import ReplayCache
    from simulacra.llm.scripted import ScriptedModel

    folder = tmp_path_factory.mktemp("fuzz-caches")
    replay = ReplayCache(ScriptedModel({"t": "recorded"}), folder / "llm-replay.sqlite")
    for i in range(60):
        replay.complete(_request(i))
    replay.close()
    embedder = CachedEmbedder(WordEmbedder(), folder / "embeddings.sqlite")
    embedder.embed([f"memory number {i}" for i in range(60)])
    embedder._db.close()
    return folder


def _request(i: int):
    from simulacra.llm.completion import Request

    return Request("t", "s", f"question {i} " + "x" * 100, None, 10, 0.5, 0.9, 1)


@fuzz(60)
@given(data=st.data())
def test_damaged_caches_are_set_aside_never_fatal(filled_caches, tmp_path, capsys, data):
    from conftest import WordEmbedder

    from simulacra.embed.embedder import CachedEmbedder
    from simulacra.llm.replay import ReplayCache
    from simulacra.llm.scripted import ScriptedModel

    folder = tmp_path / "cache"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(filled_caches, folder)
    name = data.draw(st.sampled_from(["llm-replay.sqlite", "embeddings.sqlite"]))
    path = folder / name
    if data.draw(st.booleans()):
        path.write_bytes(data.draw(mutations(path.read_bytes())))
    else:
        path.unlink()
        data.draw(st.sampled_from([os.mkdir, lambda p: p.write_bytes(b"\0" * 5000)]))(path)
    capsys.readouterr()
    if name == "llm-replay.sqlite":
        cache = ReplayCache(ScriptedModel({"t": "asked again"}), path)
        for i in range(60):  # answered, from the cache or asked again
            assert isinstance(cache.complete(_request(i)).text, str)
        cache.close()
    else:
        embedder = CachedEmbedder(WordEmbedder(), path)
        vectors = embedder.embed([f"memory number {i}" for i in range(60)])
        assert vectors.shape == (60, 256)
        embedder._db.close()
    warnings = capsys.readouterr().err.splitlines()
    aside = list(folder.glob(f"{name}.damaged-*[0-9]"))
    assert len(warnings) == len(aside) <= 1, warnings
    for line in warnings:
        assert line.startswith(f"warning: {path}: the ") and "set aside as" in line, line


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
