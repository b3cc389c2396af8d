"""The agent summary description (paper appendix A), cached and refreshed on game time.

Three retrievals — core characteristics, daily occupation, feeling about recent progress —
summarised in one call. It is part of the agent's identity, the stable prefix of its prompts.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from simulacra.llm.interface import LanguageModel
from simulacra.llm.phrases import phrases_beside
from simulacra.llm.templates import template_beside
from simulacra.memory import Kind
from simulacra.memory.stream import MemoryStream
from simulacra.persona import Persona

SUMMARY = template_beside(__file__, "summary")
PHRASES = phrases_beside(__file__, "summary")
_NOT_PLANS = tuple(kind for kind in Kind if kind is not Kind.PLAN)


# The summary's fields are in summary.prompt.toml; one class, as the agent's state keeps it.
Summary = SUMMARY.answer_model()


def identity(persona: Persona, summary: Summary | None, currently: str = "") -> str:
    """Who the agent is, in a few lines: the head of every one of its prompts."""
    return PHRASES.raw(
        "identity",
        name=persona.name,
        age=persona.age,
        innate=persona.innate,
        summary=summary,
        currently=currently or persona.currently,
    )


def stale(refreshed_at: datetime | None, now: datetime, refresh_hours: float) -> bool:
    return refreshed_at is None or now - refreshed_at >= timedelta(hours=refresh_hours)


def summarise(
    model: LanguageModel, stream: MemoryStream, persona: Persona, *, now: datetime, k: int
) -> Summary:
    name = persona.name
    character, occupation, progress = stream.retrieve_many(
        PHRASES.texts("queries", name=name),
        now,
        k,
        touch=False,  # a cached self-description is upkeep, not an act of remembering
        # Not today's plan: retrieved for "daily occupation" it made the identity of every
        # prompt "Occupation: Maria Lopez's plan for Monday…", and a morning's steps followed
        # the plan's afternoon ("studying with Klaus Mueller at Hobbs Cafe") over their block.
        kinds=_NOT_PLANS,
    )
    return SUMMARY.ask(
        model,
        identity=identity(persona, None),
        agent=name,
        name=name,
        character=[h.record.description for h in character],
        occupation=[h.record.description for h in occupation],
        progress=[h.record.description for h in progress],
    )
