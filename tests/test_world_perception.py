"""Perception as in the original: radius square, own arena only, nearest N, retention."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulacra.settings import PerceptionSettings
from simulacra.world import Perception, PerceptionState, SpatialMemory, WorldState, load_world

TINY = Path(__file__).parent / "fixtures" / "worlds" / "tiny"
# Tiny Town: the cafe's floor is x 12-15 on y 2-4 and x 12-17 on y 5; its one-person
# restroom is (17, 2)-(17, 3) behind a wall; the street is y 0, y 7 and x 9-10.


@pytest.fixture(scope="module")
def world():
    return load_world(TINY)


@pytest.fixture
def state(world):
    return WorldState(world)


def settings(radius=8, bandwidth=8, retention=8) -> PerceptionSettings:
    return PerceptionSettings(
        vision_radius=radius, attention_bandwidth=bandwidth, retention=retention
    )


def subjects(events) -> list[str]:
    return [e.subject for e in events]


def test_sees_only_within_the_radius(state):
    state.place("Ada", (12, 5))
    state.place("Near", (14, 5))  # 2 tiles away
    state.place("Far", (17, 5))  # 5 tiles away
    state.place("Up", (12, 2))  # 3 tiles away
    assert subjects(Perception("Ada").perceive(state, settings(radius=2))) == ["Near"]
    assert set(subjects(Perception("Ada").perceive(state, settings(radius=5)))) == {
        "Near",
        "Far",
        "Up",
    }


def test_sees_only_its_own_arena(state):
    state.place("Ada", (15, 2))  # cafe
    state.place("Rita", (17, 2))  # restroom, two tiles away behind the wall
    state.place("Walker", (15, 0))  # street, two tiles away
    state.place("Cook", (15, 4))  # cafe
    assert subjects(Perception("Ada").perceive(state, settings())) == ["Cook"]
    # On the street, only the street.
    state = WorldState(state.world)
    state.place("Ada", (10, 3))
    state.place("Other walker", (10, 5))
    state.place("Inside", (12, 3))
    assert subjects(Perception("Ada").perceive(state, settings())) == ["Other walker"]


def test_attention_bandwidth_keeps_the_nearest(state):
    state.place("Ada", (12, 5))
    for i, x in enumerate([17, 13, 16, 14, 15]):
        state.place(f"Guest {i}", (x, 5))
    seen = Perception("Ada").perceive(state, settings(bandwidth=3))
    assert subjects(seen) == ["Guest 1", "Guest 3", "Guest 4"]  # x 13, 14, 15


def test_own_event_is_not_perceived_and_idle_agents_are(state):
    state.place("Ada", (12, 5))
    state.place("Bob", (13, 5))
    state.set_action("Ada", "is", "reading")
    (seen,) = Perception("Ada").perceive(state, settings())
    assert seen.description == "Bob is idle" and seen.is_idle and seen.tile == (13, 5)
    assert seen.address == "Corner Cafe: cafe"


def test_events_within_retention_are_not_added_again(state):
    state.place("Ada", (12, 5))
    state.place("Bob", (13, 5))
    senses = Perception("Ada")
    assert subjects(senses.perceive(state, settings())) == ["Bob"]
    assert senses.perceive(state, settings()) == []
    state.set_action("Bob", "is", "sweeping the floor")
    (new,) = senses.perceive(state, settings())
    assert new.description == "Bob is sweeping the floor"
    assert senses.perceive(state, settings()) == []
    # Bob walking around while sweeping is still the same happening.
    state.move("Bob", (14, 5))
    assert senses.perceive(state, settings()) == []


def test_events_older_than_retention_come_back(state):
    state.place("Ada", (12, 5))
    state.place("Bob", (13, 5))
    state.place("Cat", (14, 5))
    senses = Perception("Ada")
    assert subjects(senses.perceive(state, settings(retention=1))) == ["Bob", "Cat"]
    # Only "Cat" is remembered, so "Bob" is new again, which pushes "Cat" out.
    assert subjects(senses.perceive(state, settings(retention=1))) == ["Bob"]
    assert subjects(senses.perceive(state, settings(retention=1))) == ["Cat"]


def test_a_user_set_object_state_is_perceived_on_the_next_step(state):
    state.place("Ada", (12, 5))
    senses = Perception("Ada")
    assert senses.perceive(state, settings()) == []
    state.set_object_state("coffee machine", "is brewing coffee")
    (event,) = senses.perceive(state, settings())
    assert event.description == "coffee machine is brewing coffee"
    assert event.subject == "Corner Cafe: cafe: coffee machine" and event.tile == (14, 2)
    assert senses.perceive(state, settings()) == []
    # A stove burning in another building is not in view.
    state.set_object_state("Ada's house: kitchen: stove", "burning")
    assert senses.perceive(state, settings(radius=20)) == []


def test_retention_buffer_round_trip(state):
    state.place("Ada", (12, 5))
    state.place("Bob", (13, 5))
    senses = Perception("Ada")
    senses.perceive(state, settings())
    copy = Perception("Ada")
    copy.set_state(PerceptionState.model_validate_json(senses.get_state().model_dump_json()))
    assert copy.perceive(state, settings()) == []
    assert subjects(Perception("Ada").perceive(state, settings())) == ["Bob"]


def test_perception_feeds_spatial_memory_from_any_arena(world, state):
    memory = SpatialMemory(world)
    memory.learn("Ada's house: bedroom")
    state.place("Ada", (15, 4))
    Perception("Ada", memory).perceive(state, settings(radius=2))
    assert memory.knows("Corner Cafe: one-person restroom: toilet")  # seen through the wall
    assert memory.knows("Corner Cafe: cafe: coffee machine")
    assert not memory.knows("Ada's house: kitchen")  # out of sight, never learned
