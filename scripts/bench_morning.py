"""A believable morning, measured: smallville-3 from 07:00 to 12:00 on the default model.

    python scripts/bench_morning.py [--model PATH] [--hours 5] [--out scripts/results/morning.md]
    python scripts/bench_morning.py --keep runs/morning      # stopped? the same again goes on

Runs without the replay cache and writes a short Markdown table: where each resident was at
half past each hour and whether that fits their persona (home, work or school, or a place
they usually go), the conversations and what was said, reflections, object states changed,
parse failures, invalid places, model calls and seconds. The file is committed, so a prompt
or model change shows up as a diff.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
from collections import Counter
from datetime import timedelta
from pathlib import Path

from simulacra.llm import resolve_model
from simulacra.settings import Settings
from simulacra.sim.eventlog import EVENTS_FILE, read_events
from simulacra.sim.simulation import Simulation
from simulacra.sim.stats import run_stats
from simulacra.world import load_world

ROOT = Path(__file__).resolve().parent.parent


def sector(address: str | None) -> str:
    return (address or "the street").split(":")[0].strip()


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
    parser.add_argument("--model", type=Path, help="a GGUF file (default: the resolved model)")
    parser.add_argument("--out", type=Path, default=ROOT / "scripts" / "results" / "morning.md")
    parser.add_argument(
        "--keep", type=Path, help="write the run here instead of a temp dir; if it is there, go on"
    )
    parser.add_argument(
        "--as-is", action="store_true", help="summarise the kept run as it stands, without running"
    )
    parser.add_argument(
        "--seed",
        type=int,
        help="the model's seed (default: settings); one meeting in a morning "
        "turns on a few sampled decisions, so other seeds show the spread",
    )
    args = parser.parse_args()

    settings = Settings()
    settings.llm.cache = False  # measure the model, not the replay cache
    settings.llm.model = args.model
    if args.seed is not None:
        settings.llm.seed = args.seed
    model_file = resolve_model(args.model, cache_dir=settings.llm.cache_dir).path
    with tempfile.TemporaryDirectory() as tmp:
        run = args.keep or Path(tmp) / "run"
        if (run / "meta.json").is_file():  # a kept run that was stopped: go on from there
            sim = Simulation.resume(run)  # with the settings it was made with
        else:
            sim = Simulation.create(args.world, run, hours=args.hours, settings=settings)
        if not args.as_is:
            sim.run()
        seconds = sim.engine.wall()  # stepping only, over every session of the run
        sim.close()
        report = summarise(run, args.world, model_file.name, seconds, sim.settings.llm.seed)
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
    reflections = _count_kind(run, "reflection")
    total = sum(verdicts.values())
    fitting = total - verdicts["**odd**"]
    t = stats.calls
    lines += [
        "",
        "## Totals",
        "",
        "| measure | value |",
        "|---|---|",
        f"| places that fit the persona (home, work, usual) | {fitting} of {total} |",
        f"| conversations | {len(chats)} |",
        f"| reflections | {reflections} |",
        f"| object state changes | {sum(changes.values())} |",
        f"| parse failures | {t.parse_failures} |",
        f"| invalid places | {stats.invalid_places} |",
        f"| model calls | {t.calls} |",
        f"| prompt tokens (reused from the KV cache) | {t.prompt_tokens:,} ({t.reuse_share:.0%}) |",
        f"| generated tokens | {t.generated_tokens:,} |",
        f"| wall time | {timedelta(seconds=round(seconds))} "
        f"({seconds / max(stats.game_hours, 1e-9):.0f} s per game-hour) |",
        "",
    ]
    return "\n".join(lines)


def _count_kind(run: Path, kind: str) -> int:
    with sqlite3.connect(run / "memory.sqlite") as db:
        return db.execute("SELECT COUNT(*) FROM memories WHERE kind = ?", (kind,)).fetchone()[0]


if __name__ == "__main__":
    main()
