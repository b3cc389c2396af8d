"""Colours a person and an activity have everywhere: the viewer (served in /api/meta) and
the report draw from here, so neither keeps a copy."""

from __future__ import annotations

AGENT_COLORS = [
    "#d9412b", "#2b6fd9", "#1f9d55", "#9b3fd1", "#e07b00", "#0097a7", "#c2185b", "#5d6b00",
    "#6d4c41", "#3949ab", "#00897b", "#f4511e", "#8e24aa", "#43a047", "#1e88e5", "#d81b60",
    "#7cb342", "#fb8c00", "#5e35b1", "#039be5", "#c0ca33", "#6a1b9a", "#00acc1", "#ef6c00",
    "#546e7a",
]  # fmt: skip

# Fixed colours for what every day has, so sleep looks the same in every report.
ACTIVITY_COLORS = {"sleep": "#263a6b", "talk": "#f0a020", "eat": "#8bc34a", "cook": "#7cb342"}
OTHER_COLORS = [
    "#4e9ad6", "#d65f5f", "#5fb88a", "#a17ad1", "#d6a04e", "#4ec3c7", "#d67fb8", "#9aa04e",
    "#7f8fa6", "#c77c4e", "#6bb5e0", "#b0d06b", "#e08f8f", "#8f8fe0", "#e0c96b", "#6be0b0",
]  # fmt: skip


def agent_colors(names: list[str]) -> dict[str, str]:
    """Each resident's colour, by its place in the run's list of residents."""
    return {name: AGENT_COLORS[i % len(AGENT_COLORS)] for i, name in enumerate(names)}
