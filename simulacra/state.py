"""What survives a restart: every part that changes while it runs gives its state as a pydantic
model and takes one back. A checkpoint is these models nested (sim/checkpoint.py), written and
read by pydantic, so times, tuples and records keep their types through JSON without code
of their own.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

S = TypeVar("S", bound=BaseModel)


class State(BaseModel):
    """Base of every saved state. A field this code does not know is an error, not a value
    dropped without a word: what was saved is what is restored."""

    model_config = ConfigDict(extra="forbid")


class Stateful(Protocol[S]):
    """A part whose state outlives the process: ``set_state(get_state())`` on a fresh part
    makes it behave as the original from then on."""

    def get_state(self) -> S: ...

    def set_state(self, state: S) -> None: ...


def first_error(error: ValidationError) -> str:
    """The first thing wrong with a saved state, in a few words: "residents.Ada.plan: ..."."""
    first = error.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"]) or "the top"
    return f"{where}: {first['msg']}"
