"""Days named in a resident's words: a holiday ("Valentine's Day") or a date ("February 14th")
in a day plan or an activity, against the game date it is meant for. Spending Valentine's Day
with Klaus on February 13 is an event of another day; preparing for it is not."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from datetime import date

from simulacra.evaluation.checks import contains_words, plain
from simulacra.evaluation.vocabulary import vocabulary
from simulacra.gametime import holidays_named, parts

_MONTHS = {
    "jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
    "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}  # fmt: skip
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_MONTH_DAY = re.compile(rf"\b{_MONTH}\s+{_DAY}\b")
_DAY_MONTH = re.compile(rf"\b{_DAY}\s+(?:of\s+)?{_MONTH}\b")


def days_named(text: str, year: int) -> list[tuple[str, date]]:
    """The holidays and dates ``text`` names, each with its day in ``year``."""
    t = plain(text)
    found = [(h.name, h.on(year)) for h in holidays_named(t)]
    for match in _MONTH_DAY.finditer(t):
        found += _date(match.group(0), match.group(1), match.group(2), year)
    for match in _DAY_MONTH.finditer(t):
        found += _date(match.group(0), match.group(2), match.group(1), year)
    return found


def _date(said: str, month: str, day: str, year: int) -> list[tuple[str, date]]:
    try:
        return [(said, date(year, _MONTHS[month[:3]], int(day)))]
    except ValueError:  # "February 31": not a day
        return []


def speaks_of_another_day(text: str) -> bool:
    """ "preparing for Valentine's Day", "the party tomorrow": the day is elsewhere in time."""
    t = plain(text)
    return any(re.search(r"\b" + re.escape(stem), t) for stem in vocabulary().calendar.elsewhere)


def dated_events(texts: Iterable[str], year: int) -> dict[str, set[date]]:
    """The events ``texts`` write down with one day, by their noun: "party" on Feb 14 from "a
    Valentine's Day party at Hobbs Cafe on February 14th from 5pm to 7pm". Each sentence or
    clause apart: "plan for Monday February 13: ...; 19:00 preparing for the party" does not
    date the party."""
    nouns = vocabulary().calendar.events
    found: dict[str, set[date]] = {}
    for text in parts(list(texts)):
        days = {day for _, day in days_named(text, year)}
        if len(days) != 1:  # "from Feb 13 to Feb 14": no one day to hold it to
            continue
        for noun in nouns:
            if contains_words(text, f"{noun}|{noun}s"):
                found.setdefault(noun, set()).update(days)
    return found


def other_day(text: str, today: date, events: Mapping[str, set[date]] | None = None) -> str | None:
    """Why ``text``, in force on ``today``, is an event of another day; None when it is not.
    ``events``: the run's dated events (dated_events), for a text that names one but no day."""
    if speaks_of_another_day(text):
        return None
    named = days_named(text, today.year)
    others = [(said, day) for said, day in named if day != today]
    if others:
        said, day = others[0]
        return f"names {said} ({day:%b %d}) on {today:%b %d}"
    if named:  # today's own
        return None
    t = plain(text)
    for noun, days in (events or {}).items():
        if today in days or not contains_words(t, f"{noun}|{noun}s"):
            continue
        # Working for it, or after it is over: "buying flowers for the party" the day before,
        # "cleaning up after the party" the day after.
        if re.search(rf"\bfor (?:[\w']+ ){{0,4}}{re.escape(noun)}", t):
            continue
        if today > max(days) and re.search(rf"\bafter (?:[\w']+ ){{0,4}}{re.escape(noun)}", t):
            continue
        day = min(days, key=lambda d: abs(d - today))
        return f"the {noun} is on {day:%b %d}, not {today:%b %d}"
    return None
