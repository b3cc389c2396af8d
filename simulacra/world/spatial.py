"""Spatial memory: the part of the environment tree one agent has seen (paper §5.1).

It starts with the agent's home, workplace and usual places and grows as the agent sees new
areas. Object states are remembered as last seen, so they go stale while the agent is away.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from simulacra.state import State
from simulacra.world.core import World
from simulacra.world.grid import Tile
from simulacra.world.tree import Arena, GameObject, Sector

if TYPE_CHECKING:
    from simulacra.world.formats import ResidentPersona
    from simulacra.world.state import WorldState


class SpatialState(State):
    """The addresses known, in the world's order, and object states as last seen."""

    sectors: list[str] = []
    arenas: list[str] = []
    objects: list[str] = []
    states: dict[str, str] = {}


class SpatialMemory:
    """Known sectors, arenas and objects, always listed in the world's own order so prompts
    built from them are stable (and share prefixes across calls)."""

    def __init__(self, world: World) -> None:
        self.world = world
        self._sectors: set[int] = set()
        self._arenas: set[int] = set()
        self._objects: set[int] = set()
        self._states: dict[str, str] = {}  # object address -> state when last seen, if unusual
        self._last_view: tuple[Tile, int] | None = None

    @classmethod
    def for_persona(cls, world: World, persona: ResidentPersona) -> SpatialMemory:
        """Home, workplace and usual places, each with everything in them. The whole home
        sector is known: people know every room of their own house."""
        memory = cls(world)
        home = world.find(persona.home)
        if home is not None:
            memory.learn(home.sector if isinstance(home, Arena | GameObject) else home.name)
        for address in [persona.workplace, *persona.usual_places]:
            if address:
                memory.learn(address)
        return memory

    # -- learning ----------------------------------------------------------------------------

    def learn(self, address: str, *, whole: bool = True) -> None:
        """Know a place and its parents; with ``whole``, also everything inside it."""
        place = self.world.place(address)
        if isinstance(place, Sector):
            self._sectors.add(place.id)
            if whole:
                for arena in place.arenas.values():
                    self._learn_arena(arena, whole=True)
        elif isinstance(place, Arena):
            self._learn_arena(place, whole=whole)
        else:
            self._learn_object(place)

    def _learn_arena(self, arena: Arena, *, whole: bool) -> None:
        self._sectors.add(self.world.tree.sectors[arena.sector].id)
        self._arenas.add(arena.id)
        if whole:
            self._objects.update(o.id for o in arena.objects.values())

    def _learn_object(self, obj: GameObject) -> None:
        arena = self.world.tree.sectors[obj.sector].arenas[obj.arena]
        self._learn_arena(arena, whole=False)
        self._objects.add(obj.id)

    def learn_tiles(self, tiles: Iterable[Tile]) -> None:
        """Know whatever lies on these tiles."""
        index, t = self.world.grid.index, self.world.tiles
        for tile in tiles:
            i = index(tile)
            if t.sector[i] >= 0:
                self._sectors.add(t.sector[i])
            if t.arena[i] >= 0:
                self._arenas.add(t.arena[i])
            if t.object[i] >= 0:
                self._objects.add(t.object[i])

    def see(self, state: WorldState, tile: Tile, radius: int) -> None:
        """Learn everything within ``radius`` (any arena: windows and open doors), and note the
        states of objects in the agent's own arena."""
        world = self.world
        if self._last_view != (tile, radius):
            x, y = tile
            self.learn_tiles(
                (i, j)
                for j in range(max(0, y - radius), min(world.height, y + radius + 1))
                for i in range(max(0, x - radius), min(world.width, x + radius + 1))
            )
            self._last_view = (tile, radius)
        region = world.region_at(tile)
        if region < 0:
            return
        for obj in world.arenas[region].objects.values():
            if any(max(abs(ox - tile[0]), abs(oy - tile[1])) <= radius for ox, oy in obj.tiles):
                self.note_state(obj.address, state.object_state(obj.address), obj.default_state)

    def note_state(self, address: str, state: str, default: str | None = None) -> None:
        if state == default or state == "idle":
            self._states.pop(address, None)
        else:
            self._states[address] = state

    # -- reading -----------------------------------------------------------------------------

    def knows(self, address: str) -> bool:
        place = self.world.find(address)
        if isinstance(place, Sector):
            return place.id in self._sectors
        if isinstance(place, Arena):
            return place.id in self._arenas
        if isinstance(place, GameObject):
            return place.id in self._objects
        return False

    def known_sectors(self) -> list[str]:
        return [self.world.sectors[i].name for i in sorted(self._sectors)]

    def known_arenas(self, sector: str | None = None) -> list[str]:
        """Arena addresses, all or those in one sector."""
        arenas = (self.world.arenas[i] for i in sorted(self._arenas))
        return [a.address for a in arenas if sector is None or a.sector == sector]

    def known_objects(self, arena: str | None = None) -> list[str]:
        """Object addresses, all or those in one arena (``"Sector: Arena"``)."""
        objects = (self.world.objects[i] for i in sorted(self._objects))
        return [o.address for o in objects if arena is None or o.arena_address == arena]

    def last_seen_state(self, address: str) -> str | None:
        """The unusual state an object was in when last seen (None if nothing unusual)."""
        return self._states.get(address)

    def describe(self, sectors: Iterable[str] | None = None, *, objects: bool = True) -> str:
        """One line per known sector, for prompts:
        ``Lin family's house: kitchen (stove, refrigerator); bathroom (shower, toilet).``
        Objects last seen in an unusual state carry it: ``stove [burning]``."""
        wanted = set(sectors) if sectors is not None else None
        arenas_by_sector: dict[int, list[Arena]] = {}
        for i in sorted(self._arenas):
            arena = self.world.arenas[i]
            arenas_by_sector.setdefault(self.world.tree.sectors[arena.sector].id, []).append(arena)
        lines = []
        for i in sorted(self._sectors):
            sector = self.world.sectors[i]
            if wanted is not None and sector.name not in wanted:
                continue
            parts = []
            for arena in arenas_by_sector.get(i, []):
                names = self._object_names(arena) if objects else []
                parts.append(f"{arena.name} ({', '.join(names)})" if names else arena.name)
            lines.append(f"{sector.name}: {'; '.join(parts)}." if parts else f"{sector.name}.")
        return "\n".join(lines)

    def _object_names(self, arena: Arena) -> list[str]:
        names = []
        for obj in arena.objects.values():
            if obj.id in self._objects:
                state = self._states.get(obj.address)
                names.append(f"{obj.name} [{state}]" if state else obj.name)
        return names

    # -- checkpoints -------------------------------------------------------------------------

    def get_state(self) -> SpatialState:
        return SpatialState(
            sectors=self.known_sectors(),
            arenas=self.known_arenas(),
            objects=self.known_objects(),
            states=dict(self._states),
        )

    def set_state(self, state: SpatialState) -> None:
        # Addresses a since-edited world no longer has are dropped: nothing to know there.
        found = [self.world.find(a) for a in state.sectors]
        self._sectors = {p.id for p in found if isinstance(p, Sector)}
        found = [self.world.find(a) for a in state.arenas]
        self._arenas = {p.id for p in found if isinstance(p, Arena)}
        found = [self.world.find(a) for a in state.objects]
        self._objects = {p.id for p in found if isinstance(p, GameObject)}
        self._states = {a: s for a, s in state.states.items() if self.world.find(a)}
        self._last_view = None
