"""`simulacra play`: a town running live in the browser, which the user can act on."""

from __future__ import annotations

import webbrowser
from datetime import datetime
from pathlib import Path

import click

from simulacra.cli.app import cli, model_options
from simulacra.cli.console import console, shown
from simulacra.cli.sim_commands import _check_saved_model
from simulacra.cli.view_commands import NO_BROWSER, PORT
from simulacra.llm.resolve import resolve_model
from simulacra.settings import Settings
from simulacra.sim import rundir
from simulacra.sim.simulation import Simulation

FIRST_HOURS = 1.0  # a new run's length; a live run goes on by the hour when it gets there


@cli.command()
@click.argument("source", metavar="WORLD_OR_RUN", type=click.Path(path_type=Path))
@PORT
@click.option(
    "--speed",
    type=click.FloatRange(0, 1000),
    default=2.0,
    show_default=True,
    help="Game steps per second of real time at most (0: as fast as the model allows).",
)
@click.option("--paused", is_flag=True, help="Start with the town paused.")
@NO_BROWSER
@model_options
@click.pass_obj
def play(
    settings: Settings, source: Path, port: int, speed: float, paused: bool, no_browser: bool
) -> None:
    """Run the town in WORLD_OR_RUN live in a web page, on this machine only, and step in.

    A world folder (e.g. worlds/smallville-3) starts a new run under runs/; a run directory
    goes on from its last checkpoint. In the page: pause, play and set the speed; talk to
    any resident in a persona of your choosing; whisper as its inner voice; change an
    object's state; enter as an avatar the residents see and talk with. Ctrl-C (or SIGTERM)
    checkpoints and stops.
    """
    from simulacra.sim.live import LiveRun
    from simulacra.viewer.server import ViewerServer

    if (source / rundir.META_FILE).is_file():
        _check_saved_model(source, settings)
        sim = Simulation.resume(source, overrides=settings.llm)
        for line in sim.said:
            console.print(shown(line))
        console.print(f"going on with {shown(str(source))} at step {sim.step_no}")
    else:
        out = Path("runs") / f"{source.resolve().name}-{datetime.now():%Y%m%d-%H%M%S}"
        resolve_model(settings.llm.model, cache_dir=settings.llm.cache_dir)  # fail before making
        console.print(f"setting up {shown(str(source))} in {shown(str(out))} ...")
        with rundir.removed_on_failure(out):
            sim = Simulation.create(source, out, hours=FIRST_HOURS, settings=settings)
    live = LiveRun(sim, speed=speed or None, paused=paused)
    try:
        server = ViewerServer(sim.directory, port=port, live=live)
    except BaseException:
        sim.close()
        raise
    live.start()
    console.print(f"playing {shown(str(sim.directory))} at {server.url}   (Ctrl-C stops)")
    if not no_browser:
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        live.stop()  # the step under way ends, then a checkpoint
        sim.close()
    console.print(
        f"stopped at step {sim.step_no}; go on with: simulacra play {sim.directory}"
        f" · simulacra log {sim.directory}"
    )
