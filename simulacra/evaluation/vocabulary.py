"""The day judge's vocabulary, day.toml, as typed tables (read once, checked on reading)."""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from simulacra.errors import UserError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

VOCABULARY_FILE = Path(__file__).with_name("day.toml")


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _patterns(values: list[str]) -> list[str]:
    for value in values:
        try:
            re.compile(value)
        except re.error as e:  # a bad pattern is an error on reading, naming the field
            raise ValueError(f"{value!r} is not a regular expression: {e}") from None
    return values


class PromptWords(_Table):
    marks: list[str]

    _valid = field_validator("marks")(_patterns)


class DoingWords(_Table):
    starts: list[str]
    lasting: list[str]
    alone: list[str]
    dangling: list[str]
    after_plural: list[str]


class CompanyWords(_Table):
    before_name: list[str]
    alone: list[str]


class PlaceKind(_Table):
    activity: list[str] = Field(min_length=1)
    rooms: list[str] = Field(min_length=1)

    _valid = field_validator("activity")(_patterns)


class StateWords(_Table):
    things: list[str]
    fine: list[str]
    acts: list[str]


class LineWords(_Table):
    assistant: list[str]
    after_name: list[str]
    before_name: list[str]
    introductions: list[str]
    echo_words: int = Field(ge=1)
    echo_share: float = Field(gt=0, le=1)
    asked_back: list[str]

    _valid = field_validator("assistant", "asked_back")(_patterns)


class CalendarWords(_Table):
    elsewhere: list[str]
    events: list[str]


class Vocabulary(_Table):
    prompt: PromptWords
    doing: DoingWords
    company: CompanyWords
    places: dict[str, PlaceKind]
    state: StateWords
    line: LineWords
    calendar: CalendarWords


@cache
def vocabulary() -> Vocabulary:
    try:
        data = tomllib.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))
        return Vocabulary.model_validate(data)
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"not valid TOML: {e}", file=VOCABULARY_FILE) from None
    except ValidationError as e:
        err = e.errors()[0]
        raise UserError(
            err["msg"],
            file=VOCABULARY_FILE,
            field=".".join(str(p) for p in err["loc"]),
            fix="see the comments in the file",
        ) from None
