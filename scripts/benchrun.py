"""What the whole-day benchmarks (bench_morning.py, bench_party.py) share: their options,
running or resuming a kept run, and the parts of their reports that read alike (the day
judge's counts, the costs)."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from simulacra.errors import UserError
from simulacra.evaluation.day import DayResult, FindingKind
from simulacra.llm import resolve_model
from simulacra.settings import LLMSettings, Settings
from simulacra.sim.simulation import Simulation
from simulacra.sim.stats import RunStats

ROOT = Path(__file__).resolve().parent.parent


def add_run_options(parser: argparse.ArgumentParser, kept: str = "a temp dir") -> None:
    """--model, --seed, --gpu-layers, --keep (the run's directory; default ``kept``), --as-is."""
    parser.add_argument("--model", type=Path, help="a GGUF file (default: the resolved model)")
    parser.add_argument(
        "--seed",
        type=int,
        help="the model's seed (default: settings); one meeting turns on a few sampled "
        "decisions, so other seeds show the spread",
    )
    parser.add_argument("--gpu-layers", type=int, help="layers on the GPU (-1: all)")
    parser.add_argument(
        "--keep", type=Path, help=f"write the run here instead of {kept}; if it is there, go on"
    )
    parser.add_argument(
        "--as-is", action="store_true", help="summarise the kept run as it stands, without running"
    )


def report_to_out(bench: Callable[[argparse.Namespace], str], args: argparse.Namespace) -> None:
    """The report of ``bench(args)`` written to ``args.out`` and printed; a user's mistake
    ends the script with its one-line error."""
    try:
        report = bench(args)
    except UserError as e:
        sys.exit(f"error: {e}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report, encoding="utf-8")
    print(report)


def bench_settings(args: argparse.Namespace) -> tuple[Settings, str]:
    """The run's settings (no replay cache: measure the model) and the model file's name."""
    settings = Settings()
    settings.llm.cache = False
    settings.llm.model = args.model
    if args.seed is not None:
        settings.llm.seed = args.seed
    if args.gpu_layers is not None:
        settings.llm.n_gpu_layers = args.gpu_layers
    model_file = resolve_model(args.model, cache_dir=settings.llm.cache_dir).path
    return settings, model_file.name


def run_kept(
    world: Path,
    run: Path,
    *,
    hours: float,
    settings: Settings,
    start: datetime | None = None,
    as_is: bool = False,
    gpu_layers: int | None = None,
) -> tuple[float, int]:
    """Create the run (or go on with a kept one that was stopped) and step it to its end;
    returns the wall seconds spent stepping, over every session of it, and its seed."""
    if (run / "meta.json").is_file():
        # With the settings it was made with; a kept run may go on on another machine.
        layers = LLMSettings(n_gpu_layers=gpu_layers) if gpu_layers is not None else None
        sim = Simulation.resume(run, overrides=layers)
    else:
        sim = Simulation.create(world, run, hours=hours, settings=settings, start=start)
    try:
        if not as_is:
            sim.run()
        return sim.engine.wall(), sim.settings.llm.seed
    finally:
        sim.close()


def sector(address: str | None) -> str:
    return (address or "the street").split(":")[0].strip()


def count_kind(run: Path, kind: str) -> int:
    """Memories of ``kind`` (reflection, plan...) in the run's store."""
    with sqlite3.connect(run / "memory.sqlite") as db:
        return db.execute("SELECT COUNT(*) FROM memories WHERE kind = ?", (kind,)).fetchone()[0]


def judge_section(result: DayResult, examples: int = 2) -> list[str]:
    """The day judge's counts per resident-day and kind, and a few examples of each kind."""
    lines = [
        "## The day judge",
        "",
        "Broken items per resident and game day (`simulacra eval day`; a text broken two ways "
        f"is one item). Worst resident-day: {result.worst()}.",
        "",
        "| resident | day | " + " | ".join(k.column for k in FindingKind) + " | items |",
        "|---|---|" + "---|" * (len(FindingKind) + 1),
    ]
    for d in result.days:
        cells = " | ".join(str(d.counts.get(k, 0) or "·") for k in FindingKind)
        lines.append(f"| {d.agent or '(nobody at it)'} | {d.day:%a %d %b} | {cells} | {d.items} |")
    totals = result.totals()
    everything = sum(d.items for d in result.days)
    lines.append(
        "| all | | " + " | ".join(str(totals[k]) for k in FindingKind) + f" | {everything} |"
    )
    lines += ["", "; ".join(f"*{k.column}*: {k.label}" for k in FindingKind) + ".", ""]
    for kind in FindingKind:
        found = [f for f in result.findings if f.kind is kind][:examples]
        for f in found:
            seen = f" ({f.seen}×)" if f.seen > 1 else ""
            lines.append(
                f"- {kind.column}, {f.agent or 'nobody'} {f.time:%a %H:%M}: "
                f"{f.source} “{cell(f.text)}”{seen} — {cell(f.why)}"
            )
    return lines if lines[-1] == "" else [*lines, ""]


def cost_rows(stats: RunStats, seconds: float) -> list[str]:
    """Table rows: parse failures, invalid places, model calls, tokens, wall time."""
    t = stats.calls
    per_hour = seconds / max(stats.game_hours, 1e-9)
    return [
        f"| parse failures | {t.parse_failures} |",
        f"| invalid places | {stats.invalid_places} |",
        f"| model calls | {t.calls} |",
        f"| prompt tokens (reused from the KV cache) | {t.prompt_tokens:,} ({t.reuse_share:.0%}) |",
        f"| generated tokens | {t.generated_tokens:,} |",
        f"| wall time | {timedelta(seconds=round(seconds))} ({per_hour:.0f} s per game-hour) |",
    ]


def cell(text: str, limit: int = 300) -> str:
    """Model text inside a Markdown table or list item: one line, no column breaks, cut at
    ``limit`` characters."""
    one = " ".join(text.split()).replace("|", "\\|")
    return one if len(one) <= limit else one[: limit - 1] + "…"
