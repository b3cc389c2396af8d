"""Which places a resident may be sent to: never a home that is someone else's."""

from pathlib import Path

import pytest

from simulacra.settings import Settings
from simulacra.sim.places import PlaceChooser
from simulacra.world import load_world

WORLD = Path(__file__).resolve().parent.parent / "worlds" / "smallville-3"


@pytest.mark.parametrize(
    ("who", "place", "allowed"),
    [
        ("Klaus Mueller", "Dorm for Oak Hill College: Klaus Mueller's room: bed", True),
        ("Klaus Mueller", "Dorm for Oak Hill College: kitchen: refrigerator", True),
        ("Maria Lopez", "Dorm for Oak Hill College: women's one-person bathroom: shower", True),
        ("Isabella Rodriguez", "Hobbs Cafe: cafe: cafe counter", True),
        ("Maria Lopez", "Dorm for Oak Hill College: Klaus Mueller's room: bed", False),
        ("Klaus Mueller", "Isabella Rodriguez's apartment: main room: bed", False),
        # homes of people who are not in this three-resident town are still theirs
        ("Klaus Mueller", "Ryan Park's apartment: main room: bed", False),
        ("Maria Lopez", "Lin family's house: kitchen: stove", False),
        ("Isabella Rodriguez", "Dorm for Oak Hill College: kitchen: refrigerator", False),
    ],
)
def test_a_resident_is_never_sent_into_another_home(who, place, allowed):
    chooser = PlaceChooser(load_world(WORLD), embedder=None, settings=Settings().plan)
    assert chooser.allowed(who, place) is allowed
