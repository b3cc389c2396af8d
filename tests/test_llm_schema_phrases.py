"""Activity phrases and object states are the model's own words, turned into what reads after
"<name> is" and "the <thing> is"."""

import pytest

from simulacra.llm.schema import as_activity, as_state


@pytest.mark.parametrize(
    ("written", "reads"),
    [
        ("drinks coffee", "drinking coffee"),
        ("Maria Lopez is drinking coffee", "drinking coffee"),
        ("Isabella Rodriguez wakes up around 06:00", "waking up around 06:00"),
        ("Opens Hobbs Cafe at 8am", "opening Hobbs Cafe at 8am"),
        ("Serving customers.", "serving customers"),
        ("run to class", "running to class"),
        ("studies physics", "studying physics"),
        ("write in her journal", "writing in her journal"),
        ("lunch with Klaus", "having lunch with Klaus"),
        ("meal", "having a meal"),
        ("at the cafe", "at the cafe"),
        ("stops and waits for Isabella", "stopping and waiting for Isabella"),
        ("plan the party", "planning the party"),
        ("visit Klaus", "visiting Klaus"),
        ("buys apples and pears", "buying apples and pears"),
        ("I turn off the stove", "turning off the stove"),
        ("she stops and deals with it", "stopping and dealing with it"),
        ("I'm calling for help", "calling for help"),
        ("none", "none"),
        ("physics classes", "doing physics classes"),
        ("homework for Monday", "doing homework for Monday"),
        ("work at the cafe", "working at the cafe"),
        ("class", "doing class"),
        ("Isabella will start decorating the cafe", "starting decorating the cafe"),
        ("she wants to read a book", "reading a book"),
        ("reading what she will say", "reading what she will say"),
    ],
)
def test_activity_phrases_read_after_is(written, reads):
    assert as_activity(written) == reads


@pytest.mark.parametrize(
    ("written", "reads"),
    [
        ("the oven is heating", "heating"),
        ("bed is being slept in", "being slept in"),
        ("the kitchen table is brewing coffee", "brewing coffee"),
        ("covered with notes", "covered with notes"),
        ("occupied", "occupied"),
        ("filled with notes and", "filled with notes"),
        ("turned on and the", "turned on"),
        ("being cleaned,", "being cleaned"),
    ],
)
def test_object_states_read_after_the_thing_is(written, reads):
    assert as_state(written) == reads
