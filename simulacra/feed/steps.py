"""The five steps of a feed agent (the AI-DOL design): observe, react, action, insight,
summarise. Each is one template with a grammar-bound answer; this module holds the answer
schemas and the calls, and knows nothing of storage or scheduling."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any

from pydantic import Field, computed_field, create_model

from simulacra.agent import GenerativeAgent
from simulacra.llm.repairs import reject, rule
from simulacra.llm.schema import Answer, json_schema, one_of
from simulacra.llm.templates import PromptTemplate, template_beside
from simulacra.memory.record import MemoryRecord

OBSERVE = template_beside(__file__, "feed_observe")
REACT = template_beside(__file__, "feed_react")
ACTION = template_beside(__file__, "feed_action")
INSIGHT = template_beside(__file__, "feed_insight")
SUMMARISE = template_beside(__file__, "feed_summarise")


class Choice(str, Enum):
    REACT = "react"
    IGNORE = "ignore"


# Text that starts like a sentence: a small model that copies the "<...>" placeholder of the
# shape sentence, or starts with blanks, cannot. The pattern bounds the length (the grammar
# follows the pattern, not maxLength).
_PROSE = r'^[^< "\\\x00-\x1f\x7f][^"\\\x00-\x1f\x7f]{%d,%d}$'


def prose(max_length: int, description: str, min_length: int = 8):
    return Annotated[
        str,
        Field(
            min_length=min_length,
            max_length=max_length,
            pattern=_PROSE % (min_length - 1, max_length - 1),
            description=description,
        ),
    ]


class RecentMind(Answer):
    summary: prose(300, "two or three sentences about what is on their mind")


class Reply(Answer):
    reply: prose(280, "the reply, one to three short sentences", min_length=2)


class Insights(Answer):
    facts: list[prose(200, "a neutral statement of an event")] = Field(min_length=1, max_length=2)


class Folded(Answer):
    statements: list[prose(240, "a short statement")] = Field(min_length=1, max_length=2)


NONE_OF_THEM = "none of them"


class _Reacted(Answer):
    @computed_field  # in the parsed answer (and the eval's checks), never in the grammar
    @property
    def on_interests(self) -> bool:
        return self.interest != NONE_OF_THEM

    @computed_field
    @property
    def decision(self) -> Choice:
        """What the agent does: off its interests it ignores, whatever it decided."""
        return self.reaction if self.on_interests else Choice.IGNORE


def reaction_for(
    options: Sequence[int], interests: Sequence[str] = (), **_: object
) -> type[Answer]:
    """What the message is about and which interest that is first (the design's lesson: split
    a decision into plain questions; a small model asked "is it one of them?" says yes), then a
    thought, then the decision, then the target: one of the ids of the thread chain, so a reply
    can only go to a message in it.
    """
    return create_model(
        "Reaction",
        __base__=_Reacted,
        topic=(prose(80, "what the newest message is about", min_length=3), ...),
        interest=(one_of([*interests, NONE_OF_THEM]), Field(description="the interest")),
        thought=(prose(200, "one or two sentences of reasoning"), ...),
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
    interests: Sequence[str],
    recent: str,
):
    newest = chain[-1]
    return agent.ask(
        REACT,
        interests=list(interests),
        none=NONE_OF_THEM,
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


COPIED_FACT = rule("feed.copied_fact", "a fact copied from the template's own text (dropped)")


def insight(agent: GenerativeAgent, chain: Sequence[Said]) -> list[str]:
    """Facts for long-term memory. A small model sometimes copies the template's made-up
    example or a field description instead of writing a fact; such a copy is no fact and
    would later answer award questions, so it is dropped."""
    return _facts(agent.ask(INSIGHT, after=_facts, chain=[vars(m) for m in chain]))


def _facts(answer: Any) -> list[str]:
    kept = []
    for fact in dict.fromkeys(answer.facts):
        if copied_from(INSIGHT, fact):
            reject(COPIED_FACT, fact)
        else:
            kept.append(fact)
    return kept


def copied_from(template: PromptTemplate, answer: str) -> bool:
    """Whether ``answer`` begins with words of the template's own text or its schema."""
    head = " ".join(answer.lower().split())[:32]
    own = " ".join((template.user + " " + str(json_schema(template.schema()))).lower().split())
    return len(head) >= 16 and head in own


def summarise(agent: GenerativeAgent, memories: Sequence[MemoryRecord]) -> list[str]:
    return list(agent.ask(SUMMARISE, memories=[m.description for m in memories]).statements)
