"""The durable vector store: Chroma on disk, one collection per agent, our own embeddings.

Chroma never embeds anything itself (its default embedding function would download a model)
and its telemetry is off.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np


def _quiet_chroma() -> None:
    os.environ["ANONYMIZED_TELEMETRY"] = "False"


def collection_name(agent: str) -> str:
    """Chroma's naming rules ([a-zA-Z0-9._-], 3-63 characters) applied to an agent's name; the
    hash keeps names that differ only in other characters apart."""
    slug = re.sub(r"[^a-z0-9]+", "-", agent.lower()).strip("-") or "agent"
    return f"{slug[:48]}-{hashlib.sha1(agent.encode()).hexdigest()[:8]}"


class VectorStore:
    """A Chroma ``PersistentClient`` rooted at ``path``."""

    def __init__(self, path: Path) -> None:
        _quiet_chroma()
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        path.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._client = chromadb.PersistentClient(
            path=str(path),
            settings=ChromaSettings(anonymized_telemetry=False, allow_reset=False),
        )

    def collection(self, agent: str) -> AgentVectors:
        return AgentVectors(self._client, collection_name(agent), agent)


class AgentVectors:
    """One agent's vectors, keyed by memory id."""

    def __init__(self, client, name: str, agent: str) -> None:
        self._client = client
        self._name = name
        self._agent = agent
        self._batch = min(client.get_max_batch_size(), 2000)
        self._c = self._open()

    def _open(self):
        return self._client.get_or_create_collection(
            self._name,
            embedding_function=None,
            configuration={"hnsw": {"space": "cosine"}},
            metadata={"agent": self._agent},
        )

    def rebuild(self) -> None:
        """Start the collection afresh (its owner re-adds every vector from the records)."""
        with contextlib.suppress(Exception):
            self._client.delete_collection(self._name)
        self._c = self._open()

    def upsert(self, ids: Sequence[int], vectors: np.ndarray) -> None:
        vectors = np.asarray(vectors)
        for start in range(0, len(ids), self._batch):  # Chroma refuses oversized batches
            chunk = slice(start, start + self._batch)
            self._c.upsert(ids=[str(i) for i in ids[chunk]], embeddings=vectors[chunk].tolist())

    def delete(self, ids: Sequence[int]) -> None:
        for start in range(0, len(ids), self._batch):
            self._c.delete(ids=[str(i) for i in ids[start : start + self._batch]])

    def all(self) -> tuple[list[int], np.ndarray]:
        got = self._c.get(include=["embeddings"])
        ids = [int(i) for i in got["ids"]]
        vectors = got["embeddings"]
        if vectors is None or len(ids) == 0:
            return [], np.zeros((0, 0), np.float32)
        return ids, np.asarray(vectors, dtype=np.float32)

    def nearest(self, vector: np.ndarray, k: int) -> list[tuple[int, float]]:
        """Ids and cosine similarities of the ``k`` nearest vectors."""
        n = self._c.count()
        if n == 0:
            return []
        got = self._c.query(query_embeddings=[np.asarray(vector).tolist()], n_results=min(k, n))
        return [(int(i), 1.0 - d) for i, d in zip(got["ids"][0], got["distances"][0], strict=True)]

    def count(self) -> int:
        return self._c.count()
