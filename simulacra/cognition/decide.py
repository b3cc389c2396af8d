"""Reacting in the world: on a new observation, carry on, talk to someone present, or react.

Context is the paper's two retrievals — the observer's relationship with the observed, and the
observed event — given to the model directly rather than summarised by another call first.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field, create_model

from simulacra.llm.schema import Answer, activity_phrase, one_of, text
from simulacra.llm.templates import template_beside

DECIDE = template_beside(__file__, "decide")

CARRY_ON = "carry on"
REACT = "react"
TALK = "talk to "
MINUTES = (5, 10, 15, 30, 60)


def options(people: Sequence[str]) -> list[str]:
    return [CARRY_ON, *(TALK + p for p in people), REACT]


def decision_for(options: list[str], **_: object) -> type[Answer]:
    return create_model(
        "Decision",
        __base__=Answer,
        # A thought before the choice: small models decide better after naming what they see.
        thought=(text(100, "what they make of it"), ...),
        choice=(one_of(options), Field(description="one of the options")),
        instead=(activity_phrase(60, "if reacting, what they do instead"), ...),
        minutes=(one_of(MINUTES), Field(description="for how many minutes, if reacting")),
    )
