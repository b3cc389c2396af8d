"""A full disk, however it shows: an OSError with ENOSPC (or EDQUOT, a quota reached) from a
file write, SQLite's "database or disk is full", or Chroma passing SQLite's on in an error
of its own, often several chained as each layer fails while cleaning up after the one
before. Nothing is lost when it happens (a run keeps its last checkpoint, which commits
whole or not at all), so it is one line saying so, not three tracebacks.
"""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

from simulacra.errors import UserError

_ERRNOS = {errno.ENOSPC, errno.EDQUOT}
_WORDS = ("database or disk is full", "no space left on device", "disk quota exceeded")


def is_disk_full(error: BaseException | None) -> bool:
    """Whether ``error``, or one it was raised from or while handling, is a full disk."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, OSError) and error.errno in _ERRNOS:
            return True
        if isinstance(error, sqlite3.Error) and getattr(error, "sqlite_errorname", "") == (
            "SQLITE_FULL"
        ):
            return True
        if any(words in str(error).lower() for words in _WORDS):
            return True
        error = error.__cause__ or error.__context__
    return False


def _where(error: BaseException | None) -> str | None:
    """The file the first full-disk OSError of the chain names, if any."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, OSError) and error.errno in _ERRNOS and error.filename:
            return str(error.filename)
        error = error.__cause__ or error.__context__
    return None


def run_stopped(error: BaseException, directory: Path, step: int | None) -> UserError:
    """A run stopped by a full disk: where it stands and how to go on."""
    at = f", step {step}" if step is not None else ""
    return UserError(
        f"the disk is full{_while(error)}: nothing was lost, the run stays at its last "
        f"checkpoint{at}",
        file=directory,
        fix=f"free some space, then continue with: simulacra run --resume {directory}",
    )


def command_failed(error: BaseException) -> UserError:
    """Any other command stopped by a full disk."""
    return UserError(
        f"the disk is full{_while(error)}",
        fix="free some space and give the command again",
    )


def _while(error: BaseException) -> str:
    where = _where(error)
    return f" (writing {where})" if where else ""
