"""Interviews (paper §6.1): answer a question in character, from memory."""

from __future__ import annotations

from simulacra.llm.phrases import phrases_beside
from simulacra.llm.templates import template_beside

INTERVIEW = template_beside(__file__, "interview")
PHRASES = phrases_beside(__file__, "interview")
