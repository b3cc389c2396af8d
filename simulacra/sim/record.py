"""The event record: what one step of a simulation did, as one typed, versioned line of
events.jsonl. Written by :func:`simulacra.sim.eventlog.EventLog.write` alone and read by the
stats, the report, ``simulacra log`` and the viewer, so every reader sees the same fields
and none has to take a sentence apart again.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

VERSION = 3  # 1: the untyped lines before this module (no "v"); read through legacy.py
# Versions whose lines are valid records of this one as they stand (3 only added fields).
CURRENT = (2, 3)


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AgentStep(_Record):
    """Where one resident is at the end of a step and what it is doing."""

    tile: tuple[int, int]
    activity: str  # what it is doing, as shown after its name: "brewing coffee"
    description: str  # the event others perceive: "Isabella Rodriguez is brewing coffee"
    emoji: str  # the bubble over its head
    emoji_word: str  # the word the emoji was chosen by ("coffee"); "" when none
    place: str  # the address where it happens; "" on the street


class PlanBlock(_Record):
    start: datetime
    end: datetime
    activity: str


class DayPlanRecord(_Record):
    """A day plan as it was made: the day's blocks, sleep included."""

    day: str  # "Monday February 13, 2023"
    blocks: list[PlanBlock]
    kept: bool = False  # yesterday's plan, kept for a day like it without a model call


class ChatLine(_Record):
    speaker: str
    text: str


class Chat(_Record):
    between: list[str]
    lines: list[ChatLine]


class Memory(_Record):
    kind: str  # observation, chat, reflection, plan
    text: str


class UserAction(_Record):
    """Something the user did to the town from `simulacra play`, between two steps; it is
    logged with the step that follows it."""

    kind: Literal["talk", "whisper", "set", "enter", "move", "say", "leave"]
    by: str = ""  # the avatar, or who the user is in an interview ("a news reporter")
    to: str = ""  # the resident spoken to, or the object's address
    text: str = ""  # the question, the statement, the new state, the line said
    answer: str = ""  # the resident's answer or reply
    remembered: bool = False  # talk: whether the resident keeps the interview
    tile: tuple[int, int] | None = None  # enter, move: where the avatar is now


class AvatarStep(_Record):
    """The user's avatar at the end of a step: perceived by the residents like anyone."""

    name: str
    tile: tuple[int, int]
    description: str  # "Ana is standing by the cafe counter"


class StepRecord(_Record):
    v: int = VERSION
    step: int = Field(ge=0)
    time: datetime
    agents: dict[str, AgentStep]
    objects: dict[str, str] = Field(default_factory=dict)  # address -> state; "idle": default
    chats: list[Chat] = Field(default_factory=list)
    plans: dict[str, DayPlanRecord] = Field(default_factory=dict)  # day plans made in this step
    memories: dict[str, list[Memory]] = Field(default_factory=dict)  # new in this step
    actions: list[UserAction] = Field(default_factory=list)  # the user's, before this step
    avatar: AvatarStep | None = None

    def line(self) -> str:
        """The record as one line of JSON (empty collections left out)."""
        return self.model_dump_json(exclude=_empty(self))


def _empty(record: StepRecord) -> set[str]:
    fields = ("objects", "chats", "plans", "memories", "actions", "avatar")
    return {k for k in fields if not getattr(record, k)}
