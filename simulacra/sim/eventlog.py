"""The event log: one JSON line per step — each agent's tile, action, emoji and place, object
states that changed, conversation lines, new memories and new plans. It is what replays,
reports and `simulacra log` read.

A line per step, in step order. On resume the lines past the checkpoint are cut off, so a
run killed at any moment and resumed has no missing or repeated steps.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

EVENTS_FILE = "events.jsonl"


class EventLog:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = path.open("a", encoding="utf-8")

    def write(self, record: dict) -> None:
        self._file.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")

    def sync(self) -> None:
        """Make every written line durable (done before each checkpoint commits)."""
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()

    @staticmethod
    def cut(path: Path, before_step: int) -> None:
        """Keep only whole lines of steps before ``before_step``."""
        if not path.exists():
            return
        kept = [record for record in read_events(path) if record["step"] < before_step]
        tmp = path.with_suffix(".tmp")
        with tmp.open("w", encoding="utf-8") as f:
            for record in kept:
                f.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)


def read_events(path: Path) -> Iterator[dict]:
    """Every whole line (a line cut short by a kill is skipped)."""
    with path.open(encoding="utf-8") as f:
        for line in f:
            if not line.endswith("\n"):
                break
            try:
                yield json.loads(line)
            except json.JSONDecodeError:
                continue
