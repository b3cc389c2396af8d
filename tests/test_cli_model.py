"""`simulacra prompts`, `stats` and `doctor` as a user runs them (real model, subprocesses)."""

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.real


def simulacra(*args, cwd, env=None):
    return subprocess.run(
        [sys.executable, "-m", "simulacra", *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_prompts_try_parses_and_replays_from_the_cache(tmp_path):
    first = simulacra("prompts", "try", "importance", "-n", "5", "--out", "one", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "parsed 5/5" in first.stdout and "5 model calls, 0 from cache" in first.stdout
    calls = [json.loads(line) for line in (tmp_path / "one" / "calls.jsonl").open()]
    assert len(calls) == 5
    assert all(
        c["prompt_tokens"] > 0 and c["generated_tokens"] > 0 and c["seconds"] > 0 for c in calls
    )

    second = simulacra("prompts", "try", "importance", "-n", "5", "--out", "two", cwd=tmp_path)
    assert "parsed 5/5" in second.stdout and "0 model calls, 5 from cache" in second.stdout
    answers = [line.split()[1] for line in first.stdout.splitlines()[:5]]
    assert answers == [line.split()[1] for line in second.stdout.splitlines()[:5]]

    stats = simulacra("stats", "one", cwd=tmp_path)
    assert stats.returncode == 0 and "importance" in stats.stdout


def test_prompts_try_accepts_variables_from_a_file(tmp_path):
    (tmp_path / "vars.json").write_text(
        json.dumps(
            {
                "name": "Klaus Mueller",
                "identity": "Klaus Mueller studies sociology.",
                "memories": ["Klaus is brushing his teeth", "Klaus won a research prize"],
            }
        )
    )
    done = simulacra("prompts", "try", "importance", "--vars", "vars.json", cwd=tmp_path)
    assert "parsed 1/1" in done.stdout
    assert len(json.loads(done.stdout.split()[1])["ratings"]) == 2


def test_user_mistakes_get_one_line_errors(tmp_path):
    (tmp_path / "bad.json").write_text("{oops")
    for args, needle in [
        (["prompts", "try", "nope"], "no prompt template named 'nope'"),
        (["prompts", "try", "importance", "--vars", "bad.json"], "bad.json: not valid JSON"),
        (["doctor", "--model", "missing.gguf"], "missing.gguf: --model: model file not found"),
        (["prompts", "try", "importance", "--n-ctx", "5"], "--n-ctx"),
    ]:
        done = simulacra(*args, cwd=tmp_path)
        assert done.returncode == 2
        assert done.stderr.startswith("error: ") and needle in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_prompts_list_names_the_importance_template(tmp_path):
    done = simulacra("prompts", "list", cwd=tmp_path)
    assert "importance" in done.stdout and "Ratings" in done.stdout  # its answer's title
