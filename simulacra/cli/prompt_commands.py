"""`simulacra prompts list|try|eval`: the prompt templates, tried and scored against a model."""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from pathlib import Path

import click
from rich.table import Table

from simulacra.cli.app import cli, model_options
from simulacra.cli.console import console
from simulacra.errors import UserError
from simulacra.llm import CALLS_FILE, ModelOutputError, open_model, resolve_model
from simulacra.llm.calllog import Totals
from simulacra.llm.templates import all_templates, find_template
from simulacra.settings import Settings
from simulacra.textfile import read_text


@cli.group()
def prompts() -> None:
    """Prompt templates: list them, or try one against a model."""


@prompts.command("list")
def prompts_list() -> None:
    """Every prompt template, with the schema its answer is bound to."""
    table = Table(box=None, show_header=True, header_style="bold")
    for column in ("name", "schema", "description", "file"):
        table.add_column(column)
    for name, template in all_templates().items():
        table.add_row(
            name,
            template.schema(**template.example).__name__,  # the answer's title
            template.description,
            str(template.path.relative_to(template.path.parents[2])),
        )
    console.print(table)


@prompts.command("try")
@click.argument("name")
@click.option(
    "--vars",
    "vars_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="JSON file of template variables. Default: the template's [example].",
)
@click.option(
    "-n",
    "runs",
    type=click.IntRange(1, 10_000),
    default=1,
    show_default=True,
    help="How many samples (each with its own seed).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Directory for the call log. Default: runs/prompts/NAME-TIME/.",
)
@click.option("--show-prompt", is_flag=True, help="Print the rendered prompt first.")
@model_options
@click.pass_obj
def prompts_try(
    settings: Settings,
    name: str,
    vars_file: Path | None,
    runs: int,
    out: Path | None,
    show_prompt: bool,
) -> None:
    """Render template NAME, sample it N times, print each parsed answer and a summary."""
    template = find_template(name)
    variables = _load_vars(vars_file) if vars_file else template.example
    if show_prompt:
        from simulacra.llm.schema import json_schema
        from simulacra.llm.structured import StructuredModel

        prompt = template.render(**variables)
        user = StructuredModel.full_user_text(prompt, json_schema(template.schema(**variables)))
        console.print(f"[bold]system[/bold]\n{prompt.system}\n[bold]user[/bold]\n{user}\n")
    out = out or Path("runs") / "prompts" / f"{name}-{datetime.now():%Y%m%d-%H%M%S}"
    model = open_model(settings.llm, log_dir=out, retries=0)
    parsed = 0
    for i in range(runs):
        try:
            answer = template.ask(model, seed=settings.llm.seed + i, **variables)
        except ModelOutputError as e:
            console.print(f"{i + 1:>4}  did not parse: {e}")
            continue
        parsed += 1
        entry = model.log.last
        how = "cached" if entry["cache_hit"] else f"{entry['seconds']:.2f} s"
        console.print(f"{i + 1:>4}  {answer.model_dump_json(by_alias=True)}  [dim]{how}[/dim]")
    console.print(f"parsed {parsed}/{runs} · {_totals_line(model.log.totals)}")
    console.print(f"call log: {out / CALLS_FILE}")


def _load_vars(path: Path) -> dict:
    try:
        data = json.loads(read_text(path))
    except (FileNotFoundError, IsADirectoryError):
        raise UserError("no such file", file=path, field="--vars") from None
    except json.JSONDecodeError as e:
        raise UserError(f"not valid JSON: {e}", file=path, fix="give a JSON object") from None
    if not isinstance(data, dict):
        raise UserError("expected a JSON object of template variables", file=path)
    return data


def _totals_line(t: Totals) -> str:
    return (
        f"{t.calls} model calls, {t.cache_hits} from cache · {t.prompt_tokens} prompt tokens"
        f" ({t.reused_tokens} reused, {t.reuse_share:.0%}) · {t.generated_tokens} generated"
        f" · {t.seconds:.1f} s · {t.parse_failures} parse failures"
    )


@prompts.command("eval")
@click.argument("names", nargs=-1)
@click.option(
    "--model",
    "models",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="GGUF file; repeat to compare models side by side. Default: the resolved model.",
)
@click.option(
    "-n",
    "samples",
    type=click.IntRange(1, 100),
    default=1,
    show_default=True,
    help="Samples per case, each with its own seed.",
)
@click.option("--threads", type=click.IntRange(1, 256), help="CPU threads for llama.cpp.")
@click.option("--no-cache", is_flag=True, help="Ask the model even for recorded answers.")
@click.option("-v", "--verbose", is_flag=True, help="Print every failed check with its answer.")
@click.pass_obj
def prompts_eval(
    settings: Settings,
    names: tuple[str, ...],
    models: tuple[Path, ...],
    samples: int,
    threads: int | None,
    no_cache: bool,
    verbose: bool,
) -> None:
    """Score templates on their [[case]] checks: a table of templates × pass rate per model.

    NAMES are template names (default: every template with cases).
    """
    import gc

    from simulacra.llm.prompt_eval import evaluate, score_cell

    templates = [find_template(n) for n in names] if names else list(all_templates().values())
    templates = [t for t in templates if t.cases]
    if not templates:
        raise UserError("none of these templates has [[case]] tables", fix="name others")
    if threads:
        settings.llm.n_threads = threads
    if no_cache:
        settings.llm.cache = False
    columns: list[tuple[str, dict[str, str], Totals]] = []
    repaired: list[tuple[str, list]] = []  # per model: its TemplateScores
    for path in models or (None,):
        settings.llm.model = path
        label = resolve_model(path, cache_dir=settings.llm.cache_dir).path.name
        out = Path("runs") / "prompts" / f"eval-{datetime.now():%Y%m%d-%H%M%S}"
        model = open_model(settings.llm, log_dir=out, retries=0)
        console.print(f"[bold]{label}[/bold]  (call log: {out / CALLS_FILE})")

        def show(result) -> None:
            if result.passed:
                return
            console.print(f"  [red]fail[/red] {result.case.template.name} · {result.case.name}")
            if verbose:
                for why in result.failures:
                    console.print(f"       {why}")
                console.print(f"       [dim]{json.dumps(result.answer, ensure_ascii=False)}[/dim]")

        scores = evaluate(model, templates, samples=samples, seed=settings.llm.seed, on_result=show)
        cells = {s.name: score_cell(s.passed, len(s.results)) for s in scores}
        passed = sum(s.passed for s in scores)
        total = sum(len(s.results) for s in scores)
        cells["[bold]all[/bold]"] = score_cell(passed, total)
        columns.append((label, cells, model.log.totals))
        repaired.append((label, scores))
        del model
        gc.collect()  # free one model's memory before loading the next
    table = Table(box=None, header_style="bold")
    table.add_column("template")
    for label, _, _ in columns:
        table.add_column(label, justify="right")
    for name in [t.name for t in templates] + ["[bold]all[/bold]"]:
        table.add_row(name, *[cells.get(name, "-") for _, cells, _ in columns])
    console.print(table)
    console.print(
        "[dim]In brackets: passed/samples and the 95% range of the true rate; "
        "scores whose ranges overlap may differ by chance.[/dim]"
    )
    for label, _, totals in columns:
        console.print(f"{label}: {_totals_line(totals)}")
    for label, scores in repaired:
        console.print(f"repairs the answers needed ({label}):")
        for score in scores:
            console.print(f"  {score.name}: {_repairs_line(score.repairs)}")


def _repairs_line(counts: Counter[str]) -> str:
    if not counts:
        return "none"
    rules = ", ".join(f"{name} {n}" for name, n in counts.most_common())
    return f"{counts.total()} ({rules})"
