"""Importance ("poignancy", paper §4.1): how much a memory matters, rated 1-10 at creation."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import Field, create_model

from simulacra.llm.interface import LanguageModel
from simulacra.llm.schema import Answer, one_of
from simulacra.llm.templates import template_beside

IMPORTANCE = template_beside(__file__, "importance")

Rating = one_of(range(1, 11))


def ratings_for(memories: Sequence[str], **_: object) -> type[Answer]:
    """Exactly one 1-10 rating per memory, so a batch is scored in one call."""
    n = len(memories)
    return create_model(
        "Ratings",
        __base__=Answer,
        ratings=(list[Rating], Field(min_length=n, max_length=n)),
    )


def rate(model: LanguageModel, memories: Sequence[str], *, name: str, identity: str) -> list[int]:
    """One model call for the whole batch."""
    if not memories:
        return []
    answer = IMPORTANCE.ask(model, identity=identity, agent=name, name=name, memories=memories)
    return list(answer.ratings)
