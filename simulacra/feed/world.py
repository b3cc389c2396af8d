"""A feed world: a folder of editable TOML files.

feed.toml            name, description, start time, and the [rules] of the schedule
characters/*.toml    one agent character each: the persona fields plus its interests
posts.toml           [[post]] entries written by people: author, text, time, and an
                     optional ref that later posts' reply_to may name
"""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from simulacra.errors import UserError
from simulacra.persona import Persona
from simulacra.text import check_free_text
from simulacra.textfile import parse_toml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

FEED_FILE = "feed.toml"
CHARACTERS_DIR = "characters"
POSTS_FILE = "posts.toml"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FeedRules(_Strict):
    """The schedule and the limits of each agent's work, in game time."""

    wake_every_minutes: int = Field(30, ge=1, description="game minutes between wake-ups")
    per_wake: int = Field(5, ge=1, description="messages observed per wake-up at most")
    recent_memories: int = Field(20, ge=1, description="memories summarised when waking")
    similar_memories: int = Field(5, ge=1, description="top-k memories a reply draws on")
    max_chain: int = Field(
        12, ge=2, description="messages in a thread chain beyond which a conversation has ended"
    )
    interest_similarity: float = Field(
        0.25,
        ge=-1.0,
        le=1.0,
        description="how near in meaning (cosine) a thread must come to an interest to be read",
    )
    low_value: int = Field(
        3, ge=1, le=10, description="importance at or below which a memory folds"
    )
    fold_after: int = Field(8, ge=2, description="low-value memories that trigger a summary")


class FeedInfo(_Strict):
    name: str = Field(min_length=1, max_length=80)
    description: str = Field("", max_length=600)
    start: datetime
    rules: FeedRules = Field(default_factory=FeedRules)


class Character(_Strict):
    """A persona (the paper's paragraph, in fields) and what it cares to answer about."""

    persona: Persona
    interests: list[str] = Field(min_length=1, max_length=12)

    @model_validator(mode="before")
    @classmethod
    def _split(cls, data: object) -> object:
        if isinstance(data, dict) and "persona" not in data:
            data = dict(data)
            interests = data.pop("interests", None)
            return {"persona": data, "interests": interests}
        return data

    @property
    def name(self) -> str:
        return self.persona.name


class Post(_Strict):
    author: str = Field(min_length=1, max_length=60)
    text: str = Field(min_length=1, max_length=2000)
    at: datetime
    ref: str | None = Field(None, max_length=60)
    reply_to: str | None = Field(None, max_length=60)

    @field_validator("author", "ref", "reply_to")
    @classmethod
    def _one_line(cls, value: str | None) -> str | None:
        return None if value is None else check_free_text(value, one_line=True)

    @field_validator("text")
    @classmethod
    def _text(cls, value: str) -> str:
        return check_free_text(value)


class FeedWorld(_Strict):
    info: FeedInfo
    characters: list[Character]
    posts: list[Post]


def read_toml(path: Path) -> dict:
    try:
        return parse_toml(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(
            "missing file", file=path, fix="see worlds/fan-feed/ for an example"
        ) from None
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"not valid TOML: {e}", file=path) from None


def validated(model: type[BaseModel], data: object, path: Path, within: str = "") -> BaseModel:
    """``data`` as a ``model``; ``within`` names where in the file it is (``post[3]``)."""
    try:
        return model.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        where = ".".join([within] * bool(within) + [str(x) for x in err["loc"] if x != "persona"])
        message = err["msg"].removeprefix("Value error, ")
        raise UserError(message, file=path, field=where or None) from None


def load_character(path: Path) -> Character:
    return validated(Character, read_toml(path), path)  # type: ignore[return-value]


def load_world(directory: Path) -> FeedWorld:
    directory = Path(directory)
    if not (directory / FEED_FILE).is_file():
        raise UserError(
            "not a feed world (no feed.toml)",
            file=directory,
            fix="give a folder like worlds/fan-feed/",
        )
    info = validated(FeedInfo, read_toml(directory / FEED_FILE), directory / FEED_FILE)
    files = sorted((directory / CHARACTERS_DIR).glob("*.toml"))
    if not files:
        raise UserError(
            "no agent characters",
            file=directory / CHARACTERS_DIR,
            fix="add one TOML file per character (name, age, innate, learned, interests)",
        )
    characters = [load_character(f) for f in files]
    names = [c.name for c in characters]
    if len(set(names)) != len(names):
        raise UserError("two characters share a name", file=directory / CHARACTERS_DIR)
    posts_path = directory / POSTS_FILE
    raw = read_toml(posts_path).get("post", []) if posts_path.is_file() else []
    if not isinstance(raw, list):
        raise UserError(
            "post is not a list of posts", file=posts_path, field="post", fix="write [[post]]"
        )
    posts = [validated(Post, p, posts_path, f"post[{i}]") for i, p in enumerate(raw, 1)]
    refs: set[str] = set()
    for i, post in enumerate(posts):
        if post.reply_to is not None and post.reply_to not in refs:
            raise UserError(
                f"reply_to {post.reply_to!r} names no earlier post",
                file=posts_path,
                field=f"post[{i + 1}].reply_to",
                fix="give the ref of a post above this one",
            )
        if post.ref is not None:
            if post.ref in refs:
                raise UserError(
                    f"ref {post.ref!r} is given to an earlier post too",
                    file=posts_path,
                    field=f"post[{i + 1}].ref",
                    fix="give each post its own ref, so a reply_to names one post",
                )
            refs.add(post.ref)
    return FeedWorld(info=info, characters=characters, posts=posts)  # type: ignore[arg-type]
