"""Agents thinking in parallel, reproducibly.

Within a step each resident's thinking is a task. The tasks run in rounds: in a fixed order,
each runs until its next model call (or its end), one at a time, so everything but the model
calls happens in the same order every time; then the calls gathered in the round are made
together, at most ``concurrency`` at once, and the next round begins. The results are the
same at any concurrency, so a run is reproducible and the replay cache makes a rerun free:
only the waiting for the model overlaps.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from simulacra.llm.interface import LanguageModel, M, Prompt


class Lockstep:
    def __init__(self, concurrency: int = 1) -> None:
        self.concurrency = concurrency
        self._local = threading.local()
        # Threads for tasks, kept between steps: a step has a task per resident.
        self._threads: list[threading.Thread] = []
        self._tasks: queue.SimpleQueue[_Worker | None] = queue.SimpleQueue()
        self._pool: ThreadPoolExecutor | None = None
        if concurrency > 1:
            self._pool = ThreadPoolExecutor(concurrency, thread_name_prefix="model-call")

    def call(self, fn: Callable[[], Any]) -> Any:
        """Make a model call: from a task, at the end of its round; otherwise now."""
        worker: _Worker | None = getattr(self._local, "worker", None)
        return fn() if worker is None else worker.wait_for(fn)

    def run(self, tasks: Sequence[Callable[[], None]]) -> None:
        """Run ``tasks`` to their ends in rounds; the first error (in task order) is raised."""
        if len(tasks) <= 1:
            for task in tasks:  # nothing to overlap with: no threads
                task()
            return
        workers = [_Worker(self, task) for task in tasks]
        while len(self._threads) < len(workers):
            # Daemons: a second Ctrl-C must not wait for tasks parked mid-step.
            thread = threading.Thread(target=self._serve, daemon=True)
            thread.start()
            self._threads.append(thread)
        for w in workers:
            self._tasks.put(w)
        active = workers
        while active:
            for w in active:
                w.resume()
            active = [w for w in active if not w.done]
            self._answer(active)
        for w in workers:
            if w.error is not None:
                raise w.error

    def _answer(self, workers: list[_Worker]) -> None:
        if self._pool is None or len(workers) <= 1:
            for w in workers:
                w.answer()
        else:
            for future in [self._pool.submit(w.answer) for w in workers]:
                future.result()

    def _serve(self) -> None:
        while (worker := self._tasks.get()) is not None:
            worker.main()

    def close(self) -> None:
        for _ in self._threads:
            self._tasks.put(None)
        self._threads = []
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


class _Worker:
    """A task on a thread of its own, which runs only while the scheduler waits for it."""

    def __init__(self, lockstep: Lockstep, task: Callable[[], None]) -> None:
        self.lockstep = lockstep
        self.task = task
        self._go = threading.Semaphore(0)
        self._parked = threading.Semaphore(0)
        self.done = False
        self.error: BaseException | None = None
        self._call: Callable[[], Any] | None = None
        self._result: Any = None
        self._call_error: BaseException | None = None

    def main(self) -> None:
        self._go.acquire()
        self.lockstep._local.worker = self
        try:
            self.task()
        except BaseException as e:  # noqa: BLE001 - handed to the scheduler, raised there
            self.error = e
        finally:
            self.lockstep._local.worker = None
            self.done = True
            self._parked.release()

    def resume(self) -> None:
        """Let the task run until its next model call or its end."""
        self._go.release()
        self._parked.acquire()

    def wait_for(self, fn: Callable[[], Any]) -> Any:
        self._call = fn
        self._parked.release()
        self._go.acquire()
        result, error = self._result, self._call_error
        self._call = self._result = self._call_error = None
        if error is not None:
            raise error
        return result

    def answer(self) -> None:
        try:
            self._result = self._call()
        except BaseException as e:  # noqa: BLE001 - raised in the task that asked
            self._call_error = e


class LockstepModel(LanguageModel):
    """A language model whose calls from lockstep tasks wait for the end of their round."""

    def __init__(self, inner: LanguageModel, lockstep: Lockstep) -> None:
        self.inner = inner
        self.lockstep = lockstep

    def generate(self, prompt: Prompt, schema: type[M], *, seed: int | None = None) -> M:
        return self.lockstep.call(lambda: self.inner.generate(prompt, schema, seed=seed))

    def text(self, prompt: Prompt, *, max_tokens: int, seed: int | None = None) -> str:
        return self.lockstep.call(lambda: self.inner.text(prompt, max_tokens=max_tokens, seed=seed))

    def __getattr__(self, name: str) -> Any:  # log, completer, settings: the inner model's
        return getattr(self.inner, name)
