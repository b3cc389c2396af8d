"""The bubble over an agent's head. The model picks a plain word (small models handle words
far better than emoji characters, which a grammar would have to spell as escapes)."""

from __future__ import annotations

# The order is the order offered: neutral everyday words first, so a small model that takes
# the first word offered shows "work" or "think", never "sleep" over someone laying tables.
EMOJI = {
    "work": "💼",
    "think": "🤔",
    "talk": "💬",
    "read": "📖",
    "write": "✍️",
    "study": "📚",
    "sleep": "😴",
    "wake up": "⏰",
    "wash": "🚿",
    "toilet": "🚽",
    "brush teeth": "🪥",
    "dress": "👕",
    "cook": "🍳",
    "eat": "🍽️",
    "coffee": "☕",
    "drink": "🍺",
    "bake": "🧁",
    "serve": "🍰",
    "clean": "🧹",
    "teach": "🏫",
    "computer": "💻",
    "phone": "📱",
    "plan": "📝",
    "music": "🎵",
    "paint": "🎨",
    "photograph": "📷",
    "game": "🎮",
    "walk": "🚶",
    "run": "🏃",
    "exercise": "🏋️",
    "garden": "🌱",
    "shop": "🛒",
    "medicine": "💊",
    "relax": "🛋️",
    "television": "📺",
    "party": "🎉",
    "love": "❤️",
    "wait": "⏳",
    "travel": "🚌",
}

NAMES = list(EMOJI)


def emoji(name: str) -> str:
    return EMOJI.get(name, "🙂")


_WORDS = {mark: word for word, mark in EMOJI.items()}


def word_of(mark: str) -> str:
    """The word an emoji was chosen by ("" for one not in the table)."""
    return _WORDS.get(mark, "")
