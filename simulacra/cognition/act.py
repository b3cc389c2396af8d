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

from typing import Any

from pydantic.dataclasses import dataclass

from simulacra.cognition.emoji import NAMES, emoji
from simulacra.interfaces import Mind
from simulacra.llm.schema import Answer
from simulacra.llm.templates import template_beside
from simulacra.world.tree import split_address

ACT = template_beside(__file__, "act")
EVENT = template_beside(__file__, "event")
PLACED_KEPT = 200


def event_for(**variables: Any) -> type[Answer]:
    """The answer of event.prompt.toml, its emoji one of every word emoji.py shows."""
    return EVENT.answer_model({**variables, "emoji_words": NAMES})


@dataclass(frozen=True)
class Placed:
    """An activity with everything the world needs to show and stage it (a pydantic
    dataclass: residents keep the ones they made, see ``known`` below)."""

    place: str
    emoji: str
    object_state: str


def place_action(
    agent: Mind,
    *,
    now: str,
    here: str,
    activity: str,
    minutes: int,
    places: list[str],
    notes: dict[str, str],
    purpose: str | None = None,
    known: dict[str, Placed] | None = None,
) -> Placed:
    """Where ``activity`` happens, as a part of ``purpose`` (the block it is a step of) if
    given, and the event it makes there. An activity already ``known`` at the place chosen
    makes the event it made before, with no model call: a resident's day repeats its steps
    (35 of 199 actions in a party run), and nothing in the event's question changed. ``known``
    keeps the latest ``PLACED_KEPT``."""
    where = agent.ask(
        ACT,
        now=now,
        here=here,
        activity=activity,
        purpose="" if purpose in (None, activity) else purpose,
        minutes=minutes,
        places=places,
        notes=notes,
    )
    key = f"{activity.lower()} @ {where.place}"
    if known is not None and key in known:
        return known[key]
    parts = split_address(where.place)
    thing = parts[2] if len(parts) == 3 else None  # an object, not a whole room

    event = agent.ask(
        EVENT,
        now=now,
        minutes=minutes,
        activity=activity,
        place=where.place,
        thing=thing,
        emoji=NAMES,
    )
    state = event.object_state if thing else ""
    placed = Placed(where.place, emoji(event.emoji), state)
    if known is not None:
        known[key] = placed
        for stale in list(known)[: max(0, len(known) - PLACED_KEPT)]:
            del known[stale]
    return placed
