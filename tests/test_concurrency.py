"""Agents thinking in parallel: the same run at any concurrency, and a free rerun."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from scripted_town import SCRIPTS

from simulacra.llm import open_model
from simulacra.llm.scripted import ScriptedModel
from simulacra.settings import Settings
from simulacra.sim.eventlog import EVENTS_FILE
from simulacra.sim.lockstep import Lockstep
from simulacra.sim.simulation import Simulation

ROOT = Path(__file__).resolve().parent.parent
WORLD = ROOT / "worlds" / "smallville-3"


class SlowModel(ScriptedModel):
    """The scripted town, taking a little while per answer and counting calls in flight."""

    def __init__(self) -> None:
        super().__init__(SCRIPTS)
        self._lock = threading.Lock()
        self.in_flight = 0
        self.most_in_flight = 0

    def complete(self, request):
        with self._lock:
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            time.sleep(0.002)
            return super().complete(request)
        finally:
            with self._lock:
                self.in_flight -= 1


def run_town(out: Path, cache_dir: Path, concurrency: int, word_embedder):
    settings = Settings()
    settings.llm.cache_dir = cache_dir
    settings.engine.concurrency = concurrency
    backend = SlowModel()
    model = open_model(settings.llm, completer=backend, log_dir=None)
    sim = Simulation.create(
        WORLD, out, hours=1.5, settings=settings, model=model, embedder=word_embedder
    )
    sim.run()
    totals = sim.model.log.totals
    sim.close()
    return backend, totals


def test_a_run_at_concurrency_4_is_the_run_at_1_and_reruns_free(tmp_path, word_embedder):
    one, _ = run_town(tmp_path / "c1", tmp_path / "cache1", 1, word_embedder)
    four, _ = run_town(tmp_path / "c4", tmp_path / "cache4", 4, word_embedder)
    assert one.most_in_flight == 1
    assert four.most_in_flight > 1, "calls of different residents overlapped"
    log_one = (tmp_path / "c1" / EVENTS_FILE).read_bytes()
    assert log_one == (tmp_path / "c4" / EVENTS_FILE).read_bytes()
    assert b'"chats"' in log_one  # a conversation happened: the hardest part to keep in order

    again, totals = run_town(tmp_path / "c4-again", tmp_path / "cache4", 4, word_embedder)
    assert again.requests == [] and totals.calls == 0 and totals.cache_hits > 0
    assert (tmp_path / "c4-again" / EVENTS_FILE).read_bytes() == log_one


def test_lockstep_runs_tasks_in_order_between_model_calls():
    done: list[str] = []
    lockstep = Lockstep(concurrency=3)

    def task(name: str, calls: int):
        def run():
            for i in range(calls):
                done.append(f"{name}{i}")
                lockstep.call(lambda: time.sleep(0.001))
            done.append(f"{name}-end")

        return run

    lockstep.run([task("a", 2), task("b", 1), task("c", 3)])
    lockstep.close()
    assert done == ["a0", "b0", "c0", "a1", "b-end", "c1", "a-end", "c2", "c-end"]


def test_an_error_in_a_task_reaches_the_caller():
    lockstep = Lockstep(concurrency=2)

    def broken():
        lockstep.call(lambda: 1 / 0)

    try:
        lockstep.run([broken, lambda: None])
    except ZeroDivisionError:
        pass
    else:
        raise AssertionError("the error was lost")
    finally:
        lockstep.close()
