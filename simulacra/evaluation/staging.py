"""A run's residents as they were at a moment of it, to ask again what they did then.

A conversation of a party run is worth hearing again under a changed prompt, but running the
day again to reach it takes an hour. Here the two speakers are staged instead: each gets the
memories it had made before that moment (the run's records, copied into a scratch store),
what it was up to that day, and an identity written afresh from those memories. What they
say next depends on their minds then, not on the run's later days.

Two things of the moment are not on record, and are approximated: when each memory was last
retrieved (its creation time stands in, so recency counts from when a thing happened), and
the summary the resident's prompts began with (written again here, at the moment staged).
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from simulacra.agent import AgentState, GenerativeAgent
from simulacra.embed import Embedder
from simulacra.llm import StructuredModel
from simulacra.memory import MemoryStore
from simulacra.memory.store import DB_FILE
from simulacra.settings import Settings
from simulacra.sim.rundir import CHECKPOINT_KEY
from simulacra.world import World


@contextmanager
def minds_at(
    directory: Path,
    world: World,
    names: Sequence[str],
    at: datetime,
    *,
    model: StructuredModel,
    embedder: Embedder,
    settings: Settings,
    states: dict[str, AgentState] | None = None,
) -> Iterator[dict[str, GenerativeAgent]]:
    """``names`` of the run in ``directory`` as they were just before ``at``: agents that can
    be asked anything, whose memories are gone with the context (nothing is written back).
    ``states``: the same minds staged before (their identities), so a second sample of one
    moment asks no summary again and starts from the same head of its prompts."""
    currently = _currently_on(directory, at)
    with tempfile.TemporaryDirectory(prefix="simulacra-staged-") as tmp:
        scratch = Path(tmp)
        _memories_before(directory / DB_FILE, scratch / DB_FILE, at)
        store = MemoryStore(scratch)
        try:
            minds = {}
            for name in names:
                stream = store.stream(name, embedder, settings.retrieval)
                agent = GenerativeAgent(
                    world.persona(name).persona(), stream, model, settings, now=at
                )
                if states and name in states:
                    agent.set_state(states[name])
                else:
                    agent.currently = currently.get(name, agent.currently)
                    agent.refresh_summary(at, force=True)
                minds[name] = agent
            yield minds
        finally:
            store.close()


def _memories_before(source: Path, target: Path, at: datetime) -> None:
    """A copy of the run's memory records made before ``at``, each last retrieved when made.
    Read through SQLite's backup, so a run still being written is read consistently."""
    with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    with sqlite3.connect(target) as db:
        stamp = at.isoformat()
        db.execute("DELETE FROM memories WHERE created >= ?", (stamp,))
        db.execute("UPDATE memories SET last_accessed = created")
        db.execute("DELETE FROM state")
    db.close()


def _currently_on(directory: Path, at: datetime) -> dict[str, str]:
    """What each resident was up to on ``at``'s day, where the run's last checkpoint is of
    that day (it is revised each morning after the first; the persona's holds until then)."""
    with sqlite3.connect(f"file:{directory / DB_FILE}?mode=ro", uri=True) as db:
        row = db.execute("SELECT value FROM state WHERE key = ?", (CHECKPOINT_KEY,)).fetchone()
    db.close()
    if row is None:
        return {}
    residents = json.loads(row[0]).get("town", {}).get("residents", {})
    found = {}
    for name, state in residents.items():
        agent = state.get("agent", {})
        if agent.get("now", "")[:10] == at.date().isoformat() and agent.get("currently"):
            found[name] = agent["currently"]
    return found
