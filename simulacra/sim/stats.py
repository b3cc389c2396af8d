"""What a run cost and how it went: the figures `simulacra stats` and the town benchmark print.

Per agent per game-hour, as the reference figures are given (the original implementation
averaged about 54 model calls and 26,000 tokens per agent per game-hour).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from simulacra.llm.calllog import CALLS_FILE, Totals, read_calls, summarise
from simulacra.sim import rundir
from simulacra.sim.eventlog import EVENTS_FILE, read_events
from simulacra.sim.savedstate import saved_checkpoint


@dataclass(frozen=True)
class RunStats:
    agents: int
    steps: int
    start: datetime
    reached: datetime
    game_hours: float
    wall_seconds: float
    calls: Totals
    conversations: int
    invalid_places: int
    day_plans: int = 0  # resident-days planned
    kept_plans: int = 0  # of them, days like yesterday that kept its plan without a call

    def per_agent_hour(self, value: float) -> float:
        units = self.agents * self.game_hours
        return value / units if units else 0.0


def run_stats(directory: Path) -> RunStats:
    meta = rundir.read_meta(directory)
    town = json.loads((directory / rundir.MAP_FILE).read_text(encoding="utf-8"))
    places = {s["name"] for s in town["sectors"]}
    places |= {p["address"] for kind in ("arenas", "objects") for p in town[kind]}
    steps = conversations = invalid = 0
    last = meta.start
    planned: dict[tuple[str, str], bool] = {}  # (resident, day) -> kept; a talk's change too
    events = directory / EVENTS_FILE
    for record in read_events(events) if events.exists() else []:
        steps += 1
        last = record.time
        conversations += len(record.chats)
        for name, plan in record.plans.items():
            planned.setdefault((name, plan.day), plan.kept)
        for agent in record.agents.values():
            if agent.place and agent.place not in places:
                invalid += 1
    calls = directory / CALLS_FILE
    totals = summarise(read_calls(calls)).total if calls.exists() else Totals()
    return RunStats(
        agents=len(meta.agents),
        steps=steps,
        start=meta.start,
        reached=last,
        game_hours=steps * meta.step_seconds / 3600,
        wall_seconds=_wall_seconds(directory),
        calls=totals,
        conversations=conversations,
        invalid_places=invalid,
        day_plans=len(planned),
        kept_plans=sum(planned.values()),
    )


def _wall_seconds(directory: Path) -> float:
    saved = saved_checkpoint(directory)
    return saved.wall_seconds if saved is not None else 0.0
