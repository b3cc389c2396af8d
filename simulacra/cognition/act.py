"""Acting (paper §5.1): turn an activity into a place, then into the event it makes in the
world: an emoji and the state of the thing used.

The original asked about eight questions per action (sector, arena, object, emoji, triple,
object state...). Here it is at most two answers. The place is an enum of full addresses the
agent knows, so it can never be invalid. The thing's state is asked apart, once the thing is
known, and only where it can be in more than "in use" (a machine): asked together, the
examples of object states pulled small models towards the objects they named ("a desk:
covered with notes" put breakfast at the desk), and with the state list in the place's prompt
the 1.5B placed worse (stop 41, scripts/results/prompt-tuning.md). The emoji is the one
nearest the activity's meaning (emoji.py), with no call.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from pydantic.dataclasses import dataclass

from simulacra.interfaces import Mind
from simulacra.llm.schema import Answer
from simulacra.llm.templates import template_beside
from simulacra.world.names import where_said
from simulacra.world.tree import split_address

ACT = template_beside(__file__, "act")
EVENT = template_beside(__file__, "event")
PLACED_KEPT = 200


EmojiOf = Callable[[str], str]  # an activity's emoji (emoji.EmojiByMeaning)


def event_for(**variables: Any) -> type[Answer]:
    """The answer of event.prompt.toml, its state one of those the thing can be in."""
    return EVENT.answer_model({**variables, "thing_states": states_of(variables.get("thing"))})


def states_of(thing: str | None) -> list[str]:
    """The states of event.prompt.toml that ``thing`` can be in, by the words of its name:
    those any thing can be in first."""
    only = EVENT.words.get("states_of", {})
    name = (thing or "").lower()
    return [
        state
        for state in EVENT.words["states"]
        if state not in only or any(re.search(rf"\b{re.escape(w)}", name) for w in only[state])
    ]


@dataclass(frozen=True)
class Placed:
    """An activity with everything the world needs to show and stage it (a pydantic
    dataclass: residents keep the ones they made, see ``known`` below), and the block it was
    placed as a part of."""

    place: str
    emoji: str
    object_state: str
    purpose: str = ""  # runs saved before it was kept have none


def place_action(
    agent: Mind,
    *,
    now: str,
    here: str | None,
    activity: str,
    minutes: int,
    places: list[str],
    notes: dict[str, str],
    emoji_of: EmojiOf,
    purpose: str | None = None,
    known: dict[str, Placed] | None = None,
    settled: Sequence[str] = (),
) -> Placed:
    """Where ``activity`` happens, as a part of ``purpose`` (the block it is a step of) if
    given, and the event it makes there; ``here``, the room the agent is in, is said if given.
    ``known`` keeps the latest ``PLACED_KEPT`` placed.

    Nothing is asked for an activity ``known`` as a part of the same block at a place among
    ``places``: it goes there again, as a habit (a resident's day repeats its steps: a fifth
    to a tenth of a party run's actions were done before, 35 to 63 a run). Nor is the event
    asked again for an activity known at the place chosen.

    ``settled``: what the one building every place is in is called ("home" among them where it
    is the agent's). Said in the activity it tells the model nothing the places do not, and
    it names a kind of place: "having breakfast at home", placed from the bedroom, went to
    the bed in 5 of 5 samples (kind of place "bedroom"); "having breakfast", to the kitchen."""
    purpose = "" if purpose in (None, activity) else purpose
    habit = _habit(activity, purpose, places, known or {})
    if habit is not None:
        return habit
    where = agent.ask(
        ACT,
        now=now,
        here=here,
        activity=_unsaid(activity, settled),
        purpose=_unsaid(purpose, settled),
        minutes=minutes,
        places=places,
        notes=notes,
    )
    return stage_action(
        agent, now=now, activity=activity, minutes=minutes, place=where.place,
        emoji_of=emoji_of, purpose=purpose, known=known,
    )  # fmt: skip


def stage_action(
    agent: Mind,
    *,
    now: str,
    activity: str,
    minutes: int,
    place: str,
    emoji_of: EmojiOf,
    purpose: str = "",
    known: dict[str, Placed] | None = None,
) -> Placed:
    """``activity`` at ``place``, chosen already, with the event it makes there: its thing's
    state asked where the thing can be in more than one, unless ``known`` holds the activity
    at that place (kept as the latest placed)."""
    key = _key(activity, place)
    if known is not None and key in known:
        placed = replace(known[key], purpose=purpose)
    else:
        state = _state(agent, now, minutes, activity, place)
        placed = Placed(place, emoji_of(activity), state, purpose)
    if known is not None:
        known.pop(key, None)  # the latest last
        known[key] = placed
        for stale in list(known)[: max(0, len(known) - PLACED_KEPT)]:
            del known[stale]
    return placed


def _unsaid(text: str, buildings: Sequence[str]) -> str:
    """``text`` without "at home", "in the Dorm", ... for the ``buildings``."""
    if not buildings or not text:
        return text
    left = where_said(buildings).sub("", text).strip()
    return left or text


def _key(activity: str, place: str) -> str:
    return f"{activity.lower()} @ {place}"


def _habit(
    activity: str, purpose: str, places: list[str], known: dict[str, Placed]
) -> Placed | None:
    """The latest placing of ``activity`` as a part of ``purpose`` at one of ``places``."""
    for key, placed in reversed(known.items()):
        same = key == _key(activity, placed.place) and placed.purpose == purpose
        if same and placed.place in places:
            return placed
    return None


def _state(agent: Mind, now: str, minutes: int, activity: str, place: str) -> str:
    """The state of the thing used ("" for a whole room), asked only where the thing can be in
    a state besides those any thing can be in: a table is "in use", a coffee machine may be
    "brewing coffee". Of the 223 events of party seed 2x, most were at tables, desks, shelves
    and seats."""
    parts = split_address(place)
    if len(parts) < 3:  # a whole room, not a thing
        return ""
    states = states_of(parts[2])
    if states == states_of(None):
        return states[0]
    asked = agent.ask(
        EVENT, now=now, minutes=minutes, activity=activity, place=place, thing=parts[2]
    )
    return asked.object_state
