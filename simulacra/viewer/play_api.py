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

Bodies are JSON, checked against the models below (unknown fields, wrong types and overlong
texts are refused); a mistake is a 400 whose text the page shows. The server checks that a
request comes from the page it served (see server.py) before any of this runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from simulacra.errors import UserError
from simulacra.sim.interact import Interactions
from simulacra.sim.live import LiveRun

MAX_BODY = 16_384
Name = Field(min_length=1, max_length=100)
Text = Field(min_length=1, max_length=2000)  # the run's own limits apply after this


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class Control(_Body):
    paused: bool | None = None
    speed: float | None = Field(None, ge=0, le=1000)


class Talk(_Body):
    resident: str = Name
    persona: str = Field("a news reporter", min_length=1, max_length=2000)
    question: str = Text
    remember: bool = False


class Whisper(_Body):
    resident: str = Name
    statement: str = Text


class SetObject(_Body):
    object: str = Field(min_length=1, max_length=300)
    state: str = Text


class Enter(_Body):
    name: str = Name


class Move(_Body):
    x: int = Field(ge=0, le=10_000)
    y: int = Field(ge=0, le=10_000)


class TileStep(_Body):
    dx: int = Field(ge=-1, le=1)
    dy: int = Field(ge=-1, le=1)


class Say(_Body):
    resident: str = Name
    text: str = Text


class Leave(_Body):
    pass


def _talk(i: Interactions, b: Talk) -> dict:
    got = i.talk(b.resident, b.persona, b.question, remember=b.remember)
    return {"answer": got.answer, "memories": got.memories}


def _whisper(i: Interactions, b: Whisper) -> dict:
    return {"memory": i.whisper(b.resident, b.statement)}


def _set(i: Interactions, b: SetObject) -> dict:
    address, state = i.set_object(b.object, b.state)
    return {"address": address, "state": state}


def _enter(i: Interactions, b: Enter) -> dict:
    return {"tile": i.enter(b.name)}


def _move(i: Interactions, b: Move) -> dict:
    return {"steps": i.walk_to((b.x, b.y))}


def _step(i: Interactions, b: TileStep) -> dict:
    return {"tile": i.step(b.dx, b.dy)}


def _say(i: Interactions, b: Say) -> dict:
    got = i.say(b.resident, b.text)
    return {"reply": got.reply, "ended": got.ended}


def _leave(i: Interactions, b: Leave) -> dict:  # noqa: ARG001 (no fields)
    i.leave()
    return {}


ACTIONS: dict[str, tuple[type[_Body], Callable[[Interactions, Any], dict]]] = {
    "talk": (Talk, _talk),
    "whisper": (Whisper, _whisper),
    "set": (SetObject, _set),
    "enter": (Enter, _enter),
    "move": (Move, _move),
    "step": (TileStep, _step),
    "say": (Say, _say),
    "leave": (Leave, _leave),
}


class BadRequest(Exception):
    """A mistake in the request, said in one line for the page."""


def handle(live: LiveRun, action: str, raw: bytes) -> dict:
    """Do one POSTed action; raises BadRequest (or KeyError for an unknown action)."""
    if action == "control":
        body = _parse(Control, raw)
        live.control(paused=body.paused, speed=body.speed)
        return {"status": live.status()}
    model, do = ACTIONS[action]
    body = _parse(model, raw)
    try:
        result = live.call(lambda i: do(i, body))
    except UserError as e:
        raise BadRequest(str(e)) from None
    return {**result, "status": live.status()}


def _parse(model: type[_Body], raw: bytes) -> Any:
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
