"""Event lines of version 1 (before the typed record): untyped dicts whose action was a
sentence and whose plans were lines of text. Read by upgrading each line on the way in, so
runs made before still open everywhere; this is the one place that takes them apart."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from simulacra.cognition.emoji import word_of

_BLOCK = re.compile(r"^(\d\d):(\d\d)-(\d\d):(\d\d) (.*)$")


def upgrade(data: dict) -> dict:
    """A version-1 line as the fields of a version-2 record."""
    time = datetime.fromisoformat(data["time"])
    agents = {}
    for name, a in data["agents"].items():
        prefix = f"{name} is "
        action = a["action"]
        agents[name] = {
            "tile": a["tile"],
            "activity": action[len(prefix) :] if action.startswith(prefix) else action,
            "description": action,
            "emoji": a["emoji"],
            "emoji_word": word_of(a["emoji"]),
            "place": a["place"],
        }
    out = {"step": data["step"], "time": data["time"], "agents": agents}
    out["objects"] = data.get("objects", {})
    out["chats"] = [
        {"between": c["between"], "lines": [{"speaker": s, "text": t} for s, t in c["lines"]]}
        for c in data.get("chats", [])
    ]
    out["memories"] = {
        name: [{"kind": kind, "text": text} for kind, text in notes]
        for name, notes in data.get("memories", {}).items()
    }
    out["plans"] = {
        name: {"day": lines[0], "blocks": _blocks(time, lines[1:])}
        for name, lines in data.get("plans", {}).items()
    }
    return out


def _blocks(time: datetime, lines: list[str]) -> list[dict]:
    midnight = time.replace(hour=0, minute=0, second=0, microsecond=0)
    blocks = []
    for line in lines:
        m = _BLOCK.match(line)
        if m is None:
            raise ValueError(f"not a plan line: {line!r}")
        h0, m0, h1, m1, activity = m.groups()
        start = midnight + timedelta(hours=int(h0), minutes=int(m0))
        end = midnight + timedelta(hours=int(h1), minutes=int(m1))
        if end <= start:  # "23:00-00:00": until midnight
            end += timedelta(days=1)
        blocks.append({"start": start, "end": end, "activity": activity})
    return blocks
