"""Game time: the simulated clock's datetimes, written the way prompts and users read them."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from functools import cache
from pathlib import Path

from simulacra.errors import UserError
from simulacra.textfile import parse_toml

HOLIDAYS_FILE = Path(__file__).with_name("holidays.toml")


def describe(t: datetime) -> str:
    """``Monday February 13, 2023, 07:30``."""
    return f"{t:%A %B} {t.day}, {t.year}, {t:%H:%M}"


def day(t: date) -> str:
    """``Monday February 13, 2023``."""
    return f"{t:%A %B} {t.day}, {t.year}"


_MONTHS = "January|February|March|April|May|June|July|August|September|October|November|December"
# An old mark is matched with its date and written anew: a day plan written from a marked
# prompt can copy "(tomorrow)", and what the new day makes of that plan comes back marked.
_MARK = r"(?:\s*\((?:today|tomorrow|yesterday|in \d+ days|\d+ days ago)\))?"
_DATED = re.compile(rf"\b(({_MONTHS})\s+(\d{{1,2}})(?:st|nd|rd|th)?\b){_MARK}")


def mark_dates(text: str, today: str) -> str:
    """ "the party on February 14th" -> "the party on February 14th (tomorrow)".

    ``today`` is written as :func:`day` or :func:`describe` writes it. Small models cannot
    tell whether a date in a persona is today's, and plan tomorrow's party for today; the
    clock can.
    """
    now = _parsed_day(today)
    if now is None:
        return text  # a day written another way: nothing to compare against

    def mark(m: re.Match) -> str:
        days = _days_from(now, m)
        if days is None:
            return m[0]  # "February 30th": not a date to compare
        when = {0: "today", 1: "tomorrow", -1: "yesterday"}.get(days)
        when = when or (f"in {days} days" if days > 0 else f"{-days} days ago")
        return f"{m[1]} ({when})"

    return _DATED.sub(mark, text)


def days_from_today(text: str, today: str, *, by_name: bool = False) -> set[int]:
    """The days from ``today`` (0 today, 1 tomorrow, -1 yesterday) of the dates ``text`` names,
    and ``by_name`` of the holidays it names ("Valentine's Day")."""
    now = _parsed_day(today)
    if now is None:
        return set()
    days = {d for m in _DATED.finditer(text) if (d := _days_from(now, m)) is not None}
    if by_name:
        days |= {(h.on(now.year) - now).days for h in holidays_named(text)}
    return days


@dataclass(frozen=True)
class Holiday:
    name: str
    month: int
    day: int
    pattern: re.Pattern[str]

    def on(self, year: int) -> date:
        return date(year, self.month, self.day)


@cache
def holidays() -> tuple[Holiday, ...]:
    """The holidays of holidays.toml, checked on reading."""
    found = []
    for n, table in enumerate(parse_toml(HOLIDAYS_FILE.read_text("utf-8")).get("holiday", [])):
        where = f"holiday[{n}]"
        try:
            month, day = (int(x) for x in str(table["date"]).split("-"))
            date(2000, month, day)  # a day of the year (2000 has February 29)
            found.append(Holiday(table["name"], month, day, re.compile(table["pattern"])))
        except (KeyError, ValueError, re.error) as e:
            raise UserError(
                f"not a holiday: {e}", file=HOLIDAYS_FILE, field=where,
                fix='write name = "...", date = "MM-DD", pattern = "a regular expression"',
            ) from None  # fmt: skip
    return tuple(found)


def holidays_named(text: str) -> list[Holiday]:
    plain = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    return [h for h in holidays() if h.pattern.search(plain)]


# The words that tell a day by where it stands from today.
_DAYS_AWAY = {"today": 0, "tonight": 0, "this evening": 0, "tomorrow": 1, "yesterday": -1}


def days_said(text: str, today: str) -> set[int]:
    """The days from ``today`` that ``text`` tells by where they stand from it: "tonight",
    "tomorrow", and "this weekend" (Saturday and Sunday of today's week; the host's party of
    Tuesday told on Monday as "our Valentine's Day party this weekend", party seed 1v)."""
    said = {d for w, d in _DAYS_AWAY.items() if re.search(rf"\b{w}\b", text, re.I)}
    now = _parsed_day(today)
    if now is not None and re.search(r"\bthis weekend\b", text, re.I):
        said |= {5 - now.weekday(), 6 - now.weekday()}
    return said


def _parsed_day(today: str) -> date | None:
    """The day :func:`day` wrote, or :func:`describe` with its hour."""
    try:
        return datetime.strptime(_CLOCK_AFTER.sub("", today), "%A %B %d, %Y").date()
    except ValueError:
        return None


_CLOCK_AFTER = re.compile(r", \d\d:\d\d$")


def _days_from(now: date, dated: re.Match) -> int | None:
    try:
        then = datetime.strptime(f"{dated[2]} {dated[3]} {now.year}", "%B %d %Y").date()
    except ValueError:
        return None
    return (then - now).days


def parts_of_today(texts: Sequence[str], today: str, *, written_today: bool = False) -> list[str]:
    """The sentences (or clauses between semicolons) of ``texts`` that name ``today``'s date:
    the day's events, found by the clock (asked to write them first, the 1.5B wrote "no events
    today" on its party's day). Texts ``written_today`` also name it as "today" or "tonight"
    where they name no other date."""

    def of_today(part: str) -> bool:
        days = days_from_today(part, today, by_name=True)
        return 0 in days or (written_today and not days and _SAID_TODAY.search(part) is not None)

    return [part for part in parts(texts) if of_today(part)]


_SAID_TODAY = re.compile(r"\b(?:today|tonight|this (?:morning|afternoon|evening))\b", re.I)


def parts_to_come(texts: Sequence[str], today: str) -> list[str]:
    """The sentences of ``texts`` that name a date (or a holiday) from ``today`` on."""
    return [
        part
        for part in parts(texts)
        if any(d >= 0 for d in days_from_today(part, today, by_name=True))
    ]


def parts(texts: Sequence[str]) -> list[str]:
    """The sentences of ``texts``, and the clauses between their semicolons."""
    return [
        part.strip()
        for text in texts
        for part in re.split(r"(?<=[.!?])\s+|;", text.strip())
        if part.strip()
    ]


_CLOCK = re.compile(r"\b(1[0-2]|0?[1-9])(?::([0-5]\d))?\s*([ap])\.?m\b\.?", re.IGNORECASE)


def hhmm(text: str) -> str:
    """ "from 9pm to midnight" -> "from 21:00 to midnight"; "8:30 am" -> "08:30".

    Plans are timed in HH:MM; a small model asked for the hour of "streams games from 9pm"
    writes 09:00.
    """

    def clock(m: re.Match) -> str:
        hour = int(m[1]) % 12 + (12 if m[3].lower() == "p" else 0)
        return f"{hour:02d}:{m[2] or '00'}"

    return _CLOCK.sub(clock, text)


def before_when(text: str) -> str:
    """The words of ``text`` before the first date, clock time or "today" it names, without
    the word that leads to it: "having a party at Hobbs Cafe on February 14th at 5pm" ->
    "having a party at Hobbs Cafe"."""
    text = hhmm(text)
    first = min((m.start() for m in (p.search(text) for p in _WHEN) if m), default=len(text))
    words = text[:first].rstrip(" ,;:").split()
    while words and words[-1].lower() in _LEADS_TO_WHEN:
        words.pop()
    return " ".join(words).rstrip(",;:")


# An "HH:MM" in hhmm's text.
HHMM = re.compile(r"\b(?:[01]\d|2[0-3]):[0-5]\d\b")


def hours_named(text: str) -> list[str]:
    """The "HH:MM" times ``text`` names ("from 5pm to 7pm": 17:00 and 19:00)."""
    return [m[0] for m in HHMM.finditer(hhmm(text))]


# Where "when" begins: a date, an "HH:MM" (after hhmm) or a word for a day.
_WHEN = (
    _DATED,
    HHMM,
    _SAID_TODAY,
    re.compile(r"\btomorrow\b", re.I),
)
_LEADS_TO_WHEN = {"on", "at", "from", "by", "until", "till", "around", "this", "for", "starting"}


def in_force(
    outline: Sequence[str], hours: Sequence[str], routine: int = 0, meals: Sequence[str] = ()
) -> list[tuple[str, str]]:
    """Each hour ("07:00") with the item of a timed outline ("06:30 having breakfast") in force
    during it: the last one begun by the hour's end. Hours with none are left out.

    With ``routine``, the first item is the morning routine and lasts only that many hours: in
    a run, a plan that went from it to the evening kept a student washing until 18:00. With
    ``meals`` (words such as "lunch"), an item that names one lasts only its own hour, and then
    the item it interrupted goes on: Klaus's "13:00 taking a break to eat lunch at a nearby
    café" before "17:00 going home for dinner" was lunch at four hours of the list, and the
    1.5B wrote four hours of lunch, then three of going home (bench_town, stop 78); left open,
    those hours were "reading at the library in the morning" at 14:00 and 22:00.
    """
    pairs = []
    for hour in hours:
        now, interrupted = "", ""
        for i, item in enumerate(outline):
            if item[:5] > f"{hour[:2]}:59":
                continue
            first = i == 0 and routine
            meal = not first and bool(meals_named(item, meals))
            lasts = routine if first else 1 if meal else 24
            on = int(hour[:2]) - int(item[:2]) < lasts
            now = item[6:] if on else interrupted if meal else ""
            if not first and not meal:
                interrupted = item[6:]
        if now:
            pairs.append((hour, now))
    return pairs


def meals_named(text: str, meals: Iterable[str]) -> set[str]:
    """The meals (words such as "lunch") that ``text`` names."""
    return set(re.findall(r"[a-z]+", text.lower())).intersection(meals)


def begun(
    outline: Sequence[str], hours: Sequence[str], routine: int = 0, meals: Sequence[str] = ()
) -> dict[str, str]:
    """The hours in which an item of a timed outline comes into force (see in_force), each with
    that item; an hour that goes on with the item before it is not one of them."""
    return begun_in(dict(in_force(outline, hours, routine, meals)), hours)


def begun_in(now: Mapping[str, str], hours: Sequence[str]) -> dict[str, str]:
    """The hours of ``hours`` whose item in force (``now``, per hour) is not the one before."""
    hours_begun, before = {}, ""
    for hour in hours:
        item = now.get(hour, "")
        if item and item != before:
            hours_begun[hour] = item
        before = item
    return hours_begun


_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAYS_SAID = {
    **{day: {day} for day in _WEEKDAYS},
    **{f"{day}s": {day} for day in _WEEKDAYS},
    "weekday": set(_WEEKDAYS[:5]),
    "weekdays": set(_WEEKDAYS[:5]),
    "weekend": set(_WEEKDAYS[5:]),
    "weekends": set(_WEEKDAYS[5:]),
}


def habit_times(habits: str, today: str) -> list[str]:
    """The half hours at which the habits that name a clock time begin and end on ``today``
    ("Monday February 13, 2023"): "attends physics classes from 9am to 1pm on weekdays" is
    09:00 and 13:00 on a Monday and nothing on a Saturday. The end is a time of its own
    because an item lasts until the next: with only 09:00 asked, Maria's classes went on until
    her afternoon's first item, at 22:00 (bench_town, stop 79). An end past midnight ("from
    9pm to midnight") is tomorrow's. Not "in the afternoon": given an hour for Klaus's "reads
    in the library in the morning, writes at Hobbs Cafe in the afternoon", the 1.5B wrote the
    rest of his day as copies of the two (5 of 5 samples)."""
    times = set()
    for half_hours in _habits_today(habits, today):
        times.update(h for h in half_hours if h >= half_hours[0])
    return sorted(times)


def habit_spans(habits: str, today: str) -> list[tuple[str, str]]:
    """The hours the habits that name a start and an end take on ``today``, each from its start
    to its end ("24:00" where it ends past midnight): Hobbs Cafe's owner "works at Hobbs Cafe
    from 8am to 8pm" is ("08:00", "20:00")."""
    spans = []
    for half_hours in _habits_today(habits, today):
        if len(half_hours) > 1:
            end = half_hours[-1] if half_hours[-1] > half_hours[0] else "24:00"
            spans.append((half_hours[0], end))
    return spans


def _habits_today(habits: str, today: str) -> list[list[str]]:
    """Of each habit that names clock times and is kept on ``today``, those times, in half
    hours."""
    weekday = today.split()[0].lower() if today else ""
    kept = []
    for part in re.split(r"[,;]", habits):
        named = hours_named(part)
        said = re.findall(r"[a-z]+", part.lower())
        days = set().union(*(_DAYS_SAID.get(w, set()) for w in said))
        if named and (not days or weekday in days):
            kept.append([f"{h[:2]}:{'30' if h[3:] >= '30' else '00'}" for h in named])
    return kept


def parse(text: str, *, field: str = "time") -> datetime:
    """``2023-02-13 07:30`` or ``2023-02-13T07:30``."""
    try:
        return datetime.fromisoformat(text.strip())
    except ValueError:
        raise UserError(
            f"not a date and time: {text!r}", field=field, fix="write it like 2023-02-13 07:30"
        ) from None
