"""The sandbox world: a tile town laid out as the paper's tree of places, its residents,
what changes in it, and what each agent perceives and remembers of it.

Static (loaded once, validated, never changes during a run)::

    world = load_world("worlds/smallville")          # World; WorldError (a UserError) if bad
    world.name, world.personas, world.scenario        # personas: ResidentPersona, scenario order
    world.residents                                   # every persona file, taking part or not
    world.scenario.start, world.scenario.step_seconds
    world.width, world.height, world.is_walkable((x, y)), world.grid
    world.sectors / world.arenas / world.objects       # Sector, Arena, GameObject (tree.py)
    world.find("Hobbs Cafe: cafe")                    # exact address -> place or None
    world.place(text)                                 # exact or resolved -> place; UserError
    world.place_at((x, y))                            # Where(sector, arena, object), Nones
    world.region_at((x, y))                           # equal ids = same arena (perception)
    world.tiles_of("Hobbs Cafe: cafe: coffee machine")
    world.path(start, goal)                           # A*: tiles after start .. goal; [] ; None
    world.path_to(start, "Hobbs Cafe: cafe", avoid=taken)   # to the nearest tile of a place
    world.resolve_object("Lin family's kitchen stove")  # -> "Lin family's house: kitchen: stove"
    world.resolve(text, kind="arena")                 # same for arenas / sectors / any place
    world.spawn_of("Isabella Rodriguez")
    world.phrase(address)                             # "the stove in the kitchen at ..."
    world.export_map()                                # JSON for a browser (render.export_map)
    world.folder, world.source_files                  # every file read, to copy a world whole

Changing (one per simulation; checkpoint with get_state/set_state, typed: simulacra/state.py)::

    state = WorldState(world)
    state.place(name) / state.move(name, next_tile) / state.tile_of(name)
    state.set_action(name, "is", "brewing coffee")     # the agent's event (default: idle)
    state.set_object_state("Lin family's kitchen stove", "is burning")
    state.events(), state.occupants("Hobbs Cafe: cafe"), state.has_room(address)

Per agent (checkpoint each with get_state/set_state)::

    spatial = SpatialMemory.for_persona(world, persona)
    senses = Perception(persona.name, spatial)
    new_events = senses.perceive(state, settings.perception)   # list[Event], only new ones
    spatial.describe(), spatial.known_arenas(sector), spatial.known_objects(arena)
"""

from __future__ import annotations

from simulacra.world.core import TileKind, Where, World
from simulacra.world.events import Event
from simulacra.world.files import load_world
from simulacra.world.formats import ResidentPersona, Scenario
from simulacra.world.grid import Grid, Tile
from simulacra.world.perception import Perception, PerceptionState
from simulacra.world.reading import WorldError
from simulacra.world.render import draw, export_map, legend
from simulacra.world.spatial import SpatialMemory, SpatialState
from simulacra.world.state import WorldSnapshot, WorldState
from simulacra.world.tree import (
    IDLE,
    Arena,
    EnvironmentTree,
    GameObject,
    Sector,
    join_address,
    split_address,
)

__all__ = [
    "IDLE",
    "Arena",
    "EnvironmentTree",
    "Event",
    "GameObject",
    "Grid",
    "Perception",
    "PerceptionState",
    "ResidentPersona",
    "Scenario",
    "Sector",
    "SpatialMemory",
    "SpatialState",
    "Tile",
    "TileKind",
    "Where",
    "World",
    "WorldError",
    "WorldSnapshot",
    "WorldState",
    "draw",
    "export_map",
    "join_address",
    "legend",
    "load_world",
    "split_address",
]
