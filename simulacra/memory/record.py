"""A memory record (paper §4.1): one experience in natural language, with its times and weight."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import Enum


class Kind(str, Enum):
    OBSERVATION = "observation"  # something perceived
    CHAT = "chat"  # a conversation's transcript
    REFLECTION = "reflection"  # a higher-level thought, citing its evidence
    PLAN = "plan"  # what the agent intends to do


@dataclass(frozen=True)
class MemoryRecord:
    id: int
    kind: Kind
    description: str
    created: datetime  # game time, from the caller's clock
    last_accessed: datetime
    importance: int  # 1-10
    depth: int = 0  # reflections: 1 + the deepest memory they cite
    evidence: tuple[int, ...] = ()  # ids of the memories a reflection rests on
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    keywords: tuple[str, ...] = field(default=())

    def __str__(self) -> str:
        return f"[{self.created:%Y-%m-%d %H:%M}] {self.description}"


@dataclass(frozen=True)
class NewMemory:
    """What a caller hands the stream; ids and access times are the stream's business."""

    description: str
    kind: Kind = Kind.OBSERVATION
    importance: int | None = None  # None: rate it with the model
    evidence: tuple[int, ...] = ()
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None

    @property
    def keywords(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(w.lower() for w in (self.subject, self.object) if w))
