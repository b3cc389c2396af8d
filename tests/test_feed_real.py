"""The social feed end to end on the real stack (SmolLM2-135M in llama.cpp, the real
embedder, Chroma, SQLite), through docs/feed.md's commands on a trimmed fan-feed world (one
post on Hikari's interests, one off them) so it stays short. The small model's judgement is
poor; what is tested is that every step's answer parses and lands where it should, and that
a run killed with SIGKILL mid-way resumes without replying twice or skipping a message."""

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.real

WORLD = Path(__file__).resolve().parent.parent / "worlds" / "fan-feed"

POSTS = """
[[post]]
author = "mika_fan"
at = 2023-08-05T12:45:00
text = "Starlight Nova's 12:30 Hot Stage was their first festival ever: a new song, Comet Letter."

[[post]]
author = "taku"
at = 2023-08-05T12:55:00
text = "Does anyone know a good ramen shop near the station?"
"""


def simulacra(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "simulacra", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=900,
        env=os.environ.copy(),
    )


def test_the_readme_feed_runs_on_the_embedded_model(tmp_path):
    world = tmp_path / "world"
    shutil.copytree(WORLD, world)
    (world / "posts.toml").write_text(POSTS, encoding="utf-8")
    made = simulacra("feed", "new", "fans", "--world", str(world), cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert "2 messages" in made.stdout and "Hikari" in made.stdout
    posted = simulacra(
        "feed", "post", "fans", "--as", "yui", "Nova made me cry", "--reply-to", "1", cwd=tmp_path
    )
    assert posted.returncode == 0, posted.stderr
    assert posted.stdout.startswith("#3 (reply to #1) yui")
    killed = subprocess.Popen(
        [sys.executable, "-m", "simulacra", "feed", "run", "fans", "--hours", "0.25"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    db = sqlite3.connect(tmp_path / "fans" / "feed.sqlite")
    deadline = time.monotonic() + 600
    while db.execute("SELECT COUNT(*) FROM decisions").fetchone()[0] < 1:
        assert killed.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    os.kill(killed.pid, signal.SIGKILL)  # the first message decided, the others not yet
    killed.wait()
    ran = simulacra("feed", "run", "fans", "--hours", "0.25", cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    humans = [r[0] for r in db.execute("SELECT id FROM messages WHERE by_agent = 0 ORDER BY id")]
    decided = [r[0] for r in db.execute("SELECT message FROM decisions ORDER BY message")]
    assert decided == humans  # every message decided once, whatever the small model decided
    for (parent,) in db.execute("SELECT parent FROM messages WHERE by_agent = 1"):
        assert parent in humans
    again = simulacra("feed", "run", "fans", "--hours", "0.25", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert db.execute("SELECT COUNT(*) FROM decisions").fetchone()[0] == len(humans)
    shown = simulacra("feed", "show", "fans", "--thoughts", cwd=tmp_path)
    assert shown.returncode == 0 and "#1 mika_fan" in shown.stdout
    asked = simulacra(
        "feed",
        "interview",
        "fans",
        "Hikari",
        "Which debut idol shone most this year?",
        cwd=tmp_path,
    )
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout.startswith("Hikari: ")
    print(shown.stdout, asked.stdout)
