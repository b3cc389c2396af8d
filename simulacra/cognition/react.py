"""Reacting (paper §4.3.1): carry on with the plan, change course, or speak."""

from __future__ import annotations

from simulacra.llm.schema import Answer, one_of, text
from simulacra.llm.templates import template_beside

REACT = template_beside(__file__, "react")

CARRY_ON, DO, SAY = "carry on", "do something", "say something"


class ReactionAnswer(Answer):
    choice: one_of([CARRY_ON, DO, SAY])
    content: text(200, "the new activity, or the words said")
