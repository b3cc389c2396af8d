"""Reading world files: TOML into validated models, every problem as one UserError line."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from simulacra.errors import UserError
from simulacra.textfile import parse_toml, read_text
from simulacra.world.formats import SectorFile

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


class WorldError(UserError):
    """Everything wrong with a world folder; ``problems`` holds one UserError per problem."""

    def __init__(self, problems: list[UserError]) -> None:
        self.problems = problems
        first = problems[0]
        super().__init__(first.problem, file=first.file, field=first.field, fix=first.fix)

    def __str__(self) -> str:
        first = UserError.__str__(self)
        more = len(self.problems) - 1
        return f"{first} [and {more} more problem{'s' if more > 1 else ''}]" if more else first

    def lines(self) -> list[str]:
        return [str(p) for p in self.problems]


class Problems:
    def __init__(self) -> None:
        self.found: list[UserError] = []

    def add(self, problem: str, *, file: Path, field: str | None = None, fix: str | None = None):
        self.found.append(UserError(problem, file=file, field=field, fix=fix))

    @contextmanager
    def collect(self) -> Iterator[None]:
        """Record a UserError raised inside and carry on with the next file."""
        try:
            yield
        except WorldError as e:
            self.found.extend(e.problems)
        except UserError as e:
            self.found.append(e)

    def raise_if_any(self) -> None:
        if self.found:
            raise WorldError(list(self.found))


_EXAMPLES = {
    "ResidentPersona": {
        "name": 'name = "Isabella Rodriguez"',
        "age": "age = 34",
        "innate": 'innate = "friendly, outgoing, hospitable"',
        "home": 'home = "Isabella Rodriguez\'s apartment: main room"',
    },
    "Scenario": {"start": "start = 2023-02-13T07:00:00"},
    "WorldFile": {"name": 'name = "Smallville"'},
    "TownFile": {
        "map": "map = ''' (the rows of the map) '''",
        "sectors": '[sectors] H = "sectors/hobbs-cafe.toml"',
    },
    "SectorFile": {
        "name": 'name = "kitchen"',
        "map": "map = ''' (the rows of the map) '''",
    },
}


def read_toml(path: Path, *, referenced: tuple[Path, str] | None = None) -> tuple[dict, str]:
    try:
        text = read_text(path)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        if referenced:
            raise UserError(
                f"no file {path}",
                file=referenced[0],
                field=referenced[1],
                fix="create it, or correct the path: it is relative to this file",
            ) from None
        raise UserError("no such file", file=path, fix="create it") from None
    try:
        return parse_toml(text), text
    except tomllib.TOMLDecodeError as e:
        message = str(e)
        found = re.search(r"\s*\(at line (\d+), column (\d+)\)", message)
        where = f"line {found[1]}, column {found[2]}" if found else None
        problem = message[: found.start()] if found else message
        raise UserError(
            f"not valid TOML: {problem}",
            file=path,
            field=where,
            fix="check quotes, '=' and brackets; maps go between ''' and '''",
        ) from None


def validate(model: type[BaseModel], data: dict, path: Path) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise WorldError([_explain(err, data, path, model) for err in e.errors()]) from None


def _explain(err: dict, data: Any, path: Path, model: type[BaseModel]) -> UserError:
    # Pydantic adds the names of union members to the location; keep only the parts that
    # exist in the file, so the field reads as the user wrote it.
    parts: list[str] = []
    node = data
    for part in err["loc"]:
        inside_dict = isinstance(node, dict) and part in node
        inside_list = isinstance(node, list) and isinstance(part, int) and part < len(node)
        if inside_dict or inside_list:
            node = node[part]
        elif err["type"] in ("missing", "extra_forbidden") and part == err["loc"][-1]:
            pass
        else:
            break
        parts.append(f"[{part}]" if isinstance(part, int) else f".{part}")
    field = "".join(parts).lstrip(".") or None
    # The field's name, not an index within it ("hours", not the 0 of its opening time).
    last = next((str(part) for part in reversed(err["loc"]) if isinstance(part, str)), "")
    if err["type"] == "missing":
        example = _EXAMPLES.get(model.__name__, {}).get(last, f"{last} = ...")
        if model is SectorFile and last == "name":
            level = "Hobbs Cafe" if len(err["loc"]) == 1 else "kitchen"
            example = f'name = "{"stove" if "objects" in err["loc"] else level}"'

        return UserError("missing", file=path, field=field, fix=f"add a line like: {example}")
    if err["type"] == "extra_forbidden":
        known = ", ".join(model.model_fields) if len(err["loc"]) == 1 else None
        fix = "remove it or correct its spelling" + (f"; fields: {known}" if known else "")
        return UserError("unknown field", file=path, field=field, fix=fix)
    message = err["msg"].removeprefix("Value error, ")
    return UserError(message, file=path, field=field, fix=_fix_for(last))


def _fix_for(field: str) -> str:
    return {
        "wake": 'write a time like "06:30"',
        "sleep": 'write a time like "22:30"',
        "start": "write a local date-time like 2023-02-13T07:00:00, without a UTC offset",
        "spawn": 'write "Sector: Arena: Object" or [x, y]',
        "age": "write a whole number from 0 to 120",
        "capacity": "write a whole number, 1 or more, or leave it out for no limit",
        "hours": 'write an opening and a closing time like "08:00-20:00", or leave it out',
        "step_seconds": "write a whole number of seconds from 1 to 3600",
    }.get(field, "correct the value; worlds/smallville has an example of every field")


def norm_path(path: Path) -> Path:
    # Collapse "worlds/smallville-3/../smallville" so messages name the file plainly.
    return Path(os.path.normpath(path))
