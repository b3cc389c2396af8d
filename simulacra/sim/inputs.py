"""The user's inputs to a running town (paper §3.1), one typed model each, the way AI Town
takes its users' actions: the page sends one (play_api.py checks it against its model), the
live run queues it, and the engine's thread applies it between two steps
(:meth:`LiveRun.submit`, :meth:`Interactions.apply`), where it is logged with the next step.

The limits here are the request's; the run's own (``limits.*``) apply when it is applied.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

Name = Field(min_length=1, max_length=100)
Text = Field(min_length=1, max_length=2000)


class UserInput(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, frozen=True)


class Talk(UserInput):
    """An interview of a resident, by the user in a persona of their choosing."""

    resident: str = Name
    persona: str = Field("a news reporter", min_length=1, max_length=2000)
    question: str = Text
    remember: bool = False


class Whisper(UserInput):
    """A statement the resident hears as its inner voice."""

    resident: str = Name
    statement: str = Text


class SetObject(UserInput):
    """An object's new state, in words."""

    object: str = Field(min_length=1, max_length=300)
    state: str = Text


class Enter(UserInput):
    """The avatar walks in at the town entrance."""

    name: str = Name


class Move(UserInput):
    """The avatar walks to a tile, a tile a step."""

    x: int = Field(ge=0, le=10_000)
    y: int = Field(ge=0, le=10_000)


class TileStep(UserInput):
    """The avatar moves one tile now (the arrow keys)."""

    dx: int = Field(ge=-1, le=1)
    dy: int = Field(ge=-1, le=1)


class Say(UserInput):
    """The avatar says a line to a resident nearby."""

    resident: str = Name
    text: str = Text


class Leave(UserInput):
    """The avatar ends its conversation."""
