"""Record/replay: a persistent cache of model answers that makes a rerun free and deterministic.

Keyed by (model file identity, template, rendered prompt, schema, sampling parameters). A
simulation killed and resumed replays every answer it had already paid for.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

from simulacra.cachedb import CacheDB
from simulacra.llm.completion import Completer, Completion, Request

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, text TEXT NOT NULL,"
    " prompt_tokens INT, reused_tokens INT, generated_tokens INT, seconds REAL)"
)


class ReplayCache:
    """A :class:`Completer` wrapper that answers from disk when it has seen the request.

    Thread-safe: one connection behind a lock, held only for the lookup and the insert, never
    while the model thinks, so concurrent calls reach the backend concurrently.
    """

    def __init__(self, inner: Completer, path: Path) -> None:
        self.inner = inner
        self.path = path
        # Agents thinking in parallel ask from several threads; one lock keeps the cache whole.
        self._lock = threading.Lock()
        # A damaged cache is reported and started afresh, never fatal (see cachedb.py).
        self._db = CacheDB(path, schema=SCHEMA, table="answers", what="replay cache")

    @property
    def identity(self) -> str:
        return self.inner.identity

    def fits(self, system: str, user: str, answer_tokens: int) -> bool:
        check = getattr(self.inner, "fits", None)
        return True if check is None else check(system, user, answer_tokens)

    def complete(self, request: Request) -> Completion:
        key = request.key(self.identity)
        with self._lock:
            row = self._db.execute(
                "SELECT text, prompt_tokens, reused_tokens, generated_tokens FROM answers"
                " WHERE key = ?",
                (key,),
            ).fetchone()
        if row is not None:
            text, prompt_tokens, reused, generated = row
            return Completion(text, prompt_tokens, reused, generated, 0.0, cache_hit=True)
        done = self.inner.complete(request)
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?, ?)",
                (
                    key,
                    done.text,
                    done.prompt_tokens,
                    done.reused_tokens,
                    done.generated_tokens,
                    done.seconds,
                ),
            )
        return done

    def forget(self, requests: Iterable[Request]) -> None:
        """Drop the answers recorded for ``requests``: the tries of a call none of whose
        answers parsed. Kept, they would fail a resumed run the same way for ever; the tries
        that came before an answer that parsed stay, so a rerun replays exactly."""
        keys = [(request.key(self.identity),) for request in requests]
        with self._lock:
            self._db.executemany("DELETE FROM answers WHERE key = ?", keys)

    def close(self) -> None:
        with self._lock:
            self._db.close()
