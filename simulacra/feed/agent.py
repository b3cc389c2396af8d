"""A generative agent that lives on a feed: its cursor, its next wake-up and the memories a
summary has folded are part of its saved state, so they commit with its memories."""

from __future__ import annotations

from datetime import datetime
from typing import ClassVar

from simulacra.agent import AgentState, GenerativeAgent
from simulacra.feed.board import stamp
from simulacra.memory.record import MemoryRecord
from simulacra.state import State

START = (stamp(datetime(1, 1, 1)), 0)  # a cursor before every message


class FeedState(State):
    cursor: tuple[str, int] = START  # (posted, id) of the last message observed
    next_wake: datetime | None = None
    folded: list[int] = []  # memory ids a summary stands for


class FeedAgentState(AgentState):
    feed: FeedState = FeedState()  # an agent saved before it lived on a feed has none


class FeedAgent(GenerativeAgent):
    state_type: ClassVar[type[AgentState]] = FeedAgentState

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.cursor: tuple[str, int] = START
        self.next_wake: datetime | None = None

    def get_state(self) -> FeedAgentState:
        feed = FeedState(
            cursor=self.cursor, next_wake=self.next_wake, folded=sorted(self.stream.hidden)
        )
        return FeedAgentState(**dict(super().get_state()), feed=feed)

    def set_state(self, state: FeedAgentState) -> None:
        super().set_state(state)
        self.cursor = state.feed.cursor
        self.next_wake = state.feed.next_wake
        self.stream.hidden = set(state.feed.folded)

    def commit(self) -> None:
        """Memories, cursor and schedule together, in one transaction."""
        self._commit()

    def close(self) -> None:
        """Let go of the memory store; anything not committed is rolled back, as in a kill."""
        if self._store is not None:
            self._store.close()

    def visible(self) -> list[MemoryRecord]:
        """Memories retrieval can still return (not folded into a summary), oldest first."""
        return sorted(
            (r for r in self.stream if r.id not in self.stream.hidden),
            key=lambda r: (r.created, r.id),
        )
