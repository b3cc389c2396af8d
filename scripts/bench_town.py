"""The town benchmark: smallville-3 over 2 game hours on the embedded model, without the
replay cache, and what it cost per agent per game-hour.

    python scripts/bench_town.py [--hours 2] [--world worlds/smallville-3] [--start HH:MM]
                                 [--keep DIR] [--concurrency N] [--config FILE]

``--start`` begins on the scenario's first day at that time instead of at the scenario's
start (e.g. ``--world worlds/smallville --start 08:00`` for the 25-resident hour).

Reference: the original implementation averaged about 54 model calls and 26,000 tokens per
agent per game-hour (25 agents, GPT-3.5).
"""

from __future__ import annotations

import argparse
import tempfile
from datetime import datetime, time
from pathlib import Path

from simulacra.settings import Settings
from simulacra.sim.simulation import Simulation
from simulacra.sim.stats import run_stats
from simulacra.world.files import load_world

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", type=Path, default=ROOT / "worlds" / "smallville-3")
    parser.add_argument("--hours", type=float, default=2.0)
    parser.add_argument(
        "--start", type=time.fromisoformat, help="HH:MM on the scenario's first day"
    )
    parser.add_argument("--model", type=Path, help="a GGUF file (default: the embedded model)")
    parser.add_argument("--keep", type=Path, help="write the run here instead of a temp dir")
    parser.add_argument(
        "--concurrency", type=int, help="model calls at once (default: engine.concurrency)"
    )
    parser.add_argument("--config", type=Path, help="a settings file, as `simulacra --config`")
    args = parser.parse_args()

    settings = Settings.load(args.config)
    settings.llm.cache = False  # measure the model, not the replay cache
    settings.llm.model = args.model
    if args.concurrency:
        settings.engine.concurrency = args.concurrency
    with tempfile.TemporaryDirectory() as tmp:
        out = args.keep or Path(tmp) / "run"
        start = None
        if args.start:
            first_day = load_world(args.world).scenario.start.date()
            start = datetime.combine(first_day, args.start)
        sim = Simulation.create(args.world, out, hours=args.hours, settings=settings, start=start)
        sim.run()
        sim.close()
        r = run_stats(out)
    t = r.calls
    print(f"{args.world.name}: {r.agents} agents, {r.game_hours:.1f} game hours, {r.steps} steps")
    print(f"model calls per agent per game-hour     {r.per_agent_hour(t.calls):8.1f}")
    print(f"prompt tokens per agent per game-hour   {r.per_agent_hour(t.prompt_tokens):8,.0f}")
    print(f"generated tokens per agent per game-hour{r.per_agent_hour(t.generated_tokens):8,.0f}")
    print(f"prompt tokens reused from the KV cache  {t.reuse_share:8.0%}")
    print(f"  read again for want of kv_cache_mb    {t.evicted_share:8.0%}")
    print(f"wall seconds per agent per game-hour    {r.per_agent_hour(r.wall_seconds):8.1f}")
    prefill, decode, sample = (
        r.per_agent_hour(s) for s in (t.prefill_seconds, t.decode_seconds, t.sample_seconds)
    )
    print(
        f"  of which reading prompts {prefill:.1f} s, generating {decode:.1f} s, sampling "
        f"{sample:.1f} s ({t.resampled_tokens} of {t.generated_tokens} tokens sampled again "
        "under the grammar's mask)"
    )
    print(
        f"parse failures {t.parse_failures}, invalid places {r.invalid_places}, "
        f"conversations {r.conversations}"
    )


if __name__ == "__main__":
    main()
