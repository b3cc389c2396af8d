"""Acting (paper §5.1): turn an activity into a place, then into the event it makes in the
world: an emoji and the state of the thing used.

The original asked about eight questions per action (sector, arena, object, emoji, triple,
object state...). Here it is one answer: the place, an enum of full addresses the agent
knows, so it can never be invalid; then an emoji word and the state of the thing used, both
chosen among a few. (Written states once came first and pulled small models towards the
objects they named: "a desk: covered with notes" put breakfast at the desk.)
"""

from __future__ import annotations

import hashlib
from typing import Any

from pydantic.dataclasses import dataclass

from simulacra.cognition.emoji import NAMES, emoji
from simulacra.interfaces import Mind
from simulacra.llm.schema import Answer
from simulacra.llm.templates import template_beside
from simulacra.world.tree import split_address

ACT = template_beside(__file__, "act")
PLACED_KEPT = 200


def place_for(**variables: Any) -> type[Answer]:
    """The answer of act.prompt.toml, its emoji one of every word emoji.py shows."""
    return ACT.answer_model({**variables, "emoji_words": NAMES})


@dataclass(frozen=True)
class Placed:
    """An activity with everything the world needs to show and stage it (a pydantic
    dataclass: residents keep the ones they made, see ``known`` below)."""

    place: str
    emoji: str
    predicate: str
    object: str
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
    given, and the event it makes there. An activity ``known`` from the same place, for the
    same block and among the same places lands where it landed before, with no model call: a
    resident's day repeats its steps, and nothing in the question changed but the clock.
    ``known`` keeps the latest ``PLACED_KEPT``."""
    purpose = "" if purpose in (None, activity) else purpose
    offered = hashlib.sha1("\n".join(places).encode()).hexdigest()[:12]
    key = f"{activity.lower()} @ {here} / {purpose.lower()} / {offered}"
    if known is not None and key in known:
        return known[key]
    answer = agent.ask(
        ACT,
        now=now,
        here=here,
        activity=activity,
        purpose=purpose,
        minutes=minutes,
        places=places,
        notes=notes,
        emoji=NAMES,
    )
    parts = split_address(answer.place)
    used = len(parts) == 3  # an object, not a whole room
    # The event's triple is the world's own ("is", activity): the model's verb and object
    # cost a third of the event's tokens, and nothing read them but the triple.
    state = answer.object_state if used else ""
    placed = Placed(answer.place, emoji(answer.emoji), "is", activity, state)
    if known is not None:
        known[key] = placed
        for stale in list(known)[: max(0, len(known) - PLACED_KEPT)]:
            del known[stale]
    return placed
