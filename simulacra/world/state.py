"""What changes while a simulation runs: where agents stand, what they are doing, object states.

Events are derived from these, never stored apart: an agent emits its current action
("Isabella Rodriguez is brewing coffee", or "... is idle"); an object emits its state when
that differs from its default and from "idle" ("coffee machine is brewing coffee").
"""

from __future__ import annotations

from simulacra.errors import UserError
from simulacra.state import State
from simulacra.world.core import World
from simulacra.world.events import Event
from simulacra.world.grid import Tile
from simulacra.world.tree import IDLE, Arena, GameObject


def state_words(text: str) -> str:
    """An object's state as the world keeps it: people type "is burning"; the predicate is
    already "is"."""
    text = " ".join(text.split())
    return text[3:] if text.lower().startswith("is ") else text


class WorldSnapshot(State):
    """Where each agent stands, what it is doing, the objects not in their default state."""

    agents: dict[str, Tile] = {}
    actions: dict[str, tuple[str, str, str]] = {}  # agent -> (predicate, object, description)
    objects: dict[str, str] = {}


class WorldState:
    """Mutable state over a static :class:`World`. Checkpoint with get_state/set_state."""

    def __init__(self, world: World) -> None:
        self.world = world
        self._tiles: dict[str, Tile] = {}
        self._actions: dict[str, tuple[str, str, str]] = {}  # agent -> (predicate, obj, text)
        self._object_states: dict[str, str] = {}  # only states that differ from the default

    # -- agents ------------------------------------------------------------------------------

    def place(self, agent: str, tile: Tile | None = None) -> Tile:
        """Put an agent on a tile (default: its spawn point), wherever it was before."""
        if tile is None:
            tile = self.world.spawn_of(agent)
        tile = (int(tile[0]), int(tile[1]))
        if not self.world.is_walkable(tile):
            raise UserError(f"cannot place {agent} on {tile}: not a walkable tile")
        self._tiles[agent] = tile
        return tile

    def move(self, agent: str, tile: Tile) -> None:
        """One step: to a walkable tile next to the current one (or staying put)."""
        here = self.tile_of(agent)
        tile = (int(tile[0]), int(tile[1]))
        if abs(here[0] - tile[0]) + abs(here[1] - tile[1]) > 1:
            raise ValueError(f"{agent} cannot step from {here} to {tile}: not adjacent")
        if not self.world.is_walkable(tile):
            raise ValueError(f"{agent} cannot step onto {tile}: not walkable")
        self._tiles[agent] = tile

    def tile_of(self, agent: str) -> Tile:
        try:
            return self._tiles[agent]
        except KeyError:
            raise UserError(f"{agent} is not in the world") from None

    def positions(self) -> dict[str, Tile]:
        return dict(self._tiles)

    def occupants(self, address: str) -> list[str]:
        """Agents standing in a sector, arena or object, in the order they were placed."""
        tiles = set(self.world.tiles_of(address))
        return [a for a, t in self._tiles.items() if t in tiles]

    def has_room(self, address: str, agent: str | None = None) -> bool:
        """False when an arena with a capacity is full (``agent`` itself does not count)."""
        place = self.world.place(address)
        arena = place if isinstance(place, Arena) else None
        if isinstance(place, GameObject):
            arena = self.world.find(place.arena_address)  # type: ignore[assignment]
        if arena is None or arena.capacity is None:
            return True
        inside = [a for a in self.occupants(arena.address) if a != agent]
        return len(inside) < arena.capacity

    # -- actions -----------------------------------------------------------------------------

    def set_action(
        self, agent: str, predicate: str, obj: str, description: str | None = None
    ) -> Event:
        """What the agent is doing now, as a triple: ``("is", "brewing coffee")``; the
        description defaults to ``"<agent> <predicate> <obj>"``."""
        text = " ".join((description or f"{agent} {predicate} {obj}").split())
        self._actions[agent] = (predicate, obj, text)
        return self.event_of(agent)

    def event_of(self, agent: str) -> Event:
        tile = self.tile_of(agent)
        predicate, obj, text = self._actions.get(agent, ("is", IDLE, f"{agent} is {IDLE}"))
        return Event(agent, predicate, obj, text, self.world.place_at(tile).address, tile)

    # -- objects -----------------------------------------------------------------------------

    def object_state(self, address: str) -> str:
        obj = self._object(address)
        return self._object_states.get(obj.address, obj.default_state)

    def set_object_state(self, name: str, state: str) -> str:
        """Set an object's state in words (``"is burning"`` or ``"burning"``); ``name`` may be
        any unambiguous name (see :meth:`World.resolve_object`). Returns the address."""
        obj = self._object(name)
        words = state_words(state)
        if not words:
            raise UserError("the state is empty", fix='say what the object is doing: "burning"')
        if words == obj.default_state:
            self._object_states.pop(obj.address, None)
        else:
            self._object_states[obj.address] = words
        return obj.address

    def reset_object_state(self, name: str) -> str:
        obj = self._object(name)
        self._object_states.pop(obj.address, None)
        return obj.address

    def changed_objects(self) -> dict[str, str]:
        """Objects whose state differs from their default: address -> state."""
        return dict(self._object_states)

    def object_event(self, address: str) -> Event | None:
        """The object's event, or None while it is idle or in its default state."""
        obj = self._object(address)
        state = self._object_states.get(obj.address)
        if state is None or state == IDLE:
            return None
        return Event(obj.address, "is", state, f"{obj.name} is {state}", obj.address, obj.tiles[0])

    def _object(self, name: str) -> GameObject:
        found = self.world.find(name)
        if not isinstance(found, GameObject):
            found = self.world.find(self.world.resolve_object(name))
        assert isinstance(found, GameObject)
        return found

    # -- events ------------------------------------------------------------------------------

    def events(self) -> list[Event]:
        """Every event in the world now: one per agent, one per active object."""
        found = [self.event_of(a) for a in self._tiles]
        for address in self._object_states:
            event = self.object_event(address)
            if event is not None:
                found.append(event)
        return found

    # -- checkpoints -------------------------------------------------------------------------

    def get_state(self) -> WorldSnapshot:
        return WorldSnapshot(
            agents=dict(self._tiles), actions=dict(self._actions), objects=dict(self._object_states)
        )

    def set_state(self, state: WorldSnapshot) -> None:
        self._tiles = dict(state.agents)
        self._actions = dict(state.actions)
        # A world edited between checkpoint and resume may have lost objects: drop them
        # rather than fail, their state has nowhere to live.
        self._object_states = {
            a: s for a, s in state.objects.items() if self.world.find(a) is not None
        }
