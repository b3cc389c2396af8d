"""Dialogue (paper §4.3.2): one utterance at a time, each conditioned on the speaker's memories
of the other and the conversation so far, until one side ends it or the length cap is reached.
Afterwards each side keeps the transcript, a note for planning and a memo, so what one agent
tells another is retrievable by the listener later."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from simulacra import gametime
from simulacra.llm.schema import Answer, text
from simulacra.llm.templates import template_beside
from simulacra.memory import Kind, NewMemory

if TYPE_CHECKING:
    from simulacra.agent import GenerativeAgent

RESPOND = template_beside(__file__, "respond")
AFTER_CHAT = template_beside(__file__, "after_chat")


@dataclass(frozen=True)
class Line:
    speaker: str
    text: str

    def __str__(self) -> str:
        return f"{self.speaker}: {self.text}"


class UtteranceAnswer(Answer):
    says: text(280, "what they say")
    end: bool


class AfterChat(Answer):
    for_planning: text(200, "what to remember for planning")
    memo: text(200, "what they think of it")


def next_line(
    agent: GenerativeAgent,
    partner: str,
    lines: Sequence[Line],
    *,
    now: datetime,
    setting: str,
) -> UtteranceAnswer:
    query = partner + (f" {lines[-1].text}" if lines else "")
    memories = agent.stream.retrieve(query, now, agent.settings.conversation.memories_about_partner)
    return agent.ask(
        RESPOND,
        partner=partner,
        setting=setting,
        now=gametime.describe(now),
        memories=[m.record.description for m in memories],
        history=list(lines),
    )


def converse(
    initiator: GenerativeAgent,
    partner: GenerativeAgent,
    *,
    now: datetime,
    setting: str,
    max_utterances: int,
) -> list[Line]:
    """A whole conversation; the initiator speaks first."""
    lines: list[Line] = []
    speaker, listener = initiator, partner
    while len(lines) < max_utterances:
        answer = next_line(speaker, listener.name, lines, now=now, setting=setting)
        lines.append(Line(speaker.name, answer.says))
        if answer.end:
            break
        speaker, listener = listener, speaker
    return lines


def remember_conversation(
    agent: GenerativeAgent, partner: str, lines: Sequence[Line], now: datetime
) -> None:
    """The transcript, a planning note and a memo citing it: rated together in one call."""
    notes = agent.ask(
        AFTER_CHAT,
        partner=partner,
        now=gametime.describe(now),
        lines=list(lines),
    )
    transcript = " ".join(str(line) for line in lines)
    chat_id = agent.stream.next_id()  # the notes cite the transcript stored with them
    agent.remember(
        [
            NewMemory(
                f"Conversation between {agent.name} and {partner}: {transcript}"[:2000],
                Kind.CHAT,
                subject=agent.name,
                predicate="chats with",
                object=partner,
            ),
            NewMemory(
                f"For {agent.name}'s planning: {notes.for_planning}",
                Kind.REFLECTION,
                evidence=(chat_id,),
            ),
            NewMemory(
                f"{agent.name}'s memo about talking with {partner}: {notes.memo}",
                Kind.REFLECTION,
                evidence=(chat_id,),
            ),
        ],
        now,
    )
