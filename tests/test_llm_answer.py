"""A template's [answer] table: the fields the model writes, built into the answer's model."""

from __future__ import annotations

import pytest

from simulacra.errors import UserError
from simulacra.llm.completion import Request
from simulacra.llm.repairs import recording
from simulacra.llm.schema import json_schema, shape_sentence
from simulacra.llm.templates import load_template

HEAD = 'description = "d"\nuser = "Plan {{ name }}\'s day."\n'

TEMPLATE = (
    HEAD
    + """
[words]
nobody = "nobody"

[answer]
model = "{% if people %}Meeting{% else %}Alone{% endif %}"

[[answer.field]]
name = "mood"
kind = "text"
max_length = 40
description = "how {{ name }} feels"

[[answer.field]]
name = "talk_to"
when = "people"
kind = "enum"
options = "people + [nobody]"
description = "whom"

[[answer.field]]
name = "ok"
kind = "enum"
named = "YesNo"
options = ["yes", "no"]

[[answer.field]]
name = "level"
kind = "enum"
options = ["low", "high"]
values = [1, 10]

[[answer.field]]
each = "hours"
name = "h{{ each[:2] }}"
alias = "{{ each }}"
kind = "activity"
max_length = 30
fixed = "planned.get(each, '') if planned is defined else ''"
description = "activity"

[[answer.field]]
name = "steps"
kind = "list"
item = "Step"
min_items = "hours | length"
max_items = 3

[[answer.Step]]
name = "what"
kind = "prose"
max_length = 50

[[answer.Step]]
name = "cited"
kind = "list"
item = { kind = "enum", options = "range(1, 3)" }
max_items = 2
"""
)


@pytest.fixture
def template(tmp_path):
    path = tmp_path / "mine.prompt.toml"
    path.write_text(TEMPLATE)
    return load_template(path)


def test_the_answer_is_built_field_by_field_in_the_template_order(template):
    model = template.schema(name="Ada", people=["Bob"], hours=["07:00", "08:00"])
    schema = json_schema(model)
    assert schema["title"] == "Meeting"
    assert list(schema["properties"]) == [
        "mood",
        "talk_to",
        "ok",
        "level",
        "07:00",
        "08:00",
        "steps",
    ]
    assert schema["properties"]["mood"]["description"] == "how Ada feels"
    assert schema["properties"]["talk_to"]["enum"] == ["Bob", "nobody"]  # [words] are variables
    assert schema["$defs"]["YesNo"]["enum"] == ["yes", "no"]
    assert schema["properties"]["steps"]["minItems"] == 2
    step = schema["$defs"]["Step"]
    assert step["properties"]["cited"]["items"]["enum"] == [1, 2]
    assert "pattern" in step["properties"]["what"]  # prose starts like a sentence
    sentence = shape_sentence(schema)
    assert '"mood": "<how Ada feels>",' in sentence
    assert '"mood" 40 characters' in sentence.splitlines()[-1]  # bounds after the JSON


def test_the_answer_carries_what_an_option_stands_for_and_tidies_by_kind(template):
    model = template.schema(name="Ada", people=[], hours=["07:00"])
    assert json_schema(model)["title"] == "Alone" and "talk_to" not in model.model_fields
    answer = model.model_validate(
        {
            "mood": "fine",
            "ok": "yes",
            "level": "high",
            "07:00": "Ada is reading a book",  # an activity reads after "<name> is"
            "steps": [{"what": "Reading the news", "cited": [2]}],
        }
    )
    assert answer.level == 10 and answer.ok == "yes"
    assert answer.model_dump(by_alias=True)["07:00"] == "reading a book"


def test_the_same_variables_give_the_same_model(template):
    variables = {"name": "Ada", "people": ["Bob"], "hours": ["07:00"]}
    assert template.schema(**variables) is template.schema(**dict(variables))
    assert template.schema(**variables) is not template.schema(**{**variables, "name": "Cy"})


def test_a_variable_the_answer_needs_is_a_one_line_error(template):
    with pytest.raises(UserError) as failed:
        template.schema(name="Ada", hours=[])
    message = str(failed.value)
    assert "\n" not in message and "mine.prompt.toml" in message and "people" in message


GIVEN = (
    HEAD
    + """
[answer]
model = "Decision"

[[answer.field]]
name = "alarm"
kind = "enum"
options = ["yes", "no"]

[[answer.field]]
name = "whom"
given = { alarm = "'no'" }
kind = "enum"
options = ["Bob", "nobody"]

[[answer.field]]
name = "instead"
given = { alarm = "'yes'" }
kind = "text"
max_length = 20
"""
)


def test_a_field_is_written_only_given_the_values_that_call_for_it(tmp_path):
    path = tmp_path / "mine.prompt.toml"
    path.write_text(GIVEN)
    model = load_template(path).schema()
    schema = json_schema(model)
    assert '"instead": "<text>"' in shape_sentence(schema)  # the prompt names every field
    shapes = {s["properties"]["alarm"]["const"]: list(s["properties"]) for s in schema["anyOf"]}
    assert shapes == {"yes": ["alarm", "instead"], "no": ["alarm", "whom"]}
    assert model.model_validate({"alarm": "no", "whom": "Bob"}).instead is None
    with pytest.raises(ValueError, match="instead"):
        model.model_validate({"alarm": "yes", "whom": "Bob"})


def test_an_enum_listed_above_keeps_the_shape_sentence_the_same_for_any_options():
    """The thing's states differ from thing to thing (a table cannot be "running"), and the
    prompt before the situation stays the same for the KV cache."""
    from simulacra.cognition.act import event_for

    table, machine = (event_for(thing=t) for t in ("cafe tables", "coffee machine"))
    assert table.model_json_schema()["properties"]["object_state"]["enum"] == ["in use", "occupied"]
    assert "brewing coffee" in machine.model_json_schema()["properties"]["object_state"]["enum"]
    sentence = shape_sentence(json_schema(table))
    assert sentence == shape_sentence(json_schema(machine))
    assert '"object_state": <the state of the thing: one of the options listed above' in sentence
    with pytest.raises(ValueError):
        table.model_validate({"object_state": "running"})


def test_a_fixed_field_is_its_text_and_the_others_are_the_model_s(template):
    """The hour a plan item begins in is the item: the grammar writes it, the model goes on."""
    hours = ["07:00", "08:00"]
    model = template.schema(name="Ada", people=[], hours=hours, planned={"07:00": "reading"})
    properties = json_schema(model)["properties"]
    assert properties["07:00"]["const"] == "reading" and "const" not in properties["08:00"]
    answer = {"mood": "fine", "ok": "yes", "level": "low", "07:00": "reading"}
    answer |= {"08:00": "Ada is writing", "steps": [{"what": "Reading the news", "cited": []}] * 2}
    assert model.model_validate(answer).model_dump(by_alias=True)["08:00"] == "writing"
    with pytest.raises(ValueError):
        model.model_validate({**answer, "07:00": "writing"})


# Written as inline tables, as a template may (the same fields as [[answer.field]] tables).
RISING = (
    HEAD
    + """
[answer]
model = "Plan"
field = [{ name = "items", kind = "list", item = "Item", max_items = 3, rising = "time" }]
Item = [
    { name = "what", kind = "text", max_length = 20 },
    { name = "time", kind = "enum", options = ["09:00", "10:00", "00:00"] },
]
"""
)


def test_a_rising_list_s_items_come_one_after_another_in_the_options_order(tmp_path):
    """The 1.5B wrote three of a day plan's items at 12:00: only the last would happen."""
    path = tmp_path / "mine.prompt.toml"
    path.write_text(RISING)
    model = load_template(path).schema()
    assert json_schema(model)["properties"]["items"]["x-rising"] == "time"

    def plan(*times):
        return {"items": [{"what": "reading", "time": t} for t in times]}

    def times(*written):
        return [i.time for i in model.model_validate(plan(*written)).items]

    assert times("10:00", "00:00") == ["10:00", "00:00"]  # the options' order, not the text's
    # A server's answer (its grammar is the JSON schema's): sorted, the last at one time kept.
    with recording() as found:
        assert times("00:00", "09:00", "09:00") == ["09:00", "00:00"]
    assert found == [
        {
            "rule": "list.rising",
            "raw": [{"what": "reading", "time": t} for t in ("00:00", "09:00", "09:00")],
            "repaired": [{"what": "reading", "time": t} for t in ("09:00", "00:00")],
        }
    ]


@pytest.mark.parametrize(
    ("table", "needle"),
    [
        ("", "[answer]"),
        ('[answer]\n[[answer.field]]\nname = "a"\nkind = "text"\n', "model"),
        ('[answer]\nmodel = "A"\n[[answer.field]]\nname = "a"\nkind = "txt"\n', "kind"),
        ('[answer]\nmodel = "A"\n[[answer.field]]\nname = "a"\nkind = "text"\n', "max_length"),
        ('[answer]\nmodel = "A"\n[[answer.field]]\nname = "a"\nkind = "enum"\n', "options"),
        (
            '[answer]\nmodel = "A"\n[[answer.field]]\nname = "a"\nkind = "list"\nitem = "B"\n',
            "max_items",
        ),
        (
            '[answer]\nmodel = "A"\n[[answer.field]]\nname = "a"\nkind = "list"\nitem = "B"\n'
            "max_items = 2\n",
            "B",
        ),
        ('[answer]\nmodel = "A"\n[[answer.field]]\nname = "a"\nkind = "bool"\nsize = 2\n', "size"),
        ('[answer]\nmodel = "A"\n', "answer.field"),
        (
            '[answer]\nmodel = "A"\n[[answer.field]]\nname = "a"\nkind = "bool"\n'
            'lead = "Ada is "\n',
            "lead",
        ),
        (
            '[answer]\nmodel = "A"\n[[answer.field]]\nname = "a"\nkind = "bool"\n'
            'given = { b = "true" }\n[[answer.field]]\nname = "b"\nkind = "bool"\n',
            "given",
        ),
        (
            '[answer]\nmodel = "A"\n[[answer.field]]\nname = "a"\nkind = "bool"\nfixed = "b"\n',
            "fixed",
        ),
        (
            '[answer]\nmodel = "A"\n[[answer.field]]\nname = "a"\nkind = "bool"\n'
            "listed_above = true\n",
            "listed_above",
        ),
        (
            '[answer]\nmodel = "A"\n[[answer.field]]\nname = "a"\nkind = "list"\nitem = "B"\n'
            'max_items = 2\nrising = "time"\n[[answer.B]]\nname = "time"\nkind = "enum"\n'
            'options = ["1", "2"]\n[[answer.B]]\nname = "what"\nkind = "bool"\n',
            "rising",
        ),
    ],
)
def test_a_bad_answer_table_is_a_one_line_error_naming_the_key(tmp_path, table, needle):
    path = tmp_path / "mine.prompt.toml"
    path.write_text(HEAD + table)
    with pytest.raises(UserError) as failed:
        load_template(path)
    message = str(failed.value)
    assert "\n" not in message and "mine.prompt.toml" in message and needle in message


def test_the_variables_a_request_carries_are_no_part_of_its_replay_key():
    request = Request("t", "s", "u", None, 10, 0.5, 0.9, 1)
    with_variables = Request("t", "s", "u", None, 10, 0.5, 0.9, 1, variables={"name": "Ada"})
    assert request.key("m") == with_variables.key("m") and request == with_variables
