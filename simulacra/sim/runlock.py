"""One writer per run directory.

Every command that changes a run (run, resume, whisper, set, an interview that is remembered)
holds an exclusive ``flock`` on ``DIR/.lock`` while it works. The operating system drops the
lock when the process ends, however it ends, so a killed run never leaves a stale lock.
Readers (log, stats, report, view) take no lock and keep working during a run.
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

from simulacra.errors import UserError

LOCK_FILE = ".lock"

# Held locks of this process, by directory: a process may open its own run again (a test
# creating and resuming, a command opening twice), which must not lock it out.
_held: dict[Path, int] = {}


def hold(directory: Path) -> None:
    """Take the run's write lock, or raise a one-line error naming the process holding it."""
    key = directory.resolve()
    if key in _held:
        return
    path = directory / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as e:
        raise UserError(f"cannot open the run's lock file: {e.strerror}", file=path) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as e:
        holder = _read_pid(fd)
        os.close(fd)
        if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise UserError(f"cannot lock the run: {e.strerror}", file=directory) from None
        who = f"process {holder}" if holder else "another process"
        raise UserError(
            f"{who} is writing this run",
            file=directory,
            fix="wait for it to finish or stop it; log, stats, report and view work meanwhile",
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    _held[key] = fd


def release(directory: Path) -> None:
    fd = _held.pop(directory.resolve(), None)
    if fd is not None:
        os.close(fd)  # closing the descriptor drops the flock


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
