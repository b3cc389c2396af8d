"""The small interfaces between layers, so each depends on a shape rather than a class.

Cognition (planning, deciding, talking, acting) works on a :class:`Mind`: anything with a
name and an identity that can retrieve, ask the model and remember. ``GenerativeAgent``
is one; cognition never imports it, so the two cannot import each other.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from simulacra.llm.templates import PromptTemplate
from simulacra.memory.record import Kind, MemoryRecord, NewMemory
from simulacra.memory.stream import Retrieved
from simulacra.persona import Persona
from simulacra.settings import Settings


@runtime_checkable
class Mind(Protocol):
    """What cognition needs of an agent."""

    persona: Persona
    settings: Settings
    now: datetime  # the agent's clock: the latest game time it was given
    currently: str  # what the agent is up to these days, revised each morning

    @property
    def name(self) -> str: ...

    @property
    def identity(self) -> str:
        """Who the agent is, in a few lines: the stable head of every one of its prompts."""
        ...

    def retrieve(
        self,
        queries: Sequence[str],
        now: datetime,
        k: int | None = None,
        kinds: Iterable[Kind] | None = None,
    ) -> list[list[Retrieved]]:
        """The top ``k`` memories per query (of ``kinds``, default all); retrieving counts as
        remembering (access time)."""
        ...

    def ask(self, template: PromptTemplate, **variables: Any) -> Any:
        """The model's answer to a template's question, asked as this agent."""
        ...

    def remember(self, memories: Sequence[NewMemory], now: datetime) -> list[MemoryRecord]:
        """Rate and store new memories (and reflect if enough has happened)."""
        ...

    def next_memory_id(self) -> int:
        """The id the next remembered memory gets, so a batch can cite its own first item."""
        ...

    def resolutions(self, since: datetime) -> list[MemoryRecord]:
        """Inner-voice statements received since ``since``."""
        ...

    def planning_notes(self, since: datetime) -> list[MemoryRecord]:
        """What conversations since ``since`` left for the agent's planning."""
        ...
