"""`simulacra view` and `simulacra report`: watch a run in a browser, or write a report."""

from __future__ import annotations

import webbrowser
from pathlib import Path

import click

from simulacra.cli.app import cli
from simulacra.cli.console import console
from simulacra.cli.sim_commands import warn_if_log_short

SIM_DIR = click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
# The options every page-serving command shares (view, play, feed view).
PORT = click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="Port on 127.0.0.1 (0: any free port).",
)
NO_BROWSER = click.option("--no-browser", is_flag=True, help="Only print the address.")


@cli.command()
@SIM_DIR
@PORT
@NO_BROWSER
@click.option("--follow", is_flag=True, help="Follow a run that `simulacra run` is still writing.")
def view(directory: Path, port: int, no_browser: bool, follow: bool) -> None:
    """Replay the simulation in DIRECTORY in a web page, on this machine only.

    Play, pause, change speed, scrub through time; click a resident to see what it is doing,
    its plan and its recent memories. Ctrl-C stops the server.
    """
    from simulacra.viewer.server import ViewerServer

    server = ViewerServer(directory, port=port, follow=follow)
    console.print(f"viewing {directory} at {server.url}   (Ctrl-C stops)")
    warn_if_log_short(directory, server.events.refresh())
    if not no_browser:
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    console.print("viewer stopped")


@cli.command()
@SIM_DIR
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder for index.html and the plots. Default: DIRECTORY/report.",
)
def report(directory: Path, out: Path | None) -> None:
    """Write an HTML report of the simulation in DIRECTORY: activity timelines, who talked to
    whom, network density over time, model calls and tokens per game-hour."""
    from simulacra.viewer.report import write_report

    console.print(str(write_report(directory, out)))
    warn_if_log_short(directory)
