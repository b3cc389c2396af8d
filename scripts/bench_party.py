"""Isabella's party, measured: smallville-3 from Feb 13 07:00 to Feb 14 19:00 on the default
model, then `simulacra eval town` and the day judge.

    python scripts/bench_party.py [--seed 1] [--model PATH] [--gpu-layers -1]
    python scripts/bench_party.py --seed 1           # stopped? the same again goes on
    python scripts/bench_party.py --seed 1 --as-is   # report on the kept run as it stands

The paper's one emergent behaviour: an intention seeded in one agent (Isabella Rodriguez
throws a Valentine's Day party at Hobbs Cafe, Feb 14, 5-7 pm) spreads through conversations,
and people come. The run is kept (default runs/party-seed<SEED>) and resumes where it was;
the town evaluation keeps its answers and resumes too. Writes scripts/results/party.md: who
learned of the party, when and from whom (the line that told them), whose Feb 14 plan holds
it, who was at Hobbs Cafe during it, the conversations of each resident-day and what they
were about, the day judge's counts, model calls and seconds.
"""

from __future__ import annotations

import argparse
import time
from datetime import datetime
from pathlib import Path

from benchrun import ROOT, add_run_options, bench_settings, report_to_out, run_kept
from party_report import write_report

from simulacra.errors import UserError
from simulacra.evaluation.day import evaluate_days
from simulacra.evaluation.daylog import read_day_log
from simulacra.evaluation.evaluate import evaluate_the_town
from simulacra.evaluation.facts import Fact, seeded_facts
from simulacra.evaluation.records import EVAL_DIR, TOWN_SUMMARY, read_summary
from simulacra.evaluation.town import TownResult
from simulacra.settings import LLMSettings
from simulacra.sim import rundir
from simulacra.sim.stats import run_stats
from simulacra.world import load_world

# The window: the morning before the party to its end. Set here, whatever the scenario says.
START = datetime(2023, 2, 13, 7, 0)
END = datetime(2023, 2, 14, 19, 0)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--world", type=Path, default=ROOT / "worlds" / "smallville-3")
    parser.add_argument("--out", type=Path, default=ROOT / "scripts" / "results" / "party.md")
    parser.add_argument("--no-town", action="store_true", help="skip `eval town` (no model)")
    parser.add_argument("--no-density", action="store_true", help='skip "do you know X?"')
    add_run_options(parser, kept="runs/party-seed<SEED>")
    args = parser.parse_args()
    report_to_out(bench, args)


def bench(args: argparse.Namespace) -> str:
    settings, model_name = bench_settings(args)
    run = args.keep or ROOT / "runs" / f"party-seed{settings.llm.seed}"
    party = the_party(args.world)
    if (run / rundir.META_FILE).is_file() and rundir.read_meta(run).start != START:
        raise UserError(
            f"this run starts at {rundir.read_meta(run).start:%b %d %H:%M}, not the party "
            f"window's {START:%b %d %H:%M}",
            file=run,
            fix="give another --keep",
        )
    hours = (END - START).total_seconds() / 3600
    print(f"run: {run}", flush=True)
    seconds, seed = run_kept(
        args.world,
        run,
        hours=hours,
        settings=settings,
        start=START,
        as_is=args.as_is,
        gpu_layers=args.gpu_layers,
    )
    town, town_seconds = the_town(run, args)
    return write_report(
        read_day_log(run),
        fact=party,
        town=town,
        day=evaluate_days(run),
        stats=run_stats(run),
        seconds=seconds,
        town_seconds=town_seconds,
        model=model_name,
        seed=seed,
    )


def the_party(world: Path) -> Fact:
    """The paper's seeded party (simulacra/evaluation/facts.toml), if its host lives here."""
    names = [p.name for p in load_world(world).personas]
    party = next((f for f in seeded_facts(names) if f.name == "party"), None)
    if party is None or party.start is None or party.end is None or party.place is None:
        raise UserError(
            "this world has no Isabella Rodriguez to throw the party",
            file=world,
            fix="run it on worlds/smallville-3 or worlds/smallville",
        )
    return party


def the_town(run: Path, args: argparse.Namespace) -> tuple[TownResult | None, float]:
    """`eval town` at the run's end (answers on file are not asked again), or the last
    summary on file with --no-town."""
    if args.no_town:
        summary = read_summary(run / EVAL_DIR / TOWN_SUMMARY)
        return (TownResult.model_validate(summary) if summary else None), 0.0
    began = time.monotonic()
    layers = LLMSettings(n_gpu_layers=args.gpu_layers) if args.gpu_layers is not None else None
    result = evaluate_the_town(
        run,
        with_density=not args.no_density,
        overrides=layers,
        on_progress=lambda what: print(f"  eval town: {what}", flush=True),
    )
    return result, time.monotonic() - began


if __name__ == "__main__":
    main()
