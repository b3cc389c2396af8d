"""A checkpoint: everything a run needs to go on from a step, as one typed model with a
version, saved in memory.sqlite beside the memories it counts (committed together).

Version 0 is the format written before this model: the same parts as hand-made dicts with
no ``version``, the town's fields at the top, cool-downs keyed "A|B", a plan's steps as
[activity, start, minutes] lists, the avatar's lines as [speaker, text], and an action
asleep when its activity began with "sleeping". It is converted
on reading (:func:`parse`), here and nowhere else, so runs made before still open.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import Field

from simulacra.sim.town import TownState
from simulacra.state import State

VERSION = 1


class Checkpoint(State):
    version: int = VERSION
    step: int = Field(ge=0)
    wall_seconds: float  # time spent stepping, over every session of the run
    # How many memories each resident holds, so that memories lost from memory.sqlite are
    # found on opening (savedstate.py). Checkpoints of version 0 written before it have none.
    memories: dict[str, int] | None = None
    town: TownState


class NewerCheckpoint(Exception):
    """A checkpoint written by a later simulacra, in a format this one does not know."""

    def __init__(self, version: object) -> None:
        self.version = version
        super().__init__(f"checkpoint version {version}")


def parse(text: str) -> Checkpoint:
    """The checkpoint ``text`` holds, converted if it is of version 0.

    Raises json.JSONDecodeError for text that is not JSON (cut short), NewerCheckpoint, and
    ValueError (pydantic's ValidationError among them) for JSON that is no checkpoint."""
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("a checkpoint is a JSON object")
    version = data.get("version", 0)
    if version == 0:
        try:
            upgraded = upgrade(data)
        except (KeyError, TypeError, AttributeError, IndexError) as e:
            raise ValueError(f"not a checkpoint of version 0 ({type(e).__name__}: {e})") from e
        return Checkpoint.model_validate(upgraded)
    if version != VERSION:
        raise NewerCheckpoint(version)
    return Checkpoint.model_validate_json(text)


def upgrade(data: dict[str, Any]) -> dict[str, Any]:
    """A version-0 checkpoint as the fields of the current one."""
    town = {k: v for k, v in data.items() if k not in ("step", "wall_seconds", "memories")}
    town["cooldowns"] = [
        {"between": key.split("|"), "until": until} for key, until in town["cooldowns"].items()
    ]
    # Fields later versions 0 added; a checkpoint from before them had nothing to keep there.
    town.setdefault("unlogged", {})  # every memory was logged: the cursors stay at the end
    town.setdefault("actions", [])
    town.setdefault("avatar_chats", [])
    town.setdefault("logged_objects", town["world"].get("objects", {}))
    avatar = town.get("avatar")
    if avatar:
        avatar["lines"] = [{"speaker": s, "text": t} for s, t in avatar["lines"]]
    town["avatar"] = avatar or None
    for resident in town["residents"].values():
        action = resident["action"]
        if action:  # asleep was read from the words then
            action["asleep"] = action["activity"].startswith("sleeping")
        for block in (resident["plan"] or {}).get("blocks", []):
            block["steps"] = [
                {"activity": a, "start": start, "minutes": m} for a, start, m in block["steps"]
            ]
    return {
        "version": VERSION,
        "step": data["step"],
        "wall_seconds": data["wall_seconds"],
        "memories": data.get("memories"),
        "town": town,
    }
