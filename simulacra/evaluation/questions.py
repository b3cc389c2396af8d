"""Writing each agent's interview (paper §6.1) from the world files and the run: five
categories, five questions each, with the ground truth the factual checks need."""

from __future__ import annotations

import sys
import zlib
from collections.abc import Sequence
from enum import Enum
from functools import cache
from pathlib import Path

import jinja2
from pydantic import BaseModel, ConfigDict

from simulacra.evaluation.checks import Check, CheckKind, People, known_people
from simulacra.evaluation.facts import Fact
from simulacra.evaluation.runview import RunView
from simulacra.world.tree import split_address

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

QUESTIONS_FILE = Path(__file__).with_name("questions.toml")
PER_CATEGORY = 5

_env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False)


class Category(str, Enum):
    SELF_KNOWLEDGE = "self-knowledge"
    MEMORY = "memory"
    PLANS = "plans"
    REACTIONS = "reactions"
    REFLECTIONS = "reflections"


class Question(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str  # "memory-3": category and position, stable across runs of the evaluation
    category: Category
    text: str
    check: Check = Check()


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    category: Category
    text: str
    needs: tuple[str, ...] = ()
    check: CheckKind = CheckKind.NONE
    expect: tuple[str, ...] = ()
    fact: str | None = None


@cache
def _bank() -> tuple[list[_Entry], dict[str, str]]:
    data = tomllib.loads(QUESTIONS_FILE.read_text(encoding="utf-8"))
    return [_Entry.model_validate(q) for q in data["question"]], dict(data["town"])


def town_question(kind: str, **variables: str) -> str:
    """The town evaluation's questions: ``fact`` (topic=...) and ``knows`` (person=...)."""
    return _env.from_string(_bank()[1][kind]).render(**variables)


def sector(address: str | None) -> str | None:
    return split_address(address)[0] if address else None


def agent_variables(
    run: RunView, name: str, remembered: Sequence[str], people: People
) -> dict[str, object]:
    """What an agent's questions are written from. ``remembered``: every memory of the
    agent (descriptions), which decides whom it knows."""
    persona = run.persona(name)
    partners = run.partners(name)
    seed_people = [p for p in people.names if p in people.named_in(persona.learned) and p != name]
    known = known_people(people, [persona.learned, persona.currently, *remembered], name)
    acquaintances = sorted(known - {name})
    variables: dict[str, object] = {
        "name": name,
        "first": persona.first_name,
        "partners": partners,
        "acquaintances": acquaintances,
    }
    if persona.workplace:
        variables["workplace"] = sector(persona.workplace)
    variables["home"] = sector(persona.home)
    if partners:
        variables["partner"] = partners[0]
        chat = run.last_chat(name, partners[0])
        place = sector(chat.places.get(name)) if chat else None
        if place:
            variables["partner_place"] = place
    friends = (
        [p for p in seed_people if p != variables.get("partner")]
        or seed_people
        or partners
        or acquaintances
    )
    if friends:
        variables["friend"] = friends[0]
    strangers = [p for p in people.names if p not in known]
    if strangers:
        # A fixed choice per agent, so every run of the evaluation asks the same.
        variables["stranger"] = strangers[zlib.crc32(name.encode()) % len(strangers)]
    return variables


def write_interview(
    name: str,
    variables: dict[str, object],
    facts: Sequence[Fact],
    holds: dict[str, bool],
    per_category: int = PER_CATEGORY,
) -> list[Question]:
    """Five questions per category (the paper's) for one agent, or ``per_category``.
    ``holds``: fact name -> whether the agent's memory holds it."""
    by_name = {f.name: f for f in facts}
    questions: list[Question] = []
    for category in Category:
        count = 0
        for entry in (e for e in _bank()[0] if e.category is category):
            if count == per_category:
                break
            if any(n not in variables for n in entry.needs):
                continue
            if entry.fact is not None and entry.fact not in by_name:
                continue
            text = _env.from_string(entry.text).render(**variables)
            if entry.fact is not None:
                fact = by_name[entry.fact]
                check = (
                    Check(kind=CheckKind.NAMES, expected=fact.names)
                    if holds.get(fact.name)
                    else Check(kind=CheckKind.UNKNOWN)
                )
            elif entry.check is CheckKind.NAMES:
                expected: list[str] = []
                for var in entry.expect:
                    value = variables.get(var)
                    expected += value if isinstance(value, list) else [str(value)]
                check = Check(kind=CheckKind.NAMES, expected=tuple(expected))
                if not expected:
                    check = Check()
            else:
                check = Check(kind=entry.check)
            questions.append(
                Question(
                    id=f"{category.value}-{count + 1}", category=category, text=text, check=check
                )
            )
            count += 1
    return questions
