"""`simulacra stats`: a run's call log summed up (tokens, time, repairs) and its pace."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import click
from rich.table import Table

from simulacra.cli.app import cli
from simulacra.cli.console import console
from simulacra.errors import UserError
from simulacra.llm import CALLS_FILE
from simulacra.llm.calllog import Totals, read_calls, summarise
from simulacra.llm.repairs import Rule, hits


@cli.command()
@click.argument("directory", type=click.Path(exists=True, path_type=Path))
def stats(directory: Path) -> None:
    """Summarise the call log of a run: calls, tokens, KV-cache reuse, parse failures, time
    and where it went (reading prompts, generating, sampling under the grammar)."""
    path = directory / CALLS_FILE if directory.is_dir() else directory
    if not path.is_file():
        raise UserError(
            f"no {CALLS_FILE} here", file=directory, fix="give a run directory written by simulacra"
        )
    summary = summarise(read_calls(path))
    table = Table(box=None, header_style="bold")
    for column in (
        "template",
        "calls",
        "cached",
        "prompt tok",
        "reused",
        "evicted",
        "generated",
        "parse fail",
        "repairs",
        "seconds",
        "s/call",
        "prefill",
        "decode",
        "sample",
        "resampled",
        "drafts kept",
    ):
        table.add_column(column, justify="left" if column == "template" else "right")

    def row(label: str, t: Totals) -> list[str]:
        per_call = f"{t.seconds / t.calls:.2f}" if t.calls else "-"
        return [
            label,
            str(t.calls),
            str(t.cache_hits),
            str(t.prompt_tokens),
            f"{t.reuse_share:.0%}",
            str(t.evicted_tokens),
            str(t.generated_tokens),
            str(t.parse_failures),
            str(t.repairs),
            f"{t.seconds:.1f}",
            per_call,
            f"{t.prefill_seconds:.1f}",
            f"{t.decode_seconds:.1f}",
            f"{t.sample_seconds:.1f}",
            str(t.resampled_tokens),
            f"{t.kept_tokens}/{t.drafted_tokens}",
        ]

    for name, totals in sorted(summary.by_template.items()):
        table.add_row(*row(name, totals))
    table.add_row(*row("[bold]total[/bold]", summary.total))
    console.print(table)
    if fixed := summary.total.fixed_drafted_tokens:
        console.print(
            f"Of the drafts, the answers' schemas fixed {fixed} tokens "
            f"({summary.total.fixed_kept_tokens} kept); the rest were looked up in the prompt."
        )
    if share := summary.total.evicted_share:
        console.print(
            f"{share:.0%} of prompt tokens were read again because the saved KV states that "
            "held them had been dropped for room: a larger llm.kv_cache_mb spares them"
        )
    console.print(_repairs_table(hits(read_calls(path))))
    if not any("repairs" in entry for entry in read_calls(path)):
        console.print("[dim]This log was written before repairs were logged: none counted.[/dim]")
    from simulacra.sim.rundir import META_FILE

    if (directory / META_FILE).is_file():
        _run_stats(directory)


def declared_rules() -> dict[str, Rule]:
    """Every repair rule, by name: each module declares its own as it is imported."""
    import simulacra.cognition.act
    import simulacra.cognition.dialogue
    import simulacra.cognition.plan
    import simulacra.feed.steps
    import simulacra.llm.tidy  # noqa: F401 - imported for the rules they declare
    from simulacra.llm.repairs import RULES

    return RULES


def _repairs_table(counts: Counter[str]) -> Table:
    """Hits per repair rule, every rule listed (one with none is a candidate for deletion);
    docs/repairs.md says why each exists."""
    rules = declared_rules()
    table = Table(box=None, header_style="bold")
    table.add_column("repair rule")
    table.add_column("hits", justify="right")
    table.add_column("rewrites")
    names = sorted(set(rules) | set(counts), key=lambda n: (-counts[n], n))
    for name in names:
        what = rules[name].what if name in rules else "(no such rule now)"
        table.add_row(name, str(counts[name]), what)
    return table


def _run_stats(directory: Path) -> None:
    from simulacra.sim.eventlog import EVENTS_FILE
    from simulacra.sim.stats import run_stats

    try:
        r = run_stats(directory)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise UserError(
            f"not a readable run ({type(e).__name__}: {e})",
            file=directory / EVENTS_FILE,
            fix="the run's files were edited or damaged; restore them from a copy",
        ) from None
    t = r.calls
    console.print(
        f"run        {r.agents} agents · {r.steps} steps · {r.game_hours:.2f} game hours "
        f"({r.start:%a %H:%M} → {r.reached:%a %H:%M}) · {r.conversations} conversations"
    )
    console.print(
        f"per agent per game-hour: {r.per_agent_hour(t.calls):.1f} model calls · "
        f"{r.per_agent_hour(t.prompt_tokens):,.0f} prompt tokens ({t.reuse_share:.0%} reused "
        f"from the KV cache) · {r.per_agent_hour(t.generated_tokens):,.0f} generated · "
        f"{r.per_agent_hour(r.wall_seconds):.0f} s wall"
    )
    console.print(
        f"parse failures {t.parse_failures} · invalid places {r.invalid_places} · "
        f"day plans {r.day_plans} ({r.kept_plans} kept from a day like yesterday)"
    )
    from simulacra.cli.sim_commands import warn_if_log_short

    warn_if_log_short(directory, r.steps)
