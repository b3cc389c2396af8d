"""Dialogue (paper §4.3.2): one utterance at a time, in character, until someone ends it."""

from __future__ import annotations

from dataclasses import dataclass

from simulacra.llm.schema import Answer, text
from simulacra.llm.templates import template_beside

RESPOND = template_beside(__file__, "respond")


@dataclass(frozen=True)
class Line:
    speaker: str
    text: str

    def __str__(self) -> str:
        return f"{self.speaker}: {self.text}"


class UtteranceAnswer(Answer):
    says: text(280, "what they say")
    end: bool
