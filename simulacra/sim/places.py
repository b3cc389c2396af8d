"""Where things happen: the few places offered to the model for an action, and beds."""

from __future__ import annotations

import numpy as np

from simulacra.embed import Embedder
from simulacra.settings import PlanSettings
from simulacra.sim.resident import Resident
from simulacra.world import ResidentPersona, World
from simulacra.world.grid import Tile
from simulacra.world.tree import Arena, GameObject


class PlaceChooser:
    """Ranks the places an agent knows by how well they suit an activity: over-fetch by
    meaning, then favour where the agent is, home and work, and keep the best few (the
    numbers are settings: ``plan.place_choices``, ``plan.here_bonus``...)."""

    def __init__(self, world: World, embedder: Embedder, settings: PlanSettings) -> None:
        self.world = world
        self.embedder = embedder
        self.settings = settings
        self._vectors: dict[str, np.ndarray] = {}

    def candidates(self, r: Resident, activity: str, tile: Tile) -> list[str]:
        known = r.spatial.known_objects()
        known += [a for a in r.spatial.known_arenas() if not r.spatial.known_objects(a)]
        here = self.world.place_at(tile)
        if not known:
            return [here.address or r.persona.home]
        missing = [p for p in known if p not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self.embedder.embed(missing), strict=True))
        query = self.embedder.embed_one(activity)
        room = f"{here.sector}: {here.arena}" if here.arena else None
        familiar = {r.persona.home.split(":")[0], (r.persona.workplace or "").split(":")[0]}

        def score(place: str) -> float:
            s = float(self._vectors[place] @ query)
            if room and place.startswith(room):
                s += self.settings.here_bonus
            if place.split(":")[0] in familiar:
                s += self.settings.home_or_work_bonus
            return s

        return sorted(known, key=lambda p: (-score(p), p))[: self.settings.place_choices]


def bed_of(world: World, persona: ResidentPersona) -> str:
    """Where a resident sleeps: a bed in their home room, else the room itself."""
    home = world.place(persona.home)
    if isinstance(home, Arena):
        for obj in home.objects.values():
            if "bed" in obj.name.lower():
                return obj.address
        return home.address
    return persona.home


def arena_of(world: World, address: str) -> str:
    place = world.place(address)
    return place.arena_address if isinstance(place, GameObject) else address
