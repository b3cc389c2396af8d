"""A simulation that runs while its user acts on it (`simulacra play`).

The engine steps on a thread of its own, which is the only one that touches the simulation:
what the user does arrives as a queued call, made between two steps (while paused too), and
its answer or error goes back to the caller. Pause and speed are read between steps.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

from simulacra.sim.inputs import UserInput
from simulacra.sim.interact import Interactions
from simulacra.sim.record import StepRecord
from simulacra.sim.simulation import Simulation

log = logging.getLogger(__name__)
T = TypeVar("T")
EXTEND_HOURS = 1.0  # a live run that reaches its end goes on by this much game time
ANSWER_SECONDS = 900  # the longest wait for a step to finish and an action to be done


class LiveRun:
    def __init__(self, sim: Simulation, *, speed: float | None = 2.0, paused: bool = False):
        self.sim = sim
        self.interactions = Interactions(sim)
        self.speed = speed  # game steps per wall second at most; None: as fast as it goes
        self.paused = paused
        self.error: str | None = None  # why the town stopped, when it did
        self._calls: queue.SimpleQueue[tuple[Callable, Future]] = queue.SimpleQueue()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._last_step = 0.0
        self._thread: threading.Thread | None = None
        self._snapshot: dict = {}
        self._publish()

    # -- from any thread ---------------------------------------------------------------------

    def start(self) -> LiveRun:
        self._thread = threading.Thread(target=self._run, name="simulation", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Finish the step under way, checkpoint, and stop."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def control(self, *, paused: bool | None = None, speed: float | None = None) -> None:
        """Pause or go on; ``speed`` in steps per second, 0 for as fast as the model allows
        (None leaves either as it is)."""
        if paused is not None:
            self.paused = paused
        if speed is not None:
            self.speed = speed or None
        self._wake.set()

    def status(self) -> dict:
        """What the page shows of the town now (as of the last step or action)."""
        return {
            **self._snapshot,
            "paused": self.paused,
            "speed": self.speed or 0,
            "error": self.error,
        }

    def call(self, action: Callable[[Interactions], T], timeout: float = ANSWER_SECONDS) -> T:
        """Do ``action`` on the simulation's thread, between two steps; its result or error."""
        if self._stop.is_set() or self._thread is None:
            raise RuntimeError("the town is not running")
        future: Future = Future()
        self._calls.put((action, future))
        self._wake.set()
        return future.result(timeout)

    def submit(self, command: UserInput, timeout: float = ANSWER_SECONDS) -> object:
        """Apply one typed input of the user's between two steps; its answer or error."""
        return self.call(lambda me: me.apply(command), timeout)

    # -- on the simulation's thread ----------------------------------------------------------

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                if self.sim.step_no >= self.sim.meta.total_steps:
                    self.sim.extend(EXTEND_HOURS)
                self.sim.run(
                    on_step=self._stepped,
                    should_stop=self._stop.is_set,
                    between_steps=self._between_steps,
                )
        except Exception as e:  # the model or the disk failed mid-step: change nothing more
            log.exception("the simulation stopped")
            self.error = f"the town stopped: {e}"
            self._publish()
            while not self._stop.is_set():
                self._apply_calls(refuse=self.error)
                self._wake.wait(0.2)
                self._wake.clear()
        finally:
            self._apply_calls(refuse=self.error or "the town was stopped")

    def _publish(self) -> None:
        """A copy of what status() shows, made on this thread: others only read it."""
        sim = self.sim
        avatar = sim.town.user.avatar
        shown = None
        if avatar is not None:
            event = sim.state.event_of(avatar.name)
            shown = {
                "name": avatar.name,
                "tile": list(event.tile),
                "description": event.description,
                "walking_to": list(avatar.path[-1]) if avatar.path else None,
                "partner": avatar.partner,
                "lines": [{"speaker": x.speaker, "text": x.text} for x in avatar.lines],
            }
        self._snapshot = {
            "step": sim.step_no,
            "time": sim.now.isoformat(),
            "residents": list(sim.residents),
            "avatar": shown,
        }

    def _stepped(self, record: StepRecord) -> None:  # noqa: ARG002 (the page reads the log)
        self.sim.events.flush()  # the page shows each step as soon as it is done
        self._publish()

    def _between_steps(self) -> None:
        while True:
            self._apply_calls()
            self._publish()
            if self._stop.is_set():
                return
            wait = 0.5 if self.paused else self._until_next_step()
            if wait <= 0:
                self._last_step = time.monotonic()
                return
            self._wake.wait(wait)
            self._wake.clear()

    def _until_next_step(self) -> float:
        if not self.speed:
            return 0.0
        return self._last_step + 1.0 / self.speed - time.monotonic()

    def _apply_calls(self, *, refuse: str | None = None) -> None:
        while True:
            try:
                action, future = self._calls.get_nowait()
            except queue.Empty:
                return
            if refuse:
                future.set_exception(RuntimeError(refuse))
                continue
            try:
                result = action(self.interactions)
            except Exception as e:  # the caller's error to show, not the town's
                self._publish()
                future.set_exception(e)
            else:
                self._publish()  # before answering: the answer carries the new status
                future.set_result(result)
