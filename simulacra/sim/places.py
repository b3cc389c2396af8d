"""Where things happen: the few places offered to the model for an action, and beds."""

from __future__ import annotations

import numpy as np

from simulacra.embed import Embedder
from simulacra.sim.resident import Resident
from simulacra.world import ResidentPersona, World
from simulacra.world.grid import Tile
from simulacra.world.tree import Arena, GameObject

# Models pick odd places when they know many (paper §7: lunch at the bar), so only the best
# few by meaning are offered. Being in the room, or at home or work, tips close calls; more
# than that keeps everyone at home, since small models take the first place offered.
HERE_BONUS = 0.05
HOME_OR_WORK_BONUS = 0.05


class PlaceChooser:
    """Ranks the places an agent knows by how well they suit an activity: over-fetch by
    meaning, then favour where the agent is, home and work, and keep the best few."""

    def __init__(self, world: World, embedder: Embedder, choices: int) -> None:
        self.world = world
        self.embedder = embedder
        self.choices = choices
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
                s += HERE_BONUS
            if place.split(":")[0] in familiar:
                s += HOME_OR_WORK_BONUS
            return s

        return sorted(known, key=lambda p: (-score(p), p))[: self.choices]


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
