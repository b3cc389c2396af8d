"""Acting (paper §5.1): turn an activity into a place, then into the event it makes in the
world: an emoji and the state of the thing used.

The original asked about eight questions per action (sector, arena, object, emoji, triple,
object state...). Here it is two answers. The place is an enum of full addresses the agent
knows, so it can never be invalid. The event is asked apart, once the thing is known: asked
together, the examples of object states pulled small models towards the objects they named
("a desk: covered with notes" put breakfast at the desk), and with the emoji and state lists
in the place's prompt the 1.5B placed worse (stop 41, scripts/results/prompt-tuning.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from pydantic.dataclasses import dataclass

from simulacra.cognition.emoji import NAMES, emoji
from simulacra.interfaces import Mind
from simulacra.llm.schema import Answer
from simulacra.llm.templates import template_beside
from simulacra.world.names import where_said
from simulacra.world.tree import split_address

ACT = template_beside(__file__, "act")
EVENT = template_beside(__file__, "event")
PLACED_KEPT = 200


def event_for(**variables: Any) -> type[Answer]:
    """The answer of event.prompt.toml, its emoji one of every word emoji.py shows, its state
    one of those the thing can be in."""
    states = states_of(variables.get("thing"))
    return EVENT.answer_model({**variables, "emoji_words": NAMES, "thing_states": states})


def states_of(thing: str | None) -> list[str]:
    """The states of event.prompt.toml that ``thing`` can be in, by the words of its name."""
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
        purpose=purpose, known=known,
    )  # fmt: skip


def stage_action(
    agent: Mind,
    *,
    now: str,
    activity: str,
    minutes: int,
    place: str,
    purpose: str = "",
    known: dict[str, Placed] | None = None,
) -> Placed:
    """``activity`` at ``place``, chosen already, with the event it makes there: asked unless
    ``known`` holds the activity at that place (kept as the latest placed)."""
    key = _key(activity, place)
    if known is not None and key in known:
        placed = replace(known[key], purpose=purpose)
    else:
        placed = Placed(place, *_event(agent, now, minutes, activity, place), purpose)
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


def _event(agent: Mind, now: str, minutes: int, activity: str, place: str) -> tuple[str, str]:
    """The emoji and the state of the thing used (none for a whole room)."""
    parts = split_address(place)
    thing = parts[2] if len(parts) == 3 else None  # an object, not a whole room
    event = agent.ask(
        EVENT,
        now=now,
        minutes=minutes,
        activity=activity,
        place=place,
        thing=thing,
        emoji=NAMES,
    )
    return emoji(event.emoji), event.object_state if thing else ""
