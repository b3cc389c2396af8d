"""`simulacra eval interview`, `eval town` and `eval day`: the evaluation of a run."""

from __future__ import annotations

from pathlib import Path

import click

from simulacra.cli.app import cli, model_options
from simulacra.cli.console import console
from simulacra.settings import Settings

SIM_DIR = click.argument("directory", type=click.Path(file_okay=False, path_type=Path))


@cli.group("eval")
def eval_group() -> None:
    """The paper's evaluation of a run: interviews under ablations, and what emerged in the
    town. Answers are kept in DIRECTORY/eval/; an interrupted evaluation resumes."""


def _progress(prefix: str):
    count = 0

    def show(what: str) -> None:
        nonlocal count
        count += 1
        console.print(f"[dim]{prefix} {count:5d}  {what}[/dim]")

    return show


@eval_group.command("interview")
@SIM_DIR
@click.option("--agents", help="Comma-separated residents to interview. Default: all of the run.")
@click.option(
    "--conditions",
    default="full,no-reflection,no-planning,none",
    show_default=True,
    help="Ablations: memory kinds hidden at retrieval time.",
)
@click.option(
    "--judge",
    "judge_model",
    type=click.Path(dir_okay=False, path_type=Path),
    help="GGUF file of the judge that ranks the answers. Default: the interviewed model.",
)
@click.option("--no-judge", is_flag=True, help="Only ask and check; do not rank.")
@click.option(
    "--questions",
    type=click.IntRange(1, 5),
    default=5,
    show_default=True,
    help="Questions per category (the paper: 5).",
)
@model_options
@click.pass_obj
def interview(
    settings: Settings,
    directory: Path,
    agents: str | None,
    conditions: str,
    judge_model: Path | None,
    no_judge: bool,
    questions: int,
) -> None:
    """Interview the agents of DIRECTORY in the paper's five categories under each condition;
    check the answers against the run's records, rank them with a judge model, and print
    TrueSkill ratings per condition beside the paper's."""
    from simulacra.evaluation.conditions import parse_conditions
    from simulacra.evaluation.evaluate import evaluate_interviews
    from simulacra.evaluation.records import EVAL_DIR, INTERVIEW_FILE
    from simulacra.evaluation.results import interview_table

    result = evaluate_interviews(
        directory,
        agents=agents,
        conditions=parse_conditions(conditions),
        judge=not no_judge,
        per_category=questions,
        overrides=settings.llm,
        judge_model=judge_model,
        on_progress=_progress("answer"),
    )
    console.print(interview_table(result))
    console.print(f"answers: {directory / EVAL_DIR / INTERVIEW_FILE}")


@eval_group.command("town")
@SIM_DIR
@click.option(
    "--fact",
    "facts",
    multiple=True,
    help='Another fact to trace: "TOPIC=KEYWORD,KEYWORD" (all keywords in one memory).',
)
@click.option("--agents", help="Comma-separated residents to ask. Default: all of the run.")
@click.option("--no-seeded", is_flag=True, help="Leave out the paper's party and candidacy.")
@click.option("--no-density", is_flag=True, help='Skip the n(n-1) "do you know X?" questions.')
@model_options
@click.pass_obj
def town(
    settings: Settings,
    directory: Path,
    facts: tuple[str, ...],
    agents: str | None,
    no_seeded: bool,
    no_density: bool,
) -> None:
    """What emerged in the town of DIRECTORY: information diffusion, network density at the
    start and the end, coordination at the party, hallucination rate — beside the paper's."""
    from simulacra.evaluation.evaluate import evaluate_the_town
    from simulacra.evaluation.facts import parse_fact
    from simulacra.evaluation.records import EVAL_DIR, TOWN_FILE
    from simulacra.evaluation.results import town_table

    result = evaluate_the_town(
        directory,
        agents=agents,
        extra_facts=[parse_fact(f) for f in facts],
        seeded=not no_seeded,
        with_density=not no_density,
        overrides=settings.llm,
        on_progress=_progress("question"),
    )
    console.print(town_table(result))
    console.print(f"answers: {directory / EVAL_DIR / TOWN_FILE}")


@eval_group.command("day")
@SIM_DIR
@click.option(
    "--examples",
    type=click.IntRange(0, 100),
    default=3,
    show_default=True,
    help="Examples shown of each kind in each resident-day.",
)
def day(directory: Path, examples: int) -> None:
    """What a reader of DIRECTORY would call broken, counted per resident and game day: the
    prompt's own text, an activity that is not a doing, an action held far past its plan,
    sleeping, eating, washing, a screen's pastime or desk work out of place, company only
    imagined, an event of another day, a line like an assistant's, an echo, a question handed
    back, begun mid-sentence or speaking of the partner in the third person, an object state
    that is not a state. No model is asked; it measures and changes nothing."""
    from simulacra.evaluation.day import evaluate_days
    from simulacra.evaluation.records import DAY_SUMMARY, EVAL_DIR
    from simulacra.evaluation.results import day_tables

    result = evaluate_days(directory)
    for table in day_tables(result, examples):
        console.print(table)
    console.print(f"findings: {directory / EVAL_DIR / DAY_SUMMARY}")
