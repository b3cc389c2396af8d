"""Asking again with other seeds: one unusable sample is bad luck, not the model's last word."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from simulacra.interfaces import Mind
from simulacra.llm.templates import PromptTemplate


def ask_until(
    agent: Mind,
    template: PromptTemplate,
    usable: Callable[[Any], bool],
    attempts: int,
    rank: Callable[[Any], Any] | None = None,
    avoid: Sequence[str] = (),
    steer_first: bool = False,
    unwritten: Sequence[str] = (),
    **variables: Any,
) -> Any:
    """The first usable answer, asked up to ``attempts`` times, each retry with the next seed
    after the settings' one. If none is usable, the best by ``rank`` (the earliest among
    equals), else the first: what a model with one seed would have given.

    ``avoid``: texts a retry may not copy a long run of. Another seed alone is not enough where
    copying is what the model is surest of: in the party run Isabella answered "What's your
    plan?" with her own earlier sentence under three seeds, and the talk ended there.
    ``steer_first``: the first sample avoids them too, where copying is the rule, not bad luck.
    ``unwritten``: words a retry may not write at all.

    ``usable`` also runs while each answer is parsed, so what its rules refuse or rewrite
    (see repairs.py) is logged with the call that answered."""
    answers = []
    for attempt in range(attempts):
        seed = agent.settings.llm.seed + attempt if attempt else None
        steer = avoid if attempt or steer_first else ()
        answer = agent.ask(
            template,
            seed=seed,
            after=usable,
            avoid=steer,
            unwritten=unwritten if attempt else (),
            **variables,
        )
        if usable(answer):
            return answer
        answers.append(answer)
    return max(answers, key=rank) if rank is not None else answers[0]
