"""The structured model over the scripted backend: parsing, retries, logging, choices."""

from dataclasses import replace

import pytest
from pydantic import Field, create_model

from simulacra.errors import UserError
from simulacra.llm import ModelOutputError
from simulacra.llm.calllog import read_calls, summarise
from simulacra.llm.interface import Prompt
from simulacra.llm.schema import Answer, one_of, shape_sentence, text
from simulacra.llm.templates import find_template, load_template

PROMPT = Prompt("test", "system text", "user text", agent="Klaus Mueller")


def nested_schema():
    item = create_model(
        "Item", __base__=Answer, where=(one_of(["cafe", "park"]), ...), what=(text(30), ...)
    )
    return create_model("Outer", __base__=Answer, items=(list[item], Field(max_length=2)))


def test_generate_parses_a_nested_answer(scripted):
    model = scripted({"test": {"items": [{"where": "park", "what": "walk"}]}})
    answer = model.generate(PROMPT, nested_schema())
    assert answer.items[0].where == "park"
    request = model.completer.requests[0]
    assert request.schema["$defs"]["Item"]["properties"]["where"]["enum"] == ["cafe", "park"]
    assert request.user.endswith(shape_sentence(request.schema))  # the prompt states the shape


def test_an_answer_outside_the_enum_is_retried_and_logged(scripted, tmp_path):
    bad = {"items": [{"where": "moon", "what": "walk"}]}
    good = {"items": [{"where": "cafe", "what": "coffee"}]}
    model = scripted({"test": [bad, good]}, log_dir=tmp_path)
    assert model.generate(PROMPT, nested_schema()).items[0].where == "cafe"
    seeds = [r.seed for r in model.completer.requests]
    assert seeds[0] != seeds[1]
    stats = summarise(read_calls(tmp_path / "calls.jsonl"))
    assert stats.total.calls == 2 and stats.total.parse_failures == 1
    assert stats.by_agent["Klaus Mueller"].calls == 2


def test_a_template_renders_its_penalty_into_the_prompt():
    day_plan = find_template("day_plan")
    prompt = day_plan.render(**day_plan.example)
    assert prompt.presence_penalty == day_plan.presence_penalty > 0
    assert find_template("act").render(**find_template("act").example).presence_penalty == 0


def test_a_situation_is_sent_after_the_answers_shape(scripted):
    """What changes at every call goes last, so the task and the shape stay in the KV cache."""
    event = find_template("event")
    variables = event.example
    model = scripted({"event": {"object_state": "running"}})
    event.ask(model, **variables)
    request = model.completer.requests[0]
    shape = shape_sentence(request.schema)
    assert shape in request.user and "the coffee machine" not in shape
    told = request.user.split(shape)
    assert "brewing the first pot of coffee" in told[1] and "brewing the first" not in told[0]


def test_a_situation_that_is_not_text_is_a_one_line_error(tmp_path):
    path = tmp_path / "mine.prompt.toml"
    path.write_text('description = "d"\nuser = "u"\nsituation = 3\n[answer]\nmodel = "A"\n')
    with pytest.raises(UserError, match="situation"):
        load_template(path)


@pytest.mark.parametrize(
    "line", ['presence_penalty = "high"', "presence_penalty = 3.0", "temperature = true"]
)
def test_a_bad_sampling_number_in_a_template_is_a_one_line_error(tmp_path, line):
    path = tmp_path / "mine.prompt.toml"
    path.write_text(f'description = "d"\nschema = "m:S"\nuser = "u"\n{line}\n')
    with pytest.raises(UserError) as failed:
        load_template(path)
    message = str(failed.value)
    assert "\n" not in message and "mine.prompt.toml" in message and line.split()[0] in message


def test_the_prompt_penalty_is_sampled_with(scripted):
    model = scripted({"test": {"items": []}})
    model.generate(replace(PROMPT, presence_penalty=0.7), nested_schema())
    assert model.completer.requests[0].presence_penalty == 0.7


def test_without_retries_a_bad_answer_raises(scripted):
    model = scripted({"test": "{not json"})
    model.retries = 0
    with pytest.raises(ModelOutputError):
        model.generate(PROMPT, nested_schema())


def test_choose_returns_one_of_the_options(scripted):
    model = scripted({"test": {"choice": "Johnson Park"}})
    assert model.choose(PROMPT, ["Hobbs Cafe", "Johnson Park"]) == "Johnson Park"


def test_unscripted_templates_get_the_simplest_valid_answer(scripted):
    answer = scripted().generate(PROMPT, nested_schema())
    assert answer.items == []


def test_free_text_is_logged_and_stripped(scripted):
    model = scripted({"test": "  a free answer \n"})
    assert model.text(PROMPT, max_tokens=20) == "a free answer"
    request = model.completer.requests[0]
    assert request.schema is None and request.max_tokens == 20
    assert model.log.totals.calls == 1


def test_the_saved_kv_states_grow_with_the_town_unless_set():
    from simulacra.settings import KV_MB_LEAST, KV_MB_PER_AGENT, LLMSettings

    settings = LLMSettings()
    assert settings.kv_cache_mb_for(1) == settings.kv_cache_mb_for(3) == KV_MB_LEAST
    assert settings.kv_cache_mb_for(25) == 25 * KV_MB_PER_AGENT > KV_MB_LEAST
    settings.kv_cache_mb = 0  # off, whatever the town
    assert settings.kv_cache_mb_for(25) == 0
