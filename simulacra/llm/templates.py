"""Prompt templates: ``NAME.prompt.toml`` files beside the code that uses them.

A template file holds all the model reads of one prompt: a ``description``, the ``user`` text
(Jinja2), an optional ``situation`` text (Jinja2) sent after the answer's shape (what changes at
every call, last, so that the task and the shape stay in the KV cache), the ``[answer]`` its
reply is bound to, field by field (see answer.py), ``[words]`` that the text, the answer and the
code share (an option meaning "none", say: variables the template sets itself), an
``[example]`` table of variables, so ``simulacra prompts try NAME`` runs it without any setup,
and ``[[case]]`` tables: variables plus checks on the answer, which ``simulacra prompts eval``
scores. ``schema`` (``module:attr``), when given, names the code
that builds the answer from the ``[answer]`` table with a base class of its own or options
made at run time. Every prompt's system text is the shared preamble plus the agent's identity:
the stable prefix llama.cpp keeps in its KV cache between calls.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, cached_property
from pathlib import Path
from typing import Any

import jinja2
from pydantic import BaseModel

from simulacra import gametime
from simulacra.errors import UserError
from simulacra.llm.answer import AnswerSpec, build, parse_answer
from simulacra.llm.fitting import shortened_to_fit
from simulacra.llm.interface import LanguageModel, Prompt
from simulacra.llm.repairs import after_parse
from simulacra.llm.schema import Answer
from simulacra.textfile import parse_toml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SUFFIX = ".prompt.toml"
PACKAGE_ROOT = Path(__file__).resolve().parent.parent
PREAMBLE = (Path(__file__).with_name("preamble.txt")).read_text(encoding="utf-8").strip()

_env = jinja2.Environment(
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=False,
    autoescape=False,
)
_env.filters["mark_dates"] = gametime.mark_dates
_env.filters["hhmm"] = gametime.hhmm
_env.filters["in_force"] = gametime.in_force
_env.filters["begun"] = gametime.begun
_env.filters["habit_times"] = gametime.habit_times
_env.filters["item_times"] = lambda items: [str(i)[:5] for i in items]  # "HH:MM activity"


# Who is spoken of, and "to be", read alike: the preamble says "who they are", a plan wrote
# "staying true to who she is and to what she remembers" as Isabella's evening (bench_town).
_ANYONE = {"i", "you", "he", "she", "they", "me", "him", "her", "them", "his", "their", "my"}
_TO_BE = {"is", "are", "am", "was", "were", "be", "being"}
PREAMBLE_RUN = 5  # words in a row shared with the preamble that are its words, not a doing's
# Fewer, where they are the whole text: Isabella's evening was "being concrete and brief" (party
# seed 2z), and "living an everyday life in Smallville" is a doing, if a vague one.
PREAMBLE_WHOLE = 4


def _stems(text: str) -> list[str]:
    words = re.findall(r"[a-z]+", text.lower())
    stems = []
    for w in words:
        if w in _ANYONE:
            w = "*"
        elif w in _TO_BE:
            w = "be"
        elif w.endswith("ing") and len(w) > 5:
            w = w[:-3]
        elif w.endswith("s") and not w.endswith("ss") and len(w) > 3:
            w = w[:-1]
        stems.append(w)
    return stems


def _runs(stems: list[str], n: int = PREAMBLE_RUN) -> set[tuple[str, ...]]:
    return {tuple(stems[i : i + n]) for i in range(len(stems) - n + 1)}


_PREAMBLE_RUNS = _runs(_stems(PREAMBLE))
_PREAMBLE_STEMS = _stems(PREAMBLE)
# A template's variables and statements: what a model may copy from them is not its words.
_VARIABLE = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.DOTALL)


def echoes_preamble(text: str) -> bool:
    """Whether ``text`` says the shared preamble's instructions again, in any person and
    tense: the model's own instructions shown as what someone does or says."""
    stems = _stems(text)
    if PREAMBLE_WHOLE <= len(stems) < PREAMBLE_RUN:
        return tuple(stems) in _runs(_PREAMBLE_STEMS, len(stems))
    return not _runs(stems).isdisjoint(_PREAMBLE_RUNS)


def system_text(identity: str) -> str:
    """The stable prefix of every prompt: the preamble, then who is thinking."""
    return f"{PREAMBLE}\n\n{identity.strip()}" if identity.strip() else PREAMBLE


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    path: Path
    description: str
    schema_ref: str | None  # the code that builds the answer, when it adds to the [answer]
    user: str
    answer: AnswerSpec | None = None  # every template file has one; None in tests only
    words: dict[str, Any] = field(default_factory=dict)  # variables the template sets itself
    example: dict[str, Any] = field(default_factory=dict)
    temperature: float | None = None  # e.g. low for choosing among places
    presence_penalty: float = 0.0  # e.g. for a list the model pads by repeating an item
    cases: tuple[dict[str, Any], ...] = ()  # `simulacra prompts eval` cases: [[case]] tables
    fit: tuple[str, ...] = ()  # list variables cut to fit the context (see fitting.py)
    situation: str = ""  # sent after the answer's shape (see the module's text)

    def schema(self, **variables: Any) -> type[BaseModel]:
        """The answer schema; built from the variables when options exist only at run time."""
        if self.schema_ref is None:
            return self.answer_model(variables)
        module_name, _, attr = self.schema_ref.partition(":")
        target = getattr(importlib.import_module(module_name), attr)
        if isinstance(target, type) and issubclass(target, BaseModel):
            return target
        return target(**variables)

    def answer_model(
        self, variables: dict[str, Any] | None = None, *, base: type[Answer] = Answer
    ) -> type[Answer]:
        """The model of the [answer] table for these variables, on ``base`` (the code's
        computed fields and validators)."""
        if self.answer is None:
            raise UserError("missing table [answer]", file=self.path, field="answer")
        return build(self.answer, {**(variables or {}), **self.words}, _env, base=base)

    def echoed_by(self, text: str) -> bool:
        """Whether ``text`` says this template's own words again (a run of them, as
        ``echoes_preamble`` reads the preamble's): Klaus's note of a talk, "... which Klaus
        Mueller should remember when planning their days", then said as a line (party seed
        3c)."""
        return not _runs(_stems(text)).isdisjoint(self._own_runs)

    @cached_property
    def _own_runs(self) -> set[tuple[str, ...]]:
        """The runs of words of the template's own text, not across a variable."""
        own = _VARIABLE.sub(" \x00 ", f"{self.user}\n\x00\n{self.situation}")
        return set().union(*(_runs(_stems(part)) for part in own.split("\x00")))

    def render(self, *, identity: str = "", agent: str | None = None, **variables: Any) -> Prompt:
        variables = {**variables, **self.words}
        try:
            user = _compiled(self.path, self.user).render(**variables)
            situation = _compiled(self.path, self.situation, "situation").render(**variables)
        except jinja2.UndefinedError as e:
            raise UserError(
                f"template variable missing: {e.message}",
                file=self.path,
                fix="pass it (see the [example] table of the template for every variable)",
            ) from None
        return Prompt(
            self.name,
            system_text(identity),
            user.strip(),
            agent,
            temperature=self.temperature,
            presence_penalty=self.presence_penalty,
            variables=variables,
            situation=situation.strip(),
        )

    def ask(
        self,
        model: LanguageModel,
        *,
        identity: str = "",
        agent: str | None = None,
        seed: int | None = None,
        after: Callable[[Any], object] | None = None,
        avoid: Sequence[str] = (),
        unwritten: Sequence[str] = (),
        **variables: Any,
    ) -> Any:
        """Render, generate under the bound schema, return the parsed answer.

        ``after``: what the caller will do with the answer (drop items of it, judge whether to
        ask again), run once as it is parsed so that its repairs are logged with the call.
        ``avoid``: texts the answer may not copy a long run of; ``unwritten``: words it may not
        write (see Prompt)."""
        if self.fit:
            variables = shortened_to_fit(
                variables,
                self.fit,
                lambda v: model.fits(
                    self.render(identity=identity, agent=agent, **v), self.schema(**v)
                ),
            )
        prompt = self.render(identity=identity, agent=agent, **variables)
        if avoid or unwritten:
            prompt = replace(prompt, avoid=tuple(avoid), unwritten=tuple(unwritten))
        schema = self.schema(**variables)
        if after is not None:
            schema = after_parse(schema, after)
        return model.generate(prompt, schema, seed=seed)

    def ask_example(
        self,
        model: LanguageModel,
        *,
        seed: int | None = None,
        variables: dict[str, Any] | None = None,
    ) -> Any:
        return self.ask(model, seed=seed, **(self.example if variables is None else variables))


@cache
def _compiled(path: Path, source: str, name: str = "user") -> jinja2.Template:
    try:
        return _env.from_string(source)
    except jinja2.TemplateSyntaxError as e:
        raise UserError(
            f"template syntax: {e.message}", file=path, field=f"{name}, line {e.lineno}"
        ) from None


def load_template(path: Path) -> PromptTemplate:
    try:
        data = parse_toml(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise UserError(f"not valid TOML: {e}", file=path) from None
    for key in ("description", "user"):
        if not isinstance(data.get(key), str):
            raise UserError(f"missing text field {key!r}", file=path, field=key)
    for key, low, high in (("temperature", 0.0, 2.0), ("presence_penalty", -2.0, 2.0)):
        value = data.get(key, 0.0)
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not low <= value <= high
        ):
            raise UserError(
                f"{key} must be a number from {low} to {high}",
                file=path,
                field=key,
                fix=f"write e.g. {key} = 0.5, or leave it out",
            )
    if not isinstance(data.get("situation", ""), str):
        raise UserError("expected a text", file=path, field="situation")
    if not isinstance(data.get("schema", ""), str):
        raise UserError("expected module:name", file=path, field="schema")
    if "answer" not in data:
        raise UserError(
            "missing table [answer]",
            file=path,
            field="answer",
            fix="describe the answer's fields in [[answer.field]] tables",
        )
    words = data.get("words", {})
    if not isinstance(words, dict):
        raise UserError("expected a table", file=path, field="words")
    return PromptTemplate(
        name=path.name.removesuffix(SUFFIX),
        path=path,
        description=data["description"].strip(),
        schema_ref=data.get("schema"),
        user=data["user"],
        answer=parse_answer(data["answer"], path),
        words=words,
        example=data.get("example", {}),
        temperature=data.get("temperature"),
        presence_penalty=data.get("presence_penalty", 0.0),
        cases=tuple(data.get("case", [])),
        fit=tuple(data.get("fit", ())),
        situation=data.get("situation", ""),
    )


def template_beside(module_file: str, name: str) -> PromptTemplate:
    """The template ``NAME.prompt.toml`` in the directory of the calling module."""
    return _load_cached(Path(module_file).resolve().with_name(name + SUFFIX))


@cache
def _load_cached(path: Path) -> PromptTemplate:
    return load_template(path)


def all_templates() -> dict[str, PromptTemplate]:
    """Every template shipped in the package, by name."""
    found = {}
    for path in sorted(PACKAGE_ROOT.rglob("*" + SUFFIX)):
        template = _load_cached(path)
        found[template.name] = template
    return found


def find_template(name: str) -> PromptTemplate:
    templates = all_templates()
    if name not in templates:
        raise UserError(
            f"no prompt template named {name!r}",
            fix="see `simulacra prompts list` for the names",
        )
    return templates[name]
