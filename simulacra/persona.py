"""Who an agent is at the start: the paper's one paragraph about a person, in fields."""

from __future__ import annotations

from datetime import time

from pydantic import BaseModel, ConfigDict, Field, field_validator

from simulacra.text import check_name


class Lifestyle(BaseModel):
    model_config = ConfigDict(extra="forbid")

    wake: time = Field(time(7, 0), description="usual wake-up time, e.g. 07:00")
    sleep: time = Field(time(23, 0), description="usual bedtime, e.g. 23:00")
    notes: str = Field("", max_length=400, description="habits in words")


class Persona(BaseModel):
    """Name, age, innate traits, and the learned paragraph whose semicolon-separated phrases
    become the agent's seed memories (paper §3.1)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=60)
    age: int = Field(ge=0, le=120)
    innate: str = Field(min_length=1, max_length=200, description="innate traits, comma-separated")
    learned: str = Field("", max_length=4000, description="semicolon-separated facts and memories")
    currently: str = Field("", max_length=600, description="what the person is up to these days")
    lifestyle: Lifestyle = Field(default_factory=Lifestyle)

    @field_validator("name")
    @classmethod
    def _one_line(cls, value: str) -> str:
        # Names are printed, put in prompts and written in addresses ("Name's house: ...").
        return check_name(value)

    def seed_memories(self) -> list[str]:
        return [p.strip() for p in self.learned.split(";") if p.strip()]

    @property
    def first_name(self) -> str:
        return self.name.split()[0]
