"""The engine: a clock that advances one step of game time at a time, drives the rules of a
world, hands each step's record to an event sink, checkpoints every N steps and at the end,
and stops between steps when asked. It knows nothing of towns, agents or models, nor of
what a record holds: the town's rules make a StepRecord (record.py), the feed's a record of
its wake-ups (feed/schedule.py).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Generic, Protocol, TypeVar

R = TypeVar("R")  # what the rules record of a step
R_co = TypeVar("R_co", covariant=True)
R_contra = TypeVar("R_contra", contravariant=True)


class Rules(Protocol[R_co]):
    def step(self, step: int, now: datetime) -> R_co:
        """Everything that happens in one step, and its record."""
        ...


class EventSink(Protocol[R_contra]):
    def write(self, record: R_contra) -> None: ...


class Engine(Generic[R]):
    def __init__(
        self,
        *,
        start: datetime,
        step_seconds: int,
        rules: Rules[R],
        checkpoint: Callable[[], None],
        checkpoint_every: int,
    ) -> None:
        self.start = start
        self.step_seconds = step_seconds
        self.rules = rules
        self.checkpoint = checkpoint
        self.checkpoint_every = checkpoint_every
        self.step_no = 0
        self.wall_seconds = 0.0  # real time spent stepping, over every session of a run
        self._running_since: float | None = None

    def resume_at(self, step_no: int, wall_seconds: float) -> None:
        """Carry on from a checkpoint: its step and the real time spent stepping so far."""
        self.step_no = step_no
        self.wall_seconds = wall_seconds

    @property
    def now(self) -> datetime:
        return self.start + timedelta(seconds=self.step_no * self.step_seconds)

    def wall(self) -> float:
        running = time.monotonic() - self._running_since if self._running_since else 0.0
        return self.wall_seconds + running

    def step(self, sink: EventSink[R]) -> R:
        record = self.rules.step(self.step_no, self.now)
        sink.write(record)
        self.step_no += 1
        return record

    def run(
        self,
        sink: EventSink[R],
        *,
        until_step: int,
        on_step: Callable[[R], None] | None = None,
        should_stop: Callable[[], bool] = lambda: False,
        between_steps: Callable[[], None] = lambda: None,
    ) -> None:
        """Step until ``until_step``, checkpointing every N steps and at the end.
        ``should_stop`` is polled between steps (Ctrl-C sets it). ``between_steps`` runs
        before each step, on this thread: where a live run applies what its user did, and
        waits while paused or to keep a speed.

        An error (a model that failed, a second Ctrl-C) inside a step leaves the run at its
        last checkpoint: what the step had done so far is not a state to resume from."""
        self._running_since = time.monotonic()
        between = True  # at a step boundary, where the state is whole
        try:
            while self.step_no < until_step:
                # Time between steps (a live run paused, or keeping its speed) is not stepping.
                self.wall_seconds, self._running_since = self.wall(), None
                between_steps()
                self._running_since = time.monotonic()
                if should_stop():
                    break
                between = False
                record = self.step(sink)
                between = True
                if self.step_no % self.checkpoint_every == 0:
                    self.checkpoint()
                if on_step is not None:
                    on_step(record)
        finally:
            self.wall_seconds = self.wall()
            self._running_since = None
            if between:
                self.checkpoint()
