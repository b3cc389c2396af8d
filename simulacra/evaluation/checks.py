"""Factual checks of an answer against the run's own records, without a person or a model.

Two questions are asked of every answer (paper §7.1):

- does it name the person, place or event that the agent's memory holds (where the question
  has such an answer)?
- does it claim knowledge the agent cannot have — a person it never met or heard of, or an
  answer to a question about something it never observed? That is a hallucination.

Names are matched as whole words: a resident by full name or by a first name no other
resident of the world shares; places and event words case-insensitively.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from enum import Enum
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


class CheckKind(str, Enum):
    NONE = "none"  # no ground truth: only scanned for people the agent never met
    NAMES = "names"  # correct when the answer names one of the expected people/places/words
    UNKNOWN = "unknown"  # about something never observed: correct only when it says so


class Check(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: CheckKind = CheckKind.NONE
    expected: tuple[str, ...] = ()  # names, places or words, any one of which will do


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    correct: bool | None  # None: nothing to check against
    hallucinated: bool
    unknown_people: tuple[str, ...] = ()  # people named whom the agent never met or heard of
    claims_unknown: bool = False  # answered a question about something never observed


@cache
def denials() -> tuple[str, ...]:
    path = Path(__file__).with_name("checks.toml")
    return tuple(tomllib.loads(path.read_text(encoding="utf-8"))["denials"])


def plain(text: str) -> str:
    """Lowercase, straight apostrophes, single spaces."""
    return " ".join(text.replace("\u2019", "'").replace("\u2018", "'").lower().split())


def denies(text: str) -> bool:
    """The answer says it does not know."""
    t = plain(text)
    return any(phrase in t for phrase in denials())


def contains_words(text: str, phrase: str) -> bool:
    """``phrase`` occurs in ``text`` as whole words, ignoring case; "a|b" means either."""
    t = plain(text)
    return any(
        re.search(r"(?<![\w])" + re.escape(plain(alt)) + r"(?![\w])", t)
        for alt in phrase.split("|")
        if alt.strip()
    )


class People:
    """The residents of a world as names to look for in text."""

    def __init__(self, names: Iterable[str]) -> None:
        self.names = list(dict.fromkeys(names))
        firsts: dict[str, list[str]] = {}
        for name in self.names:
            firsts.setdefault(name.split()[0], []).append(name)
        self._first = {f: ns[0] for f, ns in firsts.items() if len(ns) == 1}

    def named_in(self, text: str) -> set[str]:
        """Residents ``text`` names; a first name counts when no one else bears it. Case
        matters here: "Will" the name is not "will" the verb."""
        found = set()
        text = text.replace("\u2019", "'")
        for name in self.names:
            first = name.split()[0]
            patterns = [name] + ([first] if self._first.get(first) == name else [])
            if any(re.search(r"(?<![\w])" + re.escape(p) + r"(?![\w])", text) for p in patterns):
                found.add(name)
        return found


def known_people(people: People, texts: Iterable[str], me: str) -> set[str]:
    """Everyone named in what an agent was told or remembers, and the agent itself."""
    known = {me}
    for text in texts:
        known |= people.named_in(text)
    return known


def mentions(text: str, expected: str, people: People) -> bool:
    if expected in people.names:
        return expected in people.named_in(text)
    return contains_words(text, expected)


def judge_answer(
    answer: str, *, question: str, check: Check, people: People, known: set[str]
) -> Verdict:
    """Score one answer. ``known``: the people in the agent's persona and memories."""
    strangers = tuple(sorted(people.named_in(answer) - known - people.named_in(question)))
    claims_unknown = check.kind is CheckKind.UNKNOWN and not denies(answer)
    if check.kind is CheckKind.NAMES:
        correct: bool | None = any(mentions(answer, e, people) for e in check.expected)
    elif check.kind is CheckKind.UNKNOWN:
        correct = not claims_unknown
    else:
        correct = None
    return Verdict(
        correct=correct,
        hallucinated=bool(strangers) or claims_unknown,
        unknown_people=strangers,
        claims_unknown=claims_unknown,
    )
