"""A directory of memory: SQLite for records and saved state, Chroma for vectors.

One store holds any number of agents (one Chroma collection each). Writes gather in one
SQLite transaction until :meth:`MemoryStore.commit`, which first writes pending vectors to
Chroma and then commits, so a process killed at any moment leaves the last commit intact;
on reopening, each stream reconciles Chroma with SQLite. SQLite is the record: Chroma,
embedded or a server, can always be rebuilt from it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import uuid
from pathlib import Path
from typing import Any

from simulacra.embed import Embedder
from simulacra.memory.stream import SCHEMA, MemoryStream
from simulacra.memory.vectors import VectorStore
from simulacra.settings import RetrievalSettings

DB_FILE = "memory.sqlite"
CHROMA_DIR = "chroma"
STORE_ID_KEY = "store_id"


class MemoryStore:
    """``vector_server``: the URL of a Chroma server to keep the vectors in instead of the
    embedded Chroma in ``directory/chroma``."""

    def __init__(self, directory: Path, *, vector_server: str | None = None) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        # Lockstep tasks (simulacra/sim/lockstep.py) write from their threads, one at a time.
        self._db = sqlite3.connect(directory / DB_FILE, timeout=30, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(SCHEMA)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS state (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
        )
        self._db.commit()
        self._vectors = VectorStore(
            directory / CHROMA_DIR,
            server=vector_server,
            namespace=self._namespace() if vector_server else "",
        )
        self._streams: dict[str, MemoryStream] = {}

    def _namespace(self) -> str:
        """The prefix of this store's collections on a shared Chroma server: a random id made
        with the store, mixed with where the store is, so a forked copy of a run gets
        collections of its own (filled from its records on opening) instead of sharing."""
        store_id = self.load_state(STORE_ID_KEY)
        if store_id is None:
            store_id = uuid.uuid4().hex
            self.save_state(STORE_ID_KEY, store_id)
            self._db.commit()
        place = f"{store_id}|{self.directory.resolve()}"
        return "m" + hashlib.sha1(place.encode()).hexdigest()[:11]

    def stream(self, agent: str, embedder: Embedder, weights: RetrievalSettings) -> MemoryStream:
        if agent not in self._streams:
            self._streams[agent] = MemoryStream(
                agent, self._db, self._vectors.collection(agent), embedder, weights
            )
        return self._streams[agent]

    def agents(self) -> list[str]:
        rows = self._db.execute("SELECT DISTINCT agent FROM memories ORDER BY agent")
        return [r[0] for r in rows]

    def load_state(self, key: str) -> Any | None:
        text = self.load_text(key)
        return json.loads(text) if text is not None else None

    def save_state(self, key: str, value: Any) -> None:
        self.save_text(key, json.dumps(value, sort_keys=True))

    def load_text(self, key: str) -> str | None:
        """What was saved under ``key``: a JSON document (a typed state's, see state.py)."""
        row = self._db.execute("SELECT value FROM state WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def save_text(self, key: str, text: str) -> None:
        """Joins the open transaction: saved state and memories commit together."""
        self._db.execute("INSERT OR REPLACE INTO state VALUES (?, ?)", (key, text))

    def commit(self) -> None:
        for stream in self._streams.values():
            stream.flush()
        self._db.commit()

    def close(self) -> None:
        self._db.close()
