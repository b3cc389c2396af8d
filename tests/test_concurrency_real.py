"""Residents thinking in parallel on the real stack: SmolLM2 in llama.cpp (its calls take
turns under the backend's lock), the real embedder, Chroma; a rerun replays for free."""

from __future__ import annotations

from pathlib import Path

import pytest

from simulacra.settings import Settings
from simulacra.sim.eventlog import EVENTS_FILE, read_events
from simulacra.sim.simulation import Simulation

pytestmark = pytest.mark.real

WORLD = Path(__file__).resolve().parent.parent / "worlds" / "smallville-3"


def run(out: Path, embedder) -> tuple[bytes, int, int]:
    settings = Settings()
    settings.engine.concurrency = 3
    sim = Simulation.create(WORLD, out, hours=0.05, settings=settings, embedder=embedder)
    sim.run()
    totals = sim.model.log.totals
    sim.close()
    return (out / EVENTS_FILE).read_bytes(), totals.calls, totals.cache_hits


def test_a_town_at_concurrency_3_runs_and_reruns_from_the_cache(tmp_path, real_embedder):
    events, calls, _ = run(tmp_path / "first", real_embedder)
    assert calls > 0
    records = list(read_events(tmp_path / "first" / EVENTS_FILE))
    assert [r.step for r in records] == list(range(18))
    assert all(r.plans for r in records[:1])
    again, calls, hits = run(tmp_path / "again", real_embedder)
    assert calls == 0 and hits > 0
    assert again == events
