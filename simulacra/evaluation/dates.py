"""Days named in a resident's words: a holiday ("Valentine's Day") or a date ("February 14th")
in a day plan or an activity, against the game date it is meant for. Spending Valentine's Day
with Klaus on February 13 is an event of another day; preparing for it is not."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta

from simulacra.evaluation.checks import contains_words, plain
from simulacra.evaluation.vocabulary import vocabulary
from simulacra.gametime import holidays_named, hours_named, parts

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


@dataclass
class DatedEvents:
    """The events a run's residents write down with one day, by their noun ("party" on Feb 14),
    and the hour each begins where the words that date it name one (17:00)."""

    days: dict[str, set[date]] = field(default_factory=dict)
    starts: dict[tuple[str, date], time] = field(default_factory=dict)


def dated_events(texts: Iterable[str], year: int) -> DatedEvents:
    """The events ``texts`` write down with one day: "party" on Feb 14 from 17:00, from "a
    Valentine's Day party at Hobbs Cafe on February 14th from 5pm to 7pm". Each sentence or
    clause apart: "plan for Monday February 13: ...; 19:00 preparing for the party" does not
    date the party."""
    nouns = vocabulary().calendar.events
    found = DatedEvents()
    for text in parts(list(texts)):
        days = {day for _, day in days_named(text, year)}
        if len(days) != 1:  # "from Feb 13 to Feb 14": no one day to hold it to
            continue
        hours = hours_named(text)
        for noun in nouns:
            if contains_words(text, f"{noun}|{noun}s"):
                found.days.setdefault(noun, set()).update(days)
                if hours:
                    found.starts.setdefault((noun, *days), time.fromisoformat(hours[0]))
    return found


# How long before its hour an event's own words are in force already: the host greeting the
# first guests, or "getting the party started", a little early.
_EARLY = timedelta(minutes=30)


def other_day(text: str, when: date | datetime, events: DatedEvents | None = None) -> str | None:
    """Why ``text``, in force on the day (or at the moment) ``when``, is an event of another
    day, or of its own day well before its hour; None when it is not. ``events``: the run's
    dated events (dated_events), for a text that names one but no day."""
    at = when if isinstance(when, datetime) else None
    today = when.date() if isinstance(when, datetime) else when
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
    events = events or DatedEvents()
    for noun, days in events.days.items():
        if not contains_words(t, f"{noun}|{noun}s"):
            continue
        # Working for it, or after it is over: "buying flowers for the party" the day before,
        # "cleaning up after the party" the day after.
        if re.search(rf"\bfor (?:[\w']+ ){{0,4}}{re.escape(noun)}", t):
            continue
        if today in days:
            # Its own day, before its hour: the host "cleaning up after the party" at 09:35 on
            # the party's day (party seed 2u).
            start = events.starts.get((noun, today))
            if at is None or start is None or at + _EARLY >= datetime.combine(today, start):
                continue
            return f"the {noun} is at {start:%H:%M}, not {at:%H:%M}"
        if today > max(days) and re.search(rf"\bafter (?:[\w']+ ){{0,4}}{re.escape(noun)}", t):
            continue
        day = min(days, key=lambda d: abs(d - today))
        return f"the {noun} is on {day:%b %d}, not {today:%b %d}"
    return None
