"""The call log: one JSON line per model call, so speed can be measured and compared."""

from __future__ import annotations

import json
import threading
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from simulacra.llm.completion import Completion
from simulacra.llm.interface import Prompt

CALLS_FILE = "calls.jsonl"


class CallLog:
    """Appends a record per call to ``calls.jsonl``; keeps running totals in memory.

    Thread-safe: agents thinking in parallel record their calls through one log, each entry
    a whole line.
    """

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._file = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._file = path.open("a", encoding="utf-8", buffering=1)
        self.totals = Totals()
        self._last = threading.local()
        # Added to every entry: a simulation sets {"step": n} so calls map to game time.
        self.tags: dict = {}
        self._lock = threading.Lock()  # agents thinking in parallel record from several threads

    @property
    def last(self) -> dict | None:
        """The entry of this thread's latest call."""
        return getattr(self._last, "entry", None)

    def record(
        self, prompt: Prompt, done: Completion, *, parsed: bool, repairs: list[dict] | None = None
    ) -> dict:
        """``repairs``: what named rules rewrote in the parsed answer, {rule, raw, repaired}
        each (see repairs.py)."""
        entry = {
            "time": round(time.time(), 3),
            "template": prompt.template,
            "agent": prompt.agent,
            "prompt_tokens": done.prompt_tokens,
            "reused_tokens": done.reused_tokens,
            "evicted_tokens": done.evicted_tokens,
            "generated_tokens": done.generated_tokens,
            "seconds": round(done.seconds, 4),
            "prefill_s": round(done.prefill_seconds, 4),
            "decode_s": round(done.decode_seconds, 4),
            "sample_s": round(done.sample_seconds, 4),
            "resampled": done.resampled_tokens,
            "drafted": done.drafted_tokens,
            "kept": done.kept_tokens,
            "fixed_drafted": done.fixed_drafted_tokens,
            "fixed_kept": done.fixed_kept_tokens,
            "cache_hit": done.cache_hit,
            "parsed": parsed,
            "repairs": repairs or [],
            # What the model wrote, whole: a day read from the log can say why (the kind of
            # place the 1.5B named before a place, the answer that failed to parse).
            "answer": done.text,
            **self.tags,
        }
        line = json.dumps(entry) + "\n"
        with self._lock:
            self.totals.add(entry)
            if self._file is not None:
                self._file.write(line)
        self._last.entry = entry
        return entry

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None


@dataclass
class Totals:
    """Sums over call-log entries. ``calls`` counts real model calls, not cache hits."""

    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    reused_tokens: int = 0
    evicted_tokens: int = 0  # read again for want of room for saved KV states
    generated_tokens: int = 0
    seconds: float = 0.0
    prefill_seconds: float = 0.0
    decode_seconds: float = 0.0
    sample_seconds: float = 0.0
    resampled_tokens: int = 0
    drafted_tokens: int = 0
    kept_tokens: int = 0
    fixed_drafted_tokens: int = 0  # of the drafts, the schema's fixed text
    fixed_kept_tokens: int = 0
    parse_failures: int = 0
    repairs: int = 0  # values rewritten by a repair rule

    def add(self, entry: dict) -> None:
        if entry["cache_hit"]:
            self.cache_hits += 1
        else:
            self.calls += 1
            self.prompt_tokens += entry["prompt_tokens"]
            self.reused_tokens += entry["reused_tokens"]
            self.evicted_tokens += entry.get("evicted_tokens", 0)
            self.generated_tokens += entry["generated_tokens"]
            self.seconds += entry["seconds"]
            # Logs written before the breakdown existed have none: they count as 0.
            self.prefill_seconds += entry.get("prefill_s", 0.0)
            self.decode_seconds += entry.get("decode_s", 0.0)
            self.sample_seconds += entry.get("sample_s", 0.0)
            self.resampled_tokens += entry.get("resampled", 0)
            self.drafted_tokens += entry.get("drafted", 0)
            self.kept_tokens += entry.get("kept", 0)
            self.fixed_drafted_tokens += entry.get("fixed_drafted", 0)
            self.fixed_kept_tokens += entry.get("fixed_kept", 0)
        if not entry["parsed"]:
            self.parse_failures += 1
        self.repairs += len(entry.get("repairs", ()))  # none in logs from before they were kept

    @property
    def reuse_share(self) -> float:
        return self.reused_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def evicted_share(self) -> float:
        return self.evicted_tokens / self.prompt_tokens if self.prompt_tokens else 0.0


@dataclass
class CallStats:
    total: Totals = field(default_factory=Totals)
    by_template: dict[str, Totals] = field(default_factory=lambda: defaultdict(Totals))
    by_agent: dict[str, Totals] = field(default_factory=lambda: defaultdict(Totals))


def read_calls(path: Path) -> Iterable[dict]:
    with path.open(encoding="utf-8") as f:
        for line in f:
            try:
                yield json.loads(line)
            except json.JSONDecodeError:  # a line cut short by a kill
                continue


def summarise(entries: Iterable[dict]) -> CallStats:
    stats = CallStats()
    for entry in entries:
        stats.total.add(entry)
        stats.by_template[entry["template"]].add(entry)
        if entry.get("agent"):
            stats.by_agent[entry["agent"]].add(entry)
    return stats
