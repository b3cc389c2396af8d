"""Acting (paper §5.1) with the scripted model: a place, then the event it makes there."""

from __future__ import annotations

from datetime import datetime

from scripted_town import SCRIPTS

from simulacra import GenerativeAgent, Persona, Settings
from simulacra.cognition.act import PLACED_KEPT, place_action

PLACES = ["Hobbs Cafe: cafe: coffee machine", "Hobbs Cafe: cafe: cafe tables"]


def _agent(path, model, embedder, persona):
    return GenerativeAgent.create(
        path,
        persona,
        at=datetime(2023, 2, 13, 7),
        model=model,
        settings=Settings(),
        embedder=embedder,
    )


def test_an_activity_placed_before_goes_there_again_without_a_call(
    tmp_path, scripted, word_embedder
):
    """A party run's residents placed 35 of 199 actions where they had placed them before."""
    model = scripted(SCRIPTS)
    persona = Persona(name="Isabella Rodriguez", age=34, innate="friendly", learned="runs a cafe")
    agent = _agent(tmp_path / "a", model, word_embedder, persona)
    known = {}

    def place(activity: str, purpose: str = "working at the cafe", places=PLACES):
        return place_action(
            agent,
            now="Monday February 13, 2023, 08:00",
            here="Hobbs Cafe: cafe",
            activity=activity,
            purpose=purpose,
            minutes=15,
            places=places,
            notes={},
            emoji_of=lambda activity: "🙂",
            known=known,
        )

    first = place("serving coffee at the counter")
    again = place("Serving coffee at the counter")
    place("wiping the tables")
    assert again == first
    assert len(model.completer.calls("act")) == 2  # the habit: no call the second time
    # Only the machine's state is asked: tables are "in use", and the emoji is by meaning.
    assert len(model.completer.calls("event")) == 1
    # As a part of another block, or where that place is not among the options: asked.
    other = place("serving coffee at the counter", "helping at a friend's party")
    assert other.place == first.place and other.purpose == "helping at a friend's party"
    assert len(model.completer.calls("act")) == 3 and len(model.completer.calls("event")) == 1
    place(
        "serving coffee at the counter",
        places=["Hobbs Cafe: kitchen: stove", "Hobbs Cafe: kitchen: sink"],
    )
    assert len(model.completer.calls("act")) == 4
    for n in range(PLACED_KEPT + 5):
        place(f"serving coffee number {n}")
    assert len(known) == PLACED_KEPT


def test_the_building_every_place_is_in_is_not_said_to_the_model(tmp_path, scripted, word_embedder):
    """bench_town (stop 49): "having breakfast at home", placed from Maria's room among the
    dorm's places, went to her bed, its kind of place "bedroom" in 5 of 5 samples; "having
    breakfast" went to the kitchen. The places already say which building."""
    model = scripted(SCRIPTS)
    persona = Persona(name="Maria Lopez", age=21, innate="curious", learned="a student")
    agent = _agent(tmp_path / "m", model, word_embedder, persona)
    dorm = ["Dorm: kitchen: kitchen table", "Dorm: Maria Lopez's room: bed"]
    place_action(
        agent,
        now="Monday February 13, 2023, 08:10",
        here="Dorm: Maria Lopez's room",
        activity="having breakfast at home",
        purpose="showering, getting dressed and having breakfast in the Dorm",
        minutes=20,
        places=dorm,
        notes={},
        emoji_of=lambda activity: "🙂",
        settled=("Dorm", "home"),
    )
    (asked,) = model.completer.calls("act")
    assert asked.variables["activity"] == "having breakfast"
    assert asked.variables["purpose"] == "showering, getting dressed and having breakfast"
