"""A simulation is a directory:

meta.json       what was run: world, agents, start and end time, seed, settings
world/          a copy of the world's files, so the run never depends on later edits
world.json      the map as a browser draws it (World.export_map)
memory.sqlite   every agent's memories, and the last checkpoint, committed together
chroma/         every agent's memory vectors
events.jsonl    one line per step (see eventlog.py)
calls.jsonl     one line per model call
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from simulacra.errors import UserError
from simulacra.memory.store import DB_FILE
from simulacra.settings import Settings
from simulacra.sim import runlock
from simulacra.sim.eventlog import EVENTS_FILE
from simulacra.textfile import read_text
from simulacra.world import World

META_FILE = "meta.json"
WORLD_DIR = "world"
MAP_FILE = "world.json"
CHECKPOINT_KEY = "checkpoint"  # in memory.sqlite's state table, committed with the memories


@dataclass
class Meta:
    world_folder: str  # the world's folder inside the run's copy
    world_source: str
    agents: list[str]
    start: datetime
    end: datetime
    step_seconds: int
    seed: int
    settings: dict
    created: str
    forked_from: str | None = None

    def to_json(self) -> dict:
        data = dict(self.__dict__)
        data["start"], data["end"] = self.start.isoformat(), self.end.isoformat()
        return data

    @classmethod
    def from_json(cls, data: dict) -> Meta:
        data = dict(data)
        data["start"] = datetime.fromisoformat(data["start"])
        data["end"] = datetime.fromisoformat(data["end"])
        return cls(**data)

    def step_time(self, step: int) -> datetime:
        from datetime import timedelta

        return self.start + timedelta(seconds=step * self.step_seconds)

    @property
    def total_steps(self) -> int:
        return int((self.end - self.start).total_seconds() // self.step_seconds)


def write_json(path: Path, data: dict, *, indent: int | None = 2) -> None:
    """Atomically: a kill leaves the old file or the new one, never half of one."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=indent, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)


def read_meta(directory: Path) -> Meta:
    path = directory / META_FILE
    if not path.is_file() and (directory / WORLD_DIR).is_dir():
        raise UserError(
            "nothing was simulated: the run was stopped while being set up, before meta.json",
            file=directory,
            fix="remove the directory and start the run again",
        )
    if not path.is_file():
        raise UserError(
            "not a simulation directory (no meta.json)",
            file=directory,
            fix="give a directory written by `simulacra run`",
        )
    try:
        data = json.loads(read_text(path))
        meta = Meta.from_json(data)
        _check_meta(meta, path)
    except (ValueError, KeyError, TypeError) as e:
        raise UserError(f"unreadable: {e}", file=path, fix=META_FIX) from None
    return meta


META_FIX = "restore meta.json from a copy of the run, or fork a copy that still has it"


def _check_meta(meta: Meta, path: Path) -> None:
    """Fields that parse but that no run writes (a step of 0 seconds divides by zero, an
    agent that is no string cannot be a resident): one line naming the field."""

    def bad(field: str, problem: str, fix: str = META_FIX) -> UserError:
        return UserError(problem, file=path, field=field, fix=fix)

    step = meta.step_seconds
    if not isinstance(step, int) or isinstance(step, bool) or not 1 <= step <= 3600:
        raise bad(
            "step_seconds",
            f"{step!r} is not a whole number of seconds from 1 to 3600",
            "write the world's step_seconds (scenario.toml in the run's world/ folder)",
        )
    agents = meta.agents
    if not isinstance(agents, list) or not all(isinstance(a, str) and a for a in agents):
        raise bad("agents", "is not a list of residents' names")
    if len(set(agents)) != len(agents):
        raise bad("agents", "names a resident twice")
    if meta.end < meta.start:
        raise bad("end", f"{meta.end} is before the start, {meta.start}")
    if not isinstance(meta.seed, int) or not isinstance(meta.settings, dict):
        raise bad("seed" if not isinstance(meta.seed, int) else "settings", "has the wrong type")
    if not isinstance(meta.world_folder, str):
        raise bad("world_folder", "is not a folder name")


def prepare(directory: Path, world: World) -> Path:
    """A new run directory holding a copy of every file the world was read from (a world may
    borrow files from a sibling, as smallville-3 does from smallville); returns the path of
    the copied world folder."""
    if directory.exists() and any(directory.iterdir()):
        raise UserError(
            "the output directory is not empty",
            file=directory,
            fix="pick a new --out, or continue that run with `simulacra run --resume DIR`",
        )
    directory.mkdir(parents=True, exist_ok=True)
    runlock.hold(directory)
    files = [Path(f).resolve() for f in world.source_files]
    root = Path(os.path.commonpath([str(f.parent) for f in files]))
    for f in files:
        target = directory / WORLD_DIR / f.relative_to(root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, target)
    return directory / WORLD_DIR / Path(world.folder).resolve().relative_to(root)


def world_path(directory: Path, meta: Meta) -> Path:
    return directory / WORLD_DIR / meta.world_folder


def fork(source: Path, target: Path) -> None:
    """Copy a stopped simulation to start a new branch from its last checkpoint."""
    meta = read_meta(source)
    if target.exists() and any(target.iterdir()):
        raise UserError(
            "the target directory is not empty", file=target, fix="fork into a new directory"
        )
    shutil.copytree(
        source, target, dirs_exist_ok=True, ignore=shutil.ignore_patterns(runlock.LOCK_FILE)
    )
    meta.forked_from = str(source.resolve())
    write_json(target / META_FILE, meta.to_json())


def settings_of(meta: Meta, directory: Path | None = None) -> Settings:
    """The run's settings; an error in them names ``directory``'s meta.json."""
    source = directory / META_FILE if directory is not None else META_FILE
    return Settings.from_dict(meta.settings, source=source)


def require_saved_state(directory: Path) -> None:
    """Before opening a run: its memories and checkpoint must be there. Opening would
    otherwise create an empty database and report a run that was never started."""
    meta = read_meta(directory)
    if not (directory / DB_FILE).is_file() and not (directory / EVENTS_FILE).exists():
        raise set_up_unfinished(directory, meta)  # killed before the memories were made
    if not (directory / DB_FILE).is_file():
        raise UserError(
            f"{DB_FILE} is missing: the memories and the last checkpoint of "
            f"{len(meta.agents)} residents are gone",
            file=directory / DB_FILE,
            fix="restore the file from a copy of the run, or fork a copy that still has it",
        )


def set_up_unfinished(directory: Path, meta: Meta) -> UserError:
    """What to say of a run stopped (killed) while being set up, before its first
    checkpoint: nothing was simulated, and starting again costs only the time."""
    hours = (meta.end - meta.start).total_seconds() / 3600
    return UserError(
        "nothing was simulated yet: the run was stopped while being set up",
        file=directory,
        fix=f"remove the directory and start it again: simulacra run {meta.world_source} "
        f"--out {directory} --hours {hours:g}; the model's answers so far replay from the cache",
    )


def hold_for_writing(directory: Path) -> None:
    """A run about to be changed: complete, and this process its only writer."""
    require_saved_state(directory)
    runlock.hold(directory)


@contextlib.contextmanager
def removed_on_failure(directory: Path) -> Iterator[None]:
    """Around creating a run: if it fails before its first checkpoint (a bad model file,
    a world the run's copy cannot use, Ctrl-C), remove what it made, so the same command
    can simply be given again. A directory that held anything before is left alone."""
    fresh = not directory.exists() or not any(directory.iterdir())
    existed = directory.exists()
    try:
        yield
    except BaseException as e:
        if fresh:
            runlock.release(directory)
            made = directory.exists()
            if existed:
                for child in directory.iterdir():
                    if child.is_dir() and not child.is_symlink():
                        shutil.rmtree(child, ignore_errors=True)
                    else:
                        child.unlink(missing_ok=True)
            else:
                shutil.rmtree(directory, ignore_errors=True)
            if made and _model_failed(e):
                # Its own message would send the user to `run --resume` a removed directory.
                raise UserError(
                    e.problem if isinstance(e, UserError) else str(e),
                    file=e.file if isinstance(e, UserError) else None,
                    fix=f"the run was not set up and {directory} was removed: give the same "
                    "command again; the model's answers so far replay from the cache",
                ) from None
        raise


def _model_failed(error: BaseException) -> bool:
    from simulacra.llm.interface import ModelOutputError
    from simulacra.llm.server import ServerError

    return isinstance(error, ModelOutputError | ServerError)
