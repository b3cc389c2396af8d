"""`simulacra feed ...`: generative agents on a social feed (threads of posts and replies)."""

from __future__ import annotations

import webbrowser
from pathlib import Path

import click
from rich.markup import escape

from simulacra import gametime
from simulacra.cli.app import cli, model_options
from simulacra.cli.console import console
from simulacra.cli.view_commands import NO_BROWSER, PORT
from simulacra.settings import Settings

FEED_DIR = click.argument("directory", type=click.Path(file_okay=False, path_type=Path))


@cli.group()
def feed() -> None:
    """A social feed: people post, agents read on a schedule, reply, and remember."""


@feed.command("new")
@FEED_DIR
@click.option(
    "--world",
    "world_dir",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="A feed world folder, e.g. worlds/fan-feed.",
)
@model_options
@click.pass_obj
def feed_new(settings: Settings, directory: Path, world_dir: Path) -> None:
    """Create a feed run in DIRECTORY from a feed world: its agents and its posts."""
    from simulacra.feed import FeedRun

    run = FeedRun.create(directory, world_dir, settings=settings)
    console.print(
        f"created feed {run.info.name!r} in {directory}: {len(run.board.messages())} messages, "
        f"agents {', '.join(a.name for a in run.agents)}; clock {gametime.describe(run.now)}"
    )
    run.close()


@feed.command("post")
@FEED_DIR
@click.argument("text")
@click.option("--as", "author", required=True, help="Who writes it (a person, not an agent).")
@click.option("--reply-to", type=int, help="Id of the message answered (see `feed show`).")
def feed_post(directory: Path, text: str, author: str, reply_to: int | None) -> None:
    """Post TEXT on the feed at its current game time; agents read it when they next wake."""
    from simulacra.feed.run import open_board, post_to

    board, agents = open_board(directory)  # posting needs no model
    try:
        message = post_to(board, agents, author, text, reply_to)
    finally:
        board.close()
    where = f" (reply to #{message.parent})" if message.parent else ""
    console.print(
        f"#{message.id}{where} {message.author} at {message.posted:%H:%M}: {message.text}"
    )


@feed.command("run")
@FEED_DIR
@click.option(
    "--hours",
    type=click.FloatRange(min=0, min_open=True),
    default=1.0,
    show_default=True,
    help="Game hours to run from the feed's clock.",
)
@model_options
@click.pass_obj
def feed_run(settings: Settings, directory: Path, hours: float) -> None:
    """Run the feed for HOURS of game time; a killed run continues where it stopped."""
    from simulacra.feed import FeedRun

    run = FeedRun.open(directory, settings=settings)

    def show(agent, message, decision) -> None:
        head = f"{decision.at:%H:%M} {agent.name} {decision.reaction}s #{message.id}"
        console.print(f"[bold]{escape(head)}[/bold] [dim]{escape(decision.thought)}[/dim]")
        if decision.reply is not None:
            reply = run.board.get(decision.reply)
            console.print(f"   #{reply.id} → #{reply.parent}: {escape(reply.text)}")

    try:
        wakes = run.run(hours, show)
        clock = run.now
    finally:
        run.close()
    console.print(f"{wakes} wake-ups; clock {gametime.describe(clock)}")


@feed.command("show")
@FEED_DIR
@click.option("--thoughts", is_flag=True, help="Also print each agent decision and thought.")
def feed_show(directory: Path, thoughts: bool) -> None:
    """Print the threads in the terminal (no model call)."""
    from simulacra.feed.show import render_threads

    for line in render_threads(directory, thoughts=thoughts):
        console.print(line)


@feed.command("interview")
@FEED_DIR
@click.argument("agent")
@click.argument("question")
@click.option("--as", "interviewer", default="a news reporter", show_default=True)
@model_options
@click.pass_obj
def feed_interview(
    settings: Settings, directory: Path, agent: str, question: str, interviewer: str
) -> None:
    """Ask AGENT a QUESTION (e.g. an award question); it answers from what it remembers."""
    from simulacra.feed import FeedRun

    run = FeedRun.open(directory, settings=settings)
    found = run.agent(agent)
    console.print(f"{found.name}: {found.interview(question, interviewer, at=run.now)}")
    run.close()


@feed.command("view")
@FEED_DIR
@PORT
@NO_BROWSER
def feed_view(directory: Path, port: int, no_browser: bool) -> None:
    """Show the threads in a web page (127.0.0.1 only), live while a run writes them; click
    an agent's reply for its thought process and the memories it used."""
    from simulacra.viewer.server import ViewerServer

    server = ViewerServer(directory, port=port)
    url = server.url + "feed"
    console.print(f"viewing {directory} at {url}   (Ctrl-C stops)")
    if not no_browser:
        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
