"""A run directory written from typed step records, without a world or a model: for readers
of whole days (the day judge, the party benchmark's report) to be tested on days chosen to
hold exactly what the test is about."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from simulacra.sim import rundir
from simulacra.sim.eventlog import EVENTS_FILE
from simulacra.sim.record import (
    AgentStep,
    Chat,
    ChatLine,
    DayPlanRecord,
    Memory,
    PlanBlock,
    StepRecord,
)

RESIDENTS = ["Isabella Rodriguez", "Maria Lopez", "Klaus Mueller"]
FEB13 = datetime(2023, 2, 13)


def at(day: int, hhmm: str) -> datetime:
    """``at(13, "07:30")``: a time of February ``day``, 2023."""
    hours, minutes = hhmm.split(":")
    return datetime(2023, 2, day, int(hours), int(minutes))


class Day:
    """A run being written: each resident's activity and place as of a time, chats, plans,
    memories and object states at given times; ``write`` lays it out in steps."""

    def __init__(self, start: datetime, end: datetime, step_minutes: int = 10) -> None:
        self.start, self.end = start, end
        self.step = timedelta(minutes=step_minutes)
        self.doing: dict[str, list[tuple[datetime, str, str]]] = {n: [] for n in RESIDENTS}
        self.extra: dict[datetime, dict] = {}

    def does(self, name: str, time: datetime, activity: str, place: str = "") -> Day:
        self.doing[name].append((time, activity, place))
        return self

    def _at(self, time: datetime) -> dict:
        return self.extra.setdefault(
            time, {"chats": [], "plans": {}, "memories": {}, "objects": {}}
        )

    def says(self, time: datetime, *lines: tuple[str, str]) -> Day:
        between = list(dict.fromkeys(speaker for speaker, _ in lines))
        chat = Chat(between=between, lines=[ChatLine(speaker=s, text=t) for s, t in lines])
        self._at(time)["chats"].append(chat)
        return self

    def plans(self, name: str, time: datetime, *blocks: tuple[str, str, str]) -> Day:
        """Blocks as ("08:00", "09:00", "activity") on the day of ``time``."""
        day = time.date()

        def moment(hhmm: str) -> datetime:
            if hhmm == "24:00":
                return datetime.combine(day, datetime.min.time()) + timedelta(days=1)
            return datetime.combine(day, datetime.strptime(hhmm, "%H:%M").time())

        plan = DayPlanRecord(
            day=f"{time:%A %B} {time.day}, {time.year}",
            blocks=[PlanBlock(start=moment(a), end=moment(b), activity=x) for a, b, x in blocks],
        )
        self._at(time)["plans"][name] = plan
        return self

    def remembers(self, name: str, time: datetime, kind: str, text: str) -> Day:
        self._at(time)["memories"].setdefault(name, []).append(Memory(kind=kind, text=text))
        return self

    def sets(self, time: datetime, address: str, state: str) -> Day:
        self._at(time)["objects"][address] = state
        return self

    def write(self, directory: Path) -> Path:
        directory.mkdir(parents=True, exist_ok=True)
        meta = rundir.Meta(
            world_folder="smallville-3",
            world_source="worlds/smallville-3",
            agents=list(RESIDENTS),
            start=self.start,
            end=self.end,
            step_seconds=int(self.step.total_seconds()),
            seed=1,
            settings={},
            created="2023-02-13T00:00:00",
        )
        rundir.write_json(directory / rundir.META_FILE, meta.to_json())
        with (directory / EVENTS_FILE).open("w", encoding="utf-8") as f:
            t, number = self.start, 0
            while t < self.end:
                f.write(self._record(number, t).line() + "\n")
                t, number = t + self.step, number + 1
        return directory

    def _record(self, number: int, t: datetime) -> StepRecord:
        agents = {}
        for name, doings in self.doing.items():
            now = [d for d in doings if d[0] <= t]
            _, activity, place = now[-1] if now else (t, "idle", "")
            agents[name] = AgentStep(
                tile=(0, 0),
                activity=activity,
                description=f"{name} is {activity}",
                emoji="",
                emoji_word="",
                place=place,
            )
        extra = {k: v for k, v in self.extra.get(t, {}).items() if v}
        return StepRecord(step=number, time=t, agents=agents, **extra)
