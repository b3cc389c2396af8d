"""Facts whose spread through a town is measured (paper §7.1.1): the seeded ones of
``facts.toml`` and any given on the command line."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from simulacra.errors import UserError
from simulacra.evaluation.checks import contains_words

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FACTS_FILE = Path(__file__).with_name("facts.toml")


class PaperDiffusion(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    start: float
    end: float
    known_start: int
    known_end: int
    agents: int
    came: int | None = None  # coordination: how many of the invited came
    invited: int | None = None


class Fact(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=60)
    topic: str = Field(min_length=1, max_length=200)
    label: str = ""  # how tables name it; default: the topic
    keywords: tuple[str, ...] = Field(min_length=1)
    source: str | None = None  # the resident who knows it at the start
    statement: str = ""
    names: tuple[str, ...] = ()
    question: str | None = None
    place: str | None = None
    start: datetime | None = None
    end: datetime | None = None
    paper: PaperDiffusion | None = None

    @property
    def title(self) -> str:
        return self.label or self.topic

    def held_in(self, text: str) -> bool:
        """Whether one memory (or any text) holds the fact: every keyword is in it."""
        return all(contains_words(text, k) for k in self.keywords)

    def held_by(self, texts: Iterable[str]) -> bool:
        return any(self.held_in(t) for t in texts)


def seeded_facts(residents: Iterable[str]) -> list[Fact]:
    """The paper's facts whose source lives in this world."""
    names = set(residents)
    data = tomllib.loads(FACTS_FILE.read_text(encoding="utf-8"))
    try:
        facts = [Fact.model_validate(f) for f in data["fact"]]
    except ValidationError as e:
        err = e.errors()[0]
        raise UserError(err["msg"], file=FACTS_FILE, field=str(err["loc"])) from None
    return [f for f in facts if f.source is None or f.source in names]


def parse_fact(text: str) -> Fact:
    """``--fact "TOPIC=KEYWORD,KEYWORD"``: a topic to ask about, and the words that must all
    be in one memory for an agent to hold it, e.g. "Klaus's research paper=gentrification"."""
    topic, sep, words = text.partition("=")
    keywords = tuple(w.strip() for w in words.split(",") if w.strip())
    if not sep or not topic.strip() or not keywords:
        raise UserError(
            f"cannot read fact {text!r}",
            field="--fact",
            fix='write it as "TOPIC=KEYWORD,KEYWORD", e.g. "the new bakery=bakery"',
        )
    name = "-".join(topic.lower().split())[:60]
    return Fact(name=name, topic=topic.strip()[:200], keywords=keywords)
