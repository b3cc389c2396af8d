"""Spatial memory: seeded from the persona, grows with sight, renders short, goes stale."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulacra.settings import PerceptionSettings
from simulacra.world import Perception, SpatialMemory, SpatialState, WorldState, load_world

ROOT = Path(__file__).resolve().parent.parent
TINY = Path(__file__).parent / "fixtures" / "worlds" / "tiny"


@pytest.fixture(scope="module")
def world():
    return load_world(TINY)


def test_seeded_with_home_workplace_and_usual_places(world):
    bob = SpatialMemory.for_persona(world, world.persona("Bob Baker"))
    # Home is the kitchen, so the whole house; the workplace is the cafe arena only.
    assert bob.known_sectors() == ["Ada's house", "Corner Cafe"]
    assert bob.known_arenas() == [
        "Ada's house: bedroom",
        "Ada's house: kitchen",
        "Corner Cafe: cafe",
    ]
    assert bob.known_objects("Corner Cafe: cafe") == [
        "Corner Cafe: cafe: coffee machine",
        "Corner Cafe: cafe: table",
    ]
    ada = SpatialMemory.for_persona(world, world.persona("Ada Byron"))
    assert "Corner Cafe: one-person restroom" in ada.known_arenas()  # usual place: all of it


def test_grows_as_the_agent_walks_and_renders_compactly(world):
    state = WorldState(world)
    state.place("Bob Baker")
    memory = SpatialMemory(world)
    memory.learn("Corner Cafe: cafe")
    assert memory.describe() == "Corner Cafe: cafe (coffee machine, table)."
    senses = Perception("Bob Baker", memory)
    narrow = PerceptionSettings(vision_radius=2)
    for step in world.path_to(state.tile_of("Bob Baker"), "Ada's house: kitchen: stove"):
        state.move("Bob Baker", step)
        senses.perceive(state, narrow)
    assert memory.knows("Ada's house: kitchen: stove")
    assert "Ada's house: bedroom (bed); kitchen (stove, refrigerator)." in memory.describe()
    assert memory.describe(["Ada's house"]).startswith("Ada's house: ")
    assert "Corner Cafe" not in memory.describe(["Ada's house"])


def test_object_states_are_remembered_as_last_seen(world):
    state = WorldState(world)
    state.place("Ada Byron", (6, 4))  # in the kitchen
    memory = SpatialMemory(world)
    senses = Perception("Ada Byron", memory)
    settings = PerceptionSettings()
    state.set_object_state("Ada's house: kitchen: stove", "burning")
    senses.perceive(state, settings)
    assert "stove [burning]" in memory.describe()
    assert memory.last_seen_state("Ada's house: kitchen: stove") == "burning"
    # Away in the cafe, the fire goes out unseen: the memory is stale.
    state.place("Ada Byron", (12, 5))
    state.reset_object_state("Ada's house: kitchen: stove")
    senses.perceive(state, settings)
    assert memory.last_seen_state("Ada's house: kitchen: stove") == "burning"
    state.place("Ada Byron", (6, 4))
    senses.perceive(state, settings)
    assert memory.last_seen_state("Ada's house: kitchen: stove") is None
    assert "stove, refrigerator" in memory.describe()  # humming is its default: not noted


def test_round_trip(world):
    memory = SpatialMemory.for_persona(world, world.persona("Bob Baker"))
    memory.note_state("Corner Cafe: cafe: coffee machine", "brewing coffee")
    copy = SpatialMemory(world)
    copy.set_state(SpatialState.model_validate_json(memory.get_state().model_dump_json()))
    assert copy.get_state() == memory.get_state()
    assert copy.describe() == memory.describe()


def test_smallville_descriptions_stay_short():
    world = load_world(ROOT / "worlds" / "smallville")
    for persona in world.personas:
        text = SpatialMemory.for_persona(world, persona).describe()
        assert persona.home.split(":")[0] in text
        assert len(text) < 1500, persona.name  # a few hundred tokens at most
    john = SpatialMemory.for_persona(world, world.persona("John Lin"))
    assert "kitchen (stove, kitchen sink, refrigerator, kitchen table)" in john.describe()
