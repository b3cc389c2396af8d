"""A short Smallville run on the real stack through the CLI, as a user does it: Ctrl-C, a
SIGKILL, two resumes, then the commands that work on a stopped run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from simulacra.sim.eventlog import EVENTS_FILE, read_events

pytestmark = pytest.mark.real

ROOT = Path(__file__).resolve().parent.parent
# 180 steps: steps without a model call take milliseconds, so the run must be long enough for
# the signals to land mid-way whatever the small model planned.
HOURS = 0.5


def simulacra(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "simulacra", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
        env=os.environ.copy(),
    )


def start(*args, cwd):
    return subprocess.Popen(
        [sys.executable, "-m", "simulacra", *map(str, args)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )


def steps(run: Path) -> list[int]:
    path = run / EVENTS_FILE
    return [e.step for e in read_events(path)] if path.exists() else []


def lines_written(run: Path) -> int:
    """Steps written so far, counted cheaply: a poll every few milliseconds must not slow the
    run it watches."""
    path = run / EVENTS_FILE
    return path.read_bytes().count(b"\n") if path.exists() else 0


def wait_for_steps(run: Path, proc, n: int) -> None:
    deadline = time.monotonic() + 600
    while lines_written(run) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_a_town_run_survives_ctrl_c_and_sigkill(tmp_path):
    run = tmp_path / "run"
    world = ROOT / "worlds" / "smallville-3"

    first = start("run", world, "--hours", HOURS, "--out", run, cwd=tmp_path)
    wait_for_steps(run, first, 10)
    first.send_signal(signal.SIGINT)
    out, err = first.communicate(timeout=600)
    assert first.returncode == 0, err
    assert "stopped (Ctrl-C)" in out
    stopped_at = len(steps(run))
    assert 0 < stopped_at < 180

    second = start("run", "--resume", run, cwd=tmp_path)
    wait_for_steps(run, second, stopped_at + 1)
    os.kill(second.pid, signal.SIGKILL)
    second.wait()

    third = simulacra("run", "--resume", run, cwd=tmp_path)
    assert third.returncode == 0, third.stderr
    assert "finished at Monday February 13, 2023, 07:30" in third.stdout
    assert steps(run) == list(range(180))  # none missing, none repeated

    stats = simulacra("stats", run, cwd=tmp_path)
    assert stats.returncode == 0, stats.stderr
    assert "parse failures 0 · invalid places 0" in stats.stdout
    calls = [json.loads(line) for line in (run / "calls.jsonl").open()]
    templates = {c["template"] for c in calls}
    # Not "act": a first half hour may be all morning routine, placed at home without a call.
    assert {"day_plan", "hourly_schedule", "importance"} <= templates
    last = list(read_events(run / EVENTS_FILE))[-1]
    for agent in last.agents.values():  # awake and doing something, somewhere real
        assert agent.emoji and agent.activity != "idle"
        assert agent.place

    log = simulacra("log", run, "--agent", "isabella", cwd=tmp_path)
    assert log.returncode == 0 and "Isabella Rodriguez" in log.stdout

    told = simulacra("whisper", run, "Isabella", "I will invite Klaus to the party", cwd=tmp_path)
    assert told.returncode == 0, told.stderr
    asked = simulacra("interview", run, "Maria Lopez", "What are you doing today?", cwd=tmp_path)
    assert asked.returncode == 0 and asked.stdout.startswith("Maria Lopez: "), asked.stderr
    burning = simulacra("set", run, "Lin family's kitchen stove", "is burning", cwd=tmp_path)
    assert burning.stdout.strip() == "Lin family's house: kitchen: stove is burning"
    wrong = simulacra("interview", run, "Nobody", "Hello?", cwd=tmp_path)
    assert wrong.returncode == 2 and wrong.stderr.startswith("error: AGENT: no resident named")
