"""Acting (paper §5.1): turn an activity into a place, an emoji, an event and an object state.

The original asked about eight questions per action (sector, arena, object, emoji, triple,
object state...). Here one grammar-constrained answer carries them all, and the place is an
enum of full addresses the agent knows, so it can never be invalid.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import Field, create_model

from simulacra.cognition.emoji import NAMES, emoji
from simulacra.interfaces import Mind
from simulacra.llm.schema import Answer, as_state, one_of, state_phrase, text
from simulacra.llm.templates import template_beside

ACT = template_beside(__file__, "act")


def action_for(places: list[str], activity: str = "it", **_: object) -> type[Answer]:
    return create_model(
        "Action",
        __base__=Answer,
        # Naming the kind of place first keeps small models from taking the first one listed.
        need=(text(60, f"the kind of place for {activity[:60]}"), ...),
        place=(one_of(places), Field(description="a place from the list")),
        object_state=(state_phrase(40, "state of the thing used"), ...),
        verb=(text(24, "verb"), ...),
        target=(text(40, "what or whom"), ...),
        emoji=(one_of(NAMES), Field(description="emoji word")),
    )


@dataclass(frozen=True)
class Placed:
    """An activity with everything the world needs to show and stage it."""

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
) -> Placed:
    answer = agent.ask(
        ACT,
        now=now,
        here=here,
        activity=activity,
        minutes=minutes,
        places=places,
        notes=notes,
    )
    return Placed(
        answer.place, emoji(answer.emoji), answer.verb, answer.target, as_state(answer.object_state)
    )
