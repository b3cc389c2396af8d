"""An answer's fields, read from its template's ``[answer]`` table and built into the pydantic
model the grammar is made from.

The template holds what the model reads: each field's name, in the order the model writes
them, its kind, bound and description. The code holds what the answer does: a base class with
computed fields or validators, and the options that exist only at run time (the places an
agent knows), which a field names by an expression over the template's variables.

    [answer]
    model = "Place"                   # the schema's title (Jinja)

    [[answer.field]]
    name = "kind_of_place"
    kind = "text"                     # text, prose, line, activity, enum, bool or list
    max_length = 60
    description = "the kind of place for {{ activity[:60] }}"   # Jinja over the variables

    [[answer.field]]
    name = "place"
    kind = "enum"
    options = "places"                # an expression over the variables, or a list
    description = "a place from the list"

Other keys: ``min_length``; ``when`` (an expression: the field exists only when it is true);
``each`` (an expression: one field per item, ``name`` and ``alias`` rendered with ``each``);
``given`` (a table of earlier fields and expressions over the variables: the field is written
only when those fields took those values, e.g. ``given = { emergency = "yes" }``, so that no
token goes to a field nobody reads; the grammar is a choice among the answers' shapes);
``fixed`` (an expression, for a text or an activity: where it gives a text, the field is that
text, written whole by the grammar, e.g. a plan item at the hour it begins; the model goes on
from it and cannot write something else there);
``named`` (an enum that is a type of its own in the schema, e.g. ``YesNo``); ``lead`` (an
activity's or a text's first words, written by the grammar, e.g. "{{ name }} is ", so that the
model goes on with a sentence; the answer holds what follows them); ``values`` (the
numbers an enum's options stand for: the answer carries the number); for a list ``item``,
either a table (a field without a name) or the name of an object whose fields are the array
``[[answer.NAME]]``, and ``min_items`` and ``max_items`` (numbers or expressions), and
``rising`` (the name of the item object's last field, an enum: each item's value there comes
after the one before in the options' order, e.g. a day plan's times; the grammar keeps it);
``listed_above`` (for an enum whose options the prompt lists and that change from call to
call: the shape sentence says "one of the options listed above" instead of listing them, so
that the prompt up to the situation stays the same).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any

import jinja2
from pydantic import AfterValidator, Field, create_model, model_validator

from simulacra.errors import UserError
from simulacra.llm.repairs import repair, rule
from simulacra.llm.schema import (
    LISTED_ABOVE,
    RISING,
    Answer,
    activity_phrase,
    line,
    one_of,
    prose,
    text,
)

KINDS = ("text", "prose", "line", "activity", "enum", "bool", "list")
_BOUNDED = ("text", "prose", "line", "activity")
_KEYS = {
    "name", "kind", "description", "max_length", "min_length", "options", "values", "named",
    "item", "min_items", "max_items", "when", "each", "alias", "lead", "given", "fixed",
    "rising", "listed_above",
}  # fmt: skip


@dataclass(frozen=True)
class FieldSpec:
    """One field as the template gives it; texts may hold Jinja, expressions are unevaluated."""

    name: str
    kind: str
    description: str | None = None
    max_length: int | None = None
    min_length: int | None = None
    options: str | tuple | None = None
    values: tuple | None = None
    named: str | None = None
    item: FieldSpec | str | None = None
    min_items: int | str | None = None
    max_items: int | str | None = None
    when: str | None = None
    each: str | None = None
    alias: str | None = None
    lead: str | None = None
    given: tuple[tuple[str, Any], ...] | None = None
    fixed: str | None = None
    rising: str | None = None
    listed_above: bool = False


@dataclass(frozen=True)
class AnswerSpec:
    path: Path
    model: str
    fields: tuple[FieldSpec, ...]
    objects: dict[str, tuple[FieldSpec, ...]]


def parse_answer(table: object, path: Path) -> AnswerSpec:
    """The ``[answer]`` table of a template file, checked: a one-line error names the key."""
    if not isinstance(table, dict):
        raise UserError("missing table [answer]", file=path, field="answer")
    model = table.get("model")
    if not isinstance(model, str) or not model:
        raise UserError(
            "the answer needs a model name", file=path, field="answer.model",
            fix='write e.g. model = "Place" (its title in the JSON schema)',
        )  # fmt: skip
    objects = {}
    for key, value in table.items():
        if key not in ("model", "field"):
            objects[key] = _fields(value, path, f"answer.{key}")
    fields = _fields(table.get("field"), path, "answer.field")
    for f in (*fields, *(g for fs in objects.values() for g in fs)):
        if isinstance(f.item, str) and f.item not in objects:
            raise UserError(
                f"no object {f.item!r}", file=path, field=f"{f.name}.item",
                fix=f"describe its fields in [[answer.{f.item}]] tables",
            )  # fmt: skip
        if f.rising is not None and (
            not isinstance(f.item, str)
            or objects[f.item][-1].name != f.rising
            or objects[f.item][-1].kind != "enum"
        ):
            raise UserError(
                f"rising names {f.rising!r}, not the item's last field", file=path,
                field=f"{f.name}.rising",
                fix="make the list's item an object whose last field is that enum",
            )  # fmt: skip
    return AnswerSpec(path, model, fields, objects)


def _fields(raw: object, path: Path, where: str) -> tuple[FieldSpec, ...]:
    if not isinstance(raw, list) or not raw or not all(isinstance(r, dict) for r in raw):
        raise UserError(
            "expected one or more fields", file=path, field=where,
            fix=f"write a [[{where}]] table for each field, in the order the model writes them",
        )  # fmt: skip
    fields = tuple(_field(r, path, f"{where}[{i}]") for i, r in enumerate(raw))
    for i, f in enumerate(fields):
        earlier = {g.name for g in fields[:i]}
        for name, _ in f.given or ():
            if name not in earlier:
                raise UserError(
                    f"given names {name!r}, no earlier field", file=path,
                    field=f"{where}[{i}].given",
                    fix="name an enum or bool field written before this one",
                )  # fmt: skip
    return fields


def _field(raw: dict, path: Path, where: str, *, named: bool = True) -> FieldSpec:
    unknown = sorted(set(raw) - _KEYS)
    if unknown:
        raise UserError(
            f"unknown key {unknown[0]!r}", file=path, field=where,
            fix=f"use {', '.join(sorted(_KEYS))}",
        )  # fmt: skip
    if named and not isinstance(raw.get("name"), str):
        raise UserError("a field needs a name", file=path, field=f"{where}.name")
    kind = raw.get("kind")
    if kind not in KINDS:
        raise UserError(
            f"unknown kind {kind!r}", file=path, field=f"{where}.kind",
            fix=f"use one of {', '.join(KINDS)}",
        )  # fmt: skip
    if kind in _BOUNDED and not isinstance(raw.get("max_length"), int):
        raise UserError(
            "a text needs a bound", file=path, field=f"{where}.max_length",
            fix="write e.g. max_length = 60",
        )  # fmt: skip
    if kind == "enum" and not isinstance(raw.get("options"), str | list):
        raise UserError(
            "an enum needs its options", file=path, field=f"{where}.options",
            fix='a list, or an expression over the variables such as "places"',
        )  # fmt: skip
    item = raw.get("item")
    if kind == "list":
        if isinstance(item, dict):
            item = _field(item, path, f"{where}.item", named=False)
        elif not isinstance(item, str):
            raise UserError(
                "a list needs its item", file=path, field=f"{where}.item",
                fix="a table such as { kind = \"text\", max_length = 120 }, or an object's name",
            )  # fmt: skip
        if raw.get("max_items") is None:
            raise UserError(
                "a list needs a bound", file=path, field=f"{where}.max_items",
                fix="write e.g. max_items = 5",
            )  # fmt: skip
    if raw.get("lead") is not None and kind not in ("activity", "text"):
        raise UserError(
            "only an activity or a text has a lead", file=path, field=f"{where}.lead",
            fix='remove it, or make the field kind = "activity" or "text"',
        )  # fmt: skip
    if raw.get("fixed") is not None and (
        kind not in _BOUNDED or not isinstance(raw["fixed"], str) or raw.get("lead") is not None
    ):
        raise UserError(
            "only a text or an activity without a lead can be fixed", file=path,
            field=f"{where}.fixed",
            fix='an expression giving the text or "", e.g. fixed = "items.get(each, \'\')"',
        )  # fmt: skip
    if not isinstance(raw.get("listed_above", False), bool) or (
        raw.get("listed_above") and kind != "enum"
    ):
        raise UserError(
            "listed_above is for an enum, true or false", file=path, field=f"{where}.listed_above",
            fix="write listed_above = true on an enum field, or remove it",
        )  # fmt: skip
    given = raw.get("given")
    if given is not None and (not isinstance(given, dict) or not given):
        raise UserError(
            "given needs a table", file=path, field=f"{where}.given",
            fix='write e.g. given = { emergency = "yes" }',
        )  # fmt: skip
    options = raw.get("options")
    values = raw.get("values")
    return FieldSpec(
        name=raw.get("name", ""),
        kind=kind,
        description=raw.get("description"),
        max_length=raw.get("max_length"),
        min_length=raw.get("min_length"),
        options=tuple(options) if isinstance(options, list) else options,
        values=tuple(values) if isinstance(values, list) else None,
        named=raw.get("named"),
        item=item,
        min_items=raw.get("min_items"),
        max_items=raw.get("max_items"),
        when=raw.get("when"),
        each=raw.get("each"),
        alias=raw.get("alias"),
        lead=raw.get("lead"),
        given=tuple(given.items()) if given else None,
        fixed=raw.get("fixed"),
        rising=raw.get("rising"),
        listed_above=raw.get("listed_above", False),
    )


# ----------------------------------------------------------------------------- building


def build(
    spec: AnswerSpec,
    variables: Mapping[str, Any],
    env: jinja2.Environment,
    *,
    base: type[Answer] = Answer,
) -> type[Answer]:
    """The answer model for these variables: the same model (the same class) for the same
    resolved fields, so its schema and grammar are made once."""
    resolve = _Resolver(spec, variables, env)
    try:
        fields = resolve.fields(spec.fields)
        model = resolve.text(spec.model)
    except jinja2.UndefinedError as e:
        raise UserError(
            f"template variable missing: {e.message}",
            file=spec.path,
            field="answer",
            fix="pass it (see the [example] table of the template for every variable)",
        ) from None
    return _model(_Object(model or "", fields), base)


@dataclass(frozen=True)
class _Object:
    """A resolved object: what a model is built from (hashable: the same model is cached)."""

    name: str
    fields: tuple[_Field, ...]


@dataclass(frozen=True)
class _Field:
    """A field with its texts rendered and its expressions evaluated for one call."""

    name: str
    alias: str | None
    kind: str
    description: str | None
    max_length: int | None
    min_length: int | None
    options: tuple | None
    values: tuple | None
    named: str | None
    item: _Field | _Object | None
    min_items: int | None
    max_items: int | None
    lead: str | None = None
    given: tuple[tuple[str, Any], ...] | None = None
    rising: str | None = None
    listed_above: bool = False


@dataclass
class _Resolver:
    spec: AnswerSpec
    variables: Mapping[str, Any]
    env: jinja2.Environment

    def text(self, source: str | None) -> str | None:
        if source is None:
            return None
        return _compiled(self.env, source).render(**self.variables)

    def value(self, source: Any) -> Any:
        if not isinstance(source, str):
            return source
        value = _expression(self.env, source)(**self.variables)
        if isinstance(value, jinja2.Undefined):
            value._fail_with_undefined_error()
        return value

    def fields(self, specs: tuple[FieldSpec, ...]) -> tuple[_Field, ...]:
        out = []
        for f in specs:
            if f.when is not None and not self.value(f.when):
                continue
            if f.each is None:
                out.append(self.field(f))
                continue
            for each in self.value(f.each):
                out.append(
                    _Resolver(self.spec, {**self.variables, "each": each}, self.env).field(f)
                )
        return tuple(out)

    def field(self, f: FieldSpec) -> _Field:
        item: _Field | _Object | None = None
        if isinstance(f.item, FieldSpec):
            item = self.field(f.item)
        elif isinstance(f.item, str):
            item = _Object(f.item, self.fields(self.spec.objects[f.item]))
        options = self.value(f.options)
        kind = f.kind
        fixed = self.value(f.fixed) if f.fixed is not None else None
        if fixed:  # a choice of one: the grammar writes it whole
            kind, options = "enum", (fixed,)
        return _Field(
            name=self.text(f.name) or "",
            alias=self.text(f.alias),
            kind=kind,
            description=self.text(f.description),
            max_length=f.max_length,
            min_length=f.min_length,
            options=tuple(options) if options is not None else None,
            values=f.values,
            named=f.named,
            item=item,
            min_items=self.value(f.min_items),
            max_items=self.value(f.max_items),
            lead=self.text(f.lead),
            given=tuple((k, self.value(v)) for k, v in f.given) if f.given else None,
            rising=f.rising,
            listed_above=f.listed_above,
        )


@lru_cache(maxsize=512)
def _compiled(env: jinja2.Environment, source: str) -> jinja2.Template:
    return env.from_string(source)


@lru_cache(maxsize=512)
def _expression(env: jinja2.Environment, source: str):
    return env.compile_expression(source, undefined_to_none=False)


@lru_cache(maxsize=512)
def _model(shape: _Object, base: type[Answer]) -> type[Answer]:
    fields = {f.name: _definition(f) for f in shape.fields}
    given = {f.name: dict(f.given) for f in shape.fields if f.given}
    if not given:
        return create_model(shape.name, __base__=base, **fields)
    validators = {"_given_written": model_validator(mode="after")(_written_when_given)}
    model = create_model(shape.name, __base__=base, __validators__=validators, **fields)
    model.__given__ = given
    return model


def _written_when_given(answer: Answer) -> Answer:
    """A field that its given values call for is there (the grammar writes it; a scripted or
    a server's answer might not)."""
    for name, given in type(answer).__given__.items():
        values = {k: getattr(answer, k) for k in given}
        values = {k: getattr(v, "value", v) for k, v in values.items()}
        if values == given and getattr(answer, name) is None:
            raise ValueError(f"{name} is missing, and {given} calls for it")
    return answer


def _definition(f: _Field) -> tuple[Any, Any]:
    """The (type, default) pydantic's create_model takes for the field."""
    extra = {"alias": f.alias} if f.alias is not None else {}
    if f.kind == "list":
        of = _model(f.item, Answer) if isinstance(f.item, _Object) else _type(f.item)
        bounds = {"max_length": f.max_items}
        if f.min_items is not None:
            bounds = {"min_length": f.min_items, **bounds}
        if f.rising is not None:
            of = Annotated[list[of], AfterValidator(_rising(f.rising, f.item))]
            extra = {**extra, "json_schema_extra": {RISING: f.rising}}
            return of, Field(**bounds, description=f.description, **extra)
        return list[of], Field(**bounds, description=f.description, **extra)
    if f.given:  # absent when the answer took other values
        return _type(f), Field(None, **extra)
    return _type(f), Field(..., **extra) if extra else ...


NOT_RISING = rule(
    "list.rising", "a list's items out of their rising order: sorted, the last at one time kept"
)


def _rising(key: str, item: _Object):
    """The items in the order of their ``key``'s options, one at each: llama.cpp's grammar
    writes them so, a server's does not know how (it is given the JSON schema), and of two
    items at one time only the last would ever happen."""
    options = next(f.options for f in item.fields if f.name == key)
    order = {o: i for i, o in enumerate(options)}

    def in_order(items: list) -> list:
        last_at = {order[getattr(i, key)]: i for i in items}
        rising = [last_at[at] for at in sorted(last_at)]
        if rising != items:  # recorded as the items' values, raw and repaired
            repair(
                NOT_RISING,
                [i.model_dump() for i in items],
                lambda _: [i.model_dump() for i in rising],
            )
        return rising

    return in_order


def _type(f: _Field) -> Any:
    if f.kind == "text":
        return text(f.max_length, f.description, min_length=f.min_length or 1, lead=f.lead)
    if f.kind == "prose":
        return prose(f.max_length, f.description, min_length=f.min_length or 8)
    if f.kind == "line":
        return line(f.max_length, f.description, min_length=f.min_length or 1)
    if f.kind == "activity":
        return activity_phrase(f.max_length, f.description, lead=f.lead)
    if f.kind == "bool":
        return _described(bool, f.description)
    # an enum: of its own in the schema's $defs when named, else inline
    if f.named is not None:
        options: Any = Enum(f.named, {str(o): o for o in f.options}, type=type(f.options[0]))
    else:
        options = one_of(f.options)
    if f.values is not None:  # the answer carries the value the chosen option stands for
        meaning = dict(zip(f.options, f.values, strict=True))
        options = Annotated[options, AfterValidator(meaning.__getitem__)]
    if f.listed_above:
        listed = Field(description=f.description, json_schema_extra={LISTED_ABOVE: True})
        return Annotated[options, listed]
    return _described(options, f.description)


def _described(kind: Any, description: str | None) -> Any:
    return Annotated[kind, Field(description=description)] if description else kind
