"""The feed's rules for the engine (sim/engine.py): each step of game time wakes every agent
due by the step's time, in the order of their wake-ups (then of their names), and moves the
board's clock to each wake-up as it goes. The last step is cut at the run's end, which is
inclusive.

A run cut into steps wakes the agents exactly as one pass over its whole span would: a
wake-up only moves an agent's next one later, so the earliest wake-up due by a step's time
is the earliest of the whole run, whatever the steps' length.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from simulacra.feed.agent import FeedAgent
from simulacra.feed.board import Board


@dataclass(frozen=True)
class WakeUp:
    agent: str
    at: datetime


@dataclass(frozen=True)
class FeedStepRecord:
    """What one step of a feed run did: its wake-ups, in order (each committed itself)."""

    step: int
    time: datetime
    wakes: list[WakeUp]


class Schedule:
    def __init__(
        self,
        agents: list[FeedAgent],
        board: Board,
        wake: Callable[[FeedAgent, datetime], None],
        *,
        until: datetime,
    ) -> None:
        self.agents = agents
        self.board = board
        self.wake = wake
        self.until = until
        self.reached: datetime | None = None  # the time of the last step done

    def step(self, step: int, now: datetime) -> FeedStepRecord:
        end = min(now, self.until)
        wakes = []
        while True:
            due = [a for a in self.agents if a.next_wake is not None and a.next_wake <= end]
            if not due:
                break
            agent = min(due, key=lambda a: (a.next_wake, a.name))
            at = agent.next_wake
            self.wake(agent, at)
            wakes.append(WakeUp(agent.name, at))
            if at > self.board.now:
                self.board.set_now(at)
        self.reached = end
        return FeedStepRecord(step, now, wakes)

    def checkpoint(self) -> None:
        """The board's clock to the time of the last step done. Each wake-up commits itself
        (feed/run.py), so this is all a checkpoint adds; the engine makes one at the end of a
        run, or when it is stopped between steps."""
        if self.reached is not None and self.reached > self.board.now:
            self.board.set_now(self.reached)


class WakeCount:
    """The event sink of a feed run: the board holds what happened; this counts wake-ups."""

    def __init__(self) -> None:
        self.wakes = 0

    def write(self, record: FeedStepRecord) -> None:
        self.wakes += len(record.wakes)
