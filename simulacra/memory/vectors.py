"""The durable vector store: Chroma, one collection per agent, our own embeddings.

Chroma runs embedded (on disk beside the memories) by default, or as a server (`chroma run`)
for towns whose memories outgrow one process. It never embeds anything itself (its default
embedding function would download a model) and its telemetry is off.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

from simulacra.errors import UserError


def _quiet_chroma() -> None:
    os.environ["ANONYMIZED_TELEMETRY"] = "False"


def collection_name(agent: str, namespace: str = "") -> str:
    """Chroma's naming rules ([a-zA-Z0-9._-], 3-63 characters) applied to an agent's name; the
    hash keeps names that differ only in other characters apart. On a shared server the
    ``namespace`` keeps the agents of different memory stores apart."""
    slug = re.sub(r"[^a-z0-9]+", "-", agent.lower()).strip("-") or "agent"
    digest = hashlib.sha1(agent.encode()).hexdigest()[:8]
    if namespace:
        return f"{namespace[:12]}-{slug[:36]}-{digest}"
    return f"{slug[:48]}-{digest}"


def server_address(url: str) -> tuple[str, int, bool]:
    """Host, port and TLS of a Chroma server URL such as ``http://127.0.0.1:8000``."""
    parts = urlsplit(url.strip())
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme not in ("http", "https") or not parts.hostname or port is None:
        raise UserError(
            f"not a Chroma server URL: {url!r}",
            field="--chroma / vectors.server",
            fix="give scheme, host and port, e.g. http://127.0.0.1:8000",
        )
    return parts.hostname, port, parts.scheme == "https"


class VectorStore:
    """Chroma embedded on disk at ``path``, or the Chroma server at ``server``."""

    def __init__(self, path: Path, *, server: str | None = None, namespace: str = "") -> None:
        _quiet_chroma()
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        self.path = path
        self.server = server
        self.namespace = namespace if server else ""
        settings = ChromaSettings(anonymized_telemetry=False, allow_reset=False)
        if server is None:
            path.mkdir(parents=True, exist_ok=True)
            self._client = chromadb.PersistentClient(path=str(path), settings=settings)
            return
        host, port, ssl = server_address(server)
        with remote_errors(server, "connect"):
            self._client = chromadb.HttpClient(host=host, port=port, ssl=ssl, settings=settings)
            self._client.heartbeat()

    def collection(self, agent: str) -> AgentVectors:
        name = collection_name(agent, self.namespace)
        return AgentVectors(self._client, name, agent, server=self.server)


@contextlib.contextmanager
def remote_errors(server: str | None, what: str) -> Iterator[None]:
    """A failing Chroma server becomes a one-line error; the memories themselves are safe in
    SQLite and the vectors are rebuilt from them when the server is back."""
    if server is None:
        yield
        return
    try:
        yield
    except UserError:
        raise
    except Exception as e:  # noqa: BLE001 - chromadb raises many kinds; all mean the same
        problem = " ".join(str(e).split())[:160] or type(e).__name__
        raise UserError(
            f"the Chroma server failed to {what}: {problem}",
            file=server,
            field="--chroma / vectors.server",
            fix="start it (`chroma run --host 127.0.0.1 --port PORT --path DIR`) or leave out "
            "--chroma for the embedded store; a run resumes from its last checkpoint",
        ) from None


class AgentVectors:
    """One agent's vectors, keyed by memory id."""

    def __init__(self, client, name: str, agent: str, *, server: str | None = None) -> None:
        self._client = client
        self._name = name
        self._agent = agent
        self._server = server
        with remote_errors(server, "open a collection"):
            self._batch = min(client.get_max_batch_size(), 2000)
            self._c = self._open()

    def _open(self):
        return self._client.get_or_create_collection(
            self._name,
            embedding_function=None,
            configuration={"hnsw": {"space": "cosine"}},
            metadata={"agent": self._agent},
        )

    def drop(self) -> None:
        """Delete the collection (a check's scratch collection on a shared server)."""
        with remote_errors(self._server, "delete a collection"):
            self._client.delete_collection(self._name)

    def rebuild(self) -> None:
        """Start the collection afresh (its owner re-adds every vector from the records)."""
        with contextlib.suppress(Exception):
            self._client.delete_collection(self._name)
        with remote_errors(self._server, "create a collection"):
            self._c = self._open()

    def upsert(self, ids: Sequence[int], vectors: np.ndarray) -> None:
        vectors = np.asarray(vectors)
        with remote_errors(self._server, "store vectors"):
            for start in range(0, len(ids), self._batch):  # Chroma refuses oversized batches
                chunk = slice(start, start + self._batch)
                self._c.upsert(ids=[str(i) for i in ids[chunk]], embeddings=vectors[chunk].tolist())

    def delete(self, ids: Sequence[int]) -> None:
        with remote_errors(self._server, "delete vectors"):
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
        with remote_errors(self._server, "search"):
            n = self._c.count()
            if n == 0:
                return []
            got = self._c.query(query_embeddings=[np.asarray(vector).tolist()], n_results=min(k, n))
        return [(int(i), 1.0 - d) for i, d in zip(got["ids"][0], got["distances"][0], strict=True)]

    def count(self) -> int:
        with remote_errors(self._server, "count vectors"):
            return self._c.count()
