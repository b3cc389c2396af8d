"""Reading a text file the user named: a regular file, of sane size, in UTF-8.

A FIFO or /dev/zero named as a world or config file would hang or fill memory; a symlink loop
or undecodable bytes would end in a traceback. Each is a one-line UserError instead.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from simulacra.errors import UserError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

MAX_BYTES = 4 << 20  # world, persona, scenario and settings files are a few kilobytes


def read_text(path: Path, *, limit: int = MAX_BYTES) -> str:
    """The file's text. Raises FileNotFoundError when nothing is there (callers say what was
    expected); everything else unusable is a UserError naming the file."""
    try:
        info = path.stat()
    except FileNotFoundError:
        raise
    except OSError as e:  # a symlink loop, a path through a file, no permission
        raise UserError(f"cannot read it: {e.strerror}", file=path) from None
    except ValueError:  # a NUL in the path
        raise UserError("not a usable file name", file=repr(str(path))) from None
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(str(path))
    if not stat.S_ISREG(info.st_mode):
        raise UserError(
            "not a regular file (a device, pipe or socket)", file=path, fix="name a text file"
        )
    if info.st_size > limit:
        raise UserError(
            f"{info.st_size} bytes, more than the {limit} a text file here may have",
            file=path,
            fix="name the right file",
        )
    try:
        # O_NONBLOCK: if the path was swapped for a pipe since the check, do not wait on it.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as f:
            data = f.read(limit + 1)
    except OSError as e:
        raise UserError(f"cannot read it: {e.strerror}", file=path) from None
    if len(data) > limit:
        raise UserError(f"more than {limit} bytes", file=path, fix="name the right file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise UserError(
            f"not UTF-8 text: byte {data[e.start]:#04x} at line {line}",
            file=path,
            fix="save the file as UTF-8",
        ) from None


def parse_toml(text: str) -> dict:
    """TOML text as a dict, where a value nested thousands deep (which tomllib parses by
    recursion) is a TOMLDecodeError like any other malformed file, not a RecursionError."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError("a value is nested too deeply") from None
