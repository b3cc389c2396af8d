"""Threads as text for the terminal: each post, then its replies indented under the message
they answer; agents' messages marked, and optionally each decision's thought."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

from rich.markup import escape

from simulacra import gametime
from simulacra.feed.board import FeedDecision, Message
from simulacra.feed.run import open_board


def render_threads(directory: Path, *, thoughts: bool = False) -> Iterator[str]:
    board, _ = open_board(directory)
    try:
        messages = board.messages()
        decisions = board.decisions()
        now = board.now
    finally:
        board.close()
    yield f"[dim]clock {gametime.describe(now)} · {len(messages)} messages[/dim]"
    children: dict[int | None, list[Message]] = defaultdict(list)
    for message in messages:
        children[message.parent].append(message)
    about: dict[int, list[FeedDecision]] = defaultdict(list)
    for decision in decisions:
        about[decision.message].append(decision)

    def walk(message: Message, depth: int) -> Iterator[str]:
        indent = "  " * depth + ("└ " if depth else "")
        who = (
            f"[bold magenta]{escape(message.author)}[/]"
            if message.by_agent
            else (f"[bold]{escape(message.author)}[/]")
        )
        yield f"{indent}#{message.id} {who} [dim]{message.posted:%H:%M}[/] {escape(message.text)}"
        if thoughts:
            pad = "  " * (depth + 1)
            for d in about.get(message.id, []):
                yield f"{pad}[dim]· {escape(d.agent)} {d.reaction}s: {escape(d.thought)}[/]"
        for child in children.get(message.id, []):
            yield from walk(child, depth + 1)

    for post in children.get(None, []):
        yield ""
        yield from walk(post, 0)
