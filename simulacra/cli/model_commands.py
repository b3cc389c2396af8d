"""`simulacra doctor`, `simulacra prompts ...`, `simulacra stats`: the model stack at work."""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

import click
from rich.table import Table

from simulacra.cli.app import cli, model_options, vector_options
from simulacra.cli.console import console
from simulacra.errors import UserError
from simulacra.llm import CALLS_FILE, ModelOutputError, open_model, resolve_model
from simulacra.llm.calllog import Totals, read_calls, summarise
from simulacra.llm.repairs import Rule, hits
from simulacra.llm.templates import all_templates, find_template
from simulacra.settings import Settings
from simulacra.textfile import read_text


def _versions(*packages: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in packages:
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            found.append(f"{name} (not installed)")
    return " · ".join(found)


@cli.command()
@model_options
@vector_options
@click.pass_obj
def doctor(settings: Settings) -> None:
    """Show the model, embedder and vector store in use, then time one call of each."""
    from simulacra.embed import open_embedder
    from simulacra.llm.structured import StructuredModel
    from simulacra.memory.vectors import VectorStore

    backend = _doctor_backend(settings)
    embedder = open_embedder(settings.embed, cache_dir=None)
    console.print(f"embedder   {embedder.identity}  {embedder.inner.model_dir}")
    console.print(
        f"           {_versions('sentence-transformers', 'torch')} · {settings.embed.device}"
    )
    where = settings.vectors.server or "embedded"
    console.print(f"vectors    {_versions('chromadb')} · {where} · telemetry off")
    cache = "on" if settings.llm.cache else "off"
    console.print(f"cache      replay {cache} · {settings.llm.cache_dir}")

    # The checks bypass the replay cache so the timings are real.
    model = StructuredModel(backend, settings.llm, retries=0)
    template = find_template("importance")
    start = time.perf_counter()
    answer = template.ask_example(model)
    entry = model.log.last
    console.print(
        f"check      structured call ({template.name}): {answer.model_dump_json(by_alias=True)} in "
        f"{time.perf_counter() - start:.2f} s ({entry['prompt_tokens']} prompt tokens, "
        f"{entry['generated_tokens']} generated)"
    )
    start = time.perf_counter()
    embedder.inner.model  # noqa: B018 - load, timed apart from the embedding itself
    loaded = time.perf_counter() - start
    start = time.perf_counter()
    vector = embedder.embed_one("Isabella Rodriguez is opening Hobbs Cafe")
    console.print(
        f"           embedding: {vector.shape[0]} dimensions in {time.perf_counter() - start:.3f} s"
        f" (model loaded in {loaded:.1f} s)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        namespace = f"doctor{os.getpid()}"
        vectors = VectorStore(
            Path(tmp), server=settings.vectors.server, namespace=namespace
        ).collection("doctor")
        vectors.upsert([1], vector[None, :])
        ((found, similarity),) = vectors.nearest(vector, 1)
        vectors.drop()
        console.print(
            f"           chroma round trip: id {found}, similarity {similarity:.3f}"
            f" in {time.perf_counter() - start:.2f} s"
        )
    console.print("ok")


def _doctor_backend(settings: Settings):
    """The backend in use, described; loaded (or asked) so its timing is apart from the call."""
    start = time.perf_counter()
    if settings.llm.server:
        from simulacra.llm.server import ServerModel

        backend = ServerModel(settings.llm.server, settings.llm)
        name = backend.model
        console.print(f"model      {name}  [server {backend.url}]")
        seconds = time.perf_counter() - start
        console.print(f"           OpenAI-compatible chat API · answered in {seconds:.2f} s")
        return backend
    from simulacra.llm.llama import LlamaCppModel

    resolved = resolve_model(settings.llm.model, cache_dir=settings.llm.cache_dir)
    backend = LlamaCppModel(resolved.path, settings.llm)
    info = backend.info
    load_s = time.perf_counter() - start
    console.print(f"model      {info.name}  [{resolved.source}]")
    console.print(f"           {info.path}")
    console.print(
        f"           llama-cpp-python {info.llama_cpp_version} · n_ctx {info.n_ctx}"
        f" (trained {info.n_ctx_train or '?'}) · {info.n_threads} threads"
        f" · {info.n_gpu_layers} GPU layers · chat template {info.chat_template}"
        f" · loaded in {load_s:.2f} s"
    )
    return backend


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
            template.schema_ref.split(":")[-1],
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
        "generated",
        "parse fail",
        "repairs",
        "seconds",
        "s/call",
        "prefill",
        "decode",
        "sample",
        "resampled",
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
            str(t.generated_tokens),
            str(t.parse_failures),
            str(t.repairs),
            f"{t.seconds:.1f}",
            per_call,
            f"{t.prefill_seconds:.1f}",
            f"{t.decode_seconds:.1f}",
            f"{t.sample_seconds:.1f}",
            str(t.resampled_tokens),
        ]

    for name, totals in sorted(summary.by_template.items()):
        table.add_row(*row(name, totals))
    table.add_row(*row("[bold]total[/bold]", summary.total))
    console.print(table)
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
    console.print(f"parse failures {t.parse_failures} · invalid places {r.invalid_places}")
    from simulacra.cli.sim_commands import warn_if_log_short

    warn_if_log_short(directory, r.steps)


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
