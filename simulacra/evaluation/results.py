"""The evaluation's results as records and as tables in the paper's layout, with the paper's
numbers beside ours."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict
from rich.table import Table
from rich.text import Text

from simulacra.evaluation.conditions import PAPER_ORDER, PAPER_TRUESKILL, Condition
from simulacra.evaluation.day import DayResult, FindingKind
from simulacra.evaluation.judge import trueskill_ratings
from simulacra.evaluation.records import InterviewRecord, Judgment
from simulacra.evaluation.town import TownResult
from simulacra.text import printable


class ConditionRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    condition: str
    label: str
    paper_mu: float | None
    mu: float | None = None  # None: not run
    sigma: float | None = None
    answers: int = 0
    checked: int = 0  # answers with ground truth
    correct: int = 0
    hallucinated: int = 0


class InterviewResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    step: int
    agents: list[str]
    judgments: int
    rows: list[ConditionRow]  # in the paper's order, "human" included (never run)


def summarise_interviews(
    step: int,
    agents: Sequence[str],
    records: Sequence[InterviewRecord],
    judgments: Sequence[Judgment],
    conditions: Sequence[Condition],
) -> InterviewResult:
    run = [c.value for c in conditions]
    ratings = trueskill_ratings(judgments, run) if judgments else {}
    rows = []
    for entry in PAPER_ORDER:
        if entry == "human":
            rows.append(ConditionRow(condition="human", label="human (crowdworker)",
                                     paper_mu=PAPER_TRUESKILL["human"]))  # fmt: skip
            continue
        condition = Condition(entry)
        mine = [r for r in records if r.condition == condition.value]
        checked = [r for r in mine if r.verdict.correct is not None]
        mu, sigma = ratings.get(condition.value, (None, None))
        rows.append(
            ConditionRow(
                condition=condition.value,
                label=condition.label,
                paper_mu=PAPER_TRUESKILL[condition],
                mu=mu,
                sigma=sigma,
                answers=len(mine),
                checked=len(checked),
                correct=sum(bool(r.verdict.correct) for r in checked),
                hallucinated=sum(r.verdict.hallucinated for r in mine),
            )
        )
    return InterviewResult(step=step, agents=list(agents), judgments=len(judgments), rows=rows)


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({part / whole:.0%})" if whole else "—"


def interview_table(result: InterviewResult) -> Table:
    table = Table(
        title=f"Interviews: {len(result.agents)} agents, {result.judgments} judged questions "
        "(paper: 25 agents, 100 human judges)",
        title_justify="left",
    )
    for column in ("condition", "TrueSkill μ (σ)", "paper μ", "factual checks", "hallucinated"):
        table.add_column(column, justify="left" if column == "condition" else "right")
    for row in result.rows:
        ours = f"{row.mu:.2f} ({row.sigma:.2f})" if row.mu is not None else "—"
        table.add_row(
            row.label,
            ours,
            f"{row.paper_mu:.2f}" if row.paper_mu is not None else "—",
            _share(row.correct, row.checked),
            _share(row.hallucinated, row.answers) if row.answers else "—",
        )
    return table


def town_table(result: TownResult) -> Table:
    n = len(result.agents)
    table = Table(
        title=f"The town: {n} agents at {result.time:%a %b %d %H:%M} (paper: 25 agents, "
        "two game days)",
        title_justify="left",
    )
    for column in ("measure", "start", "end", "paper start → end"):
        table.add_column(column, justify="left" if column == "measure" else "right")
    for d in result.diffusion:
        paper = (
            f"{d.paper.known_start}/{d.paper.agents} ({d.paper.start:.0%}) → "
            f"{d.paper.known_end}/{d.paper.agents} ({d.paper.end:.0%})"
            if d.paper
            else "—"
        )
        table.add_row(f"knows of {d.label}", _share(len(d.start), n), _share(len(d.end), n),
                      paper)  # fmt: skip
        table.add_row(
            "  (says so / memory holds it)",
            "",
            f"{len(d.claimed)} / {len(d.in_memory)}",
            "",
        )
    if result.density is not None:
        dn = result.density
        table.add_row(
            "network density",
            f"{dn.start:.3f}",
            f"{dn.end:.3f}",
            f"{dn.paper_start:.3f} → {dn.paper_end:.2f}",
        )
        table.add_row(
            "  (every yes, unchecked)", f"{dn.start_claimed:.3f}", f"{dn.end_claimed:.3f}", ""
        )
    for c in result.coordination:
        came = ", ".join(c.came) or "no one"
        table.add_row(
            f"came to {c.label} ({c.place}, {c.start:%a %H:%M}–{c.end:%H:%M})",
            "",
            f"{len([a for a in c.came if a in c.knew])} of {len(c.knew)} who knew (came: {came})"
            if c.logged
            else "not reached",
            f"{c.paper.came} of {c.paper.invited} invited"
            if c.paper and c.paper.came is not None
            else "—",
        )
    paper_h, paper_n = result.paper_hallucinated
    table.add_row(
        "hallucinated answers",
        "",
        _share(result.hallucinated, result.answers),
        f"{paper_h}/{paper_n} ({paper_h / paper_n:.1%})",
    )
    return table


def day_tables(result: DayResult, examples: int = 3) -> list[Table]:
    """The day judge's counts per resident-day and kind, then up to ``examples`` findings of
    each kind in each resident-day."""
    counts = Table(
        title=f"The day judge: broken items per resident and game day, up to "
        f"{result.time:%a %b %d %H:%M} (a text broken two ways is one item)",
        title_justify="left",
    )
    counts.add_column("resident")
    counts.add_column("day")
    for kind in FindingKind:
        counts.add_column(kind.column, justify="right")
    counts.add_column("items", justify="right")
    for d in result.days:
        cells = [str(d.counts.get(k, 0) or "·") for k in FindingKind]
        counts.add_row(d.agent or "(nobody at it)", f"{d.day:%a %b %d}", *cells, str(d.items))
    totals = result.totals()
    everything = sum(d.items for d in result.days)
    counts.add_row("all", "", *[str(totals[k]) for k in FindingKind], str(everything))
    counts.caption = "; ".join(f"{k.column}: {k.label}" for k in FindingKind)
    shown = Table(title="Examples", title_justify="left")
    for column in ("time", "resident", "kind", "what was written", "why"):
        shown.add_column(column)
    taken: dict[tuple[str, object, FindingKind], int] = {}
    for f in result.findings:
        key = (f.agent, f.day, f.kind)
        taken[key] = taken.get(key, 0) + 1
        if taken[key] > examples:
            continue
        seen = f" ({f.seen}×)" if f.seen > 1 else ""
        # The model's words, shown as written: never read as markup or terminal controls.
        text = Text(printable(f"{f.source}: {f.text}{seen}"))
        why = Text(printable(f.why))
        shown.add_row(f"{f.time:%a %H:%M}", f.agent or "—", f.kind.column, text, why)
    return [counts, shown] if result.findings else [counts]
