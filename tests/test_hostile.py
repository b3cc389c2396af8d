"""Issue 12: what a hostile tester found. Each test reproduces one finding and shows the fix:
one writer per run directory, bounded and inert user text, and a one-line error for every
bad input, with nothing already saved changed."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from hostile_helpers import FIXTURE_RUN, OBJECT, ROOT, WORLD, cli, copy_world, fingerprint

from simulacra.viewer.server import ViewerServer

# ------------------------------------------------------------ 1. one writer per run

HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from simulacra.sim import rundir
    rundir.hold_for_writing(Path(sys.argv[1]))
    print("holding", flush=True)
    time.sleep(600)
    """
)


def test_a_second_writer_is_refused_naming_the_first_and_readers_keep_working(run):
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(run)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert holder.stdout.readline().strip() == "holding"
        before = fingerprint(run)
        for args in (
            ["set", run, OBJECT, "is on fire"],
            ["whisper", run, "Maria", "I will paint"],
            ["run", "--resume", run, "--hours", "0.1"],
        ):
            line = cli(*args).one_line_error()
            assert f"process {holder.pid} is writing this run" in line
        assert fingerprint(run) == before
        assert cli("log", run).code == 0  # readers are not locked out
        assert cli("stats", run).code == 0
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    # The lock died with its process: nothing stale is left behind.
    done = cli("set", run, OBJECT, "is on fire")
    assert done.code == 0, done.err


def test_two_resumes_in_two_processes_cannot_both_write(run):
    from simulacra.errors import UserError
    from simulacra.sim import runlock
    from simulacra.sim.simulation import Simulation

    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(run)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        holder.stdout.readline()
        with pytest.raises(UserError, match=f"process {holder.pid} is writing"):
            Simulation.resume(run)
    finally:
        holder.kill()
        holder.wait()
    assert not runlock._held


# ------------------------------------------------------------ 4. memory.sqlite deleted


def test_a_missing_memory_database_is_named_and_nothing_is_created(run):
    (run / "memory.sqlite").unlink()
    before = fingerprint(run)
    line = cli("run", "--resume", run, "--hours", "0.1").one_line_error()
    assert "memory.sqlite is missing" in line and "no checkpoint" not in line
    assert fingerprint(run) == before
    assert not (run / "memory.sqlite").exists()


# ------------------------------------------------------------ 6. unbounded user text


def test_a_huge_state_or_whisper_is_refused_at_the_door(run):
    before = fingerprint(run)
    huge = "x" * 100_000
    line = cli("set", run, OBJECT, huge).one_line_error()
    assert "STATE" in line and "limits.object_state_chars" in line
    line = cli("whisper", run, "Maria", huge).one_line_error()
    assert "STATEMENT" in line and "limits.memory_chars" in line
    line = cli("interview", run, "Maria", huge).one_line_error()
    assert "QUESTION" in line
    assert fingerprint(run) == before


def test_memories_are_added_to_a_prompt_while_they_fit(scripted, word_embedder, tmp_path):
    """However long the stored memories, an interview prompt fits the context: the most
    relevant memories go in while there is room."""
    from datetime import datetime

    from simulacra.agent import GenerativeAgent
    from simulacra.memory import NewMemory
    from simulacra.persona import Persona

    model = scripted()

    class CountingScripted(type(model.completer)):
        n_ctx = 4096

        def fits(self, system: str, user: str, answer_tokens: int) -> bool:
            return len((system + user).encode()) // 2 + answer_tokens <= self.n_ctx

    backend = CountingScripted()
    model.completer = backend
    at = datetime(2023, 2, 13, 8)
    persona = Persona(name="Maria Lopez", age=21, innate="curious", learned="Maria paints")
    maria = GenerativeAgent.create(
        tmp_path / "maria", persona, at=at, model=model, embedder=word_embedder
    )
    # Memories that came in before there were bounds (or from a file): each one long.
    long = [
        NewMemory(f"Maria remembers painting number {i}: " + "paint " * 300, importance=5)
        for i in range(6)
    ]
    huge = NewMemory("Maria remembers what she paints: " + "paint " * 20_000, importance=9)
    for memory in [huge, *long]:
        maria.stream.add([memory], at)
    maria.interview("What do you paint?")
    (asked,) = backend.calls("interview")
    assert backend.fits(asked.system, asked.user, 512)
    assert "Maria remembers what she paints: paint" in asked.user  # shortened, not dropped
    assert len(asked.user) < 10_000
    shown = asked.user.count("Maria remembers painting number")
    assert shown < len(long)  # cut to fit


# ------------------------------------------------------------ 7. names


@pytest.mark.parametrize("name", ["Maria \x1b[31mLopez", "Maria \u202eLopez", "Maria: Lopez"])
def test_names_with_control_characters_or_colons_are_refused(tmp_path, name):
    world = copy_world(tmp_path)
    persona = world.parent / "smallville" / "personas" / "maria-lopez.toml"
    text = persona.read_text("utf-8").replace('"Maria Lopez"', json.dumps(name), 1)
    persona.write_text(text, "utf-8")
    line = cli("world", "check", world).err.splitlines()[0]
    assert "maria-lopez.toml" in line and "name" in line
    assert "\x1b" not in line and "\u202e" not in line


def test_terminal_output_shows_control_characters_as_escapes(tmp_path):
    import shutil

    run = tmp_path / "run"
    shutil.copytree(FIXTURE_RUN, run)
    lines = (run / "events.jsonl").read_text("utf-8").splitlines()
    first = json.loads(lines[0])
    name = next(iter(first["agents"]))
    first["agents"][name]["description"] = "is \x1b[2J\x1b[31mred [/bold] \u202ereversed"
    lines[0] = json.dumps(first)
    (run / "events.jsonl").write_text("\n".join(lines) + "\n", "utf-8")
    done = cli("log", run)
    assert done.code == 0, done.err
    assert "\x1b" not in done.out and "\u202e" not in done.out
    assert "\\x1b[2J" in done.out and "[/bold]" in done.out


def test_printable_keeps_emoji_and_newlines():
    from simulacra.text import printable

    assert printable("☕ 👩‍👩‍👧 line\nnext") == "☕ 👩‍👩‍👧 line\nnext"
    assert printable("a\x1bb\x07") == "a\\x1bb\\x07"


# ------------------------------------------------------------ 8. --hours


@pytest.mark.parametrize("hours", ["nan", "inf", "-inf", "1e9", "0", "-1", "abc"])
def test_impossible_hours_are_one_line_and_leave_nothing(tmp_path, hours):
    out = tmp_path / "out"
    line = cli("run", WORLD, "--hours", hours, "--out", out).one_line_error()
    assert "--hours" in line
    assert not out.exists()


# ------------------------------------------------------------ 9. the smallest context


def test_the_smallest_context_accepted_is_one_that_works():
    line = cli("run", WORLD, "--n-ctx", "512", "--out", "/nonexistent/x").one_line_error()
    assert "--n-ctx" in line and "2048" in line


# ------------------------------------------------------------ 10. scenario start


@pytest.mark.parametrize(
    "start", ["2023-02-13T07:00:00+05:00", "9999-12-31T23:55:00", "0001-01-01T00:00:00"]
)
def test_a_start_that_run_cannot_use_fails_the_check(tmp_path, start):
    world = copy_world(tmp_path)
    scenario = world / "scenario.toml"
    text = re.sub(r"(?m)^start = .*$", f"start = {start}", scenario.read_text("utf-8"))
    scenario.write_text(text, "utf-8")
    done = cli("world", "check", world)
    assert done.code == 2
    assert "scenario.toml: start" in done.err and "Traceback" not in done.err


# ------------------------------------------------------------ 11. unreadable files


def test_files_that_are_not_text_are_one_line_errors(tmp_path):
    world = copy_world(tmp_path)
    persona = world.parent / "smallville" / "personas" / "maria-lopez.toml"
    persona.write_bytes(persona.read_bytes().replace(b"Maria", b"Mar\xffia", 1))
    line = cli("world", "check", world).err.splitlines()[0]
    assert "maria-lopez.toml" in line and "not UTF-8" in line

    loop = tmp_path / "loop.toml"
    loop.symlink_to(loop)
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"[llm]\nseed = 1 # \xff\xfe\n")
    for config in (loop, fifo, Path("/dev/zero"), bad):
        started = time.monotonic()
        line = cli("--config", config, "world", "check", WORLD).one_line_error()
        assert str(config) in line
        assert time.monotonic() - started < 5  # no hang on a pipe or an endless device


# ------------------------------------------------------------ 12. the viewer's query


@pytest.mark.parametrize("limit", ["-1", "abc", "1e3", ""])
def test_a_bad_events_limit_is_a_400_with_a_message(limit):
    with ViewerServer(FIXTURE_RUN) as server:
        server.start()
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request("GET", f"/api/events?limit={limit}")
        response = conn.getresponse()
        body = response.read()
        conn.close()
    if limit == "":  # no value: the default
        assert response.status == 200
    else:
        assert response.status == 400
        assert b"limit" in body


# ------------------------------------------------------------ 13. world checks


def _sector(world: Path, name: str) -> Path:
    return world.parent / "smallville" / "sectors" / name


def test_an_object_drawn_in_the_outer_wall_fails_the_check(tmp_path):
    world = copy_world(tmp_path)
    cafe = _sector(world, "hobbs-cafe.toml")
    text = cafe.read_text("utf-8")
    start = text.index("map = '''") + len("map = '''\n")
    rows = text[start:].split("\n")
    symbol = re.search(r'objects\.(\S) = "piano"', text)[1]
    rows[0] = rows[0][:3] + symbol + rows[0][4:]  # into the top wall, the street beyond
    cafe.write_text(text[:start] + "\n".join(rows), "utf-8")
    done = cli("world", "check", world)
    assert done.code == 2
    assert "hobbs-cafe.toml" in done.err and "drawn in a wall" in done.err


def test_an_all_wall_building_fails_the_check(tmp_path):
    world = copy_world(tmp_path)
    cafe = _sector(world, "hobbs-cafe.toml")
    text = cafe.read_text("utf-8")
    body = text.partition("map = '''\n")[2].partition("'''")[0]
    walls = "\n".join("#" * len(row) for row in body.splitlines())
    cafe.write_text(f"name = \"Hobbs Cafe\"\nmap = '''\n{walls}\n'''\n", "utf-8")
    done = cli("world", "check", world)
    assert done.code == 2 and "hobbs-cafe.toml" in done.err and "no arena" in done.err


def test_an_empty_personas_folder_fails_the_check_naming_the_users_file(tmp_path):
    world = copy_world(tmp_path)
    (world / "nobody").mkdir()
    text = (world / "world.toml").read_text("utf-8")
    text = re.sub(r"(?m)^personas = .*$", 'personas = "nobody"', text)
    (world / "world.toml").write_text(text, "utf-8")
    done = cli("world", "check", world)
    assert done.code == 2
    assert str(world / "world.toml") in done.err and "no persona files" in done.err


def test_the_shipped_worlds_still_pass():
    for world in ("smallville", "smallville-3"):
        assert cli("world", "check", ROOT / "worlds" / world).code == 0


# ------------------------------------------------------------ 14. failed starts


def test_a_missing_model_leaves_no_half_made_run(tmp_path):
    out = tmp_path / "out"
    line = cli("run", WORLD, "--out", out, "--model", tmp_path / "nope.gguf").one_line_error()
    assert "model file not found" in line
    assert not out.exists()


def test_a_truncated_model_leaves_no_half_made_run(tmp_path):
    bad = tmp_path / "cut.gguf"
    bad.write_bytes(b"GGUF" + b"\x03\x00\x00\x00" + b"\x00" * 64)
    out = tmp_path / "out"
    line = cli("run", WORLD, "--hours", "0.1", "--out", out, "--model", bad).one_line_error()
    assert "cut.gguf" in line
    assert not out.exists()


def test_a_run_whose_model_went_away_says_how_to_go_on(run, tmp_path):
    meta = json.loads((run / "meta.json").read_text("utf-8"))
    meta["settings"]["llm"]["model"] = str(tmp_path / "gone.gguf")
    (run / "meta.json").write_text(json.dumps(meta), "utf-8")
    before = fingerprint(run)
    line = cli("run", "--resume", run, "--hours", "0.1").one_line_error()
    assert "gone.gguf" in line and "--resume DIR --model PATH" in line
    assert fingerprint(run) == before


# ------------------------------------------------------------ 15. the docs


def test_the_docs_say_how_often_a_run_checkpoints():
    from simulacra.settings import SimSettings
    from simulacra.world import load_world

    every = SimSettings().checkpoint_every
    step = load_world(WORLD).scenario.step_seconds
    readme = " ".join((ROOT / "docs" / "architecture.md").read_text("utf-8").split())
    assert f"checkpoints every {every} steps ({every * step // 60} game minutes" in readme
    assert "every minute of game time" not in readme


def test_a_meal_hour_that_is_not_hh_mm_names_its_setting(tmp_path):
    """Meal hours are compared as text: "3pm" would pass any clock time by."""
    from simulacra.errors import UserError
    from simulacra.settings import Settings

    config = tmp_path / "settings.toml"
    config.write_text('[plan.meal_hours]\nlunch = ["11:00", "3pm"]\n', encoding="utf-8")
    with pytest.raises(UserError) as caught:
        Settings.load(config)
    assert "plan.meal_hours.lunch" in str(caught.value) and "\n" not in str(caught.value)
