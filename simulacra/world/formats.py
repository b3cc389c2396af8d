"""The world file formats as pydantic models: world.toml, town.toml, sectors/*.toml,
personas/*.toml and scenario.toml (see :mod:`simulacra.world.files` for the folder layout)."""

from __future__ import annotations

from datetime import datetime, time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from simulacra.persona import Persona
from simulacra.text import check_name
from simulacra.world.tree import IDLE

WALL, GROUND, DOOR, STREET, BLOCKED = "#", ".", "+", ".", "#"
RESERVED = {WALL, GROUND, DOOR, " ", "\t", "'", '"', "\\"}


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid")


def place_name(value: str) -> str:
    return check_name(value)


class WorldFile(_File):
    """``world.toml``. Paths are relative to this file, so a world can reuse another's map
    or residents (``town = "../smallville/town.toml"``)."""

    name: str = Field(min_length=1, max_length=80)
    description: str = Field("", max_length=1000)
    town: str = Field("town.toml", description="the town map file")
    personas: str = Field("personas", description="the folder of persona files")
    scenario: str = Field("scenario.toml", description="the scenario file")
    spawns: dict[str, tuple[int, int]] = Field(
        default_factory=dict, description='named spawn points for visitors: "name" = [x, y]'
    )


class TownFile(_File):
    """``town.toml``: the map of sector footprints and the letter → sector file legend."""

    map: str
    sectors: dict[str, str] = Field(description="letter -> sector file, relative to this file")

    @field_validator("sectors")
    @classmethod
    def _letters(cls, value: dict[str, str]) -> dict[str, str]:
        for letter in value:
            check_symbol(letter)
        return value


class ObjectEntry(_File):
    name: str = Field(max_length=60)
    state: str = Field(IDLE, min_length=1, max_length=120, description="default state")

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return place_name(value)


class ArenaEntry(_File):
    name: str = Field(max_length=60)
    capacity: int | None = Field(
        None, ge=1, description="most agents it holds; say it in the name too ('one-person')"
    )
    objects: dict[str, ObjectEntry] = Field(
        default_factory=dict, description='symbol -> "name", or { name = ..., state = ... }'
    )
    users: list[str] | None = Field(
        None,
        description="the only residents who may use it (the women's bathroom); default: all",
    )

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return place_name(value)

    @field_validator("objects", mode="before")
    @classmethod
    def _symbols(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        for symbol in value:
            check_symbol(symbol)
        # The short form `S = "stove"` means the default state.
        return {k: {"name": v} if isinstance(v, str) else v for k, v in value.items()}


class SectorFile(_File):
    name: str = Field(max_length=60)
    description: str = Field("", max_length=1000)
    hours: tuple[time, time] | None = Field(
        None,
        description='when it is open to those who neither live nor work in it: "08:00-20:00" '
        '("12:00-00:00" until midnight); default: always',
    )
    map: str
    arenas: dict[str, ArenaEntry] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return place_name(value)

    @field_validator("hours", mode="before")
    @classmethod
    def _hours(cls, value: Any) -> Any:
        if not isinstance(value, str):
            return value
        # One message for the field, not one for each of its two times.
        try:
            opens, closes = (time.fromisoformat(t.strip()) for t in value.split("-"))
        except ValueError:
            raise ValueError(f'"{value}" is not an opening and a closing time') from None
        return (opens, closes)

    @field_validator("arenas")
    @classmethod
    def _letters(cls, value: dict[str, ArenaEntry]) -> dict[str, ArenaEntry]:
        for letter in value:
            check_symbol(letter)
        return value


class ResidentPersona(Persona):
    """A persona file: the :class:`~simulacra.persona.Persona` fields plus where the person
    lives, works and goes. Places are addresses: ``"Sector: Arena"``."""

    home: str = Field(description='the arena the person sleeps in: "Sector: Arena"')
    workplace: str | None = Field(None, description='"Sector" or "Sector: Arena"')
    usual_places: list[str] = Field(
        default_factory=list, description="sectors or arenas the person knows from the start"
    )
    spawn: str | tuple[int, int] | None = Field(
        None, description="where the person starts: a place address or [x, y]; default: home"
    )

    @field_validator("spawn", mode="before")
    @classmethod
    def _spawn_shape(cls, value: Any) -> Any:
        if value is None or isinstance(value, str):
            return value
        if (
            isinstance(value, list | tuple)
            and len(value) == 2
            and all(isinstance(v, int) for v in value)
        ):
            return tuple(value)
        raise ValueError('give a place address ("Sector: Arena: Object") or a tile [x, y]')

    def persona(self) -> Persona:
        """Just the Persona part, for code that knows nothing of towns."""
        return Persona.model_validate(self.model_dump(include=set(Persona.model_fields)))


class Scenario(_File):
    """``scenario.toml``: when the run starts, how long a step is, and who takes part."""

    start: datetime = Field(description="game date and time of the first step")
    step_seconds: int = Field(10, ge=1, le=3600, description="game seconds per step")
    personas: list[str] | None = Field(None, description="residents taking part; default all")
    description: str = Field("", max_length=1000)

    @field_validator("start")
    @classmethod
    def _usable_start(cls, value: datetime) -> datetime:
        # Game time is local and naive throughout (prompts say "7:00 am"); and a run must be
        # able to go on for years without leaving the calendar datetime can hold.
        if value.tzinfo is not None:
            raise ValueError("the start time has a time zone: game time has none")
        if not FIRST_YEAR <= value.year <= LAST_YEAR:
            raise ValueError(f"the start must be in the years {FIRST_YEAR} to {LAST_YEAR}")
        return value


FIRST_YEAR, LAST_YEAR = 1000, 9000


def check_symbol(symbol: str) -> None:
    if len(symbol) != 1 or symbol in RESERVED:
        raise ValueError(
            f"{symbol!r} must be one character other than '#', '.', '+', space or quotes"
        )
