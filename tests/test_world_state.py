"""WorldState: positions, occupancy, actions, object states, events, checkpoints."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulacra.errors import UserError
from simulacra.world import Event, WorldSnapshot, WorldState, load_world

TINY = Path(__file__).parent / "fixtures" / "worlds" / "tiny"
MACHINE = "Corner Cafe: cafe: coffee machine"
RESTROOM = "Corner Cafe: one-person restroom"


@pytest.fixture(scope="module")
def world():
    return load_world(TINY)


@pytest.fixture
def state(world):
    state = WorldState(world)
    for persona in world.personas:
        state.place(persona.name)
    return state


def test_agents_start_at_their_spawn_points(world, state):
    assert state.tile_of("Ada Byron") == world.spawn_of("Ada Byron")
    assert world.place_at(state.tile_of("Ada Byron")).address == "Ada's house: bedroom: bed"
    assert state.tile_of("Bob Baker") in world.tiles_of(MACHINE)


def test_moves_are_one_walkable_tile_at_a_time(world, state):
    path = world.path_to(state.tile_of("Ada Byron"), "Corner Cafe: cafe")
    for step in path:
        state.move("Ada Byron", step)
    assert world.place_at(state.tile_of("Ada Byron")).arena == "cafe"
    with pytest.raises(ValueError, match="not adjacent"):
        state.move("Ada Byron", (0, 0))
    with pytest.raises(UserError, match="not a walkable tile"):
        state.place("Ada Byron", (1, 1))
    with pytest.raises(UserError, match="not in the world"):
        state.tile_of("Nobody")


def test_occupancy_and_capacity(world, state):
    assert state.occupants("Corner Cafe") == ["Bob Baker"]
    assert state.occupants("Corner Cafe: cafe") == ["Bob Baker"]
    assert state.occupants(MACHINE) == ["Bob Baker"]
    assert state.has_room(RESTROOM)
    state.place("Ada Byron", world.tiles_of(RESTROOM)[0])
    assert state.occupants(RESTROOM) == ["Ada Byron"]
    assert not state.has_room(RESTROOM)
    assert not state.has_room(RESTROOM + ": toilet")
    assert state.has_room(RESTROOM, agent="Ada Byron")  # she is the one inside
    assert state.has_room("Corner Cafe: cafe")  # no capacity


def test_agent_events_idle_and_acting(state):
    idle = state.event_of("Ada Byron")
    assert idle == Event("Ada Byron", "is", "idle", "Ada Byron is idle")
    assert idle.is_idle and idle.address == "Ada's house: bedroom: bed"
    acting = state.set_action("Bob Baker", "is", "brewing coffee")
    assert acting.description == "Bob Baker is brewing coffee" and not acting.is_idle
    assert acting.address == MACHINE


def test_object_states_from_words(state):
    assert state.object_state(MACHINE) == "idle"
    assert state.object_state("Ada's house: kitchen: refrigerator") == "humming"
    assert state.object_event(MACHINE) is None
    address = state.set_object_state("Ada's kitchen stove", "is burning")
    assert address == "Ada's house: kitchen: stove"
    assert state.object_state(address) == "burning"
    event = state.object_event(address)
    assert event.description == "stove is burning" and event.subject == address
    assert event in state.events()
    # Back to the default: no longer an event; the fridge humming by default is none either.
    state.set_object_state(address, "idle")
    assert state.changed_objects() == {}
    assert all(e.subject == e.description.split(" is ")[0] for e in state.events())
    with pytest.raises(UserError, match="matches 3 objects"):
        state.set_object_state("Corner Cafe", "on fire")


def test_unknown_object_is_a_user_error(state):
    with pytest.raises(UserError, match='no object matches "piano"'):
        state.set_object_state("piano", "playing")


def test_state_round_trip(world, state):
    state.set_action("Bob Baker", "is", "wiping the table", "Bob Baker is wiping the table")
    state.set_object_state(MACHINE, "brewing coffee")
    state.move("Ada Byron", world.grid.neighbours(state.tile_of("Ada Byron"))[0])
    saved = WorldSnapshot.model_validate_json(state.get_state().model_dump_json())
    copy = WorldState(world)
    copy.set_state(saved)
    assert copy.positions() == state.positions()
    assert copy.events() == state.events()
    assert copy.object_state(MACHINE) == "brewing coffee"
    assert copy.get_state() == state.get_state()
