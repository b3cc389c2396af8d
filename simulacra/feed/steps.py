"""The five steps of a feed agent (the AI-DOL design): observe, react, action, insight,
summarise. Each is one template with a grammar-bound answer; this module holds the answer
schemas and the calls, and knows nothing of storage or scheduling."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Annotated

from pydantic import Field, create_model

from simulacra.agent import GenerativeAgent
from simulacra.llm.schema import Answer, one_of, text
from simulacra.llm.templates import template_beside
from simulacra.memory.record import MemoryRecord

OBSERVE = template_beside(__file__, "feed_observe")
REACT = template_beside(__file__, "feed_react")
ACTION = template_beside(__file__, "feed_action")
INSIGHT = template_beside(__file__, "feed_insight")
SUMMARISE = template_beside(__file__, "feed_summarise")


class Choice(str, Enum):
    REACT = "react"
    IGNORE = "ignore"


class RecentMind(Answer):
    summary: text(400, "two or three sentences about what is on their mind")


class Reply(Answer):
    reply: text(280, "the reply, one to three short sentences")


Fact = Annotated[str, Field(min_length=8, max_length=200, description="a neutral event statement")]


class Insights(Answer):
    facts: list[Fact] = Field(min_length=1, max_length=3)


Statement = Annotated[str, Field(min_length=8, max_length=240, description="a short statement")]


class Folded(Answer):
    statements: list[Statement] = Field(min_length=1, max_length=2)


def reaction_for(options: Sequence[int], **_: object) -> type[Answer]:
    """Thought first (it helps a small model decide), then the decision, then the target: one
    of the ids of the thread chain, so a reply can only go to a message in the chain."""
    return create_model(
        "Reaction",
        __base__=Answer,
        thought=(text(300, "one or two sentences of reasoning"), ...),
        reaction=(Choice, ...),
        target=(one_of(list(options)), ...),
    )


@dataclass(frozen=True)
class Said:
    """A message as the prompts show it."""

    id: int
    author: str
    text: str


def observe(agent: GenerativeAgent, recent: Sequence[MemoryRecord]) -> str:
    return agent.ask(OBSERVE, memories=[r.description for r in recent]).summary


def react(
    agent: GenerativeAgent,
    *,
    chain: Sequence[Said],
    options: Sequence[int],
    interests: str,
    recent: str,
):
    newest = chain[-1]
    return agent.ask(
        REACT,
        interests=interests,
        recent=recent,
        chain=[vars(m) for m in chain],
        newest=newest.id,
        newest_author=newest.author,
        root=chain[0].id,
        options=list(options),
    )


def action(
    agent: GenerativeAgent,
    *,
    chain: Sequence[Said],
    target: Said,
    thought: str,
    memories: Sequence[MemoryRecord],
) -> str:
    return agent.ask(
        ACTION,
        target=target.id,
        target_author=target.author,
        chain=[vars(m) for m in chain],
        thought=thought,
        memories=[m.description for m in memories],
    ).reply


def insight(agent: GenerativeAgent, chain: Sequence[Said]) -> list[str]:
    return list(agent.ask(INSIGHT, chain=[vars(m) for m in chain]).facts)


def summarise(agent: GenerativeAgent, memories: Sequence[MemoryRecord]) -> list[str]:
    return list(agent.ask(SUMMARISE, memories=[m.description for m in memories]).statements)
