"""Importance ("poignancy", paper §4.1): how much a memory matters, rated 1-10 at creation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pydantic import Field, create_model

from simulacra.llm.interface import LanguageModel
from simulacra.llm.schema import Answer, one_of
from simulacra.llm.templates import template_beside
from simulacra.memory.record import NewMemory

IMPORTANCE = template_beside(__file__, "importance")

Rating = one_of(range(1, 11))

# Reverie gives "is idle" events importance 1 without asking the model; so do we.
TRIVIAL = 1


def ratings_for(memories: Sequence[str], **_: object) -> type[Answer]:
    """Exactly one 1-10 rating per memory, so a batch is scored in one call."""
    n = len(memories)
    return create_model(
        "Ratings",
        __base__=Answer,
        ratings=(list[Rating], Field(min_length=n, max_length=n)),
    )


def is_trivial(memory: NewMemory) -> bool:
    text = memory.description.strip().lower().rstrip(".")
    return text.endswith(" is idle") or memory.object == "idle"


def rate(
    model: LanguageModel, memories: Sequence[NewMemory], *, name: str, identity: str
) -> list[NewMemory]:
    """Fill in every missing importance: trivial events get 1, the rest share one model call."""
    todo = [i for i, m in enumerate(memories) if m.importance is None and not is_trivial(m)]
    rated = list(memories)
    if todo:
        answer = IMPORTANCE.ask(
            model,
            identity=identity,
            agent=name,
            name=name,
            memories=[memories[i].description for i in todo],
        )
        for i, rating in zip(todo, answer.ratings, strict=True):
            rated[i] = replace(memories[i], importance=rating)
    return [m if m.importance is not None else replace(m, importance=TRIVIAL) for m in rated]
