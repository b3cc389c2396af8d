"""The bubble over an agent's head. The model picks a plain word (small models handle words
far better than emoji characters, which a grammar would have to spell as escapes)."""

from __future__ import annotations

from pathlib import Path

from simulacra.textfile import parse_toml

# The words and their emoji, in the order offered (see emoji.toml).
EMOJI: dict[str, str] = parse_toml(Path(__file__).with_name("emoji.toml").read_text("utf-8"))[
    "emoji"
]

NAMES = list(EMOJI)


def emoji(name: str) -> str:
    return EMOJI.get(name, "🙂")


_WORDS = {mark: word for word, mark in EMOJI.items()}


def word_of(mark: str) -> str:
    """The word an emoji was chosen by ("" for one not in the table)."""
    return _WORDS.get(mark, "")
