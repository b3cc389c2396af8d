import json
import re

import pytest
from pydantic import create_model

from simulacra.llm.grammar import grammar_text
from simulacra.llm.schema import (
    Answer,
    activity_phrase,
    choice_model,
    json_schema,
    line,
    max_answer_tokens,
    one_of,
    shape_sentence,
    text,
)


class Step(Answer):
    place: one_of(["Hobbs Cafe", "Johnson Park"])  # type: ignore[valid-type]
    minutes: one_of([5, 10, 15])  # type: ignore[valid-type]


class Plan(Answer):
    title: text(40, "what the plan is about")
    steps: list[Step]  # no max_length: refused


def bounded_plan():
    from pydantic import Field

    return create_model(
        "Plan",
        __base__=Answer,
        title=(text(40, "what the plan is about"), ...),
        steps=(list[Step], Field(min_length=1, max_length=3)),
    )


def test_unbounded_fields_are_refused():
    class Loose(Answer):
        note: str

    with pytest.raises(TypeError, match="unbounded string"):
        json_schema(Loose)
    with pytest.raises(TypeError, match="unbounded list"):
        json_schema(Plan)


def test_shape_sentence_names_every_field_and_option():
    sentence = shape_sentence(json_schema(bounded_plan()))
    assert sentence.startswith("Answer with JSON only")
    assert '"title": "<what the plan is about>"' in sentence
    assert sentence.endswith("at most 40 characters.")  # the bounds, after the JSON
    assert '"Hobbs Cafe", "Johnson Park"' in sentence
    assert "1 to 3 items" in sentence


def test_integer_ranges_read_as_ranges():
    model = create_model("R", __base__=Answer, rating=(one_of(range(1, 11)), ...))
    assert "<integer 1-10>" in shape_sentence(json_schema(model))


def test_many_options_point_at_the_list_in_the_prompt():
    model = choice_model([f"place {i}" for i in range(20)])
    assert "one of the options listed above" in shape_sentence(json_schema(model))


def test_token_bound_covers_the_longest_valid_answer():
    schema = json_schema(bounded_plan())
    longest = {
        "title": "\u00e9" * 40,  # 2 bytes each in UTF-8
        "steps": [{"place": "Johnson Park", "minutes": 15}] * 3,
    }
    assert max_answer_tokens(schema) >= len(json.dumps(longest, ensure_ascii=False).encode())


@pytest.mark.parametrize("name", ["Maria Lopez", "Dr. Mei (Lin) O'Hara-Smith"])
def test_an_activity_lead_is_written_by_the_grammar_and_left_out_of_the_answer(name):
    from llama_cpp import LlamaGrammar

    lead = f"{name} is "
    step = create_model("Step", __base__=Answer, activity=(activity_phrase(60, "what", lead), ...))
    schema = json_schema(step)
    node = schema["properties"]["activity"]
    assert re.fullmatch(node["pattern"], f"{lead}putting on shoes")
    assert not re.fullmatch(node["pattern"], f"{lead}{name}")  # a doing goes on, not the name
    assert not re.fullmatch(node["pattern"], f"{lead}s' {{")  # a morning run's, off the rails
    assert re.fullmatch(node["pattern"], f"{lead}reading")
    assert not re.fullmatch(node["pattern"], f"{lead}decorating the cafe, which takes 30 minutes")
    assert re.fullmatch(node["pattern"], f"{lead}writing his 6,000-word paper")  # not a list
    assert not re.fullmatch(node["pattern"], f"{lead}in the bathroom,20 minutes")  # a step's
    assert not re.fullmatch(node["pattern"], f"{lead}is **taking a shower**")  # no markdown
    outline = f"{lead}waking up at 07:00; 07:00 showering"  # one doing, not a plan's items
    assert not re.fullmatch(node["pattern"], outline)
    # The words after the first are bounded alone: "getting" leaves them as many as "at".
    assert re.fullmatch(node["pattern"], f"{lead}{'a' * 16} {'b' * 80}")  # the bound, at most
    assert not re.fullmatch(node["pattern"], f"{lead}{'a' * 16} {'b' * 81}")
    numbers = f"{lead}{'a' * 16} {'1,1' * 80}"  # the longest the grammar can write
    assert re.fullmatch(node["pattern"], numbers) and step.model_validate({"activity": numbers})
    # valid: the field's own bound lets it through (words: a piece at the bound is cut)
    longest = f"{lead}reorganizing {'cups ' * 15}paper"
    assert step.model_validate({"activity": longest}).activity == longest.removeprefix(lead)
    LlamaGrammar.from_string(grammar_text(schema), verbose=False)  # the converter read it
    assert f'"{lead}<what>"' in shape_sentence(schema)
    assert "at most 60 characters" in shape_sentence(schema)  # the bound is the model's words'
    assert step.model_validate({"activity": f"{lead}putting on shoes"}).activity == (
        "putting on shoes"
    )
    assert step.model_validate({"activity": "putting on shoes"}).activity == "putting on shoes"


def test_a_text_lead_is_written_by_the_grammar_and_left_out_of_the_answer():
    from llama_cpp import LlamaGrammar

    reply = create_model("Reply", __base__=Answer, heard=(text(20, "what", lead="You (A.) "), ...))
    schema = json_schema(reply)
    node = schema["properties"]["heard"]
    assert re.fullmatch(node["pattern"], "You (A.) asked me out")
    assert not re.fullmatch(node["pattern"], "Maria asked me out")  # the grammar writes "You"
    assert not re.fullmatch(node["pattern"], "You (A.) " + "b" * 21)  # the words are bounded
    LlamaGrammar.from_string(grammar_text(schema), verbose=False)
    assert '"You (A.) <what>"' in shape_sentence(schema)
    assert "at most 20 characters" in shape_sentence(schema)
    assert reply.model_validate({"heard": "You (A.) asked me out"}).heard == "asked me out"


def test_a_line_starts_as_a_sentence_does():
    """Party seed 3c: Klaus said the tail of a planning note, "should remember when planning
    their days...", and Maria "excited and grateful"."""
    from llama_cpp import LlamaGrammar

    spoken = create_model("Spoken", __base__=Answer, says=(line(30, "words"), ...))
    schema = json_schema(spoken)
    pattern = schema["properties"]["says"]["pattern"]
    for said in ("Hi!", "5pm works.", "I'm in.", "¡Hola, Klaus!"):
        assert re.fullmatch(pattern, said)
    no = (
        "should remember when planning",
        "excited and grateful",
        " Hi",
        "H" * 31,
        "On Feb 14 (tomorrow)",
    )
    for said in no:
        assert not re.fullmatch(pattern, said)
    LlamaGrammar.from_string(grammar_text(schema), verbose=False)


def test_an_activity_without_a_lead_ends_in_its_own_words_and_escapes_nothing():
    """Party run of seed 1p: bounded at the 60 the prompt asks, the hourly schedule cut "...to
    the Valentine's Day party" to "...to the Valent"; free to escape, it wrote "Valentine\\"."""
    hour = create_model("Hour", __base__=Answer, h09=(activity_phrase(60, "activity"), ...))
    field = hour.model_json_schema()["properties"]["h09"]
    assert field["x-stated-length"] == 60 and field["maxLength"] > 60
    pattern = re.compile(field["pattern"])
    assert pattern.match("inviting friends to the Valentine's Day party at Hobbs Cafe at five")
    assert not pattern.match("inviting friends for Valentine\\")


def test_an_activity_without_a_lead_is_not_the_shape_s_placeholder():
    """bench_town (stop 80): shown each hour as "<activity>", the 1.5B wrote that for Maria's
    22:00 and she spent two hours doing it."""
    hour = create_model("Hour", __base__=Answer, h22=(activity_phrase(70, "activity"), ...))
    pattern = re.compile(hour.model_json_schema()["properties"]["h22"]["pattern"])
    assert pattern.match("streaming games (Minecraft) at 9, then reading")
    for placeholder in ("<activity>", "{activity}", "reading <book>", " reading"):
        assert not pattern.match(placeholder)
