"""Time A* on the full Smallville map: spawn point -> a random tile of a random arena.

    python scripts/bench_pathfinding.py [--world worlds/smallville] [-n 1000] [--seed 7]

Each query runs with the path cache cleared, so the figures are for real searches; a second
pass over the same queries shows what the cache saves when agents repeat their walks.
The goal is a mean under 5 ms per query.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from simulacra.world import load_world

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", type=Path, default=ROOT / "worlds" / "smallville")
    parser.add_argument("-n", type=int, default=1000, help="number of queries")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    start = time.perf_counter()
    world = load_world(args.world)
    load_ms = (time.perf_counter() - start) * 1000
    rng = random.Random(args.seed)
    spawns = list(world.spawns.values())
    queries = [
        (rng.choice(spawns), rng.choice(rng.choice(world.arenas).tiles)) for _ in range(args.n)
    ]

    cold, lengths = [], []
    for a, b in queries:
        world.grid.clear_cache()
        t = time.perf_counter()
        found = world.path(a, b)
        cold.append((time.perf_counter() - t) * 1000)
        if found is None:
            print(f"unreachable: {a} -> {b}", file=sys.stderr)
            return 1
        lengths.append(len(found))
    for a, b in queries:  # fill the cache
        world.path(a, b)
    warm = []
    for a, b in queries:
        t = time.perf_counter()
        world.path(a, b)
        warm.append((time.perf_counter() - t) * 1000)

    def p95(values: list[float]) -> float:
        return statistics.quantiles(values, n=20)[-1]

    mean = statistics.fmean(cold)
    print(
        f"{world.name}: {world.width} x {world.height} tiles, "
        f"{world.grid.walkable_count} walkable; loaded in {load_ms:.0f} ms"
    )
    print(
        f"{args.n} queries spawn -> random arena tile, mean path {statistics.fmean(lengths):.0f} "
        f"tiles (longest {max(lengths)})"
    )
    print(f"A* (cache cleared)  mean {mean:.2f} ms  p95 {p95(cold):.2f} ms  max {max(cold):.2f} ms")
    print(f"repeat (cached)     mean {statistics.fmean(warm):.3f} ms  p95 {p95(warm):.3f} ms")
    verdict = "ok" if mean < 5 else "TOO SLOW"
    print(f"target mean < 5 ms per query: {verdict}")
    return 0 if mean < 5 else 1


if __name__ == "__main__":
    sys.exit(main())
