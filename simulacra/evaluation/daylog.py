"""A run's records as a reader of whole days sees them: each resident's actions as stretches
of one activity, their plans, the object states they set, what was said and what they
remembered. It is the one reader of the event log for the evaluation (the day judge, the
party benchmark, and runview.py's view for the interviews), and it needs neither the world's
files nor a model: a run directory with meta.json and events.jsonl will do.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from functools import cache
from pathlib import Path

from simulacra.errors import UserError
from simulacra.llm.phrases import phrases_beside
from simulacra.sim import rundir
from simulacra.sim.eventlog import EVENTS_FILE, read_events
from simulacra.sim.record import DayPlanRecord, StepRecord
from simulacra.world.tree import IDLE, split_address

_TOWN = phrases_beside(rundir.__file__, "town")  # the town's own words, not the model's
_ITEM = re.compile(r"(?:^|[;:] )(\d\d:\d\d) ([^;]+)")  # "HH:MM activity" in a plan memory


@cache
def _town_prefixes() -> tuple[str, ...]:
    """How "talking with X" and "waiting for X to be free" begin."""
    talking = _TOWN.text("talking", partner="\x00").split("\x00")[0]
    waiting = _TOWN.text("waiting", place="\x00").split("\x00")[0]
    return (talking, waiting)


@dataclass(frozen=True)
class Doing:
    """One stretch of one activity: an action as the others saw it, over [start, end)."""

    start: datetime
    end: datetime
    activity: str
    places: tuple[str, ...]  # addresses, in the order they were used ("" on the street)

    @property
    def town_words(self) -> bool:
        """Idle, talking or waiting: the town's phrases, not a plan's or a model's."""
        return self.activity == IDLE or self.activity.startswith(_town_prefixes())


@dataclass(frozen=True)
class Stay:
    """A stretch of time one resident spent at one place (an address), over [start, end)."""

    start: datetime
    end: datetime
    place: str


@dataclass(frozen=True)
class PlannedStretch:
    """A block of the hourly schedule (with its end), or an item of the day plan's broad
    strokes (``end`` None: it lasts until the next)."""

    start: datetime
    end: datetime | None
    activity: str


@dataclass(frozen=True)
class StateChange:
    time: datetime
    address: str
    state: str
    by: str  # the resident using the thing then; "" when none was


@dataclass(frozen=True)
class Conversation:
    time: datetime
    between: tuple[str, ...]
    lines: tuple[tuple[str, str], ...]  # (speaker, text)
    places: dict[str, str] = field(default_factory=dict)  # speaker -> address where they stood


@dataclass(frozen=True)
class Remembered:
    time: datetime
    kind: str  # observation, chat, reflection, plan
    text: str


@dataclass
class DayLog:
    directory: Path
    agents: list[str]
    names: list[str]  # every resident of the world, taking part or not
    start: datetime
    now: datetime  # the time after the last logged step
    step: int  # steps logged
    doings: dict[str, list[Doing]] = field(default_factory=dict)
    stays: dict[str, list[Stay]] = field(default_factory=dict)
    schedules: dict[str, dict[date, list[PlannedStretch]]] = field(default_factory=dict)
    outlines: dict[str, dict[date, list[PlannedStretch]]] = field(default_factory=dict)
    states: list[StateChange] = field(default_factory=list)
    conversations: list[Conversation] = field(default_factory=list)
    memories: dict[str, list[Remembered]] = field(default_factory=dict)
    plans: dict[str, list[DayPlanRecord]] = field(default_factory=dict)  # every one, as made
    buildings: list[str] = field(default_factory=list)  # the world's, else those visited

    def blocks(self, name: str) -> list[PlannedStretch]:
        """Every schedule block of ``name``, in time order (the last plan made for a day)."""
        days = self.schedules.get(name, {})
        return sorted((b for d in sorted(days) for b in days[d]), key=lambda b: b.start)

    def stays_within(self, name: str, start: datetime, end: datetime) -> list[Stay]:
        """``name``'s stays that overlap [start, end), cut to it."""
        return [
            Stay(max(s.start, start), min(s.end, end), s.place)
            for s in self.stays.get(name, [])
            if s.start < end and s.end > start
        ]


def read_day_log(directory: Path) -> DayLog:
    meta = rundir.read_meta(directory)
    path = directory / EVENTS_FILE
    if not path.is_file():
        raise UserError("no events.jsonl yet", file=path, fix="run the simulation first")
    town = _town(directory)
    log = DayLog(
        directory=directory,
        agents=list(meta.agents),
        names=_all_names(town, list(meta.agents)),
        start=meta.start,
        now=meta.start,
        step=0,
    )
    current: dict[str, Doing] = {}
    here: dict[str, Stay] = {}
    for record in read_events(path):
        end = meta.step_time(record.step + 1)
        log.step = record.step + 1
        _add_doings(log, current, record, end)
        _add_stays(log, here, record, end)
        _add_plans(log, record)
        for address, state in record.objects.items():
            log.states.append(StateChange(record.time, address, state, _user(record, address)))
        for chat in record.chats:
            lines = tuple((line.speaker, line.text) for line in chat.lines)
            places = {n: record.agents[n].place if n in record.agents else "" for n in chat.between}
            log.conversations.append(Conversation(record.time, tuple(chat.between), lines, places))
        for name, memories in record.memories.items():
            log.memories.setdefault(name, []).extend(
                Remembered(record.time, m.kind, m.text) for m in memories
            )
    for name, doing in current.items():
        log.doings.setdefault(name, []).append(doing)
    log.buildings = _buildings(town) or sorted(
        {split_address(p)[0] for ds in log.doings.values() for d in ds for p in d.places if p}
    )
    for name, stay in here.items():
        log.stays.setdefault(name, []).append(stay)
    if log.step == 0:
        raise UserError("no steps recorded yet", file=path, fix="run the simulation first")
    log.now = meta.step_time(log.step)
    return log


def run_progress(directory: Path) -> tuple[int, int, int]:
    """(steps logged, steps the run is meant to have, game seconds per step), for scripts
    that resume runs."""
    meta = rundir.read_meta(directory)
    path = directory / EVENTS_FILE
    last = -1
    if path.is_file():
        for record in read_events(path):
            last = record.step
    return last + 1, meta.total_steps, meta.step_seconds


def _town(directory: Path) -> dict:
    """The run's map file, or nothing where it cannot be read."""
    try:
        town = json.loads((directory / rundir.MAP_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return town if isinstance(town, dict) else {}


def _all_names(town: dict, agents: list[str]) -> list[str]:
    names = [str(n) for n in town.get("personas", [])]
    return list(dict.fromkeys(agents + names))  # without a map, those taking part will do


def _buildings(town: dict) -> list[str]:
    sectors = town.get("sectors", [])
    return [str(s["name"]) for s in sectors if isinstance(s, dict) and "name" in s]


def _add_doings(log: DayLog, current: dict[str, Doing], record: StepRecord, end: datetime):
    for name, agent in record.agents.items():
        doing = current.get(name)
        if doing is not None and doing.activity == agent.activity:
            places = doing.places if agent.place in doing.places else doing.places + (agent.place,)
            current[name] = Doing(doing.start, end, doing.activity, places)
            continue
        if doing is not None:
            log.doings.setdefault(name, []).append(doing)
        current[name] = Doing(record.time, end, agent.activity, (agent.place,))


def _add_stays(log: DayLog, here: dict[str, Stay], record: StepRecord, end: datetime) -> None:
    for name, agent in record.agents.items():
        stay = here.get(name)
        if stay is not None and stay.place == agent.place:
            here[name] = Stay(stay.start, end, stay.place)
            continue
        if stay is not None:
            log.stays.setdefault(name, []).append(stay)
        here[name] = Stay(record.time, end, agent.place)


def _add_plans(log: DayLog, record: StepRecord) -> None:
    for name, plan in record.plans.items():
        log.plans.setdefault(name, []).append(plan)
        if not plan.blocks:
            continue
        day = plan.blocks[0].start.date()
        blocks = [PlannedStretch(b.start, b.end, b.activity) for b in plan.blocks]
        log.schedules.setdefault(name, {})[day] = blocks
    for name, memories in record.memories.items():
        for m in memories:
            if m.kind != "plan" or not _ITEM.search(m.text):
                continue
            day = record.time.date()
            items = [
                PlannedStretch(datetime.combine(day, datetime.strptime(t, "%H:%M").time()), None, a)
                for t, a in _ITEM.findall(m.text)
            ]
            # A day's plan, then what talks added to it (planning.plan_news).
            outline = log.outlines.setdefault(name, {}).get(day, [])
            merged = dict.fromkeys([*outline, *items])
            log.outlines[name][day] = sorted(merged, key=lambda i: i.start)


def _user(record: StepRecord, address: str) -> str:
    """Who set a thing's state: the resident at it, or else one in the same room."""
    at = [n for n, a in record.agents.items() if a.place == address]
    room = address.rsplit(":", 1)[0]
    near = [n for n, a in record.agents.items() if a.place.startswith(room + ":")]
    return (at or near or [""])[0]
