"""The layer under :class:`LanguageModel`: one request in, one completion out.

Backends (llama.cpp, the scripted test model) and wrappers (the record/replay cache) all speak
this protocol, so wrappers stack around any backend.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Request:
    template: str
    system: str
    user: str
    schema: dict | None  # JSON schema the answer is constrained to; None for free text
    max_tokens: int
    temperature: float
    top_p: float
    seed: int
    presence_penalty: float = 0.0  # lowers the odds of a token already in the recent output
    avoid: tuple[str, ...] = ()  # texts the answer may not copy a long run of tokens from
    unwritten: tuple[str, ...] = ()  # words the answer may not write
    # The template's variables (see Prompt): for the scripted test model; never sent, no key.
    variables: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def key(self, model_identity: str) -> str:
        """What the record/replay cache is keyed by: model, template, prompt, schema, sampling."""
        fields = {
            f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "variables"
        }
        if not self.presence_penalty:
            # Keys from before the penalty existed stay valid: recorded runs replay as before.
            del fields["presence_penalty"]
        if not self.avoid:
            del fields["avoid"]
        if not self.unwritten:
            del fields["unwritten"]
        fields["schema"] = json.dumps(self.schema)  # field order matters: the grammar follows it
        blob = json.dumps({"model": model_identity, **fields}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int
    reused_tokens: int  # prompt tokens served from llama.cpp's KV cache
    generated_tokens: int
    seconds: float
    cache_hit: bool = False
    # Prompt tokens read again because the saved state that held them had been dropped to
    # stay within llm.kv_cache_mb: what a bigger setting would have spared.
    evicted_tokens: int = 0
    # Where the seconds went (a backend that cannot tell leaves them 0): reading the prompt,
    # generating (forward passes shared with other calls are split by tokens), and sampling
    # with the grammar; tokens the grammar rejected and were sampled again under its mask.
    prefill_seconds: float = 0.0
    decode_seconds: float = 0.0
    sample_seconds: float = 0.0
    resampled_tokens: int = 0
    # Tokens drafted (the schema's fixed text, then prompt lookup) and of them kept, in all
    # and of the schema's fixed text alone.
    drafted_tokens: int = 0
    kept_tokens: int = 0
    fixed_drafted_tokens: int = 0
    fixed_kept_tokens: int = 0


class Completer(Protocol):
    @property
    def identity(self) -> str:
        """Names the model file and everything else that changes its answers."""
        ...

    def complete(self, request: Request) -> Completion: ...
