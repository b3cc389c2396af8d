"""The thread board: posts and replies in SQLite (``feed.sqlite`` in the run directory), the
feed's game clock, and every decision an agent made about a message.

A message's parent is the message it answers; a post has none. The chain of a message (the
"thread boundary" of the AI-DOL design) is the path from its post down to it, never the
sibling branches.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

BOARD_FILE = "feed.sqlite"

SCHEMA = """
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY,
    parent INTEGER REFERENCES messages(id),
    author TEXT NOT NULL,
    by_agent INTEGER NOT NULL DEFAULT 0,
    text TEXT NOT NULL,
    posted TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_by_time ON messages (posted, id);
CREATE TABLE IF NOT EXISTS decisions (
    agent TEXT NOT NULL,
    message INTEGER NOT NULL REFERENCES messages(id),
    at TEXT NOT NULL,
    reaction TEXT NOT NULL,
    thought TEXT NOT NULL,
    target INTEGER,
    reply INTEGER REFERENCES messages(id),
    recent TEXT NOT NULL DEFAULT '',
    memories TEXT NOT NULL DEFAULT '[]',
    facts TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (agent, message)
);
CREATE TABLE IF NOT EXISTS clock (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


def stamp(t: datetime) -> str:
    """Game times as fixed-width text, so SQLite orders them as times."""
    return t.replace(microsecond=0).isoformat(sep=" ")


@dataclass(frozen=True)
class Message:
    id: int
    parent: int | None
    author: str
    by_agent: bool
    text: str
    posted: datetime

    @property
    def cursor(self) -> tuple[str, int]:
        return (stamp(self.posted), self.id)


@dataclass(frozen=True)
class FeedDecision:
    """What an agent made of one message: the thought, the choice, and what it used."""

    agent: str
    message: int
    at: datetime
    reaction: str  # "react" or "ignore"
    thought: str
    target: int | None = None
    reply: int | None = None
    recent: str = ""
    memories: list[dict] = field(default_factory=list)  # {"id", "created", "text"}
    facts: list[str] = field(default_factory=list)


class Board:
    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / BOARD_FILE
        self._db = sqlite3.connect(self.path, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)
        self._db.commit()

    def close(self) -> None:
        self._db.close()

    # -- the clock -------------------------------------------------------------------------

    @property
    def now(self) -> datetime:
        row = self._db.execute("SELECT value FROM clock WHERE key = 'now'").fetchone()
        if row is None:
            raise RuntimeError("the board has no clock yet")
        return datetime.fromisoformat(row[0])

    def set_now(self, t: datetime) -> None:
        with self._db:
            self._db.execute("INSERT OR REPLACE INTO clock VALUES ('now', ?)", (stamp(t),))

    # -- messages --------------------------------------------------------------------------

    def post(
        self,
        author: str,
        text: str,
        at: datetime,
        *,
        reply_to: int | None = None,
        by_agent: bool = False,
        commit: bool = True,
    ) -> Message:
        cur = self._db.execute(
            "INSERT INTO messages (parent, author, by_agent, text, posted) VALUES (?, ?, ?, ?, ?)",
            (reply_to, author, int(by_agent), text, stamp(at)),
        )
        if commit:
            self._db.commit()
        return self.get(int(cur.lastrowid))

    def get(self, message_id: int) -> Message:
        row = self._db.execute(_SELECT + " WHERE id = ?", (message_id,)).fetchone()
        if row is None:
            raise KeyError(message_id)
        return _message(row)

    def find(self, message_id: int) -> Message | None:
        try:
            return self.get(message_id)
        except KeyError:
            return None

    def messages(self) -> list[Message]:
        return [_message(r) for r in self._db.execute(_SELECT + " ORDER BY posted, id")]

    def chain(self, message_id: int) -> list[Message]:
        """The thread boundary: the post, then each reply down to ``message_id``."""
        chain = []
        current: int | None = message_id
        while current is not None:
            message = self.get(current)
            chain.append(message)
            current = message.parent
        return chain[::-1]

    def after(
        self, cursor: tuple[str, int], until: datetime, *, skip_author: str, limit: int
    ) -> list[Message]:
        """Messages past ``cursor`` (posted time, id) and posted by ``until``, oldest first,
        leaving out ``skip_author``'s own."""
        posted, last = cursor
        rows = self._db.execute(
            _SELECT + " WHERE (posted > ? OR (posted = ? AND id > ?)) AND posted <= ?"
            " AND author != ? ORDER BY posted, id LIMIT ?",
            (posted, posted, last, stamp(until), skip_author, limit),
        )
        return [_message(r) for r in rows]

    # -- decisions -------------------------------------------------------------------------

    def decision(self, agent: str, message_id: int) -> FeedDecision | None:
        row = self._db.execute(
            "SELECT agent, message, at, reaction, thought, target, reply, recent, memories, facts"
            " FROM decisions WHERE agent = ? AND message = ?",
            (agent, message_id),
        ).fetchone()
        return _decision(row) if row else None

    def decisions(self) -> list[FeedDecision]:
        rows = self._db.execute(
            "SELECT agent, message, at, reaction, thought, target, reply, recent, memories, facts"
            " FROM decisions ORDER BY at, message, agent"
        )
        return [_decision(r) for r in rows]

    def record(self, decision: FeedDecision, reply_text: str | None) -> FeedDecision:
        """The decision and the reply it makes, in one transaction: a reply is on the board
        exactly when its decision is."""
        with self._db:
            reply = None
            if reply_text is not None and decision.target is not None:
                reply = self.post(
                    decision.agent,
                    reply_text,
                    decision.at,
                    reply_to=decision.target,
                    by_agent=True,
                    commit=False,
                ).id
            self._db.execute(
                "INSERT INTO decisions VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    decision.agent,
                    decision.message,
                    stamp(decision.at),
                    decision.reaction,
                    decision.thought,
                    decision.target,
                    reply,
                    decision.recent,
                    json.dumps(decision.memories, ensure_ascii=False),
                    json.dumps(decision.facts, ensure_ascii=False),
                ),
            )
        return self.decision(decision.agent, decision.message)  # type: ignore[return-value]

    def set_facts(self, agent: str, message_id: int, facts: list[str]) -> None:
        with self._db:
            self._db.execute(
                "UPDATE decisions SET facts = ? WHERE agent = ? AND message = ?",
                (json.dumps(facts, ensure_ascii=False), agent, message_id),
            )


_SELECT = "SELECT id, parent, author, by_agent, text, posted FROM messages"


def _message(row: tuple) -> Message:
    mid, parent, author, by_agent, text, posted = row
    return Message(mid, parent, author, bool(by_agent), text, datetime.fromisoformat(posted))


def _decision(row: tuple) -> FeedDecision:
    agent, message, at, reaction, thought, target, reply, recent, memories, facts = row
    return FeedDecision(
        agent,
        message,
        datetime.fromisoformat(at),
        reaction,
        thought,
        target,
        reply,
        recent,
        json.loads(memories),
        json.loads(facts),
    )
