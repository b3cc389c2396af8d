"""What a run directory saved, checked before the run is opened: memory.sqlite is a whole
SQLite database holding a readable checkpoint and every memory the checkpoint counts, and
Chroma's database is whole. A damaged file is then a one-line error naming it and the fix,
before a model is loaded or anything is written, instead of a traceback (or, for memories
deleted, a run that resumes without them and says nothing).

Only reading is done here. The connection is opened read-write all the same: a read-only
one leaves the -wal and -shm files of a WAL database behind, and the last connection
closing removes them.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

from pydantic import ValidationError

from simulacra.cachedb import damaged
from simulacra.errors import UserError
from simulacra.memory.store import CHROMA_DIR, DB_FILE
from simulacra.sim import checkpoint, rundir
from simulacra.sim.checkpoint import Checkpoint
from simulacra.sim.eventlog import DAMAGED, EVENTS_FILE, missing_steps
from simulacra.state import first_error

CHROMA_DB = "chroma.sqlite3"
RESTORE = "restore {name} from a copy of the run, or fork a copy that still has it"


def check(directory: Path, meta: rundir.Meta, *, vector_server: str | None = None) -> None:
    """Raise a UserError naming the first damaged file of the run's saved state.

    A run without memory.sqlite or without a checkpoint yet is left to the caller, which
    says what can be done about it."""
    path = directory / DB_FILE
    if not path.is_file():
        return
    with _reading(path) as db:
        _whole(db, path)
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"memories", "state"} <= tables:
            missing = sorted({"memories", "state"} - tables)
            raise _damaged(path, f"the table {missing[0]!r} is missing")
        row = db.execute(
            "SELECT value FROM state WHERE key = ?", (rundir.CHECKPOINT_KEY,)
        ).fetchone()
        if row is None:
            return
        state = read_checkpoint(row[0], directory)
        counts = {
            agent: (n, low, high)
            for agent, n, low, high in db.execute(
                "SELECT agent, COUNT(*), MIN(id), MAX(id) FROM memories GROUP BY agent"
            )
        }
    _memories(state, counts, meta, path)
    chroma = directory / CHROMA_DIR / CHROMA_DB
    if vector_server is None and chroma.exists():
        if not chroma.is_file():
            raise _chroma_damaged(chroma, "not a file")
        with _reading(chroma, _chroma_damaged) as db:
            _whole(db, chroma, _chroma_damaged)


def check_agents(meta: rundir.Meta, names: list[str], directory: Path) -> None:
    """Every agent meta.json names lives in the run's copy of the world."""
    unknown = [a for a in meta.agents if a not in names]
    if unknown:
        raise UserError(
            f"names {unknown[0]!r}, who is not a resident of the run's world",
            file=directory / rundir.META_FILE,
            field="agents",
            fix=rundir.META_FIX,
        )


def saved_checkpoint(directory: Path) -> Checkpoint | None:
    """The run's last checkpoint, or None where there is none or it cannot be read (a
    reader's question: a damaged file is for the commands that open the run to report)."""
    path = directory / DB_FILE
    if not path.is_file():
        return None
    try:
        with _reading(path) as db:
            row = db.execute(
                "SELECT value FROM state WHERE key = ?", (rundir.CHECKPOINT_KEY,)
            ).fetchone()
        return read_checkpoint(row[0], directory) if row else None
    except (UserError, sqlite3.Error):
        return None


def log_ends_early(directory: Path, steps: int | None = None) -> str | None:
    """For the readers (log, stats, report, view): a warning line when the event log, of
    ``steps`` whole steps (counted when not given), ends before the run's last checkpoint;
    `run --resume` refuses such a log with the same words (EventLog.cut)."""
    saved = saved_checkpoint(directory)
    if saved is None:
        return None
    step = saved.step
    if steps is None:
        steps = _whole_lines(directory / EVENTS_FILE)
    missing = missing_steps(steps, step)
    if missing is None:
        return None
    return f"{directory / EVENTS_FILE}: {missing} (what is shown stops there; {DAMAGED})"


def _whole_lines(path: Path) -> int:
    if not path.is_file():  # a FIFO would never end
        return 0
    try:
        with path.open("rb") as f:
            return sum(block.count(b"\n") for block in iter(lambda: f.read(1 << 20), b""))
    except OSError:
        return 0


def read_checkpoint(text: str, directory: Path) -> Checkpoint:
    """The run's checkpoint from its saved ``text`` (one of an older simulacra converted);
    a UserError naming memory.sqlite where it cannot be read."""
    path = directory / DB_FILE
    try:
        return checkpoint.parse(text)
    except json.JSONDecodeError:
        raise _damaged(path, "its checkpoint is cut short or not JSON") from None
    except checkpoint.NewerCheckpoint as e:
        raise UserError(
            f"its checkpoint is of version {e.version}, which this simulacra (reading up to "
            f"version {checkpoint.VERSION}) does not know",
            file=path,
            fix="open the run with a newer simulacra",
        ) from None
    except ValidationError as e:
        if any(error["loc"][:1] == ("step",) for error in e.errors()):
            raise _damaged(path, "its checkpoint has no step") from None
        raise _damaged(path, f"its checkpoint is not a run's state ({first_error(e)})") from None
    except ValueError as e:
        raise _damaged(path, f"its checkpoint is not a run's state ({e})") from None


# -- the parts -------------------------------------------------------------------------------


@contextlib.contextmanager
def _reading(path: Path, report=None) -> Iterator[sqlite3.Connection]:
    """A connection to read ``path``; damage found while reading is ``report``ed."""
    report = report or _damaged
    try:
        db = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=rw", uri=True, timeout=30)
    except sqlite3.Error as e:
        raise report(path, f"cannot be opened ({e})") from None
    try:
        yield db
    except sqlite3.DatabaseError as e:
        if not damaged(e):  # locked, unreadable, a read-only disk: not the file's fault
            raise UserError(f"cannot be read: {e}", file=path) from None
        raise report(path, str(e)) from None
    finally:
        db.close()


def _whole(db: sqlite3.Connection, path: Path, report=None) -> None:
    report = report or _damaged
    found = db.execute("PRAGMA quick_check(1)").fetchone()  # errors: see _reading
    if not found or found[0] != "ok":
        raise report(path, f"SQLite finds it damaged: {found[0] if found else 'no answer'}")


def _memories(state: Checkpoint, counts: dict, meta: rundir.Meta, path: Path) -> None:
    """Ids run from 1 without gaps, as many as the checkpoint saw (checkpoints written
    before it counted them saw at least the ones logged: the ``unlogged`` cursor)."""
    saved = state.memories or {}
    logged = state.town.unlogged
    for agent in meta.agents:
        n, low, high = counts.get(agent, (0, None, None))
        if agent in saved:
            expected = saved[agent]
            short = n != expected
        else:
            cursor = logged.get(agent)
            expected = cursor - 1 if cursor is not None else 0
            short = n < expected
        gaps = n and (low != 1 or high != n)
        if short or gaps:
            held = f"holds {n} memories of {agent}" + (f" (ids {low} to {high})" if n else "")
            raise _damaged(path, f"{held}, but its checkpoint saw {expected}")


def _damaged(path: Path, problem: str) -> UserError:
    return UserError(
        f"damaged: {problem}",
        file=path,
        fix="simulacra changed nothing; " + RESTORE.format(name=path.name),
    )


def _chroma_damaged(path: Path, problem: str) -> UserError:
    return UserError(
        f"damaged: {problem}",
        file=path,
        fix=f"simulacra changed nothing; move {path.parent} aside (mv {path.parent} "
        f"{path.parent}.damaged): the vectors are rebuilt from {DB_FILE} when the run opens",
    )
