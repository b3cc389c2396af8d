"""A generative agent that lives on a feed: its cursor, its next wake-up and the memories a
summary has folded are part of its saved state, so they commit with its memories."""

from __future__ import annotations

from datetime import datetime

from simulacra.agent import GenerativeAgent
from simulacra.feed.board import stamp
from simulacra.memory.record import MemoryRecord

START = (stamp(datetime(1, 1, 1)), 0)  # a cursor before every message


class FeedAgent(GenerativeAgent):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.cursor: tuple[str, int] = START  # (posted, id) of the last message observed
        self.next_wake: datetime | None = None

    def get_state(self) -> dict:
        state = super().get_state()
        state["feed"] = {
            "cursor": list(self.cursor),
            "next_wake": self.next_wake.isoformat() if self.next_wake else None,
            "folded": sorted(self.stream.hidden),
        }
        return state

    def set_state(self, state: dict) -> None:
        super().set_state(state)
        feed = state.get("feed") or {}
        posted, last = feed.get("cursor", START)
        self.cursor = (posted, int(last))
        wake = feed.get("next_wake")
        self.next_wake = datetime.fromisoformat(wake) if wake else None
        self.stream.hidden = set(feed.get("folded", []))

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
