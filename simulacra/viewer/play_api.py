"""The local API of `simulacra play`: what the page may do to the running town.

GET  /api/play                 the town's state: paused, speed, step, the avatar, errors
POST /api/play/control         {"paused": bool, "speed": steps per second, 0: as fast as it goes}
POST /api/play/talk            {"resident", "persona", "question", "remember"}: an interview
POST /api/play/whisper         {"resident", "statement"}: the inner voice
POST /api/play/set             {"object", "state"}: an object's new state, in words
POST /api/play/enter           {"name"}: the avatar walks in at the town entrance
POST /api/play/move            {"x", "y"}: the avatar walks there (A*), a tile a step
POST /api/play/step            {"dx", "dy"}: one tile now (the arrow keys)
POST /api/play/say             {"resident", "text"}: a line to a resident nearby
POST /api/play/leave           {}: end the avatar's conversation

Bodies are JSON, checked against the user's inputs (sim/inputs.py) and Control below
(unknown fields, wrong types and overlong texts are refused); a mistake is a 400 whose text
the page shows. The server checks that a request comes from the page it served (see
server.py) before any of this runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from simulacra.errors import UserError
from simulacra.sim import inputs
from simulacra.sim.interact import SayResult, TalkResult
from simulacra.sim.live import LiveRun

MAX_BODY = 16_384


class Control(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    paused: bool | None = None
    speed: float | None = Field(None, ge=0, le=1000)


def _talk(got: TalkResult) -> dict:
    return {"answer": got.answer, "memories": got.memories}


def _set(got: tuple[str, str]) -> dict:
    address, state = got
    return {"address": address, "state": state}


def _say(got: SayResult) -> dict:
    return {"reply": got.reply, "ended": got.ended}


# Each action's input (sim/inputs.py) and how its answer reads on the page.
ACTIONS: dict[str, tuple[type[inputs.UserInput], Callable[[Any], dict]]] = {
    "talk": (inputs.Talk, _talk),
    "whisper": (inputs.Whisper, lambda memory: {"memory": memory}),
    "set": (inputs.SetObject, _set),
    "enter": (inputs.Enter, lambda tile: {"tile": tile}),
    "move": (inputs.Move, lambda steps: {"steps": steps}),
    "step": (inputs.TileStep, lambda tile: {"tile": tile}),
    "say": (inputs.Say, _say),
    "leave": (inputs.Leave, lambda _: {}),
}


class BadRequest(Exception):
    """A mistake in the request, said in one line for the page."""


def handle(live: LiveRun, action: str, raw: bytes) -> dict:
    """Do one POSTed action; raises BadRequest (or KeyError for an unknown action)."""
    if action == "control":
        body = _parse(Control, raw)
        live.control(paused=body.paused, speed=body.speed)
        return {"status": live.status()}
    model, answer = ACTIONS[action]
    body = _parse(model, raw)
    try:
        result = answer(live.submit(body))
    except UserError as e:
        raise BadRequest(str(e)) from None
    return {**result, "status": live.status()}


def _parse(model: type[BaseModel], raw: bytes) -> Any:
    try:
        data = json.loads(raw or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise BadRequest("the request is not JSON") from None
    try:
        return model.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "body"
        raise BadRequest(f"{where}: {err['msg']}") from None
