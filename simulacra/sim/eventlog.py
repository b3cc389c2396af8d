"""The event log, events.jsonl: one :class:`~simulacra.sim.record.StepRecord` per line, in
step order from step 0, without gaps. It is what replays, reports and `simulacra log` read.

Nothing in it is silently lost. Reading stops with a one-line error at a line that is not a
step record, or whose step is not the next one; a line cut short by a crash (the last line,
without its newline) is the only thing skipped. On resume the lines past the checkpoint are
cut off (so a run killed at any moment and resumed has no missing or repeated steps), and a
torn last line is cut and reported — never a line that could not be read.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

from pydantic import ValidationError

from simulacra.errors import UserError
from simulacra.sim import legacy
from simulacra.sim.record import CURRENT, VERSION, StepRecord

EVENTS_FILE = "events.jsonl"
DAMAGED = (
    "simulacra changed nothing; restore events.jsonl from a copy, or fork the run at an "
    "earlier copy (every step before the checkpoint must be in the log)"
)


class EventLog:
    """The one writer of events.jsonl."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = path.open("a", encoding="utf-8")

    def write(self, record: StepRecord) -> None:
        self._file.write(record.line() + "\n")

    def flush(self) -> None:
        """Hand the written lines to the OS, so a page following the run sees them now."""
        self._file.flush()

    def sync(self) -> None:
        """Make every written line durable (done before each checkpoint commits)."""
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()

    @staticmethod
    def cut(path: Path, before_step: int) -> list[str]:
        """Keep the lines of steps before ``before_step``; returns what was said about it.

        Every whole line is read first: a bad line or a gap anywhere is an error and the file
        stays as it is. A log that ends before the checkpoint is an error too.
        """
        if not path.exists():
            if before_step > 0:
                raise UserError(
                    f"the event log is missing, but the checkpoint is at step {before_step}",
                    file=path,
                    fix=DAMAGED,
                )
            return []
        data = path.read_bytes()
        lines = data.split(b"\n")
        torn = lines.pop()  # b"" when the file ends with a newline
        keep = 0
        steps = 0
        for number, raw in enumerate(lines, 1):
            record = parse_line(raw, path=path, number=number, expected=steps)
            steps += 1
            if record.step < before_step:
                keep += len(raw) + 1
        missing = missing_steps(steps, before_step)
        if missing:
            raise UserError(missing, file=path, fix=DAMAGED)
        said = []
        if torn:
            said.append(
                f"{path}: cut a torn last line ({len(torn)} bytes written when the run was "
                "stopped mid-write)"
            )
        if keep < len(data):
            tmp = path.with_suffix(".tmp")
            with tmp.open("wb") as f:
                f.write(data[:keep])  # the very bytes read, never re-encoded
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)  # a new file: a viewer following the run starts over
        return said


def missing_steps(steps: int, checkpoint: int) -> str | None:
    """What is missing from a log of ``steps`` steps whose run checkpointed at step
    ``checkpoint`` (every step before it was logged first), or None when nothing is."""
    if steps >= checkpoint:
        return None
    ends = f"ends at step {steps - 1}" if steps else "holds no step"
    return (
        f"the event log {ends}, but the checkpoint is at step {checkpoint}: "
        f"steps {steps} to {checkpoint - 1} are missing"
    )


def parse_line(
    raw: bytes | str, *, path: Path, number: int, expected: int | None = None
) -> StepRecord:
    """One whole line as a step record (lines of version 1 are upgraded on the way)."""

    def bad(what: str) -> UserError:
        return UserError(f"line {number} {what}", file=path, fix=DAMAGED)

    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise bad("is not JSON") from None
    if not isinstance(data, dict):
        raise bad("is not a step record")
    version = data.get("v", 1)
    if version != 1 and version not in CURRENT:
        raise UserError(
            f"line {number} is of event-record version {version!r}; this simulacra reads "
            f"versions 1 to {VERSION}",
            file=path,
            fix="read it with the simulacra that wrote it",
        )
    try:
        record = StepRecord.model_validate(legacy.upgrade(data) if version == 1 else data)
    except (ValidationError, KeyError, TypeError, ValueError, AttributeError) as e:
        reason = e.errors()[0] if isinstance(e, ValidationError) else None
        where = ".".join(str(p) for p in reason["loc"]) + ": " + reason["msg"] if reason else e
        raise bad(f"is not a step record ({where})") from None
    if expected is not None and record.step != expected:
        raise bad(
            f"holds step {record.step} where step {expected} was due: "
            + ("steps are missing" if record.step > expected else "a step is repeated")
        )
    return record


def read_events(path: Path) -> Iterator[StepRecord]:
    """Every step record, checked to come in order without gaps. A last line without its
    newline is one being written (or cut short by a crash) and is not read."""
    with path.open("rb") as f:
        for number, raw in enumerate(f, 1):
            if not raw.endswith(b"\n"):
                return
            yield parse_line(raw, path=path, number=number, expected=number - 1)
