"""The memory stream (paper §4.1): every experience of one agent, durable and retrievable.

Records live in SQLite, vectors in Chroma; retrieval runs on an in-memory numpy mirror of
both, so scoring 10,000 memories takes about a millisecond. Nothing here calls a language
model: callers rate importance first (see :mod:`simulacra.memory.importance`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

import numpy as np

from simulacra.embed import Embedder
from simulacra.memory.record import Kind, MemoryRecord, NewMemory
from simulacra.memory.retrieval import Scores, score, top
from simulacra.memory.vectors import AgentVectors
from simulacra.settings import RetrievalSettings

_EPOCH = datetime(2000, 1, 1)

SCHEMA = """
CREATE TABLE IF NOT EXISTS memories (
    agent TEXT NOT NULL,
    id INTEGER NOT NULL,
    kind TEXT NOT NULL,
    description TEXT NOT NULL,
    created TEXT NOT NULL,
    last_accessed TEXT NOT NULL,
    importance INTEGER NOT NULL,
    depth INTEGER NOT NULL DEFAULT 0,
    evidence TEXT NOT NULL DEFAULT '[]',
    subject TEXT,
    predicate TEXT,
    object TEXT,
    keywords TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (agent, id)
)
"""


def hours(t: datetime) -> float:
    return (t - _EPOCH).total_seconds() / 3600.0


@dataclass(frozen=True)
class Retrieved:
    """A retrieved memory with its normalised score components (paper §4.1)."""

    record: MemoryRecord
    recency: float
    importance: float
    relevance: float
    score: float


class _Mirror:
    """Growable numpy columns, one row per memory, in id order."""

    def __init__(self) -> None:
        self.n = 0
        self.ids = np.zeros(0, np.int64)
        self.importance = np.zeros(0, np.float64)
        self.accessed = np.zeros(0, np.float64)
        self.kinds = np.zeros(0, dtype="<U11")
        self.vectors = np.zeros((0, 0), np.float32)
        self.row: dict[int, int] = {}

    def _grow(self, need: int, dim: int) -> None:
        capacity = self.ids.shape[0]
        if self.vectors.shape[1] != dim and self.n == 0:
            self.vectors = np.zeros((capacity, dim), np.float32)
        if need <= capacity:
            return
        new = max(need, 2 * capacity, 64)
        self.ids = np.resize(self.ids, new)
        self.importance = np.resize(self.importance, new)
        self.accessed = np.resize(self.accessed, new)
        self.kinds = np.resize(self.kinds, new)
        vectors = np.zeros((new, dim), np.float32)
        vectors[: self.n] = self.vectors[: self.n]
        self.vectors = vectors

    def append(self, records: Sequence[MemoryRecord], vectors: np.ndarray) -> None:
        if not records:
            return
        self._grow(self.n + len(records), vectors.shape[1])
        for offset, (record, vector) in enumerate(zip(records, vectors, strict=True)):
            i = self.n + offset
            self.ids[i] = record.id
            self.importance[i] = record.importance
            self.accessed[i] = hours(record.last_accessed)
            self.kinds[i] = record.kind.value
            self.vectors[i] = vector
            self.row[record.id] = i
        self.n += len(records)


class MemoryStream:
    """One agent's memories. Writes join the store's open transaction; the owner commits."""

    def __init__(
        self,
        agent: str,
        db: sqlite3.Connection,
        vectors: AgentVectors,
        embedder: Embedder,
        weights: RetrievalSettings,
    ) -> None:
        self.agent = agent
        self.weights = weights
        self._db = db
        self._vectors = vectors
        self._embedder = embedder
        self._records: dict[int, MemoryRecord] = {}
        # Memories kept on record but left out of retrieval, e.g. low-value ones a summary
        # has folded together; the owner decides and saves which.
        self.hidden: set[int] = set()
        self._pending: dict[int, np.ndarray] = {}  # vectors not yet written to Chroma
        self._mirror = _Mirror()
        self._load()

    # -- loading ---------------------------------------------------------------------------

    def _load(self) -> None:
        rows = self._db.execute(
            "SELECT id, kind, description, created, last_accessed, importance, depth, evidence,"
            " subject, predicate, object, keywords FROM memories WHERE agent = ? ORDER BY id",
            (self.agent,),
        ).fetchall()
        records = [_from_row(row) for row in rows]
        self._records = {r.id: r for r in records}
        try:
            ids, stored = self._vectors.all()
        except Exception:  # noqa: BLE001 - any Chroma failure: the records can rebuild it
            self._vectors.rebuild()
            ids, stored = [], []
        by_id = dict(zip(ids, stored, strict=True)) if ids else {}
        # Reconcile with Chroma: a kill between the two writes can leave either side ahead.
        orphans = [i for i in by_id if i not in self._records]
        self._vectors.delete(orphans)
        missing = [r for r in records if r.id not in by_id]
        if missing:
            fresh = self._embedder.embed([r.description for r in missing])
            self._vectors.upsert([r.id for r in missing], fresh)
            by_id.update(zip([r.id for r in missing], fresh, strict=True))
        if records:
            self._mirror.append(records, np.stack([by_id[r.id] for r in records]))

    # -- reading ---------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._records)

    def __iter__(self):
        return iter(self._records.values())

    def get(self, memory_id: int) -> MemoryRecord:
        return self._records[memory_id]

    def since_id(self, first: int) -> list[MemoryRecord]:
        """Memories with ids from ``first`` on (ids are consecutive), oldest first."""
        return [self._records[i] for i in range(max(first, 1), self.next_id())]

    def recent(self, n: int, kinds: Iterable[Kind] | None = None) -> list[MemoryRecord]:
        """The ``n`` newest memories (by creation time), oldest first."""
        wanted = set(kinds) if kinds is not None else None
        chosen = [r for r in self._records.values() if wanted is None or r.kind in wanted]
        chosen.sort(key=lambda r: (r.created, r.id))
        return chosen[-n:] if n else []

    def since(self, t: datetime, kinds: Iterable[Kind] | None = None) -> list[MemoryRecord]:
        wanted = set(kinds) if kinds is not None else None
        return [
            r
            for r in self._records.values()
            if r.created >= t and (wanted is None or r.kind in wanted)
        ]

    # -- writing ---------------------------------------------------------------------------

    def next_id(self) -> int:
        """The id the next memory added will get (memories of one batch get consecutive ids)."""
        return max(self._records, default=0) + 1

    def add(self, memories: Sequence[NewMemory], at: datetime) -> list[MemoryRecord]:
        """Store rated memories created at game time ``at``, embedding them in one batch."""
        if not memories:
            return []
        if any(m.importance is None for m in memories):
            raise ValueError("rate importance before adding (see simulacra.memory.importance)")
        next_id = self.next_id()
        records: list[MemoryRecord] = []
        for offset, m in enumerate(memories):
            depth = 0
            if m.kind is Kind.REFLECTION and m.evidence:
                # Evidence may be an earlier memory of this same batch.
                known = {**self._records, **{r.id: r for r in records}}
                depth = 1 + max(known[i].depth for i in m.evidence)
            elif m.kind is Kind.REFLECTION:
                depth = 1
            records.append(
                MemoryRecord(
                    id=next_id + offset,
                    kind=m.kind,
                    description=m.description,
                    created=at,
                    last_accessed=at,
                    importance=int(m.importance),
                    depth=depth,
                    evidence=tuple(m.evidence),
                    subject=m.subject,
                    predicate=m.predicate,
                    object=m.object,
                    keywords=m.keywords,
                )
            )
        vectors = self._embedder.embed([r.description for r in records])
        self._db.executemany(
            "INSERT INTO memories VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [_to_row(self.agent, r) for r in records],
        )
        for record, vector in zip(records, vectors, strict=True):
            self._records[record.id] = record
            self._pending[record.id] = vector
        self._mirror.append(records, vectors)
        return records

    def flush(self) -> None:
        """Write pending vectors to Chroma; the store calls this just before it commits."""
        if self._pending:
            self._vectors.upsert(list(self._pending), np.stack(list(self._pending.values())))
            self._pending.clear()

    # -- retrieval -------------------------------------------------------------------------

    def retrieve(
        self,
        query: str,
        now: datetime,
        k: int | None = None,
        kinds: Iterable[Kind] | None = None,
        *,
        touch: bool = True,
        weights: RetrievalSettings | None = None,
    ) -> list[Retrieved]:
        return self.retrieve_many([query], now, k, kinds, touch=touch, weights=weights)[0]

    def retrieve_many(
        self,
        queries: Sequence[str],
        now: datetime,
        k: int | None = None,
        kinds: Iterable[Kind] | None = None,
        *,
        touch: bool = True,
        weights: RetrievalSettings | None = None,
    ) -> list[list[Retrieved]]:
        """The top ``k`` memories per query (queries embedded in one batch). Retrieved memories
        get ``last_accessed = now`` unless ``touch`` is false; ``weights`` replaces the
        stream's own for this call (e.g. relevance only)."""
        weights = weights or self.weights
        k = k or weights.top_k
        m = self._mirror
        if m.n == 0 or not queries:
            return [[] for _ in queries]
        # A slice keeps numpy on views; only a kinds filter needs a (copying) index array.
        candidates: slice | np.ndarray = slice(0, m.n)
        if kinds is not None:
            wanted = [kind.value for kind in kinds]
            candidates = np.flatnonzero(np.isin(m.kinds[: m.n], wanted))
        if self.hidden:
            keep = ~np.isin(m.ids[: m.n], list(self.hidden))
            if isinstance(candidates, slice):
                candidates = np.flatnonzero(keep)
            else:
                candidates = candidates[keep[candidates]]
        rows = np.arange(m.n) if isinstance(candidates, slice) else candidates
        query_vectors = self._embedder.embed(list(queries))
        results = []
        touched: set[int] = set()
        for query_vector in query_vectors:
            if rows.size == 0:
                results.append([])
                continue
            s = self._score(query_vector, now, candidates, weights)
            chosen = top(s.total, k)
            hits = []
            for j in chosen:
                memory_id = int(m.ids[rows[j]])
                hits.append(
                    Retrieved(
                        self._records[memory_id],
                        float(s.recency[j]),
                        float(s.importance[j]),
                        float(s.relevance[j]),
                        float(s.total[j]),
                    )
                )
                touched.add(memory_id)
            results.append(hits)
        if touch and touched:
            self._touch(sorted(touched), now)
        return results

    def _score(
        self,
        query_vector: np.ndarray,
        now: datetime,
        rows: slice | np.ndarray,
        weights: RetrievalSettings,
    ) -> Scores:
        m = self._mirror
        return score(
            query=query_vector,
            vectors=m.vectors[rows],
            importance=m.importance[rows],
            hours_since_access=hours(now) - m.accessed[rows],
            weights=weights,
        )

    def _touch(self, ids: list[int], now: datetime) -> None:
        stamp = now.isoformat()
        self._db.executemany(
            "UPDATE memories SET last_accessed = ? WHERE agent = ? AND id = ?",
            [(stamp, self.agent, i) for i in ids],
        )
        for i in ids:
            self._records[i] = replace(self._records[i], last_accessed=now)
            self._mirror.accessed[self._mirror.row[i]] = hours(now)


def _to_row(agent: str, r: MemoryRecord) -> tuple:
    return (
        agent,
        r.id,
        r.kind.value,
        r.description,
        r.created.isoformat(),
        r.last_accessed.isoformat(),
        r.importance,
        r.depth,
        json.dumps(list(r.evidence)),
        r.subject,
        r.predicate,
        r.object,
        json.dumps(list(r.keywords)),
    )


def _from_row(row: tuple) -> MemoryRecord:
    (mid, kind, description, created, accessed, importance, depth, evidence, s, p, o, kw) = row
    return MemoryRecord(
        id=mid,
        kind=Kind(kind),
        description=description,
        created=datetime.fromisoformat(created),
        last_accessed=datetime.fromisoformat(accessed),
        importance=importance,
        depth=depth,
        evidence=tuple(json.loads(evidence)),
        subject=s,
        predicate=p,
        object=o,
        keywords=tuple(json.loads(kw)),
    )
