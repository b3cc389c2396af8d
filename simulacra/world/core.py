"""The static world: the tree of places laid on the tile grid, the residents and the scenario.

Built by :func:`simulacra.world.files.load_world`; never changes while a simulation runs (what
changes — agent positions, object states, events — lives in :class:`WorldState`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from simulacra.errors import UserError
from simulacra.world import names
from simulacra.world.grid import Grid, Tile
from simulacra.world.tree import Arena, EnvironmentTree, GameObject, Place, Sector

if TYPE_CHECKING:
    from simulacra.world.formats import ResidentPersona, Scenario


class TileKind(IntEnum):
    BLOCKED = 0  # outside any building and not walkable (town map '#')
    STREET = 1  # walkable, in no sector
    WALL = 2  # a sector's wall
    GROUND = 3  # walkable, in a sector but in no arena (a yard, a corridor)
    DOOR = 4  # walkable, in a sector but in no arena
    FLOOR = 5  # walkable, in an arena
    OBJECT = 6  # walkable, in an arena, part of an object

    @property
    def walkable(self) -> bool:
        return self not in (TileKind.BLOCKED, TileKind.WALL)


class Where(NamedTuple):
    """The names of the places a tile lies in, ``None`` where there is none."""

    sector: str | None
    arena: str | None
    object: str | None

    @property
    def address(self) -> str:
        """The deepest address, ``""`` on the street."""
        return ": ".join(p for p in self if p is not None)


@dataclass(frozen=True)
class TileMap:
    """Per-tile facts in flat lists indexed ``y * width + x``; ids index the world's
    ``sectors``/``arenas``/``objects`` lists, ``-1`` for none."""

    kind: Sequence[TileKind]
    sector: Sequence[int]
    arena: Sequence[int]
    object: Sequence[int]
    glyph: Sequence[str]  # the character the world files draw there


class World:
    """A loaded, validated world. See the package docstring for the API tour."""

    def __init__(
        self,
        *,
        name: str,
        folder: Path,
        tree: EnvironmentTree,
        grid: Grid,
        tiles: TileMap,
        residents: list[ResidentPersona],
        scenario: Scenario,
        spawns: dict[str, Tile],
        sector_letters: dict[str, str],
        source_files: list[Path] | None = None,
        description: str = "",
    ) -> None:
        self.name = name
        self.folder = folder
        self.description = description
        self.tree = tree
        self.grid = grid
        self.tiles = tiles
        self.residents = residents
        self.scenario = scenario
        self.spawns = spawns
        self.sector_letters = sector_letters
        # Every file read, so a run can keep a copy that loads without the original folder
        # (smallville-3 borrows smallville's map and personas).
        self.source_files: list[Path] = list(source_files or [])
        self.sectors: list[Sector] = list(tree.sectors.values())
        self.arenas: list[Arena] = list(tree.arenas())
        self.objects: list[GameObject] = list(tree.objects())
        wanted = scenario.personas
        if wanted is None:
            self.personas = list(residents)
        else:
            by_name = {p.name: p for p in residents}
            self.personas = [by_name[n] for n in wanted]
        # One integer per tile says which region perception treats as "the same place":
        # the arena, else the sector (doors, yards), else the street.
        self._region = [
            a if a >= 0 else (-2 - s if s >= 0 else -1)
            for a, s in zip(tiles.arena, tiles.sector, strict=True)
        ]

    def __repr__(self) -> str:
        return f"World({self.name!r}, {len(self.sectors)} sectors, {len(self.personas)} personas)"

    # -- size and tiles ----------------------------------------------------------------------

    @property
    def width(self) -> int:
        return self.grid.width

    @property
    def height(self) -> int:
        return self.grid.height

    def is_walkable(self, tile: Tile) -> bool:
        return self.grid.is_walkable(tile)

    def kind_at(self, tile: Tile) -> TileKind:
        self._check_tile(tile)
        return self.tiles.kind[self.grid.index(tile)]

    def place_at(self, tile: Tile) -> Where:
        """Sector, arena and object names at a tile (``None`` for each it is not in)."""
        self._check_tile(tile)
        i = self.grid.index(tile)
        s, a, o = self.tiles.sector[i], self.tiles.arena[i], self.tiles.object[i]
        return Where(
            self.sectors[s].name if s >= 0 else None,
            self.arenas[a].name if a >= 0 else None,
            self.objects[o].name if o >= 0 else None,
        )

    def region_at(self, tile: Tile) -> int:
        """An id equal for two tiles exactly when they are in the same arena (or, outside
        arenas, the same sector; or both on the street)."""
        return self._region[self.grid.index(tile)]

    def _check_tile(self, tile: Tile) -> None:
        if tile not in self.grid:
            raise UserError(
                f"tile {tuple(tile)} is outside the map",
                fix=f"x must be 0-{self.width - 1}, y 0-{self.height - 1}",
            )

    # -- places ------------------------------------------------------------------------------

    def find(self, address: str) -> Place | None:
        return self.tree.find(address)

    def place(self, address: str) -> Place:
        """The sector, arena or object at an exact address; UserError if there is none."""
        found = self.tree.find(address)
        if found is None:
            return self.tree.find(self.resolve(address, kind="place"))  # type: ignore[return-value]
        return found

    def tiles_of(self, address: str) -> tuple[Tile, ...]:
        """Every tile of a sector, arena or object (resolved as :meth:`resolve` does)."""
        return self.place(address).tiles

    def resolve(self, text: str, *, kind: str = "object") -> str:
        """The address ``text`` names: ``kind`` is ``"object"``, ``"arena"``, ``"sector"`` or
        ``"place"`` (any). Ambiguity or no match raises a UserError listing candidates."""
        pools: dict[str, Iterable[Place]] = {
            "object": self.objects,
            "arena": self.arenas,
            "sector": self.sectors,
            "place": [*self.sectors, *self.arenas, *self.objects],
        }
        if kind not in pools:
            raise ValueError(f"unknown kind {kind!r}")
        return names.resolve(text, [p.address for p in pools[kind]], kind=kind)

    def resolve_object(self, text: str) -> str:
        """Item 6 of the issue: "Lin family's kitchen stove" → "Lin family's house: kitchen:
        stove"."""
        return self.resolve(text, kind="object")

    def phrase(self, address: str) -> str:
        return self.tree.phrase(address)

    # -- residents ---------------------------------------------------------------------------

    def persona(self, name: str) -> ResidentPersona:
        for p in self.residents:
            if p.name == name:
                return p
        raise UserError(f'no resident named "{name}" in {self.name}')

    def spawn_of(self, name: str) -> Tile:
        if name not in self.spawns:
            raise UserError(f'no spawn point named "{name}" in {self.name}')
        return self.spawns[name]

    # -- paths -------------------------------------------------------------------------------

    def path(self, start: Tile, goal: Tile) -> list[Tile] | None:
        """A* shortest walk: the tiles after ``start`` up to ``goal`` inclusive; ``[]`` if
        ``start == goal``; ``None`` if ``goal`` cannot be reached."""
        return self.grid.path(start, goal)

    def path_to(
        self, start: Tile, address: str, *, avoid: Iterable[Tile] = ()
    ) -> list[Tile] | None:
        """The shortest walk to the nearest tile of a place. Tiles in ``avoid`` (say, taken by
        others) are not chosen as the destination unless every tile of the place is in it."""
        tiles = self.tiles_of(address)
        blocked = set(avoid)
        free = [t for t in tiles if t not in blocked] or list(tiles)
        return self.grid.path_to_any(start, free)

    # -- export ------------------------------------------------------------------------------

    def export_map(self) -> dict:
        """Everything a browser needs to draw the town; see :mod:`simulacra.world.render`."""
        from simulacra.world.render import export_map

        return export_map(self)
