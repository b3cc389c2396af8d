"""`simulacra world check | show | objects` as a user runs them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from simulacra.cli.app import cli

ROOT = Path(__file__).resolve().parent.parent
TINY = Path(__file__).parent / "fixtures" / "worlds" / "tiny"


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def simulacra(*args: str, cwd: Path):
    return subprocess.run(
        [sys.executable, "-m", "simulacra", *args],
        cwd=cwd,
        env={**os.environ},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_smallville_reports_25_personas():
    done = run("world", "check", str(ROOT / "worlds" / "smallville"))
    assert done.exit_code == 0, done.output
    assert "Smallville: ok" in done.output
    assert "25 personas" in done.output
    assert "19 sectors" in done.output and "arenas" in done.output and "objects" in done.output


def test_check_smallville_3():
    done = run("world", "check", str(ROOT / "worlds" / "smallville-3"))
    assert done.exit_code == 0 and "3 personas" in done.output


def test_show_draws_the_map_and_one_sector():
    done = run("world", "show", str(ROOT / "worlds" / "smallville"))
    assert done.exit_code == 0
    assert "Hobbs Cafe" in done.output and "Isabella Rodriguez" in done.output
    lines = done.output.splitlines()
    assert sum(1 for line in lines if len(line) == 106) >= 68
    zoomed = run("world", "show", str(TINY), "--sector", "cafe", "--no-residents")
    assert "#ccMc#r#" in zoomed.output and "one-person restroom, holds 1" in zoomed.output


def test_objects_lists_addresses_and_states():
    done = run("world", "objects", str(TINY))
    rows = [line.rsplit(None, 1) for line in done.output.strip().splitlines()]
    assert ["Ada's house: kitchen: refrigerator", "humming"] in [
        [address.strip(), state] for address, state in rows
    ]
    one = run("world", "objects", str(ROOT / "worlds" / "smallville"), "--arena", "Lin kitchen")
    lines = one.output.strip().splitlines()
    assert lines[0].startswith("Lin family's house: kitchen: stove") and lines[0].endswith("idle")
    assert len(lines) == 4


def test_mistakes_print_one_line_without_a_traceback(tmp_path):
    bad = Path(shutil.copytree(TINY, tmp_path / "bad"))
    persona = bad / "personas" / "ada.toml"
    persona.write_text(persona.read_text().replace("age = 36\n", ""))
    for args, needle in [
        (["world", "check", "bad"], "bad/personas/ada.toml: age: missing"),
        (["world", "show", "bad"], "bad/personas/ada.toml: age: missing"),
        (["world", "check", "nowhere"], "nowhere: no such world folder"),
        (["world", "objects", str(TINY), "--arena", "attic"], 'no arena matches "attic"'),
    ]:
        done = simulacra(*args, cwd=tmp_path)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.startswith("error: ") and needle in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert "Traceback" not in done.stderr
