"""Helpers for the tests of bad input (test_hostile.py, test_fuzz_inputs.py): the CLI run in
this process with its output captured, fingerprints of what a directory holds, and a small
run made with the scripted model (conftest.py's ``saved_run`` and ``run`` fixtures)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from conftest import WordEmbedder
from scripted_town import SCRIPTS

ROOT = Path(__file__).resolve().parent.parent
WORLD = ROOT / "worlds" / "smallville-3"
FIXTURE_RUN = ROOT / "tests" / "fixtures" / "run-smallville-3"  # a run kept in the repository
OBJECT = "Hobbs Cafe: cafe: cafe counter"


@dataclass
class Outcome:
    code: int
    out: str
    err: str

    def one_line_error(self) -> str:
        """The error line, after checking there is exactly one and no traceback."""
        assert self.code == 2, (self.code, self.out, self.err)
        lines = [line for line in self.err.splitlines() if line.strip()]
        assert len(lines) == 1, self.err
        assert lines[0].startswith("error: ") and "Traceback" not in self.err, self.err
        return lines[0]


def cli(*args: str | Path) -> Outcome:
    """``simulacra ARGS`` in this process: exit code, stdout, stderr."""
    from simulacra.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main([str(a) for a in args])
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
    return Outcome(code, out.getvalue(), err.getvalue())


def fingerprint(directory: Path) -> dict[str, str]:
    """Every file under ``directory`` with a hash of its bytes (symlinks by their target)."""
    found = {}
    for path in sorted(directory.rglob("*")):
        rel = str(path.relative_to(directory))
        if path.is_symlink():
            found[rel] = "-> " + str(path.readlink())
        elif path.is_file():
            found[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
        elif not path.is_dir():
            found[rel] = "special"
    return found


def copy_world(target: Path) -> Path:
    """A self-contained copy of smallville-3 (it borrows smallville's files)."""
    from simulacra.world import load_world

    world = load_world(WORLD)
    files = [Path(f).resolve() for f in world.source_files]
    root = (ROOT / "worlds").resolve()
    for f in files:
        dest = target / f.relative_to(root)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, dest)
    return target / "smallville-3"


def make_run(directory: Path, steps: int = 3) -> Path:
    """A small real run directory made with the scripted model and the word embedder."""
    from simulacra.llm import open_model
    from simulacra.llm.scripted import ScriptedModel
    from simulacra.settings import Settings
    from simulacra.sim.simulation import Simulation

    settings = Settings()
    settings.llm.cache = False
    model = open_model(settings.llm, completer=ScriptedModel(SCRIPTS))
    sim = Simulation.create(
        WORLD, directory, hours=0.1, settings=settings, model=model, embedder=WordEmbedder()
    )
    sim.run(until_step=steps)
    sim.close()
    (directory / "calls.jsonl").touch()  # the scripted model keeps no call log
    return directory


def saved_json(directory: Path) -> dict:
    """A run's checkpoint as stored: the JSON in memory.sqlite, not read through the model."""
    from simulacra.sim import rundir

    with sqlite3.connect(directory / "memory.sqlite") as db:
        (value,) = db.execute(
            "SELECT value FROM state WHERE key = ?", (rundir.CHECKPOINT_KEY,)
        ).fetchone()
    return json.loads(value)
