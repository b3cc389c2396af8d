"""`simulacra run`, and what can be done with a simulation directory between runs:
fork, interview, whisper, set, log."""

from __future__ import annotations

import math
import signal
import threading
import time
from datetime import datetime
from pathlib import Path

import click
from rich.console import Group
from rich.live import Live
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table

from simulacra import diskfull, gametime
from simulacra.cli.app import cli, model_options, vector_options
from simulacra.cli.console import console, shown, warn
from simulacra.cli.names import match_name
from simulacra.errors import UserError
from simulacra.llm.resolve import resolve_model
from simulacra.settings import LimitSettings, Settings
from simulacra.sim import rundir, runlock, savedstate
from simulacra.sim.eventlog import EVENTS_FILE, read_events
from simulacra.sim.interact import Interactions
from simulacra.sim.record import StepRecord, UserAction
from simulacra.sim.savedstate import log_ends_early
from simulacra.sim.simulation import Simulation
from simulacra.text import bounded
from simulacra.world import load_world
from simulacra.world.state import WorldState

SIM_DIR = click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
MAX_HOURS = 24 * 366  # a year of game time per command; --resume adds more


class GameHours(click.ParamType):
    """A positive, finite number of game hours, at most a year (nan, inf and 1e9 are not)."""

    name = "hours"

    def convert(self, value, param, ctx) -> float:
        try:
            hours = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number of hours", param, ctx)
        if not math.isfinite(hours) or not 0 < hours <= MAX_HOURS:
            self.fail(f"{value!r}: give a number of hours above 0, at most {MAX_HOURS}", param, ctx)
        return hours


@cli.command()
@click.argument("world", required=False, type=click.Path(path_type=Path))
@click.option(
    "--hours",
    type=GameHours(),
    default=2.0,
    show_default=True,
    help="Game hours to simulate (with --resume: more hours).",
)
@click.option("--agents", help="Comma-separated names of the residents to include.")
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Simulation directory. Default: runs/WORLD-TIME/.",
)
@click.option(
    "--resume",
    "resume",
    type=click.Path(file_okay=False, path_type=Path),
    help="Continue the simulation in this directory from its last checkpoint.",
)
@click.option(
    "--concurrency",
    type=click.IntRange(1, 64),
    help="Model calls of different agents made at once (the in-process model decodes up to "
    "llm.n_parallel of them together, a server batches them). Default: engine.concurrency (4).",
)
@model_options
@vector_options
@click.pass_obj
def run(
    settings: Settings,
    world: Path | None,
    hours: float,
    agents: str | None,
    out: Path | None,
    resume: Path | None,
    concurrency: int | None,
) -> None:
    """Simulate WORLD (e.g. worlds/smallville-3) for some game hours, or --resume a run.

    Ctrl-C (or SIGTERM) checkpoints and stops cleanly; `simulacra run --resume DIR` carries on.
    """
    hours_given = click.get_current_context().get_parameter_source("hours").name != "DEFAULT"
    if resume is not None:
        if world is not None:
            raise UserError("give either WORLD or --resume DIR, not both", field="--resume")
        if "server" in settings.vectors.model_fields_set:
            _move_vectors(resume, settings.vectors.server)
        _check_saved_model(resume, settings)
        sim = Simulation.resume(resume, overrides=settings.llm, concurrency=concurrency)
        for line in sim.said:
            console.print(shown(line))
        if hours_given:
            sim.extend(hours)
    else:
        if world is None:
            raise UserError(
                "which world?",
                field="WORLD",
                fix="e.g. simulacra run worlds/smallville-3 --hours 2",
            )
        names = [a.strip() for a in agents.split(",")] if agents else None
        out = out or Path("runs") / f"{world.resolve().name}-{datetime.now():%Y%m%d-%H%M%S}"
        resolve_model(settings.llm.model, cache_dir=settings.llm.cache_dir)  # fail before making
        console.print(f"setting up {shown(str(world))} in {shown(str(out))} ...")
        if concurrency is not None:
            settings.engine.concurrency = concurrency
        with rundir.removed_on_failure(out):
            sim = Simulation.create(world, out, hours=hours, settings=settings, agents=names)
    _run_live(sim)


def _move_vectors(directory: Path, server: str | None) -> None:
    """From now on keep this run's vectors on ``server``: the run's settings say where they
    live, and the memory store refills a new place from its records when it opens."""
    meta = rundir.read_meta(directory)
    meta.settings.setdefault("vectors", {})["server"] = server
    rundir.write_json(directory / rundir.META_FILE, meta.to_json())


def _check_saved_model(directory: Path, settings: Settings) -> None:
    """A run whose model file went away (or was wrong) continues with another: say how."""
    if "model" in settings.llm.model_fields_set:
        return  # --model given: it replaces the saved one
    saved = rundir.settings_of(rundir.read_meta(directory), directory).llm.model
    try:
        resolve_model(saved, cache_dir=settings.llm.cache_dir)
    except UserError as e:
        raise UserError(
            f"the run's model {saved or '(the default)'}: {e.problem}",
            file=directory / rundir.META_FILE,
            field="settings.llm.model",
            fix="continue it with another model: simulacra run --resume DIR --model PATH",
        ) from None


def _run_live(sim: Simulation) -> None:
    stop = threading.Event()
    stopped_by: list[str] = []

    def on_interrupt(signum, frame):  # noqa: ARG001
        if stop.is_set():  # a second Ctrl-C: stop now, the last checkpoint stands
            raise KeyboardInterrupt
        # The first: finish the step, checkpoint, stop. SIGTERM (timeout, systemd, docker
        # stop) asks the same.
        stopped_by.append("Ctrl-C" if signum == signal.SIGINT else signal.Signals(signum).name)
        stop.set()

    previous = {s: signal.signal(s, on_interrupt) for s in (signal.SIGINT, signal.SIGTERM)}
    total = sim.meta.total_steps
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[info]}"),
        console=console,
    )
    task = progress.add_task(
        gametime.describe(sim.now), total=total, completed=sim.step_no, info=""
    )
    started = time.monotonic()
    last_shown = 0.0

    def on_step(report: StepRecord) -> None:
        nonlocal last_shown
        now = time.monotonic()
        if now - last_shown < 0.25 and report.step + 1 < total:
            return
        last_shown = now
        t = sim.model.log.totals
        speed = t.generated_tokens / t.seconds if t.seconds else 0.0
        progress.update(
            task,
            completed=report.step + 1,
            description=gametime.describe(report.time),
            info=f"{t.calls} model calls · {speed:.0f} tok/s",
        )
        rows = Table(box=None, show_header=False, padding=(0, 1))
        for name, a in report.agents.items():
            rows.add_row(shown(name), shown(f"{a.emoji} {a.activity}"[:90]))
        live.update(Group(progress, rows))

    failure: BaseException | None = None
    try:
        with Live(progress, console=console, refresh_per_second=4, transient=False) as live:
            sim.run(on_step=on_step, should_stop=stop.is_set)
    except BaseException as e:
        failure = e
        raise
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        _close(sim, failure)
    t = sim.model.log.totals
    state = f"stopped ({stopped_by[0]}) at" if stop.is_set() else "finished at"
    console.line()  # piped output: the live display's last line has no end of its own
    console.print(
        f"{state} {gametime.describe(sim.now)}, step {sim.step_no}/{total}, "
        f"in {time.monotonic() - started:.0f} s · {t.calls} model calls "
        f"({t.cache_hits} from cache) · {t.parse_failures} parse failures"
    )
    console.print(
        f"run: {sim.directory}   next: simulacra log {sim.directory}"
        f" · simulacra view {sim.directory}"
        + (f" · simulacra run --resume {sim.directory}" if stop.is_set() else "")
    )


def _close(sim: Simulation, failure: BaseException | None) -> None:
    """Close the run after it stopped, ``failure`` being why if it failed. Closing after a
    failure can fail too (a full disk fails the call log's last write): the failure is the
    news, and a full disk one line saying that nothing was lost."""
    try:
        sim.close()
    except Exception as e:
        if failure is None and not diskfull.is_disk_full(e):
            raise
        failure = failure or e
    if failure is not None and diskfull.is_disk_full(failure):
        saved = savedstate.saved_checkpoint(sim.directory)
        step = saved.step if saved is not None else None
        raise diskfull.run_stopped(failure, sim.directory, step) from None


@cli.command()
@click.argument("source", type=click.Path(file_okay=False, path_type=Path))
@click.argument("target", type=click.Path(file_okay=False, path_type=Path))
def fork(source: Path, target: Path) -> None:
    """Copy the simulation in SOURCE to TARGET, to continue it differently."""
    rundir.fork(source, target)
    console.print(f"forked {source} into {target}; continue with simulacra run --resume {target}")


def _open(directory: Path, settings: Settings) -> Simulation:
    try:
        return Simulation.open(directory, overrides=settings.llm)
    except BaseException:
        runlock.release(directory)  # held by whisper and set, which fail with it
        raise


def _limits(directory: Path) -> LimitSettings:
    """The run's own bounds on user text, checked before anything is opened."""
    return rundir.settings_of(rundir.read_meta(directory), directory).limits


@cli.command()
@SIM_DIR
@click.argument("agent")
@click.argument("question")
@click.option("--as", "interviewer", default="a news reporter", show_default=True)
@model_options
@click.pass_obj
def interview(
    settings: Settings, directory: Path, agent: str, question: str, interviewer: str
) -> None:
    """Ask AGENT of the simulation in DIRECTORY a QUESTION; the answer comes from memory."""
    limit = _limits(directory).memory_chars
    bounded(question, limit, field="QUESTION", setting="limits.memory_chars")
    bounded(interviewer, limit, field="--as", setting="limits.memory_chars")
    name = match_name(agent, rundir.read_meta(directory).agents)  # before opening anything
    sim = _open(directory, settings)
    resident = sim.resident(name)
    answer = resident.agent.interview(question, interviewer, at=sim.now)
    console.print(f"{shown(resident.name)}: {shown(answer)}")
    sim.close()


@cli.command()
@SIM_DIR
@click.argument("agent")
@click.argument("statement")
@click.pass_obj
def whisper(settings: Settings, directory: Path, agent: str, statement: str) -> None:
    """Speak as AGENT's inner voice: STATEMENT becomes its resolve, followed by its next plans."""
    limit = _limits(directory).memory_chars
    statement = bounded(statement.strip(), limit, field="STATEMENT", setting="limits.memory_chars")
    if not statement:
        raise UserError("the statement is empty", field="STATEMENT", fix="say what AGENT resolves")
    # Checked before the run is opened: opening writes to Chroma's files even if nothing follows.
    name = match_name(agent, rundir.read_meta(directory).agents)
    rundir.hold_for_writing(directory)
    sim = _open(directory, settings)
    said = Interactions(sim).whisper(name, statement)  # logged with the next step
    sim.close()
    console.print(f"{shown(name)} resolves: {shown(said)}")


@cli.command("set")
@SIM_DIR
@click.argument("obj", metavar="OBJECT")
@click.argument("state")
@click.pass_obj
def set_state(settings: Settings, directory: Path, obj: str, state: str) -> None:
    """Change an OBJECT's STATE in words, e.g. "Lin family's kitchen stove" "is burning".
    Agents who can see it notice on the next step."""
    limit = _limits(directory).object_state_chars
    state = bounded(state, limit, field="STATE", setting="limits.object_state_chars")
    _check_object(directory, obj, state)  # before opening: opening writes to Chroma's files
    rundir.hold_for_writing(directory)
    sim = _open(directory, settings)
    address, now = Interactions(sim).set_object(obj, state)  # logged with the next step
    sim.close()
    console.print(shown(f"{address} is {now}"))


def _check_object(directory: Path, obj: str, state: str) -> None:
    """The object and its state as the town will take them, read from the run's world."""
    world = load_world(rundir.world_path(directory, rundir.read_meta(directory)))
    WorldState(world).set_object_state(obj, state)  # a scratch state: raises what the town would


@cli.command()
@SIM_DIR
@click.option("--agent", help="Only this resident.")
@click.option("--chats/--no-chats", default=True, show_default=True)
def log(directory: Path, agent: str | None, chats: bool) -> None:
    """A readable account of the run: who did what, where and when, and what was said."""
    meta = rundir.read_meta(directory)
    name = match_name(agent, meta.agents) if agent else None
    last: dict[str, str] = {}
    path = directory / EVENTS_FILE
    if not path.exists():
        raise UserError("no events yet", file=path, fix="run the simulation first")
    day = None
    number = 0
    try:
        for number, record in enumerate(read_events(path), start=1):  # noqa: B007 (in except)
            day = _print_step(record, day, name, chats, last)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise UserError(
            f"event {number + 1} is not a readable step record ({type(e).__name__}: {e})",
            file=path,
            fix="the file was edited or damaged; restore it from a copy",
        ) from None
    warn_if_log_short(directory, number)


def warn_if_log_short(directory: Path, steps: int | None = None) -> None:
    """A reader of a log that ends before the run's checkpoint says so (issue 33)."""
    note = log_ends_early(directory, steps)
    if note:
        warn(note)


def _print_step(record: StepRecord, day, name: str | None, chats: bool, last: dict[str, str]):
    t = record.time
    if t.date() != day:
        day = t.date()
        console.print(f"[bold]{gametime.day(t)}[/bold]")
    for who, a in record.agents.items():
        if name and who != name:
            continue
        line = f"{shown(a.emoji)} {shown(a.description)}" + (
            f"  [dim]({shown(a.place)})[/dim]" if a.place else ""
        )
        if last.get(who) != line:
            last[who] = line
            console.print(f"  {t:%H:%M:%S}  {line}")
    for chat in record.chats if chats else []:
        if name and name not in chat.between:
            continue
        console.print(f"  {t:%H:%M:%S}  💬 {shown(' and '.join(chat.between))}:")
        for spoken in chat.lines:
            console.print(f"              {shown(spoken.speaker)}: {shown(spoken.text)}")
    for address, state in record.objects.items():
        if not name:
            console.print(f"  {t:%H:%M:%S}  [dim]{shown(address)} is {shown(state)}[/dim]")
    for action in record.actions:
        if not name or name in (action.to, action.by):
            console.print(f"  {t:%H:%M:%S}  👤 {shown(_action_words(action))}")
    return day


def _action_words(a: UserAction) -> str:
    """What the user did (simulacra play), as `log` tells it."""
    said = {
        "talk": f"{a.by} asked {a.to}: {a.text!r} - {a.to}: {a.answer!r}",
        "whisper": f"inner voice to {a.to}: {a.text!r}",
        "set": f"{a.to} is now {a.text}",
        "enter": f"{a.by} entered the town at {a.tile}",
        "move": f"{a.by} walks to {a.tile}",
        "say": f"{a.by} to {a.to}: {a.text!r} - {a.to}: {a.answer!r}",
        "leave": f"{a.by} ended the conversation with {a.to}",
    }
    return said[a.kind]
