"""The one small interface that all cognition code uses to talk to a language model."""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Prompt:
    """A rendered prompt.

    ``system`` is the stable prefix (shared preamble + who the agent is) so llama.cpp can reuse
    its KV cache across calls; ``user`` holds the task and its context; ``situation``, where a
    template has one, what changes at every call, sent after the answer's shape so that the
    shape stays in the cached prefix.
    """

    template: str
    system: str
    user: str
    agent: str | None = None
    temperature: float | None = None  # the template's own, else the model's setting
    presence_penalty: float = 0.0  # the template's own: lists that fall into repeating
    # Texts the answer may not copy a long run of tokens from (a line asked for again because
    # it echoed one said before). A backend that cannot steer its sampling ignores them.
    avoid: tuple[str, ...] = ()
    # Words the answer may not write at all (the two names of a line asked again because it
    # spoke of one of them); a backend that cannot steer its sampling ignores them too.
    unwritten: tuple[str, ...] = ()
    # What the template was rendered with: for the scripted test model, which answers from
    # them rather than by reading the text. Not part of what the model is sent.
    variables: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    situation: str = ""


class ModelOutputError(RuntimeError):
    """The model's answer did not parse even under a grammar (a bug worth reporting)."""


class LanguageModel(abc.ABC):
    """Generate a pydantic model under a grammar, generate text, or pick one of some options."""

    @abc.abstractmethod
    def generate(self, prompt: Prompt, schema: type[M], *, seed: int | None = None) -> M:
        """An instance of ``schema``, sampled under a grammar built from it."""

    @abc.abstractmethod
    def text(self, prompt: Prompt, *, max_tokens: int, seed: int | None = None) -> str:
        """Free text, for output nothing parses."""

    def fits(self, prompt: Prompt, schema: type[BaseModel]) -> bool:  # noqa: ARG002
        """Whether ``prompt`` and room for its answer fit the model's context."""
        return True

    def choose(self, prompt: Prompt, options: Sequence[str], *, seed: int | None = None) -> str:
        """One of ``options``, verbatim."""
        from simulacra.llm.schema import choice_model

        return self.generate(prompt, choice_model(options), seed=seed).choice
