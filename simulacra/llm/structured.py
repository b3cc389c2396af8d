"""The :class:`LanguageModel` the product uses: grammar-constrained answers over any completer."""

from __future__ import annotations

from dataclasses import replace

from pydantic import BaseModel, ValidationError

from simulacra.llm.calllog import CallLog
from simulacra.llm.completion import Completer, Request
from simulacra.llm.fitting import ANSWER_ROOM
from simulacra.llm.interface import LanguageModel, M, ModelOutputError, Prompt
from simulacra.llm.repairs import recording
from simulacra.llm.replay import ReplayCache
from simulacra.llm.schema import json_schema, max_answer_tokens, shape_sentence
from simulacra.settings import LLMSettings


class StructuredModel(LanguageModel):
    """Builds each request (prompt + shape sentence + schema + sampling), logs it, parses it.

    ``retries`` extra attempts with another seed follow an answer that does not parse; under
    a grammar that only happens when an answer is cut off, and the log counts it either way.
    What the answer's rules rewrite while it is parsed goes into its entry (see repairs.py).

    Safe to call from several threads at once (agents thinking in parallel): it keeps no
    state between calls, and the completers and the log below it lock what they share.
    """

    def __init__(
        self,
        completer: Completer,
        settings: LLMSettings,
        log: CallLog | None = None,
        *,
        retries: int = 1,
    ) -> None:
        self.completer = completer
        self.settings = settings
        self.log = log or CallLog(None)
        self.retries = retries

    def _request(
        self, prompt: Prompt, user: str, schema: dict | None, max_tokens: int, seed: int | None
    ) -> Request:
        return Request(
            template=prompt.template,
            system=prompt.system,
            user=user,
            schema=schema,
            max_tokens=max_tokens,
            temperature=(
                self.settings.temperature if prompt.temperature is None else prompt.temperature
            ),
            top_p=self.settings.top_p,
            seed=self.settings.seed if seed is None else seed,
            presence_penalty=prompt.presence_penalty,
            avoid=prompt.avoid,
            unwritten=prompt.unwritten,
            variables=prompt.variables,
        )

    @staticmethod
    def full_user_text(prompt: Prompt, spec: dict) -> str:
        """The user turn as sent: the task, the shape of the answer, then the situation."""
        return _then(f"{prompt.user.rstrip()}\n\n{shape_sentence(spec)}", prompt.situation)

    def fits(self, prompt: Prompt, schema: type[BaseModel]) -> bool:
        check = getattr(self.completer, "fits", None)
        if check is None:
            return True  # a backend without a context (the scripted model)
        spec = json_schema(schema)
        room = min(max_answer_tokens(spec), ANSWER_ROOM)
        return check(prompt.system, self.full_user_text(prompt, spec), room)

    def generate(self, prompt: Prompt, schema: type[M], *, seed: int | None = None) -> M:
        spec = json_schema(schema)
        user = self.full_user_text(prompt, spec)
        request = self._request(prompt, user, spec, max_answer_tokens(spec), seed)
        tried = []
        for attempt in range(self.retries + 1):
            done = self.completer.complete(request)
            tried.append(request)
            try:
                with recording() as repairs:  # what the answer's validators rewrite
                    value = schema.model_validate_json(done.text)
            except ValidationError as e:
                self.log.record(prompt, done, parsed=False)
                error = e
                request = replace(request, seed=request.seed + 7919 * (attempt + 1))
                continue
            self.log.record(prompt, done, parsed=True, repairs=repairs)
            return value
        if isinstance(self.completer, ReplayCache):  # a resumed run asks again
            self.completer.forget(tried)
        raise ModelOutputError(
            f"{prompt.template}: the answer did not parse: {error.errors()[0]['msg']}"
        )

    def text(self, prompt: Prompt, *, max_tokens: int, seed: int | None = None) -> str:
        user = _then(prompt.user, prompt.situation)  # no shape here: the situation follows
        done = self.completer.complete(self._request(prompt, user, None, max_tokens, seed))
        self.log.record(prompt, done, parsed=True)
        return done.text.strip()


def _then(text: str, situation: str) -> str:
    """``text``, then the prompt's situation where it has one."""
    return f"{text}\n\n{situation}" if situation else text
