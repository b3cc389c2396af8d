"""The feed page's API: the whole board of a feed run as one JSON document.

GET /feed        the page (static/feed.html)
GET /api/feed    {"name", "clock", "messages": [...], "decisions": [...]}; each decision holds
                 the agent's thought, its choice, the reply it wrote, the recent-memory summary
                 and the memories the reply drew on, and the facts it remembered
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from simulacra.feed.run import open_board
from simulacra.feed.world import FEED_FILE, read_toml


def feed_json(directory: Path) -> bytes:
    board, agents = open_board(directory)
    try:
        messages = board.messages()
        decisions = board.decisions()
        clock = board.now
    finally:
        board.close()
    info = read_toml(Path(directory) / FEED_FILE)
    data = {
        "name": info.get("name", "feed"),
        "description": info.get("description", ""),
        "clock": clock.isoformat(),
        "agents": agents,
        "messages": [{**asdict(m), "posted": m.posted.isoformat()} for m in messages],
        "decisions": [{**asdict(d), "at": d.at.isoformat()} for d in decisions],
    }
    return json.dumps(data, ensure_ascii=False).encode("utf-8")
