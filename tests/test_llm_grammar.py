"""The grammar an answer is written under, read back as the texts it admits."""

from __future__ import annotations

import json
import re

import pytest
from pydantic import Field, create_model

from simulacra.llm.grammar import grammar_text
from simulacra.llm.schema import RISING, Answer, json_schema, one_of

TIMES = ["09:00", "10:00", "11:00"]
_TOKEN = re.compile(r'\s*("(?:[^"\\]|\\.)*"|[\w-]+|\|)')


def admitted(grammar: str) -> set[str]:
    """Every text a grammar of literals, rule names and alternatives admits (``space`` as
    none): enough for a finite answer."""
    rules = dict(line.split(" ::= ", 1) for line in grammar.splitlines())
    rules["space"] = '""'

    def texts(rule: str) -> set[str]:
        out = set()
        for way in " ".join(_TOKEN.findall(rules[rule])).split(" | "):
            made = {""}
            for token in way.split():
                parts = {json.loads(token)} if token.startswith('"') else texts(token)
                made = {m + p for m in made for p in parts}
            out |= made
        return out

    return texts("root")


def rising_plan(least: int, most: int) -> type[Answer]:
    item = create_model(
        "Item", __base__=Answer, kind=(one_of(["a"]), ...), time=(one_of(TIMES), ...)
    )
    bounds = Field(min_length=least, max_length=most, json_schema_extra={RISING: "time"})
    return create_model("Plan", __base__=Answer, items=(list[item], bounds))


@pytest.mark.parametrize(
    ("least", "most", "lists"),
    [
        (1, 2, [["09:00"], ["10:00"], ["11:00"], ["09:00", "10:00"], ["09:00", "11:00"],
                ["10:00", "11:00"]]),
        # Room is left for the items that must follow: no list of two begins at 11:00.
        (2, 3, [["09:00", "10:00"], ["09:00", "11:00"], ["10:00", "11:00"],
                ["09:00", "10:00", "11:00"]]),
    ],
)  # fmt: skip
def test_a_rising_list_admits_each_later_time_and_no_other(least, most, lists):
    texts = admitted(grammar_text(json_schema(rising_plan(least, most))))
    found = sorted([i["time"] for i in json.loads(t)["items"]] for t in texts)
    assert found == sorted(lists)
    assert all(rising_plan(least, most).model_validate_json(t) for t in texts)


def test_a_rising_list_of_one_time_has_one_item():
    """A late riser's afternoon may have one half hour left: its schema is a constant."""
    item = create_model("Item", __base__=Answer, time=(one_of(["23:30"]), ...))
    bounds = Field(min_length=1, max_length=3, json_schema_extra={RISING: "time"})
    plan = create_model("Plan", __base__=Answer, items=(list[item], bounds))
    assert admitted(grammar_text(json_schema(plan))) == {'{"items":[{"time":"23:30"}]}'}


def test_the_grammar_leaves_the_schema_it_reads_as_it_was():
    schema = json_schema(rising_plan(1, 2))
    before = json.dumps(schema)
    grammar_text(schema)
    assert json.dumps(schema) == before
