"""The bubble over an agent's head: the emoji of the word nearest the activity's meaning
(``EmojiByMeaning``). Chosen by the 1.5B in the event's call, it was "sleep" over someone
decorating tables and "coffee" over a lecture (the eval, stop 86); the embedding model picks
as well with no call, and the bubble is the viewer's alone."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from simulacra.embed.embedder import Embedder
from simulacra.textfile import parse_toml

_TABLE = parse_toml(Path(__file__).with_name("emoji.toml").read_text("utf-8"))
# The words and their emoji, in the order offered (see emoji.toml).
EMOJI: dict[str, str] = _TABLE["emoji"]

NAMES = list(EMOJI)


def emoji(name: str) -> str:
    return EMOJI.get(name, "🙂")


_WORDS = {mark: word for word, mark in EMOJI.items()}


def word_of(mark: str) -> str:
    """The word an emoji was chosen by ("" for one not in the table)."""
    return _WORDS.get(mark, "")


class EmojiByMeaning:
    """The emoji of the word of ``NAMES`` whose embedding is nearest an activity's."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self._words: np.ndarray | None = None  # embedded at the first activity

    def __call__(self, activity: str) -> str:
        if self._words is None:
            self._words = self.embedder.embed([_TABLE["meaning"].format(word=w) for w in NAMES])
        nearest = int(np.argmax(self._words @ self.embedder.embed_one(activity)))
        return emoji(NAMES[nearest])
