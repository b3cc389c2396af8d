"""Naming an object the way a person would: full address, tail, phrase; errors list candidates."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulacra.errors import UserError
from simulacra.world import load_world

SMALLVILLE = Path(__file__).resolve().parent.parent / "worlds" / "smallville"
STOVE = "Lin family's house: kitchen: stove"


@pytest.fixture(scope="module")
def world():
    return load_world(SMALLVILLE)


@pytest.mark.parametrize(
    ("text", "address"),
    [
        (STOVE, STOVE),
        ("lin family's house:kitchen :  STOVE", STOVE),
        ("Lin family's kitchen stove", STOVE),
        ("the stove in the Lin family's kitchen", STOVE),
        ("coffee machine", "Hobbs Cafe: cafe: coffee machine"),
        ("Eddy's piano", "Lin family's house: Eddy Lin's bedroom: piano"),
        ("Klaus desk", "Dorm for Oak Hill College: Klaus Mueller's room: desk"),
        ("jukebox", "The Rose and Crown Pub: pub: jukebox"),
    ],
)
def test_resolves(world, text, address):
    assert world.resolve_object(text) == address


def test_ambiguous_names_list_candidates(world):
    with pytest.raises(UserError) as caught:
        world.resolve_object("stove")
    message = str(caught.value)
    assert message.startswith('"stove" matches ') and "objects:" in message
    assert f'"{STOVE}"' in message and "more" in message
    assert "\n" not in message
    with pytest.raises(UserError, match="matches 2 objects"):
        world.resolve_object("piano")


def test_unknown_names_suggest_close_ones(world):
    with pytest.raises(UserError, match='no object matches "coffee machin"') as caught:
        world.resolve_object("coffee machin")
    assert "Hobbs Cafe: cafe: coffee machine" in str(caught.value)
    with pytest.raises(UserError, match='no object matches "unicorn"'):
        world.resolve_object("unicorn")


def test_arenas_and_sectors_resolve_too(world):
    assert world.resolve("Lin kitchen", kind="arena") == "Lin family's house: kitchen"
    assert world.resolve("the college library", kind="arena") == "Oak Hill College: library"
    assert world.resolve("hobbs", kind="sector") == "Hobbs Cafe"
    assert world.phrase(STOVE) == "the stove in the kitchen at Lin family's house"
    assert world.phrase("Lin family's house: Eddy Lin's bedroom") == (
        "Eddy Lin's bedroom at Lin family's house"
    )


def test_where_said_finds_the_words_that_place_a_doing():
    from simulacra.world.names import where_said

    at_home = where_said(["home"])
    assert at_home.search("having breakfast at home")
    assert at_home.search("reading in her home")
    assert not at_home.search("walking home from the library")
    dorm = where_said(["Dorm for Oak Hill College", "home"])
    assert dorm.sub("", "resting in the dorm for Oak Hill College") == "resting"
