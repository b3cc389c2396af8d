"""The five steps of a feed agent (the AI-DOL design): observe, react, action, insight,
summarise. Each is one template with a grammar-bound answer; this module holds the calls
and what the answers decide, and knows nothing of storage or scheduling."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

from pydantic import computed_field

from simulacra.agent import GenerativeAgent
from simulacra.llm.repairs import reject, rule
from simulacra.llm.schema import Answer, json_schema
from simulacra.llm.templates import PromptTemplate, template_beside
from simulacra.memory.record import MemoryRecord

OBSERVE = template_beside(__file__, "feed_observe")
REACT = template_beside(__file__, "feed_react")
ACTION = template_beside(__file__, "feed_action")
INSIGHT = template_beside(__file__, "feed_insight")
SUMMARISE = template_beside(__file__, "feed_summarise")


# The words the code tells apart, as the template shows them to the model.
NONE_OF_THEM = REACT.words["none_of_them"]
REACTING = REACT.words["react"]
IGNORING = REACT.words["ignore"]


class _Reacted(Answer):
    """The fields of feed_react.prompt.toml, with the decision made from them."""

    @computed_field  # in the parsed answer (and the eval's checks), never in the grammar
    @property
    def on_interests(self) -> bool:
        return self.interest != NONE_OF_THEM

    @computed_field
    @property
    def decision(self) -> Enum:
        """What the agent does: off its interests it ignores, whatever it decided."""
        return self.reaction if self.on_interests else type(self.reaction)(IGNORING)


def reaction_for(**variables: Any) -> type[Answer]:
    return REACT.answer_model(variables, base=_Reacted)


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
