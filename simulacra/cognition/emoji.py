"""The bubble over an agent's head. The model picks a plain word (small models handle words
far better than emoji characters, which a grammar would have to spell as escapes)."""

from __future__ import annotations

EMOJI = {
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
    "read": "📖",
    "write": "✍️",
    "study": "📚",
    "teach": "🏫",
    "work": "💼",
    "computer": "💻",
    "phone": "📱",
    "talk": "💬",
    "think": "🤔",
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
