"""The user's avatar (`simulacra play`): a person in the world without a mind of its own.

It stands on a tile of the world state like a resident, so perception reads it as it reads
anyone ("Ana is standing by the cafe counter"); it walks a path found by the world's A*, one
tile a step like everyone, and keeps the conversation it is having with a resident.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simulacra.cognition.dialogue import Line
from simulacra.llm.phrases import phrases_beside
from simulacra.state import State
from simulacra.world import World, WorldState
from simulacra.world.grid import Tile

PHRASES = phrases_beside(__file__, "avatar")
ENTRANCE = "town entrance"  # the spawn point every world keeps for the avatar


class AvatarState(State):
    name: str
    path: list[Tile]
    partner: str | None
    lines: list[Line]


@dataclass
class Avatar:
    name: str
    path: list[Tile] = field(default_factory=list)
    partner: str | None = None  # the resident it is talking with
    lines: list[Line] = field(default_factory=list)  # that conversation so far

    def set_off(self, path: list[Tile]) -> None:
        """Walk ``path``, a tile a step; [] stops where it stands."""
        self.path = list(path)

    def next_tile(self) -> Tile:
        return self.path.pop(0)

    def say_to(self, partner: str, text: str) -> None:
        """A line to ``partner``, in the conversation with it (begun by the first line)."""
        self.partner = partner
        self.lines.append(Line(self.name, text))

    def hear(self, line: Line) -> None:
        self.lines.append(line)

    def end_conversation(self) -> None:
        self.partner, self.lines = None, []

    def describe(self, world: World, state: WorldState) -> str:
        """What the residents see it doing."""
        if self.partner is not None:
            return PHRASES.text("talking", name=self.name, partner=self.partner)
        if self.path:
            goal = world.place_at(self.path[-1])
            place = world.phrase(goal.address) if goal.sector else PHRASES.text("street")
            return PHRASES.text("walking", name=self.name, place=place)
        tile = state.tile_of(self.name)
        x, y = tile
        for near in (tile, (x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)):
            thing = world.place_at(near).object if near in world.grid else None
            if thing:
                return PHRASES.text("standing_by", name=self.name, thing=thing)
        where = world.place_at(tile)
        if where.sector is None:
            return PHRASES.text("standing_outside", name=self.name)
        return PHRASES.text("standing_in", name=self.name, place=world.phrase(where.address))

    def get_state(self) -> AvatarState:
        return AvatarState(
            name=self.name, path=list(self.path), partner=self.partner, lines=list(self.lines)
        )

    def set_state(self, state: AvatarState) -> None:
        self.name = state.name
        self.path = list(state.path)
        self.partner = state.partner
        self.lines = list(state.lines)

    @classmethod
    def from_state(cls, state: AvatarState) -> Avatar:
        avatar = cls(state.name)
        avatar.set_state(state)
        return avatar
