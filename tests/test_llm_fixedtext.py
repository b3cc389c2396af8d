"""What an answer's schema fixes ahead of the model (drafted by the batch decoder)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from simulacra.llm.fixedtext import FixedText
from simulacra.llm.schema import LEAD
from simulacra.llm.templates import all_templates


def _shapes(schema: dict) -> list[dict]:
    return schema.get("anyOf") or [schema]


def _answer(node: dict, root: dict) -> Any:
    """A valid answer in the shape sentence's style: required keys first, leads written, the
    last option of an enum (its first letters alone do not tell it), lists at their least."""
    if "$ref" in node:
        node = {**root["$defs"][node["$ref"].rsplit("/", 1)[-1]], **node}
        node.pop("$ref")
    if "enum" in node:
        return node["enum"][-1]
    if "const" in node:
        return node["const"]
    if "anyOf" in node:
        return _answer(node["anyOf"][0], root)
    kind = node.get("type")
    if kind == "object":
        props = node.get("properties", {})
        required = node.get("required", [])
        order = [k for k in props if k in required] + [k for k in props if k not in required]
        return {k: _answer(props[k], root) for k in order}
    if kind == "array":
        return [_answer(node["items"], root) for _ in range(max(1, node.get("minItems", 0)))]
    if kind == "string":
        return node.get(LEAD, "") + "reading a book"
    if kind in ("integer", "number"):
        return node.get("minimum", 3)
    return False


def _schemas() -> list[tuple[str, dict]]:
    found = []
    for name, template in sorted(all_templates().items()):
        if template.answer is None and template.schema_ref is None:
            continue
        schema = template.schema(**template.example).model_json_schema()
        found += [(f"{name}/{n}", schema | s) for n, s in enumerate(_shapes(schema))]
    return found


def find_schema(name: str) -> dict:
    template = all_templates()[name]
    return template.schema(**template.example).model_json_schema()


@pytest.mark.parametrize(("name", "shape"), _schemas(), ids=[n for n, _ in _schemas()])
def test_what_is_fixed_ahead_is_what_every_answer_goes_on_with(name, shape):
    """At every character of a valid answer, the text said to be fixed ahead is what follows;
    and every required key of the answer is in it (an optional one is not, until its first
    letters tell it from the others)."""
    shape = {k: v for k, v in shape.items() if k != "anyOf"}
    answer = json.dumps(_answer(shape, shape))
    reader = FixedText(shape).reader()
    fixed = [False] * len(answer)
    for at in range(len(answer) + 1):
        ahead = reader.text()
        assert answer[at:].startswith(ahead), (answer[:at], ahead)
        for n in range(at, at + len(ahead)):
            fixed[n] = True
        if at < len(answer):
            reader.feed(answer[at])
    for key in shape.get("required", []):
        start = answer.index(f'"{key}"') + 1
        assert all(fixed[start : start + len(key)]), key


def test_an_enum_option_is_fixed_once_its_first_letters_tell_it():
    schema = find_schema("importance")
    reader = FixedText(schema).reader()
    reader.feed('{"ratings": [{"level": "t')
    assert reader.text() == 'rivial"}]}'


def _hourly_keys() -> tuple[str, str]:
    """The example's schedule up to the value of the first hour the model writes (the hours
    its plan's items begin in are fixed), and the hour after that one."""
    properties = find_schema("hourly_schedule")["properties"]
    hours = list(properties)
    written = ["const" not in properties[h] for h in hours]
    free = next(n for n in range(len(hours) - 1) if written[n] and written[n + 1])
    before = ", ".join(f'"{h}": "{properties[h].get("const", "x")}"' for h in hours[:free])
    return "{" + before + (", " if before else "") + f'"{hours[free]}": "', hours[free + 1]


# Each case: a template, then the pieces of an answer fed in turn, each with the text then
# said to be fixed.
FEEDS = {
    # Text of the model's own choosing is not fixed; the next key is, once the value ends.
    "free text": (
        "hourly_schedule",
        [
            ("{0}reading", ""),
            (' a book",', ' "{1}": "'),
        ],
    ),
    # Compact JSON (no blanks) still reads: the drafts assume the shape sentence's blanks, so
    # they would not be kept, and nothing claims a key that cannot come.
    "another style": (
        "event",
        [
            ('{{"object_state":"in use"}}', ""),
            ("junk", ""),
        ],
    ),
    "an escaped quote ends no text": (
        "respond",
        [
            ('{{"heard": "You said \\"hi\\" and', ""),
            ('",', ' "says": "'),
        ],
    ),
}


@pytest.mark.parametrize("case", FEEDS)
def test_what_is_fixed_after_each_piece_of_an_answer(case):
    template, pieces = FEEDS[case]
    keys = _hourly_keys()
    reader = FixedText(find_schema(template)).reader()
    for piece, fixed in pieces:
        reader.feed(piece.format(*keys))
        assert reader.text() == fixed.format(*keys)
