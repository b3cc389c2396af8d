"""`simulacra agent ...` in exactly the issue's forms, on the embedded model."""

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.real


def simulacra(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "simulacra", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        env=os.environ.copy(),
    )


def test_the_agent_commands_work_on_the_embedded_model(tmp_path):
    made = simulacra(
        "agent",
        "new",
        "klaus",
        "--name",
        "Klaus Mueller",
        "--age",
        "20",
        "--traits",
        "kind, inquisitive",
        "--seed",
        "Klaus studies sociology; Klaus writes about gentrification",
        cwd=tmp_path,
    )
    assert made.returncode == 0, made.stderr
    assert "with 2 memories" in made.stdout
    seen = simulacra(
        "agent", "observe", "klaus", "Maria Lopez is reading in the library", cwd=tmp_path
    )
    assert seen.returncode == 0 and "remembered #3" in seen.stdout, seen.stderr
    found = simulacra("agent", "memories", "klaus", "who is reading?", cwd=tmp_path)
    assert found.returncode == 0 and "Maria Lopez is reading in the library" in found.stdout
    assert "recency" in found.stdout and "relevance" in found.stdout
    asked = simulacra("agent", "interview", "klaus", "What are you working on?", cwd=tmp_path)
    assert asked.returncode == 0 and asked.stdout.startswith("Klaus Mueller: "), asked.stderr
    told = simulacra("agent", "whisper", "klaus", "I will finish my paper this week", cwd=tmp_path)
    assert told.returncode == 0 and "importance 9" in told.stdout
    again = simulacra(
        "agent", "new", "klaus", "--name", "X", "--age", "1", "--traits", "x", cwd=tmp_path
    )
    assert again.returncode == 2 and "an agent already lives here" in again.stderr
    missing = simulacra("agent", "observe", "nobody", "hello", cwd=tmp_path)
    assert missing.returncode == 2 and missing.stderr.startswith("error: nobody: no agent here")
