"""`simulacra report`: an HTML page with plots of a run, from its files alone.

timeline.png       each agent's activities over the game time, one bar per agent
relationships.png  who talked to whom: agents on a circle, edge width = conversations
density.png        the network density over time, as the paper measures relationship
                   formation: pairs who have talked so far / n(n-1)/2
calls.png          model calls and tokens per game-hour (only if the run has calls.jsonl)

Figures are built on matplotlib's Agg canvas directly, without pyplot, so no global backend
is switched and nothing needs a display.
"""

from __future__ import annotations

import html
import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import combinations, cycle
from pathlib import Path

from matplotlib import dates as mdates
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from simulacra.errors import UserError
from simulacra.llm.calllog import CALLS_FILE, read_calls, summarise
from simulacra.sim import rundir
from simulacra.sim.eventlog import EVENTS_FILE, read_events
from simulacra.sim.record import Chat
from simulacra.viewer.palette import ACTIVITY_COLORS, OTHER_COLORS, agent_colors

REPORT_DIR = "report"


@dataclass
class Segment:
    start: int  # first step
    end: int  # step after the last
    activity: str
    emoji_word: str


@dataclass
class Run:
    """What the plots need, read from a run directory."""

    meta: rundir.Meta
    steps: int
    last_time: datetime
    segments: dict[str, list[Segment]] = field(default_factory=dict)
    chats: list[tuple[int, Chat]] = field(default_factory=list)
    calls: list[dict] | None = None

    def time(self, step: int) -> datetime:
        return self.meta.step_time(step)


def read_run(directory: Path) -> Run:
    meta = rundir.read_meta(directory)
    path = directory / EVENTS_FILE
    if not path.is_file():
        raise UserError("no events.jsonl yet", file=path, fix="run the simulation first")
    run = Run(meta=meta, steps=0, last_time=meta.start)
    open_segments: dict[str, Segment] = {}
    for record in read_events(path):
        step = record.step
        run.steps = step + 1
        for name, a in record.agents.items():
            seg = open_segments.get(name)
            if seg is not None and seg.activity == a.activity:
                seg.end = step + 1
                continue
            seg = Segment(step, step + 1, a.activity, a.emoji_word)
            open_segments[name] = seg
            run.segments.setdefault(name, []).append(seg)
        for chat in record.chats:
            run.chats.append((step, chat))
    if not run.steps:
        raise UserError("no steps recorded yet", file=path, fix="run the simulation first")
    run.last_time = meta.step_time(run.steps)
    calls = directory / CALLS_FILE
    if calls.is_file():
        run.calls = [c for c in read_calls(calls) if isinstance(c, dict) and "step" in c]
    return run


def write_report(directory: Path, out: Path | None = None) -> Path:
    """Write index.html and the PNGs into ``out`` (default DIR/report); returns the page."""
    directory = Path(directory)
    run = read_run(directory)
    out = Path(out) if out is not None else directory / REPORT_DIR
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"cannot create it: {e.strerror}", file=out, field="--out") from None
    figures = [
        ("timeline.png", "Activities", plot_timeline(run)),
        ("relationships.png", "Who talked to whom", plot_relationships(run)),
        ("density.png", "Network density", plot_density(run)),
    ]
    if run.calls:
        figures.append(("calls.png", "Model calls and tokens", plot_calls(run)))
    from simulacra.evaluation.plots import eval_figures

    figures += eval_figures(directory)  # the paper's evaluation, once `simulacra eval` ran
    for name, _, fig in figures:
        FigureCanvasAgg(fig)
        fig.savefig(out / name, dpi=110)
    page = out / "index.html"
    page.write_text(render_html(run, [(name, title) for name, title, _ in figures]), "utf-8")
    return page


# ------------------------------------------------------------------------- activities


def category(segment: Segment) -> str:
    """The word the emoji was chosen by: 'sleep', 'talk', 'coffee'..."""
    return segment.emoji_word or "other"


def plot_timeline(run: Run) -> Figure:
    names = run.meta.agents
    fig = Figure(figsize=(12, 1.2 + 0.62 * len(names)), layout="constrained")
    ax = fig.add_subplot()
    start, end = mdates.date2num(run.meta.start), mdates.date2num(run.last_time)
    step_days = run.meta.step_seconds / 86400
    colors: dict[str, str] = {}
    others = cycle(OTHER_COLORS)
    for word in [category(s) for name in names for s in run.segments.get(name, [])]:
        if word not in colors:
            colors[word] = ACTIVITY_COLORS.get(word) or next(others)
    # Roughly how many characters fit per day of axis, to label only bars wide enough.
    axis_inches = 12 * 0.8
    chars_per_day = axis_inches * 72 / (8 * 0.55) / max(end - start, 1e-9)
    for row, name in enumerate(names):
        y = len(names) - 1 - row
        spans: dict[str, list[tuple[float, float]]] = {}  # one call per colour: a day is long
        for seg in run.segments.get(name, []):
            x0 = start + seg.start * step_days
            width = (seg.end - seg.start) * step_days
            color = colors[category(seg)]
            spans.setdefault(color, []).append((x0, width))
            text = seg.activity
            if len(text) + 2 < width * chars_per_day:
                r, g, b = to_rgb(color)
                dark = 0.299 * r + 0.587 * g + 0.114 * b < 0.5
                ax.text(
                    x0 + width / 2,
                    y,
                    text,
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if dark else "#1a1a1a",
                    clip_on=True,
                )
        for color, xs in spans.items():
            ax.broken_barh(xs, (y - 0.36, 0.72), facecolors=color, linewidth=0)
    for step, chat in run.chats:
        x = start + step * step_days
        for who in chat.between:
            if who in names:
                y = len(names) - 1 - names.index(who)
                ax.plot([x], [y + 0.45], marker="v", color="#c0392b", markersize=6)
    ax.set_yticks(range(len(names)), list(reversed(names)))
    ax.set_xlim(start, end)
    ax.set_ylim(-0.6, len(names) - 0.2)
    _time_axis(ax, run)
    ax.set_title(f"What each resident did, {_span(run)}  (▼ a conversation)", loc="left")
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    ax.set_axisbelow(True)
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    handles = [Patch(color=c, label=w) for w, c in colors.items()]
    fig.legend(
        handles=handles,
        loc="outside lower center",
        ncols=min(len(handles), 8),
        frameon=False,
        fontsize=9,
    )
    return fig


def _time_axis(ax, run: Run) -> None:
    hours = (run.last_time - run.meta.start).total_seconds() / 3600
    if hours > 30:
        ax.xaxis.set_major_formatter(mdates.DateFormatter("%a %H:%M"))
    else:
        ax.xaxis.set_major_formatter(mdates.DateFormatter("%H:%M"))
    ax.xaxis.set_major_locator(mdates.AutoDateLocator(minticks=4, maxticks=14))


def _span(run: Run) -> str:
    a, b = run.meta.start, run.last_time
    if a.date() == b.date():
        return f"{a:%A %B} {a.day}, {a:%H:%M}–{b:%H:%M}"
    return f"{a:%a %b} {a.day} {a:%H:%M} – {b:%a %b} {b.day} {b:%H:%M}"


# ------------------------------------------------------------------------- relationships


def conversation_pairs(run: Run) -> Counter[tuple[str, str]]:
    pairs: Counter[tuple[str, str]] = Counter()
    for _, chat in run.chats:
        for a, b in combinations(sorted(set(chat.between)), 2):
            pairs[a, b] += 1
    return pairs


def plot_relationships(run: Run) -> Figure:
    names = run.meta.agents
    pairs = conversation_pairs(run)
    n = len(names)
    fig = Figure(figsize=(7, 7 if n > 3 else 5.2), layout="constrained")
    ax = fig.add_subplot()
    # Evenly on a circle, the first at the top, going clockwise.
    angles = {name: math.pi / 2 - 2 * math.pi * k / n for k, name in enumerate(names)}
    pos = {name: (math.cos(a), math.sin(a)) for name, a in angles.items()}
    most = max(pairs.values(), default=1)
    for (a, b), count in sorted(pairs.items(), key=lambda item: item[1]):
        if a not in pos or b not in pos:
            continue
        (x0, y0), (x1, y1) = pos[a], pos[b]
        ax.plot([x0, x1], [y0, y1], color="#5b6b7b", alpha=0.75, solid_capstyle="round",
                linewidth=1.5 + 8 * count / most, zorder=1)  # fmt: skip
        ax.text(
            (x0 + x1) / 2,
            (y0 + y1) / 2,
            str(count),
            ha="center",
            va="center",
            fontsize=9,
            zorder=3,
            bbox={"boxstyle": "round,pad=0.25", "fc": "white", "ec": "#5b6b7b", "lw": 0.8},
        )
    talked = {who for pair in pairs for who in pair}
    colors = agent_colors(names)
    for name in names:
        x, y = pos[name]
        ax.scatter(
            [x],
            [y],
            s=520,
            color=colors[name],
            edgecolors="white",
            linewidths=2.5,
            zorder=4,
            alpha=1.0 if name in talked else 0.45,
        )
        ax.text(
            x * 1.2,
            y * 1.2,
            name,
            ha="center" if abs(x) < 0.3 else ("left" if x > 0 else "right"),
            va="center",
            fontsize=10,
            zorder=5,
        )
    total = sum(pairs.values())
    ax.set_title(
        f"Who talked to whom: {total} conversation{'s' * (total != 1)}, "
        f"{len(pairs)} of {n * (n - 1) // 2} pairs",
        loc="left",
    )
    ys = [y for _, y in pos.values()]
    ax.set_xlim(-1.9, 1.9)
    ax.set_ylim(min(ys) - 0.45, max(ys) + 0.45)
    ax.set_aspect("equal")
    ax.axis("off")
    return fig


def density_series(run: Run) -> list[tuple[datetime, float]]:
    """(time, density) at the start and after each conversation that adds a pair."""
    n = len(run.meta.agents)
    possible = n * (n - 1) / 2
    known: set[tuple[str, str]] = set()
    series = [(run.meta.start, 0.0)]
    residents = set(run.meta.agents)  # not a user's avatar (simulacra play)
    for step, chat in run.chats:
        before = len(known)
        known.update(combinations(sorted(set(chat.between) & residents), 2))
        if len(known) != before and possible:
            series.append((run.time(step), len(known) / possible))
    series.append((run.last_time, series[-1][1]))
    return series


def plot_density(run: Run) -> Figure:
    series = density_series(run)
    fig = Figure(figsize=(9, 3.6), layout="constrained")
    ax = fig.add_subplot()
    times = [mdates.date2num(t) for t, _ in series]
    values = [v for _, v in series]
    ax.step(times, values, where="post", color="#2b6fd9", linewidth=2)
    ax.fill_between(times, values, step="post", color="#2b6fd9", alpha=0.15)
    ax.set_ylim(0, 1.02)
    ax.set_xlim(times[0], times[-1])
    ax.set_ylabel("density")
    _time_axis(ax, run)
    n = len(run.meta.agents)
    ax.set_title(
        f"Network density: the share of the {n * (n - 1) // 2} pairs of residents who have "
        f"talked so far (now {values[-1]:.2f})",
        loc="left",
    )
    ax.grid(color="#dddddd", linewidth=0.6)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig


# ------------------------------------------------------------------------- model calls


def plot_calls(run: Run) -> Figure:
    hours = max((run.last_time - run.meta.start).total_seconds() / 3600, 1e-9)
    # A game-hour is the unit; a short run gets finer bins so it is not one bar.
    minutes = 60 if hours >= 3 else 10
    bins = max(1, math.ceil(hours * 60 / minutes))
    calls, hits = [0] * bins, [0] * bins
    prompt, reused, generated = [0] * bins, [0] * bins, [0] * bins
    for c in run.calls or []:
        step = c.get("step")
        if not isinstance(step, int) or step < 0:
            continue
        k = min(int(step * run.meta.step_seconds / 60 / minutes), bins - 1)
        if c.get("cache_hit"):
            hits[k] += 1
            continue
        calls[k] += 1
        prompt[k] += int(c.get("prompt_tokens") or 0)
        reused[k] += int(c.get("reused_tokens") or 0)
        generated[k] += int(c.get("generated_tokens") or 0)
    starts = [run.meta.start + timedelta(minutes=minutes * k) for k in range(bins)]
    x = [mdates.date2num(t) for t in starts]
    width = minutes / 1440 * 0.85
    fig = Figure(figsize=(10, 6), layout="constrained")
    top, bottom = fig.subplots(2, 1, sharex=True)
    top.bar(x, calls, width=width, align="edge", color="#2b6fd9", label="model calls")
    top.bar(x, hits, width=width, align="edge", bottom=calls, color="#9ec5f2",
            label="answered from the replay cache")  # fmt: skip
    top.set_ylabel("calls")
    top.yaxis.set_major_locator(MaxNLocator(integer=True))
    top.legend(frameon=False, fontsize=9)
    unit = "game-hour" if minutes == 60 else f"{minutes} game-minutes"
    top.set_title(f"Model calls per {unit}", loc="left")
    fresh = [p - r for p, r in zip(prompt, reused, strict=True)]
    bottom.bar(x, fresh, width=width, align="edge", color="#d9412b", label="prompt, evaluated")
    bottom.bar(x, reused, width=width, align="edge", bottom=fresh, color="#f2a99e",
               label="prompt, reused from the KV cache")  # fmt: skip
    bottom.bar(x, generated, width=width, align="edge", bottom=prompt, color="#1f9d55",
               label="generated")  # fmt: skip
    bottom.set_ylabel("tokens")
    bottom.set_title(f"Tokens per {unit}", loc="left")
    bottom.legend(frameon=False, fontsize=9)
    for ax in (top, bottom):
        ax.grid(axis="y", color="#dddddd", linewidth=0.6)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    bottom.set_xlim(x[0], x[-1] + minutes / 1440)
    _time_axis(bottom, run)
    return fig


# ------------------------------------------------------------------------- the page


def render_html(run: Run, figures: list[tuple[str, str]]) -> str:
    e = html.escape
    meta = run.meta
    rows = [
        ("World", meta.world_folder),
        ("Residents", ", ".join(meta.agents)),
        ("Game time", f"{meta.start:%Y-%m-%d %H:%M} to {run.last_time:%Y-%m-%d %H:%M}"),
        ("Steps", f"{run.steps} of {meta.total_steps} ({meta.step_seconds} s each)"),
        ("Seed", str(meta.seed)),
        ("Created", meta.created),
    ]
    if meta.forked_from:
        rows.append(("Forked from", meta.forked_from))
    if run.calls is not None:
        t = summarise(run.calls).total
        rows.append(
            (
                "Model",
                f"{t.calls} calls, {t.cache_hits} from the cache, {t.prompt_tokens} prompt "
                f"tokens ({t.reuse_share:.0%} reused), {t.generated_tokens} generated, "
                f"{t.seconds:.1f} s, {t.parse_failures} parse failures",
            )
        )
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(meta.world_folder)} · simulacra report</title>",
        f"<style>{_CSS}</style></head><body>",
        f"<h1>{e(meta.world_folder)}: a simulacra run</h1>",
        "<table class='facts'>",
        *[f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in rows],
        "</table>",
    ]
    for name, title in figures:
        parts.append(f"<h2>{e(title)}</h2><img src='{e(name)}' alt='{e(title)}'>")
    parts.append(f"<h2>Conversations ({len(run.chats)})</h2>")
    if not run.chats:
        parts.append("<p class='dim'>No conversation yet.</p>")
    for step, chat in run.chats:
        parts.append(
            f"<div class='chat'><div class='when'>{run.time(step):%a %H:%M:%S} · "
            f"step {step} · {e(' & '.join(chat.between))}</div>"
        )
        for line in chat.lines:
            parts.append(f"<p><b>{e(line.speaker)}:</b> {e(line.text)}</p>")
        parts.append("</div>")
    if run.calls:
        stats = summarise(run.calls)
        parts.append("<h2>Model calls by template</h2><table class='calls'>")
        parts.append(
            "<tr><th>template</th><th>calls</th><th>cache hits</th><th>prompt tokens</th>"
            "<th>reused</th><th>generated</th><th>seconds</th></tr>"
        )
        for template, t in sorted(stats.by_template.items(), key=lambda kv: -kv[1].calls):
            parts.append(
                f"<tr><td>{e(template)}</td><td>{t.calls}</td><td>{t.cache_hits}</td>"
                f"<td>{t.prompt_tokens}</td><td>{t.reused_tokens}</td>"
                f"<td>{t.generated_tokens}</td><td>{t.seconds:.1f}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


_CSS = """
body { font: 14px/1.45 system-ui, "DejaVu Sans", sans-serif; color: #222; margin: 24px auto;
  max-width: 1200px; padding: 0 16px; background: #faf9f6; }
h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 28px; }
img { max-width: 100%; border: 1px solid #e2ded4; background: #fff; }
table { border-collapse: collapse; }
th, td { text-align: left; padding: 3px 10px 3px 0; vertical-align: top; }
.facts th { color: #666; font-weight: 600; }
.calls td, .calls th { border-bottom: 1px solid #e2ded4; padding-right: 16px; }
.calls td:not(:first-child) { text-align: right; font-variant-numeric: tabular-nums; }
.chat { background: #fff; border: 1px solid #e2ded4; border-radius: 6px; padding: 6px 10px;
  margin: 8px 0; }
.chat p { margin: 2px 0; } .when, .dim { color: #777; font-size: 12px; }
"""
