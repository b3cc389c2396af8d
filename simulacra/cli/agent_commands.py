"""`simulacra agent ...`: one generative agent stored in a directory."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import click
from pydantic import ValidationError
from rich.table import Table

from simulacra import gametime
from simulacra.agent import GenerativeAgent
from simulacra.cli.app import cli, model_options
from simulacra.cli.console import console, shown
from simulacra.errors import UserError
from simulacra.persona import Persona
from simulacra.settings import Settings

DIR = click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
AT = click.option(
    "--at",
    "at",
    help="Game time, e.g. '2023-02-13 09:30'. Default: the agent's clock (its latest time).",
)


def _time(text: str | None) -> datetime | None:
    return gametime.parse(text, field="--at") if text else None


@cli.group()
def agent() -> None:
    """One generative agent in a directory: create it, tell it things, ask it things."""


@agent.command("new")
@DIR
@click.option("--name", required=True, help="Full name, e.g. 'Klaus Mueller'.")
@click.option("--age", required=True, type=int)
@click.option("--traits", required=True, help="Innate traits, e.g. 'kind, inquisitive'.")
@click.option(
    "--seed",
    "seed_memories",
    default="",
    help="Seed memories, separated by semicolons (the paper's paragraph).",
)
@click.option("--currently", default="", help="What the agent is up to these days.")
@click.option(
    "--at",
    "at",
    default="2023-02-13 08:00",
    show_default=True,
    help="Game time of the seed memories.",
)
@model_options(seed=False)
@click.pass_obj
def agent_new(
    settings: Settings,
    directory: Path,
    name: str,
    age: int,
    traits: str,
    seed_memories: str,
    currently: str,
    at: str,
) -> None:
    """Create an agent in DIRECTORY; its seed memories are rated in one model call."""
    try:
        persona = Persona(
            name=name, age=age, innate=traits, learned=seed_memories, currently=currently
        )
    except ValidationError as e:
        err = e.errors()[0]
        raise UserError(
            err["msg"],
            field="--" + str(err["loc"][0]).replace("innate", "traits").replace("learned", "seed"),
        ) from None
    created = GenerativeAgent.create(directory, persona, at=_time(at), settings=settings)
    console.print(
        f"created {shown(created.name)} in {shown(str(directory))}"
        f" with {len(created.stream)} memories"
    )


@agent.command("observe")
@DIR
@click.argument("text")
@AT
@model_options
@click.pass_obj
def agent_observe(settings: Settings, directory: Path, text: str, at: str | None) -> None:
    """Tell the agent it perceives TEXT; the model rates its importance."""
    a = GenerativeAgent.open(directory, settings=settings)
    record = a.observe(text, _time(at))
    console.print(
        f"remembered #{record.id} (importance {record.importance}): {shown(record.description)}"
    )
    _report_reflections(a, record.id)


def _report_reflections(a: GenerativeAgent, after_id: int) -> None:
    for record in a.stream:
        if record.id > after_id and record.kind.value == "reflection":
            console.print(f"reflected #{record.id}: {shown(record.description)}")


@agent.command("memories")
@DIR
@click.argument("query")
@click.option("-k", "k", type=click.IntRange(1, 1000), default=10, show_default=True)
@AT
@click.pass_obj
def agent_memories(settings: Settings, directory: Path, query: str, k: int, at: str | None) -> None:
    """What the agent retrieves for QUERY, with each score component (no model call)."""
    a = GenerativeAgent.open(directory, settings=settings)
    table = Table(box=None, header_style="bold")
    for column in ("#", "score", "recency", "importance", "relevance", "created", "kind", "memory"):
        table.add_column(column, justify="right" if column not in ("kind", "memory") else "left")
    for hit in a.memories(query, k, _time(at)):
        r = hit.record
        table.add_row(
            str(r.id),
            f"{hit.score:.2f}",
            f"{hit.recency:.2f}",
            f"{hit.importance:.2f} ({r.importance})",
            f"{hit.relevance:.2f}",
            f"{r.created:%m-%d %H:%M}",
            r.kind.value,
            shown(r.description),
        )
    console.print(table)


@agent.command("interview")
@DIR
@click.argument("question")
@click.option("--as", "interviewer", default="a news reporter", show_default=True, help="Who asks.")
@click.option("--remember", is_flag=True, help="Store the exchange in the agent's memory.")
@AT
@model_options
@click.pass_obj
def agent_interview(
    settings: Settings,
    directory: Path,
    question: str,
    interviewer: str,
    remember: bool,
    at: str | None,
) -> None:
    """Ask the agent QUESTION; it answers in character from its memories."""
    a = GenerativeAgent.open(directory, settings=settings)
    answer = a.interview(question, interviewer, remember=remember, at=_time(at))
    console.print(f"{shown(a.name)}: {shown(answer)}")


@agent.command("whisper")
@DIR
@click.argument("statement")
@AT
@click.pass_obj
def agent_whisper(settings: Settings, directory: Path, statement: str, at: str | None) -> None:
    """Speak as the agent's inner voice: STATEMENT becomes its own resolve."""
    a = GenerativeAgent.open(directory, settings=settings)
    record = a.inner_voice(statement, _time(at))
    console.print(
        f"{shown(a.name)} resolves (#{record.id}, importance {record.importance}): "
        f"{shown(record.description)}"
    )


@agent.command("show")
@DIR
@click.pass_obj
def agent_show(settings: Settings, directory: Path) -> None:
    """Who the agent is and how many memories it holds (no model call)."""
    a = GenerativeAgent.open(directory, settings=settings)
    console.print(shown(a.identity))
    kinds: dict[str, int] = {}
    for r in a.stream:
        kinds[r.kind.value] = kinds.get(r.kind.value, 0) + 1
    counts = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items()))
    console.print(f"clock: {gametime.describe(a.now)} · memories: {len(a.stream)} ({counts})")
