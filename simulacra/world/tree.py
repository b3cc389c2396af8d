"""The environment tree of the paper: world → sector → arena → object, and place addresses.

A place is named by its path from the sector down, joined by ``": "``:
``"Hobbs Cafe"`` (sector), ``"Hobbs Cafe: cafe"`` (arena),
``"Hobbs Cafe: cafe: coffee machine"`` (object). Names are unique within their parent, so an
address names exactly one place.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import time

from simulacra.world.grid import Tile

SEPARATOR = ": "
IDLE = "idle"


def join_address(*names: str) -> str:
    return SEPARATOR.join(names)


def split_address(address: str) -> list[str]:
    """``"Hobbs Cafe:cafe : coffee  machine"`` → ``["Hobbs Cafe", "cafe", "coffee machine"]``."""
    return [" ".join(part.split()) for part in address.split(":")]


def normalise_address(address: str) -> str:
    return join_address(*split_address(address))


@dataclass(frozen=True, eq=False)
class GameObject:
    """A thing agents use (a stove, a bed). Its tiles are walkable: an agent stands on one to
    use it."""

    name: str
    sector: str
    arena: str
    default_state: str
    tiles: tuple[Tile, ...]
    id: int = -1

    @property
    def address(self) -> str:
        return join_address(self.sector, self.arena, self.name)

    @property
    def arena_address(self) -> str:
        return join_address(self.sector, self.arena)


@dataclass(frozen=True, eq=False)
class Arena:
    """A room or area inside a sector. ``capacity`` caps how many agents fit (None: no cap);
    ``users`` are the only residents who may use it (None: anyone)."""

    name: str
    sector: str
    tiles: tuple[Tile, ...]
    capacity: int | None = None
    objects: dict[str, GameObject] = field(default_factory=dict)
    id: int = -1
    users: tuple[str, ...] | None = None

    @property
    def address(self) -> str:
        return join_address(self.sector, self.name)


@dataclass(frozen=True, eq=False)
class Sector:
    """A building or a named outdoor place; ``origin`` and ``size`` give its footprint.
    ``hours``: when it is open to those who neither live nor work in it (None: always)."""

    name: str
    origin: Tile
    size: tuple[int, int]
    tiles: tuple[Tile, ...]
    arenas: dict[str, Arena] = field(default_factory=dict)
    id: int = -1
    hours: tuple[time, time] | None = None

    @property
    def address(self) -> str:
        return self.name

    def is_open(self, at: time) -> bool:
        """Whether it is open at ``at``; hours that close at or before they open ("12:00-00:00")
        run past midnight."""
        if self.hours is None:
            return True
        opens, closes = self.hours
        if opens < closes:
            return opens <= at < closes
        return at >= opens or at < closes


Place = Sector | Arena | GameObject


class EnvironmentTree:
    """Sectors in town-map order, arenas and objects in the order their files list them."""

    def __init__(self, sectors: list[Sector]) -> None:
        self.sectors: dict[str, Sector] = {s.name: s for s in sectors}
        self._by_address: dict[str, Place] = {}
        for sector in sectors:
            self._by_address[sector.name.lower()] = sector
            for arena in sector.arenas.values():
                self._by_address[arena.address.lower()] = arena
                for obj in arena.objects.values():
                    self._by_address[obj.address.lower()] = obj

    def find(self, address: str) -> Place | None:
        """The place at an exact address (case and spacing around ``:`` do not matter)."""
        return self._by_address.get(normalise_address(address).lower())

    def arenas(self) -> Iterator[Arena]:
        for sector in self.sectors.values():
            yield from sector.arenas.values()

    def objects(self) -> Iterator[GameObject]:
        for arena in self.arenas():
            yield from arena.objects.values()

    def phrase(self, address: str) -> str:
        """A place in words for prompts: "the stove in the kitchen at Lin family's house"."""
        place = self.find(address)
        if place is None:
            return address
        if isinstance(place, Sector):
            return place.name
        if isinstance(place, Arena):
            return f"{_the(place.name)} at {place.sector}"
        return f"{_the(place.name)} in {_the(place.arena)} at {place.sector}"


def _the(name: str) -> str:
    # Proper names ("Eddy Lin's bedroom") take no article; common nouns ("kitchen") do.
    return name if name[:1].isupper() else f"the {name}"
