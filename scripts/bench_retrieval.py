"""Retrieval over 10,000 memories of one agent (paper §4.1 scoring on the numpy mirror).

    python scripts/bench_retrieval.py [--memories 10000] [--queries 300]

Embedding the query is not timed (a real query costs one sentence-transformers call, a few
milliseconds, and repeated queries hit the text-hash cache); the vectors are random unit
vectors of all-MiniLM-L6-v2's 384 dimensions, stored in Chroma and SQLite as usual.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

from simulacra.memory import MemoryStore, NewMemory
from simulacra.settings import RetrievalSettings


class RandomEmbedder:
    """Stable random unit vectors per text."""

    identity = "random"

    def __init__(self, dim: int = 384) -> None:
        self.dim = dim
        self.cache: dict[str, np.ndarray] = {}

    def embed(self, texts):
        out = []
        for text in texts:
            if text not in self.cache:
                rng = np.random.default_rng(abs(hash(text)) % (2**32))
                v = rng.standard_normal(self.dim).astype(np.float32)
                self.cache[text] = v / np.linalg.norm(v)
            out.append(self.cache[text])
        return np.stack(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("-k", type=int, default=10)
    args = parser.parse_args()

    embedder = RandomEmbedder()
    start = datetime(2023, 2, 13, 7)
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore(Path(tmp))
        stream = store.stream("Klaus Mueller", embedder, RetrievalSettings())
        t0 = time.perf_counter()
        batch = 500
        for first in range(0, args.memories, batch):
            memories = [
                NewMemory(f"memory number {i}", importance=int(rng.integers(1, 11)))
                for i in range(first, min(first + batch, args.memories))
            ]
            stream.add(memories, start + timedelta(minutes=first))
        store.commit()
        print(f"stored {len(stream):,} memories in {time.perf_counter() - t0:.1f} s")

        queries = [f"query {i}" for i in range(args.queries)]
        embedder.embed(queries)  # embedding is not what is measured
        now = start + timedelta(days=10)
        for touch in (False, True):
            times = []
            for query in queries:
                t = time.perf_counter()
                stream.retrieve(query, now, args.k, touch=touch)
                times.append((time.perf_counter() - t) * 1000)
            label = "with last-access update" if touch else "scoring and top-k"
            p95 = statistics.quantiles(times, n=20)[-1]
            print(
                f"retrieve top {args.k} ({label}): mean {statistics.mean(times):.2f} ms, "
                f"p95 {p95:.2f} ms"
            )
        ok = statistics.mean(times) < 10
        print(f"target mean < 10 ms over {len(stream):,} memories: {'ok' if ok else 'MISSED'}")
        store.close()


if __name__ == "__main__":
    main()
