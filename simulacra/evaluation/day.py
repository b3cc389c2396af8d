"""The day judge: what a reader of a run would call broken, counted per resident and game day
(`simulacra eval day RUN`, written to RUN/eval/day.json).

The paper's claim is believability over whole days; single prompt answers can pass their
cases while the day reads wrong. This reads every action, plan, object state and dialogue
line of a run, with no model, and counts the broken ones by kind, with examples. It measures
and changes nothing: prompts are never tuned to its words (the vocabulary is day.toml).
A text found broken several times in one resident-day is one item, seen that many times.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import date, datetime, timedelta
from enum import Enum
from pathlib import Path
from typing import Literal

from simulacra.evaluation import wording
from simulacra.evaluation.checks import plain
from simulacra.evaluation.dates import dated_events, other_day
from simulacra.evaluation.daylog import DayLog, Doing, PlannedStretch, read_day_log
from simulacra.evaluation.records import DAY_SUMMARY, EvalRecord, eval_dir, write_summary
from simulacra.world.tree import join_address, split_address


class FindingKind(str, Enum):
    PROMPT = "prompt"
    NOT_DOING = "not_doing"
    OVERRUN = "overrun"
    PLACE = "place"
    COMPANY = "company"
    OTHER_DAY = "other_day"
    LINE = "line"
    NOT_STATE = "not_state"

    @property
    def label(self) -> str:
        return _LABELS[self]

    @property
    def column(self) -> str:
        """A table column's heading: the kind's name in words."""
        return self.value.replace("_", " ")


_LABELS = {
    FindingKind.PROMPT: "prompt or schema text",
    FindingKind.NOT_DOING: "not a doing (a name, a thing, cut short)",
    FindingKind.OVERRUN: "held far past its plan",
    FindingKind.PLACE: "sleeping, eating, washing, screens or desk work out of place, or not in "
    "the building the activity names",
    FindingKind.COMPANY: "with someone who was in another room",
    FindingKind.OTHER_DAY: "an event of another day",
    FindingKind.LINE: "a line: assistant, echo, handed back, mid-sentence, partner spoken of",
    FindingKind.NOT_STATE: "an object state that is not a state",
}
# Held past the end of its plan block by less than this, an action is only running late.
LATE = timedelta(minutes=30)

Source = Literal["activity", "plan", "state", "line"]


class Finding(EvalRecord):
    kind: FindingKind
    agent: str  # "" for an object state set while nobody was at it
    day: date
    time: datetime  # when first found
    source: Source
    text: str
    why: str
    seen: int = 1  # times found broken this resident-day


class ResidentDay(EvalRecord):
    agent: str
    day: date
    counts: dict[FindingKind, int]  # broken items of each kind
    items: int  # broken items of any kind (one text broken two ways counts once)


class DayResult(EvalRecord):
    step: int
    time: datetime
    agents: list[str]
    days: list[ResidentDay]
    findings: list[Finding]

    def totals(self) -> dict[FindingKind, int]:
        return {k: sum(d.counts.get(k, 0) for d in self.days) for k in FindingKind}

    def worst(self) -> int:
        """The most broken items in any one resident-day."""
        return max((d.items for d in self.days), default=0)


def evaluate_days(directory: Path) -> DayResult:
    """Judge the run in ``directory`` and write RUN/eval/day.json."""
    result = judge(read_day_log(directory))
    write_summary(eval_dir(directory) / DAY_SUMMARY, result.model_dump(mode="json"))
    return result


def judge(log: DayLog) -> DayResult:
    found = _Findings()
    events = dated_events(_written(log), log.start.year)
    for name in log.agents:
        blocks = log.blocks(name)
        for doing in log.doings.get(name, []):
            if not doing.town_words:
                _judge_doing(found, log, events, name, doing, blocks)
        for plans in (log.schedules.get(name, {}), log.outlines.get(name, {})):
            for day, items in plans.items():
                for item in items:
                    _judge_plan_item(found, log, events, name, day, item)
    for change in log.states:
        if change.state == "idle":
            continue
        why = wording.prompt_text(change.state)
        kind = FindingKind.PROMPT if why else FindingKind.NOT_STATE
        why = why or wording.not_state(change.state)
        text = f"{change.address.split(':')[-1].strip()} is {change.state}"
        found.add(kind, change.by, change.time, "state", text, why)
    _judge_lines(found, log)
    return found.result(log)


def _written(log: DayLog) -> Iterator[str]:
    """What the residents did, wrote down or lived: where the run's events get their days."""
    for doings in log.doings.values():
        yield from (d.activity for d in doings)
    for memories in log.memories.values():
        yield from (m.text for m in memories)
    for plans in (*log.schedules.values(), *log.outlines.values()):
        for items in plans.values():
            yield from (item.activity for item in items)


def _judge_doing(found, log, events, name: str, doing: Doing, blocks: list[PlannedStretch]) -> None:
    t, text = doing.start, doing.activity
    _judge_phrase(found, log, events, name, t, t.date(), "activity", text)
    for place in doing.places:
        found.add(FindingKind.PLACE, name, t, "activity", text, wording.place_for(text, place))
    elsewhere = wording.said_elsewhere(text, doing.places, log.buildings)
    found.add(FindingKind.PLACE, name, t, "activity", text, elsewhere)
    found.add(FindingKind.OVERRUN, name, t, "activity", text, overrun(doing, blocks))
    others = [n for n in log.agents if n != name]
    for other in wording.company(text, others):
        found.add(FindingKind.COMPANY, name, t, "activity", text, _elsewhere(log, doing, other))


def _elsewhere(log: DayLog, doing: Doing, other: str) -> str | None:
    """Where ``other`` was, if never in a room ``doing`` happened in while it went on."""
    rooms = {_room(p) for p in doing.places if p}
    stays = log.stays_within(other, doing.start, doing.end)
    if not stays or any(_room(s.place) in rooms for s in stays if s.place):
        return None
    where = max(stays, key=lambda s: s.end - s.start).place or "the street"
    return f"with {other}, who was at {where}"


def _room(address: str) -> str:
    return join_address(*split_address(address)[:2])


def _judge_plan_item(found, log, events, name: str, day: date, item: PlannedStretch) -> None:
    span = f"{item.start:%H:%M}" + (f"-{item.end:%H:%M}" if item.end else "")
    _judge_phrase(found, log, events, name, item.start, day, "plan", item.activity, shown=span)


def _judge_phrase(found, log, events, name, time, day, source, text, shown: str = "") -> None:
    label = f"{shown} {text}".strip()
    prompt = wording.prompt_text(text)
    found.add(FindingKind.PROMPT, name, time, source, label, prompt, text)
    if not prompt:  # the prompt's words make it no phrase at all: counted once
        why = wording.not_doing(text, log.names)
        found.add(FindingKind.NOT_DOING, name, time, source, label, why, text)
    why = other_day(text, time if time.date() == day else day, events)
    found.add(FindingKind.OTHER_DAY, name, time, source, label, why, text)


def _judge_lines(found, log: DayLog) -> None:
    said: dict[tuple[date, frozenset[str]], list[str]] = {}  # earlier lines, per pair and day
    for chat in log.conversations:
        earlier = said.setdefault((chat.time.date(), frozenset(chat.between)), [])
        for speaker, text in chat.lines:
            partners = [n for n in chat.between if n != speaker]
            kind, why = judge_line(text, speaker, partners, earlier)
            found.add(kind, speaker, chat.time, "line", f"{speaker}: {text}", why)
            earlier.append(text)


def judge_line(
    text: str, speaker: str, partners: Sequence[str], earlier: Sequence[str]
) -> tuple[FindingKind, str | None]:
    """What reads broken in a line said after ``earlier`` (the pair's lines that day): prompt
    text, or an assistant's words, an echo, a question handed back, a line begun mid-sentence,
    the partner in the third person."""
    why = wording.prompt_text(text)
    if why:
        return FindingKind.PROMPT, why
    return FindingKind.LINE, wording.bad_line(text, speaker, partners, earlier)


def overrun(doing: Doing, blocks: list[PlannedStretch]) -> str | None:
    """An action held more than twice as long as the plan block it began in, or past the
    end of the plan item after it (and in both cases past its block by more than LATE). The
    blocks after it that are the action itself are its block's too: Maria's "sleeping" from
    23:40, in her block "watching movies and sleeping" to midnight, went on in the next day's
    sleep until 07:30, and was called held 7h50 (party seed 2x)."""
    stretches = _stretches(blocks)
    for i, (start, end, activity) in enumerate(stretches):
        if not start <= doing.start < end:
            continue
        while i + 1 < len(stretches) and stretches[i + 1][0] == end:
            if plain(stretches[i + 1][2]) != plain(doing.activity):
                break
            i, end = i + 1, stretches[i + 1][1]
        if doing.end - end <= LATE:
            return None
        held = doing.end - doing.start
        if held > 2 * (end - start):
            return f"held {_hours(held)}; its plan block was {start:%H:%M}-{end:%H:%M} {activity}"
        if i + 1 < len(stretches) and doing.end > stretches[i + 1][1]:
            _, next_end, next_activity = stretches[i + 1]
            return (
                f"held until {doing.end:%H:%M}, past the next plan item "
                f"({next_activity}, until {next_end:%H:%M})"
            )
        return None
    return None


def _stretches(blocks: list[PlannedStretch]) -> list[tuple[datetime, datetime, str]]:
    """Blocks in time order, those of one activity running on (sleep over midnight) joined."""
    out: list[tuple[datetime, datetime, str]] = []
    for b in blocks:
        if b.end is None:
            continue
        if out and out[-1][1] == b.start and plain(out[-1][2]) == plain(b.activity):
            out[-1] = (out[-1][0], b.end, out[-1][2])
        else:
            out.append((b.start, b.end, b.activity))
    return out


def _hours(delta: timedelta) -> str:
    minutes = int(delta.total_seconds() // 60)
    return f"{minutes // 60}h{minutes % 60:02d}"


class _Findings:
    """Findings kept once per (resident, day, kind, text), counting how often each was seen."""

    def __init__(self) -> None:
        self._found: dict[tuple[str, date, FindingKind, str], Finding] = {}

    def add(
        self,
        kind: FindingKind,
        agent: str,
        time: datetime,
        source: Source,
        text: str,
        why: str | None,
        key: str | None = None,  # what makes two findings one (default: the text)
    ) -> None:
        if why is None:
            return
        k = (agent, time.date(), kind, plain(key or text))
        if k in self._found:
            old = self._found[k]
            self._found[k] = old.model_copy(update={"seen": old.seen + 1})
            return
        self._found[k] = Finding(
            kind=kind, agent=agent, day=time.date(), time=time, source=source, text=text, why=why
        )

    def result(self, log: DayLog) -> DayResult:
        findings = sorted(self._found.values(), key=lambda f: (f.time, f.agent, f.kind.value))
        return DayResult(
            step=log.step,
            time=log.now,
            agents=list(log.agents),
            days=self._resident_days(log),
            findings=findings,
        )

    def _resident_days(self, log: DayLog) -> list[ResidentDay]:
        """Every resident on every day the run covers, with nothing found or not; then
        anyone else an object state was set by ("" for nobody)."""
        days: dict[tuple[str, date], list[tuple[FindingKind, str]]] = {}
        day, last = log.start.date(), (log.now - timedelta(microseconds=1)).date()
        while day <= last:
            for name in log.agents:
                days[(name, day)] = []
            day += timedelta(days=1)
        for agent, day, kind, key in self._found:
            days.setdefault((agent, day), []).append((kind, key))
        order = {n: i for i, n in enumerate(log.agents)}
        return [
            ResidentDay(
                agent=agent,
                day=day,
                counts={k: sum(kind is k for kind, _ in found) for k in FindingKind},
                items=len({key for _, key in found}),
            )
            for (agent, day), found in sorted(
                days.items(), key=lambda kv: (kv[0][1], order.get(kv[0][0], len(order)))
            )
        ]
