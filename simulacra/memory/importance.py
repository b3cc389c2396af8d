"""Importance ("poignancy", paper §4.1): how much a memory matters, rated 1-10 at creation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from simulacra.llm.interface import LanguageModel
from simulacra.llm.templates import template_beside
from simulacra.memory.record import Kind, NewMemory

IMPORTANCE = template_beside(__file__, "importance")

# Reverie gives "is idle" events importance 1 without asking the model; so do we.
TRIVIAL = 1


def is_trivial(memory: NewMemory) -> bool:
    text = memory.description.strip().lower().rstrip(".")
    return text.endswith(" is idle") or memory.object == "idle"


def rate(
    model: LanguageModel,
    memories: Sequence[NewMemory],
    *,
    name: str,
    identity: str,
    known: dict[str, int] | None = None,
) -> list[NewMemory]:
    """Fill in every missing importance: trivial events get 1, descriptions rated before (in
    ``known``) keep their rating, the rest share one model call and join ``known``."""
    known = {} if known is None else known
    rated = [
        m
        if m.importance is not None
        else replace(m, importance=TRIVIAL)
        if is_trivial(m)
        else replace(m, importance=known[m.description])
        if m.description in known
        else m
        for m in memories
    ]
    todo = [i for i, m in enumerate(rated) if m.importance is None]
    if todo:
        answer = IMPORTANCE.ask(
            model,
            identity=identity,
            agent=name,
            name=name,
            memories=[rated[i].description for i in todo],
        )
        for i, rating in zip(todo, (r.level for r in answer.ratings), strict=True):
            rated[i] = replace(rated[i], importance=rating)
            if rated[i].kind is Kind.OBSERVATION:
                known[rated[i].description] = rating
    return rated
