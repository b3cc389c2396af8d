"""Answer schemas: bounded fields, run-time enums, the shape sentence a prompt ends with, and
the worst-case token count of an answer (so ``max_tokens`` never cuts a valid answer short)."""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from functools import lru_cache, partial
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, create_model

from simulacra.llm.phrases import phrases_beside
from simulacra.llm.tidy import as_activity

_SHAPE = phrases_beside(__file__, "shape")  # the words of the shape sentence


class Answer(BaseModel):
    """Base of every answer schema: no extra keys, fields in the order the prompt names them."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def text(
    max_length: int, description: str | None = None, min_length: int = 1, lead: str | None = None
) -> Any:
    """A bounded, non-empty string field type. With a ``lead`` the grammar writes those words
    first and the model goes on from them; the answer holds what follows them."""
    if not lead:
        return Annotated[
            str, Field(min_length=min_length, max_length=max_length, description=description)
        ]
    pattern = "^" + _REGEX_SPECIAL.sub(_literal, lead) + _TEXT_CHAR + "{%d,%d}$"
    return Annotated[
        str,
        Field(
            min_length=min_length,
            max_length=len(lead) + max_length,
            description=description,
            json_schema_extra={
                "pattern": pattern % (min_length, max_length),
                LEAD: lead,
                STATED: max_length,
            },
        ),
        AfterValidator(lambda value: value.removeprefix(lead)),
    ]


# Text that starts like a sentence: a small model that copies the "<...>" placeholder of the
# shape sentence, or starts with blanks, cannot. The pattern bounds the length (the grammar
# follows the pattern, not maxLength).
_TEXT_CHAR = r'[^"\\\x00-\x1f\x7f]'  # a character a JSON string holds unescaped, on one line
_PROSE = r'^[^< "\\\x00-\x1f\x7f]' + _TEXT_CHAR + "{%d,%d}$"
# Words said aloud start as a sentence does, never with a small letter: so begun, a line was
# the tail of something the speaker had read, Klaus's "should remember when planning their
# days, especially for the upcoming Valentine's Day party" (one of his planning notes), or
# Maria's "excited and grateful" (party seed 3c). No brackets: they are the prompts' notes,
# and the host said her memory's "on February 14th (tomorrow) from 5pm to 7pm" (party seed 1t).
_LINE = r'^[^a-z<( "\\\x00-\x1f\x7f][^"()\\\x00-\x1f\x7f]{%d,%d}$'
# What no doing holds, beside what a JSON string escapes: angle brackets and braces. The hourly
# schedule's shape shows each hour as "<activity>", and the 1.5B wrote that for Maria's 22:00
# (bench_town, stop 80).
_NOT_A_DOING = r'"<>{}\\\x00-\x1f\x7f'
_PHRASE_CHAR = f"[^{_NOT_A_DOING}]"


def prose(max_length: int, description: str | None, min_length: int = 8) -> Any:
    """A bounded text that starts like a sentence (the feed's answers)."""
    return _starting(_PROSE, max_length, description, min_length)


def line(max_length: int, description: str | None, min_length: int = 1) -> Any:
    """A bounded line said aloud: it starts with a capital, a digit or a mark, and holds no
    brackets."""
    return _starting(_LINE, max_length, description, min_length)


def _starting(pattern: str, max_length: int, description: str | None, min_length: int) -> Any:
    return Annotated[
        str,
        Field(
            min_length=min_length,
            max_length=max_length,
            pattern=pattern % (max(0, min_length - 1), max_length - 1),
            description=description,
        ),
    ]


_CLOCK = re.compile(r"\d\d:\d\d")


def activity_phrase(
    max_length: int, description: str | None = None, lead: str | None = None
) -> Any:
    """A bounded activity phrase that reads after "<name> is", e.g. "brewing coffee".

    The words are the model's: a grammar that forced an -ing verb first made capable models
    glue words into "drinkscoffeeing". With a ``lead`` ("Maria Lopez is "), the grammar writes
    those words first and the model goes on with the sentence: asked for a bare phrase, the
    1.5B wrote nouns ("shoes", "underwear and pants") that no rule can make a doing. The answer
    holds what follows the lead. Afterwards :func:`as_activity` turns "drinks coffee" or "Maria
    is drinking coffee" into the -ing form.
    """
    if not lead:
        # Bounded at what the prompt asks, the hourly schedule cut the host's "still decorating
        # the cafe and inviting friends to the Valentine's Day party" to "... to the Valent",
        # thirteen hours of her party's day (party run of seed 1p): see _rest_length. No
        # backslash: free to escape, the 1.5B wrote "for Valentine\" where it meant an
        # apostrophe, and the bound ended the phrase there.
        bound = _rest_length(max_length)
        return Annotated[
            str,
            Field(
                min_length=3,
                max_length=bound,
                description=description,
                json_schema_extra={
                    "pattern": f"^[A-Za-z]{_PHRASE_CHAR}{{2,{bound - 1}}}$",
                    STATED: max_length,
                },
            ),
            AfterValidator(partial(as_activity, bound=bound)),
        ]
    # The lead is in the grammar's pattern only: a scripted answer without it is valid too.
    pattern = "^" + _REGEX_SPECIAL.sub(_literal, lead) + _activity_tail(max_length)
    rest = _rest_length(max_length)
    return Annotated[
        str,
        Field(
            min_length=3,
            max_length=len(lead) + _FIRST_WORD + 1 + 3 * rest,
            description=description,
            json_schema_extra={"pattern": pattern, LEAD: lead, STATED: max_length},
        ),
        AfterValidator(lambda value: _after_lead(value.removeprefix(lead), rest)),
    ]


def _after_lead(phrase: str, rest: int) -> str:
    """The phrase tidied, knowing where the grammar's bound fell for its first word."""
    return as_activity(phrase, bound=len(phrase.split(" ", 1)[0]) + 1 + rest)


# What follows an activity's lead: a first word of lowercase letters, so "Isabella Rodriguez is"
# goes on with a doing, not with her name again ("Isabella Rodriguez is Isabella Rodriguez"), nor
# with a letter and the schema's punctuation ("Klaus Mueller is s' {", both from runs). Then
# no comma: an activity is one doing, and after a comma the 1.5B went on with a remark or a
# list ("decorating the cafe, which takes 30 minutes", "reviewing the literature, analyzing
# data, and synthes", party run of seed 2). A comma within a number stays: barred from it,
# the 1.5B ended a step of Klaus's at "writing his 6" (seed 1j; "6,000 words", most likely).
# Within a number only: a comma before any digit let a step's minutes into its words ("in the
# bathroom,20 minutes", a morning run). A digit, its comma and the next digit are one unit of
# the bound: a phrase may have three times the units' length. No markdown's "*": a step began
# "*" once its first word, a doubled "is", was tidied away (CI, stop 48). No brackets: they
# are the prompts' notes, and the host's plan for the 14th copied one, "19:00 still planning
# for the party at Hobbs Cafe on February 14th (today)" (party seed 3, stop 69). No semicolon:
# after one, Klaus's reaction went on with his plan's outline, "waking up at 07:00; 07:00
# showering and getting dressed; 08:00 reading in the library;" (party seed 2w, stop 82).
_FIRST_WORD = 16
_ACTIVITY_UNIT = f"([^,;*(){_NOT_A_DOING}]|[0-9],[0-9])"  # llama.cpp's converter has no "(?:"


def _rest_length(max_length: int) -> int:
    """How long the words after a led phrase's first word may be (and a phrase without a
    lead, whole): ``max_length``, which the prompt asks for, and 20 more. A regular bound
    cannot count the first word's letters, so the rest is bounded alone; and a phrase that
    runs into a bound ends in whatever piece of a token fits: as ``max_length`` less the
    longest first word, a phrase after "getting" was cut at 51 characters ("... the
    Valentine's Day event with Kl", one in 20 of a party run's activities), and at
    ``max_length`` less 3, Klaus's "writing a research paper on the effects of gentrification
    in low-income communities", copied from what he is up to,
    ended "low-incomecomm" (30 of 643 activities in an eval)."""
    return max_length + 20


def _activity_tail(max_length: int) -> str:
    rest = _rest_length(max_length)
    return f"[a-z]{{2,{_FIRST_WORD}}}( {_ACTIVITY_UNIT}{{1,{rest}}})?$"


# A lead's characters that mean more in a pattern. Not re.escape: llama.cpp's converter copies
# "\\ " and "\\." into the grammar's literal, backslash and all; a class it reads as meant.
_REGEX_SPECIAL = re.compile(r"[.^$*+?()\[\]{}|\\]")


def _literal(special: re.Match[str]) -> str:
    c = special.group()
    return "\\" + c if c in "^]\\[" else f"[{c}]"


LEAD = "x-lead"  # the schema's key for an activity's lead, read by the shape sentence
# The length the shape sentence asks for, where the grammar allows more so that a phrase a
# little longer ends in its own words (see _rest_length).
STATED = "x-stated-length"
# The schema's key, on an array, for its items' field whose values rise from item to item in
# the order of its options (a day plan's times), kept by the grammar (see grammar.py).
RISING = "x-rising"
# The schema's key, on an enum, for a shape sentence that does not list its options.
LISTED_ABOVE = "x-listed-above"


def one_of(options: Sequence[Any]) -> Any:
    """A field type admitting exactly ``options`` (place names, people present, indices...)."""
    unique = tuple(dict.fromkeys(options))
    if not unique:
        raise ValueError("a choice needs at least one option")
    return Literal[unique]  # type: ignore[valid-type]


def choice_model(options: Sequence[str]) -> type[Answer]:
    return create_model("Choice", __base__=Answer, choice=(one_of(options), ...))


@lru_cache(maxsize=512)
def _schema_text(model: type[BaseModel]) -> str:
    return json.dumps(model.model_json_schema())  # keep field order: the grammar follows it


def json_schema(model: type[BaseModel]) -> dict:
    """The JSON schema of ``model``; every string and array in it must be bounded.

    An answer whose fields are written only given others' values (``__given__``, see
    answer.py) keeps all its fields in ``properties``, which the shape sentence shows, and
    adds ``anyOf`` its shapes, which the grammar follows."""
    schema = json.loads(_schema_text(model))
    given = getattr(model, "__given__", None)
    if given:
        schema["anyOf"] = _shapes(schema, model, given)
    _check_bounded(schema, schema, model.__name__)
    return schema


def _shapes(schema: dict, model: type[BaseModel], given: dict[str, dict]) -> list[dict]:
    """One object per combination of the values that fields are given on, holding the fields
    written then, in their order, with those values as constants."""
    key = {name: f.alias or name for name, f in model.model_fields.items()}
    field_of = {k: name for name, k in key.items()}
    props = schema["properties"]
    on = list(dict.fromkeys(k for g in given.values() for k in g))
    choices = [_options(props[key[k]], schema) for k in on]
    shapes = []
    for values in itertools.product(*choices):
        taken = dict(zip(on, values, strict=True))
        fields = {}
        for name, sub in props.items():
            field = field_of.get(name, name)
            if any(taken[k] != v for k, v in given.get(field, {}).items()):
                continue
            fields[name] = {"const": taken[field]} if field in taken else sub
        shapes.append(
            {"type": "object", "properties": fields, "required": list(fields),
             "additionalProperties": False}
        )  # fmt: skip
    return shapes


def _options(node: dict, root: dict) -> list:
    node = _deref(node, root)
    if "enum" in node:
        return list(node["enum"])
    if node.get("type") == "boolean":
        return [True, False]
    raise TypeError(f"a field given on must be an enum or a bool, not {node}")


def _deref(node: dict, root: dict) -> dict:
    while "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[-1]
        node = root["$defs"][name]
    return node


def _check_bounded(node: dict, root: dict, where: str) -> None:
    node = _deref(node, root)
    if "enum" in node or "const" in node:
        return
    kind = node.get("type")
    if kind == "string" and "maxLength" not in node:
        raise TypeError(f"{where}: unbounded string; give it a max_length")
    if kind == "array":
        if "maxItems" not in node:
            raise TypeError(f"{where}: unbounded list; give it a max_length")
        _check_bounded(node["items"], root, where + "[]")
    if kind == "object":
        for name, sub in node.get("properties", {}).items():
            _check_bounded(sub, root, f"{where}.{name}")
    for sub in node.get("anyOf", []):
        _check_bounded(sub, root, where)


def max_answer_tokens(schema: dict) -> int:
    """Tokens enough for the longest answer the grammar admits.

    Every token carries at least one byte, so a byte bound is a token bound. String characters
    count 4 bytes (UTF-8 worst case); separators allow one optional space.
    """
    return _max_bytes(schema, schema) + 8


def _max_bytes(node: dict, root: dict) -> int:
    node = _deref(node, root)
    if "enum" in node:
        return max(len(json.dumps(v).encode()) for v in node["enum"]) + 1
    if "const" in node:
        return len(json.dumps(node["const"]).encode()) + 1
    if "anyOf" in node:
        return max(_max_bytes(sub, root) for sub in node["anyOf"])
    kind = node.get("type")
    if kind == "string":
        return 4 * node["maxLength"] + 3
    if kind == "integer":
        return 21
    if kind == "number":
        return 32
    if kind == "boolean":
        return 6
    if kind == "null":
        return 5
    if kind == "array":
        return 3 + node["maxItems"] * (_max_bytes(node["items"], root) + 2)
    if kind == "object":
        props = node.get("properties", {})
        return 3 + sum(len(json.dumps(k)) + 4 + _max_bytes(v, root) for k, v in props.items())
    raise TypeError(f"unsupported schema node {node}")


def shape_sentence(schema: dict) -> str:
    """The closing line of every structured prompt: what the JSON must look like."""
    return _shape_sentence(json.dumps(schema))


@lru_cache(maxsize=512)
def _shape_sentence(text: str) -> str:
    schema = json.loads(text)
    bounds: dict[str, int] = {}
    shape = _shape(schema, schema, bounds=bounds)
    return "\n".join([_SHAPE.raw("intro"), shape, *_bounds_line(bounds)])


def _bounds_line(bounds: dict[str, int]) -> list[str]:
    """The strings' length bounds, after the JSON: written beside each string, they broke the
    JSON's look (an hourly schedule read as 17 asides) or were copied into the answer when
    inside its quotes ("writing down notes, at most 60 characters]")."""
    if not bounds:
        return []
    if len(set(bounds.values())) == 1:
        return [_SHAPE.raw("bound_each", n=next(iter(bounds.values())))]
    shown = [_SHAPE.raw("bound", name=json.dumps(k), n=n) for k, n in bounds.items()]
    return [_SHAPE.raw("bounds", bounds=shown)]


def _shape(
    node: dict,
    root: dict,
    description: str | None = None,
    *,
    bounds: dict[str, int],
    name: str = "",
) -> str:
    description = node.get("description", description)
    node = _deref(node, root)
    description = node.get("description", description)
    label = _SHAPE.raw("label", description=description) if description else ""
    if "enum" in node and node.get(LISTED_ABOVE):
        return _SHAPE.raw("listed_above", label=label)
    if "enum" in node:
        return _enum_shape(node["enum"], label)
    if "const" in node:
        return json.dumps(node["const"], ensure_ascii=False)
    kind = node.get("type")
    if kind == "object":
        fields = ", ".join(
            f"{json.dumps(k)}: {_shape(v, root, bounds=bounds, name=k)}"
            for k, v in node.get("properties", {}).items()
        )
        return "{" + fields + "}"
    if kind == "array":
        item = _shape(node["items"], root, bounds=bounds, name=name)
        lo, hi = node.get("minItems", 0), node["maxItems"]
        if hi == 1:
            return _SHAPE.raw("one_item" if lo == 1 else "one_or_none", item=item)
        count = _SHAPE.raw("exactly", n=hi) if lo == hi else _SHAPE.raw("between", lo=lo, hi=hi)
        return _SHAPE.raw("items", item=item, count=count)
    if kind == "string":
        what = description or _SHAPE.raw("text")
        lead = node.get(LEAD, "")
        stated = node.get(STATED, node["maxLength"] - len(lead))
        bounds[name] = max(bounds.get(name, 0), stated)
        return _SHAPE.raw("led", lead=lead, what=what) if lead else _SHAPE.raw("string", what=what)
    if kind == "boolean":
        return _SHAPE.raw("boolean", label=label)
    if kind in ("integer", "number"):
        return _SHAPE.raw("number", what=description or kind)
    return _SHAPE.raw("value")


def _enum_shape(options: list, label: str) -> str:
    ints = [o for o in options if isinstance(o, int)]
    if len(ints) == len(options) and ints == list(range(min(ints), max(ints) + 1)):
        return _SHAPE.raw("integers", label=label, lo=min(ints), hi=max(ints))
    if len(options) > 8 and all(isinstance(o, str) and _CLOCK.fullmatch(o) for o in options):
        return _SHAPE.raw("times", label=label, first=options[0], last=options[-1])
    if len(options) > 8:
        return _SHAPE.raw("listed_above", label=label)
    shown = [json.dumps(o, ensure_ascii=False) for o in options]
    return _SHAPE.raw("one_of", label=label, options=shown)
