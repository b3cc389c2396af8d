"""The text maps of town.toml and sectors/*.toml: rows, footprints, and a sector's tiles."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from simulacra.errors import UserError
from simulacra.world.core import TileKind
from simulacra.world.formats import (
    BLOCKED,
    DOOR,
    GROUND,
    STREET,
    WALL,
    ObjectEntry,
    SectorFile,
    TownFile,
)
from simulacra.world.grid import Tile
from simulacra.world.reading import Problems, norm_path, read_toml, validate


@dataclass
class MapText:
    rows: list[str]
    first_line: int  # the file's line number of row 0 (1-based)
    file: Path

    def where(self, x: int, y: int) -> str:
        return f"line {self.first_line + y}, column {x + 1}"

    @property
    def size(self) -> tuple[int, int]:
        return (len(self.rows[0]) if self.rows else 0, len(self.rows))


def map_text(value: str, text: str, file: Path) -> MapText:
    lines = text.splitlines()
    first = 1
    for i, line in enumerate(lines):
        found = re.match(r"\s*map\s*=\s*('''|\"\"\")(.*)$", line)
        if found:
            first = i + 2 if not found[2].strip() else i + 1
            break
    rows = [row.rstrip() for row in value.split("\n")]
    while rows and not rows[0]:
        rows.pop(0)
        first += 1
    while rows and not rows[-1]:
        rows.pop()
    if not rows:
        raise UserError("the map is empty", file=file, field="map", fix="draw the map rows")
    width = len(rows[0])
    for y, row in enumerate(rows):
        if len(row) != width:
            raise UserError(
                f"this map row is {len(row)} characters wide, the first is {width}",
                file=file,
                field=f"line {first + y}",
                fix="every row of a map must have the same width",
            )
    return MapText(rows, first, file)


@dataclass
class Footprint:
    letter: str
    file: Path
    origin: Tile
    size: tuple[int, int]


def footprints(town: TownFile, grid: MapText, town_path: Path) -> list[Footprint]:
    """Each sector letter must cover one filled rectangle of the town map."""
    seen: dict[str, list[Tile]] = {}
    for y, row in enumerate(grid.rows):
        for x, ch in enumerate(row):
            if ch in (STREET, BLOCKED):
                continue
            if ch not in town.sectors:
                raise UserError(
                    f"unknown letter {ch!r} in the town map",
                    file=town_path,
                    field=grid.where(x, y),
                    fix="list it under [sectors], or use '.' for street and '#' for blocked",
                )
            seen.setdefault(ch, []).append((x, y))
    result = []
    for letter, target in town.sectors.items():
        tiles = seen.get(letter)
        if not tiles:
            raise UserError(
                f"sector letter {letter!r} is not drawn on the town map",
                file=town_path,
                field=f"sectors.{letter}",
                fix="draw its footprint with that letter or remove the entry",
            )
        x0, y0 = min(t[0] for t in tiles), min(t[1] for t in tiles)
        x1, y1 = max(t[0] for t in tiles), max(t[1] for t in tiles)
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                if grid.rows[y][x] != letter:
                    raise UserError(
                        f"sector {letter!r} is not one filled rectangle: this tile is "
                        f"{grid.rows[y][x]!r}, inside the box from ({x0}, {y0}) to ({x1}, {y1})",
                        file=town_path,
                        field=grid.where(x, y),
                        fix=f"draw each sector as a solid rectangle of {letter!r}",
                    )
        file = norm_path(town_path.parent / target)
        result.append(Footprint(letter, file, (x0, y0), (x1 - x0 + 1, y1 - y0 + 1)))
    return result


@dataclass
class SectorDraft:
    """A sector read from its file, with tiles still relative to its own map."""

    footprint: Footprint
    spec: SectorFile
    text: MapText
    kinds: dict[Tile, TileKind]
    arena_of: dict[Tile, str]  # arena letter
    object_of: dict[Tile, str]  # object symbol
    objects: dict[str, tuple[str, ObjectEntry]]  # symbol -> (arena letter, entry)


def load_sector(fp: Footprint, town_path: Path) -> SectorDraft:
    data, raw = read_toml(fp.file, referenced=(town_path, f"sectors.{fp.letter}"))
    spec: SectorFile = validate(SectorFile, data, fp.file)
    text = map_text(spec.map, raw, fp.file)
    problems = Problems()
    if text.size != fp.size:
        raise UserError(
            f"the map is {text.size[0]} x {text.size[1]} tiles but the footprint of "
            f"{fp.letter!r} in {town_path} is {fp.size[0]} x {fp.size[1]}",
            file=fp.file,
            field="map",
            fix="make the sector map and its footprint the same size",
        )
    objects: dict[str, tuple[str, ObjectEntry]] = {}
    arena_names: dict[str, str] = {}
    for letter, arena in spec.arenas.items():
        if arena.name in arena_names:
            problems.add(
                f'arena name "{arena.name}" is also used by arenas.{arena_names[arena.name]}',
                file=fp.file,
                field=f"arenas.{letter}.name",
                fix="names must be unique within a sector",
            )
        arena_names[arena.name] = letter
        object_names: set[str] = set()
        for symbol, entry in arena.objects.items():
            field = f"arenas.{letter}.objects.{symbol}"
            if symbol in spec.arenas:
                problems.add(
                    f"{symbol!r} is already an arena letter",
                    file=fp.file,
                    field=field,
                    fix="give the object its own character",
                )
            elif symbol in objects:
                problems.add(
                    f"{symbol!r} is already used by arenas.{objects[symbol][0]}.objects",
                    file=fp.file,
                    field=field,
                    fix="every object in a sector needs its own character",
                )
            if entry.name in object_names:
                problems.add(
                    f'object name "{entry.name}" appears twice in "{arena.name}"',
                    file=fp.file,
                    field=field,
                    fix="names must be unique within an arena ('bed', 'second bed')",
                )
            object_names.add(entry.name)
            objects.setdefault(symbol, (letter, entry))
    problems.raise_if_any()

    kinds: dict[Tile, TileKind] = {}
    arena_of: dict[Tile, str] = {}
    object_of: dict[Tile, str] = {}
    for y, row in enumerate(text.rows):
        for x, ch in enumerate(row):
            if ch == WALL:
                kinds[x, y] = TileKind.WALL
            elif ch == GROUND:
                kinds[x, y] = TileKind.GROUND
            elif ch == DOOR:
                kinds[x, y] = TileKind.DOOR
            elif ch in spec.arenas:
                kinds[x, y] = TileKind.FLOOR
                arena_of[x, y] = ch
            elif ch in objects:
                kinds[x, y] = TileKind.OBJECT
                arena_of[x, y] = objects[ch][0]
                object_of[x, y] = ch
            else:
                problems.add(
                    f"unknown object or arena {ch!r}",
                    file=fp.file,
                    field=text.where(x, y),
                    fix=f"list {ch!r} under [arenas.<letter>.objects] or [arenas], "
                    "or draw '#' wall, '+' door, '.' ground",
                )
    problems.raise_if_any()
    if not spec.arenas:
        problems.add(
            "the sector has no arena, so nobody can go in or do anything there",
            file=fp.file,
            field="arenas",
            fix="draw a room with a letter and name it under [arenas.<letter>]",
        )
    for (x, y), symbol in sorted(object_of.items(), key=lambda item: item[0][::-1]):
        if _in_wall((x, y), kinds, arena_of):
            letter, entry = objects[symbol]
            problems.add(
                f'object "{entry.name}" ({symbol!r}) is drawn in a wall, which opens a hole in it',
                file=fp.file,
                field=f"{text.where(x, y)} (arenas.{letter}.objects.{symbol})",
                fix="draw it on the floor inside the room and put '#' back",
            )
            break

    drawn_arenas = set(arena_of.values())
    for letter, arena in spec.arenas.items():
        if letter not in drawn_arenas:
            problems.add(
                f'arena "{arena.name}" is not drawn on the map',
                file=fp.file,
                field=f"arenas.{letter}",
                fix=f"draw its floor with {letter!r} or remove it",
            )
    drawn_objects = set(object_of.values())
    for symbol, (letter, entry) in objects.items():
        field = f"arenas.{letter}.objects.{symbol}"
        if symbol not in drawn_objects:
            problems.add(
                f'object "{entry.name}" is not drawn on the map',
                file=fp.file,
                field=field,
                fix=f"draw it with {symbol!r} or remove it",
            )
            continue
        if not _touches_own_floor(symbol, letter, object_of, arena_of):
            x, y = next(t for t, s in object_of.items() if s == symbol)
            problems.add(
                f'object "{entry.name}" ({symbol!r}) does not touch the floor of its arena '
                f'"{spec.arenas[letter].name}"',
                file=fp.file,
                field=f"{text.where(x, y)} ({field})",
                fix="move it into that room, or list it under the arena it stands in",
            )
    problems.raise_if_any()
    return SectorDraft(fp, spec, text, kinds, arena_of, object_of, objects)


def _in_wall(tile: Tile, kinds: dict[Tile, TileKind], arena_of: dict[Tile, str]) -> bool:
    # Objects are walkable (people stand at them): one that replaces a piece of wall, with
    # wall on both sides of it, lets people walk through the wall, from outside the building
    # or from another room. (A closet shelf between walls is no hole: nothing is behind it.)
    x, y = tile
    for side, other_side, ahead, behind in (
        ((x - 1, y), (x + 1, y), (x, y - 1), (x, y + 1)),
        ((x, y - 1), (x, y + 1), (x - 1, y), (x + 1, y)),
    ):
        if kinds.get(side) != TileKind.WALL or kinds.get(other_side) != TileKind.WALL:
            continue
        if ahead not in kinds or behind not in kinds:
            return True  # the sector's edge: the street is right there
        rooms = (arena_of.get(ahead), arena_of.get(behind))
        if None not in rooms and rooms[0] != rooms[1]:
            return True
    return False


def _touches_own_floor(
    symbol: str, letter: str, object_of: dict[Tile, str], arena_of: dict[Tile, str]
) -> bool:
    # An object drawn in the wrong room is a legend mistake that reads well but confuses
    # agents ("the stove in the bathroom"); one floor tile of its own arena next to it is enough.
    tiles = [t for t, s in object_of.items() if s == symbol]
    others = {t for t, s in object_of.items() if s != symbol}
    for x, y in tiles:
        for n in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if arena_of.get(n) == letter and (n not in object_of or n in others):
                return True
    # An arena made only of objects (a closet holding one shelf) has no floor to touch.
    return all(t in object_of for t, a in arena_of.items() if a == letter)
