"""The evaluation's plots for `simulacra report`, from RUN/eval/*.json, ours beside the
paper's. Built on matplotlib's Figure directly, like the rest of the report."""

from __future__ import annotations

from pathlib import Path

from matplotlib.figure import Figure
from pydantic import ValidationError

from simulacra.evaluation.records import EVAL_DIR, INTERVIEW_SUMMARY, TOWN_SUMMARY, read_summary
from simulacra.evaluation.results import InterviewResult
from simulacra.evaluation.town import TownResult

OURS, PAPER = "#2b6fd9", "#bbbbbb"


def eval_figures(run_dir: Path) -> list[tuple[str, str, Figure]]:
    """(file name, title, figure) for each evaluation that has been run on this run. A summary
    written by another version of simulacra is left out of the report, not an error."""
    figures = []
    interview = read_summary(run_dir / EVAL_DIR / INTERVIEW_SUMMARY)
    town = read_summary(run_dir / EVAL_DIR / TOWN_SUMMARY)
    try:
        if interview:
            result = InterviewResult.model_validate(interview)
            if any(r.mu is not None for r in result.rows):
                figures.append(
                    ("eval-trueskill.png", "Believability (TrueSkill)", plot_trueskill(result))
                )
        if town:
            figures.append(
                ("eval-town.png", "What emerged in the town",
                 plot_town(TownResult.model_validate(town)))
            )  # fmt: skip
    except ValidationError:
        pass
    return figures


def plot_trueskill(result: InterviewResult) -> Figure:
    rows = result.rows
    fig = Figure(figsize=(9, 3.8), layout="constrained")
    ax = fig.add_subplot()
    ys = list(range(len(rows)))[::-1]
    for y, row in zip(ys, rows, strict=True):
        if row.mu is not None:
            ax.barh(y + 0.18, row.mu, height=0.34, color=OURS, xerr=row.sigma, capsize=3)
        if row.paper_mu is not None:
            ax.barh(y - 0.18, row.paper_mu, height=0.34, color=PAPER)
    ax.set_yticks(ys, [r.label for r in rows])
    ax.set_xlabel("TrueSkill μ (ours ± σ, blue; the paper's, grey)")
    ax.set_title(
        f"Interviews of {len(result.agents)} agents, {result.judgments} questions judged",
        loc="left",
    )
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig


def plot_town(result: TownResult) -> Figure:
    labels, ours, paper = [], [], []
    n = len(result.agents)
    for d in result.diffusion:
        labels.append(f"knows of {d.label}")
        ours.append((len(d.start) / n if n else 0.0, len(d.end) / n if n else 0.0))
        paper.append((d.paper.start, d.paper.end) if d.paper else None)
    if result.density is not None:
        labels.append("network density")
        ours.append((result.density.start, result.density.end))
        paper.append((result.density.paper_start, result.density.paper_end))
    fig = Figure(figsize=(9, 1.6 + 0.9 * max(1, len(labels))), layout="constrained")
    ax = fig.add_subplot()
    ys = list(range(len(labels)))[::-1]
    for y, (start, end), theirs in zip(ys, ours, paper, strict=True):
        ax.plot([start, end], [y + 0.15] * 2, color=OURS, marker="o", linewidth=2)
        ax.annotate("", (end, y + 0.15), (start, y + 0.15),
                    arrowprops={"arrowstyle": "->", "color": OURS})  # fmt: skip
        if theirs is not None:
            ax.plot(list(theirs), [y - 0.15] * 2, color=PAPER, marker="o", linewidth=2)
    ax.set_yticks(ys, labels)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.7, len(labels) - 0.3)
    h = f"{result.hallucinated}/{result.answers}" if result.answers else "—"
    ax.set_title(
        f"Start → end, ours (blue) and the paper's (grey); hallucinated answers {h}", loc="left"
    )
    ax.grid(axis="x", color="#dddddd", linewidth=0.6)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig
