"""The paper's ablation conditions (§6.1): the same agent, with kinds of memory hidden at
retrieval time, so the interview shows what each part of the architecture contributes."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from enum import Enum

from simulacra.cognition import summary as summary_mod
from simulacra.errors import UserError
from simulacra.llm import LanguageModel
from simulacra.memory import Kind, MemoryStream, Retrieved
from simulacra.persona import Persona


class Condition(str, Enum):
    FULL = "full"
    NO_REFLECTION = "no-reflection"
    NO_PLANNING = "no-planning"  # the paper's "no reflection, no planning"
    NONE = "none"  # the paper's "no observation, no reflection, no planning"

    @property
    def visible(self) -> frozenset[Kind]:
        return VISIBLE[self]

    @property
    def label(self) -> str:
        return LABELS[self]


# Conversations are observations of what was said, so they go with observations.
VISIBLE = {
    Condition.FULL: frozenset(Kind),
    Condition.NO_REFLECTION: frozenset({Kind.OBSERVATION, Kind.CHAT, Kind.PLAN}),
    Condition.NO_PLANNING: frozenset({Kind.OBSERVATION, Kind.CHAT}),
    Condition.NONE: frozenset(),
}
LABELS = {
    Condition.FULL: "full architecture",
    Condition.NO_REFLECTION: "no reflection",
    Condition.NO_PLANNING: "no reflection, no planning",
    Condition.NONE: "no observation, no reflection, no planning",
}
# The paper's TrueSkill means (Park et al. 2023, §6.2); "human" is a condition we cannot run.
PAPER_TRUESKILL = {
    Condition.FULL: 29.89,
    Condition.NO_REFLECTION: 26.88,
    Condition.NO_PLANNING: 25.64,
    "human": 22.95,
    Condition.NONE: 21.21,
}
PAPER_ORDER: list[Condition | str] = [
    Condition.FULL,
    Condition.NO_REFLECTION,
    Condition.NO_PLANNING,
    "human",
    Condition.NONE,
]


def parse_conditions(text: str | None) -> list[Condition]:
    if not text:
        return list(Condition)
    chosen = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        try:
            chosen.append(Condition(part))
        except ValueError:
            raise UserError(
                f"unknown condition {part!r}",
                field="--conditions",
                fix="choose from " + ", ".join(c.value for c in Condition),
            ) from None
    return list(dict.fromkeys(chosen))


class HiddenKinds:
    """A read-only view of a memory stream in which some kinds of memory do not exist.
    Retrieval never updates access times here: an interview is not an act of remembering."""

    def __init__(self, stream: MemoryStream, visible: Iterable[Kind]) -> None:
        self.stream = stream
        self.visible = frozenset(visible)

    def retrieve_many(
        self,
        queries: Sequence[str],
        now: datetime,
        k: int | None = None,
        kinds: Iterable[Kind] | None = None,
        *,
        touch: bool = False,  # accepted for the stream's signature; a view never touches
    ) -> list[list[Retrieved]]:
        wanted = self.visible if kinds is None else self.visible & set(kinds)
        if not wanted:
            return [[] for _ in queries]
        return self.stream.retrieve_many(queries, now, k, wanted, touch=False)

    def retrieve(self, query: str, now: datetime, k: int | None = None) -> list[Retrieved]:
        return self.retrieve_many([query], now, k)[0]


def identity_for(
    condition: Condition,
    *,
    persona: Persona,
    stream: MemoryStream,
    full_identity: str,
    model: LanguageModel,
    now: datetime,
    k: int,
) -> str:
    """The head of the agent's prompts under ``condition``. The full architecture keeps its
    own; an ablated agent's summary description is made again from the memories it can see
    (none: no summary at all), and it knows only what its persona file says it is up to."""
    if condition is Condition.FULL:
        return full_identity
    if not condition.visible:
        return summary_mod.identity(persona, None)
    view = HiddenKinds(stream, condition.visible)
    summary = summary_mod.summarise(model, view, persona, now=now, k=k)  # type: ignore[arg-type]
    return summary_mod.identity(persona, summary)
