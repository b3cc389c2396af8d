"""Reacting (paper §4.3.1): on noticing someone or something, carry on, talk to someone
present, or do something else about it. The one decision path of both the library's
``GenerativeAgent.react`` and the town.

Context is the paper's two retrievals — the observer's relationship with the observed, and the
observed event — given to the model directly rather than summarised by another call first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Any

from pydantic import computed_field

from simulacra import gametime
from simulacra.interfaces import Mind
from simulacra.llm.phrases import phrases_beside
from simulacra.llm.schema import Answer
from simulacra.llm.templates import template_beside

DECIDE = template_beside(__file__, "decide")
PHRASES = phrases_beside(__file__, "decide")
WORDS = DECIDE.words


class OptionKind(str, Enum):
    """The kinds of option; the schema's enum and the template's words are made from these."""

    CARRY_ON = "carry on"
    TALK = "talk to"  # an option per person present: "talk to Maria Lopez"
    REACT = "react"


class _Decided(Answer):
    """Plain questions, one per kind of option (the feed design's lesson: split a decision),
    and the choice made from their answers."""

    @computed_field  # in the parsed answer (and the eval's checks), never in the grammar
    @property
    def decision(self) -> str:
        if self.emergency == WORDS["yes"]:
            return OptionKind.REACT.value
        partner = getattr(self, "talk_to", WORDS["nobody"])
        if partner == WORDS["nobody"]:
            return OptionKind.CARRY_ON.value
        return f"{OptionKind.TALK.value} {partner}"


def decision_for(**variables: Any) -> type[Answer]:
    """The fields of decide.prompt.toml, with the decision made from them."""
    return DECIDE.answer_model(variables, base=_Decided)


@dataclass(frozen=True)
class Decision:
    """What the agent decided: carry on, talk to ``partner``, or do ``activity`` for
    ``minutes``."""

    choice: OptionKind
    partner: str | None = None
    activity: str | None = None
    minutes: int = 0


def decide(
    mind: Mind,
    *,
    now: datetime,
    place: str,
    status: str,
    observation: str,
    subject: str,
    people: Sequence[str] = (),
    k: int,
) -> Decision:
    """Decide about ``observation`` (whose subject is ``subject``); ``people`` are those the
    agent could talk to now."""
    queries = PHRASES.texts("queries", name=mind.name, subject=subject, observation=observation)
    memories: dict[int, str] = {}
    for hits in mind.retrieve(queries, now, k):
        for hit in hits:
            memories[hit.record.id] = hit.record.description
    answer = mind.ask(
        DECIDE,
        now=gametime.describe(now),
        place=place,
        status=status,
        observation=observation,
        memories=list(memories.values()),
        people=list(people),
    )
    talk = f"{OptionKind.TALK.value} "
    if answer.decision.startswith(talk):
        return Decision(OptionKind.TALK, partner=answer.decision[len(talk) :])
    if answer.decision == OptionKind.REACT.value:
        return Decision(OptionKind.REACT, activity=answer.instead, minutes=answer.minutes)
    return Decision(OptionKind.CARRY_ON)
