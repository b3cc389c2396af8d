"""Repairs: the named rules that rewrite a model's answer after it parsed, and their record.

A grammar keeps an answer's shape; what small models still get wrong inside it (a subject
before an activity, the other speaker's name before a line, a day plan's "none") some rule
rewrites. Each rule is declared here by name, and each time it changes a value inside a model
call the call's entry in ``calls.jsonl`` gets ``{"rule", "raw", "repaired"}`` (``repaired`` is
null where the value was dropped or the answer refused, to be asked again), so a run shows
what every rule did, and how often (``simulacra stats``).

The record is kept by :class:`~simulacra.llm.structured.StructuredModel` while it parses an
answer. A rule applied outside a call is not recorded: the callers that rewrite an answer
after the call run the same rules once inside it too (see :func:`after_parse`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, create_model, model_validator

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Rule:
    name: str
    what: str  # what it rewrites, in a few words (docs/repairs.md says why)


RULES: dict[str, Rule] = {}


def rule(name: str, what: str) -> Rule:
    """Declare a rule; a name is declared once, so hit counts cannot mix two rules."""
    if name in RULES:
        raise ValueError(f"repair rule {name!r} is declared twice")
    RULES[name] = Rule(name, what)
    return RULES[name]


# The repairs of the answer being parsed in this context: a list while a call parses one.
_FOUND: ContextVar[list[dict[str, Any]] | None] = ContextVar("repairs", default=None)


@contextmanager
def recording() -> Iterator[list[dict[str, Any]]]:
    """Collect the repairs made until the block ends (one model call's parse)."""
    found: list[dict[str, Any]] = []
    token = _FOUND.set(found)
    try:
        yield found
    finally:
        _FOUND.reset(token)


def _note(rule: Rule, raw: Any, repaired: Any) -> None:
    found = _FOUND.get()
    if found is not None:
        found.append({"rule": rule.name, "raw": raw, "repaired": repaired})


def repair(rule: Rule, value: T, fn: Callable[[T], T]) -> T:
    """``fn(value)``, recorded under ``rule`` when it differs from ``value``."""
    repaired = fn(value)
    if repaired != value:
        _note(rule, value, repaired)
    return repaired


def reject(rule: Rule, value: Any) -> None:
    """Record that ``rule`` dropped ``value`` (an item of a list, or the whole answer)."""
    _note(rule, value, None)


def after_parse(schema: type[M], stage: Callable[[M], object]) -> type[M]:
    """``schema``, whose answers also go through ``stage`` as they are parsed.

    ``stage`` is what the caller will do with the answer once it has it (drop items, judge
    whether to ask again); run once inside the call, what its rules change is recorded with
    the call's entry. Its result is not kept: the caller applies it again, unrecorded. The
    grammar is unchanged (same fields, same title).
    """

    def staged(answer: M) -> M:
        stage(answer)
        return answer

    return create_model(  # type: ignore[call-overload]
        schema.__name__,
        __base__=schema,
        __doc__=schema.__doc__,
        __validators__={"_after_parse": model_validator(mode="after")(staged)},
    )


def hits(entries: Iterable[dict[str, Any]]) -> Counter[str]:
    """Repairs per rule over call-log entries (entries written before repairs were logged
    have none)."""
    counts: Counter[str] = Counter()
    for entry in entries:
        counts.update(r["rule"] for r in entry.get("repairs", ()))
    return counts
