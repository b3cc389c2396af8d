"""Perception, as the original implementation does it each step for each agent.

Events on tiles within a square of ``vision_radius`` around the agent and in the agent's own
arena (on the street: other street tiles) are candidates; the nearest
``attention_bandwidth`` are attended to; of those, any among the agent's last ``retention``
perceived events is skipped. What is left is new and becomes observations. Everything
within the radius, in any arena, goes into spatial memory.
"""

from __future__ import annotations

import math

from simulacra.settings import PerceptionSettings
from simulacra.state import State
from simulacra.world.events import Event
from simulacra.world.spatial import SpatialMemory
from simulacra.world.state import WorldState


class PerceptionState(State):
    """The retention buffer: the last events perceived, as (subject, predicate, object,
    description), oldest first."""

    recent: list[tuple[str, str, str, str]] = []


class Perception:
    """One agent's senses and its retention buffer (checkpoint with get_state/set_state)."""

    def __init__(self, agent: str, spatial: SpatialMemory | None = None) -> None:
        self.agent = agent
        self.spatial = spatial
        self._recent: list[tuple[str, str, str, str]] = []

    def perceive(self, state: WorldState, settings: PerceptionSettings) -> list[Event]:
        """The new events this step, nearest first."""
        world = state.world
        here = state.tile_of(self.agent)
        radius = settings.vision_radius
        if self.spatial is not None:
            self.spatial.see(state, here, radius)
        region = world.region_at(here)
        hx, hy = here

        def visible(tile: tuple[int, int]) -> bool:
            return (
                abs(tile[0] - hx) <= radius
                and abs(tile[1] - hy) <= radius
                and world.region_at(tile) == region
            )

        candidates: list[tuple[float, Event]] = []
        for agent, tile in state.positions().items():
            if agent != self.agent and visible(tile):
                candidates.append((math.dist(here, tile), state.event_of(agent)))
        for address in state.changed_objects():
            event = state.object_event(address)
            if event is None:
                continue
            in_view = [t for t in world.tiles_of(address) if visible(t)]
            if in_view:
                nearest = min(in_view, key=lambda t: math.dist(here, t))
                seen = Event(*event.triple, event.description, event.address, nearest)
                candidates.append((math.dist(here, nearest), seen))
        candidates.sort(key=lambda c: (c[0], c[1].description))
        attended = [event for _, event in candidates[: settings.attention_bandwidth]]

        recent = set(self._recent[-settings.retention :])
        new = []
        for event in attended:
            key = (event.subject, event.predicate, event.object, event.description)
            if key in recent:
                continue
            recent.add(key)
            self._recent.append(key)
            new.append(event)
        del self._recent[: -settings.retention]
        return new

    def get_state(self) -> PerceptionState:
        return PerceptionState(recent=list(self._recent))

    def set_state(self, state: PerceptionState) -> None:
        self._recent = list(state.recent)
