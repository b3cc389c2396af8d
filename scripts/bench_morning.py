"""A believable morning, measured: smallville-3 from 07:00 to 12:00 on the default model.

    python scripts/bench_morning.py [--model PATH] [--hours 5] [--out scripts/results/morning.md]
    python scripts/bench_morning.py --keep runs/morning      # stopped? the same again goes on

Runs without the replay cache and writes a short Markdown table: where each resident was at
half past each hour and whether that fits their persona (home, work or school, or a place
they usually go), the conversations and what was said, reflections, object states changed,
the day judge's counts of what reads broken (`simulacra eval day`), parse failures, invalid
places, model calls and seconds. The file is committed, so a prompt or model change shows up
as a diff.
"""

from __future__ import annotations

import argparse
import tempfile
from collections import Counter
from pathlib import Path

from benchrun import (
    ROOT,
    add_run_options,
    bench_settings,
    cost_rows,
    count_kind,
    judge_section,
    run_kept,
    sector,
)

from simulacra.evaluation.day import evaluate_days
from simulacra.sim.eventlog import EVENTS_FILE, read_events
from simulacra.sim.stats import run_stats
from simulacra.world import load_world


def fits(persona, address: str | None) -> str:
    where = sector(address)
    if where == sector(persona.home):
        return "home"
    if persona.workplace and where == sector(persona.workplace):
        return "work"
    if any(where == sector(p) for p in persona.usual_places):
        return "usual"
    return "**odd**"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", type=Path, default=ROOT / "worlds" / "smallville-3")
    parser.add_argument("--hours", type=float, default=5.0)
    parser.add_argument("--out", type=Path, default=ROOT / "scripts" / "results" / "morning.md")
    add_run_options(parser)
    args = parser.parse_args()

    settings, model_name = bench_settings(args)
    with tempfile.TemporaryDirectory() as tmp:
        run = args.keep or Path(tmp) / "run"
        seconds, seed = run_kept(
            args.world,
            run,
            hours=args.hours,
            settings=settings,
            as_is=args.as_is,
            gpu_layers=args.gpu_layers,
        )
        report = summarise(run, args.world, model_name, seconds, seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report, encoding="utf-8")
    print(report)


def summarise(run: Path, world_dir: Path, model_name: str, seconds: float, seed: int) -> str:
    world = load_world(world_dir)
    stats = run_stats(run)
    events = list(read_events(run / EVENTS_FILE))
    start = events[0].time
    personas = {p.name: p for p in world.personas if p.name in events[0].agents}
    marks = {}  # "HH:30" -> the step record at that time
    for record in events:
        if record.time.minute == 30 and record.time.second == 0:
            marks[f"{record.time:%H:%M}"] = record
    lines = [
        f"# A morning in {world.name}",
        "",
        f"Model `{model_name}`, {stats.game_hours:.1f} game hours from {start:%a %d %b %H:%M},"
        f" {stats.steps} steps, seed {seed}, no replay cache."
        " Written by `scripts/bench_morning.py`.",
        "",
        "## Where everyone was",
        "",
        "| time | " + " | ".join(personas) + " |",
        "|---|" + "---|" * len(personas),
    ]
    verdicts: Counter[str] = Counter()
    for mark, record in marks.items():
        cells = []
        for name, persona in personas.items():
            agent = record.agents[name]
            verdict = fits(persona, agent.place)
            verdicts[verdict] += 1
            cells.append(f"{agent.emoji} {agent.activity} — {sector(agent.place)} ({verdict})")
        lines.append(f"| {mark} | " + " | ".join(cells) + " |")
    lines += ["", "## Conversations", ""]
    chats = [(r.time, c) for r in events for c in r.chats]
    if not chats:
        lines.append("None.")
    for when, chat in chats:
        lines.append(f"- {when:%H:%M} {' and '.join(chat.between)}:")
        for line in chat.lines:
            lines.append(f"  - {line.speaker}: {line.text}")
    lines += ["", "## Object states changed", ""]
    changes = Counter(
        f"{address.split(': ')[-1]} is {state}"
        for r in events
        for address, state in r.objects.items()
        if state != "idle"
    )
    lines.append("; ".join(f"{text} ({n}×)" if n > 1 else text for text, n in changes.items()))
    reflections = count_kind(run, "reflection")
    total = sum(verdicts.values())
    fitting = total - verdicts["**odd**"]
    lines += ["", *judge_section(evaluate_days(run))]
    lines += [
        "## Totals",
        "",
        "| measure | value |",
        "|---|---|",
        f"| places that fit the persona (home, work, usual) | {fitting} of {total} |",
        f"| conversations | {len(chats)} |",
        f"| reflections | {reflections} |",
        f"| object state changes | {sum(changes.values())} |",
        *cost_rows(stats, seconds),
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
