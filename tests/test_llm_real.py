"""The real llama.cpp backend with the embedded SmolLM2-135M."""

import pytest
from pydantic import Field, create_model

from simulacra.llm.grammar import grammar_text
from simulacra.llm.interface import Prompt
from simulacra.llm.schema import Answer, json_schema, one_of, text

pytestmark = pytest.mark.real

PLACES = ["Hobbs Cafe: counter", "Johnson Park: bench", "Oak Hill College: library desk"]


def errand_schema():
    step = create_model(
        "Step",
        __base__=Answer,
        place=(one_of(PLACES), ...),
        action=(text(40), ...),
        minutes=(one_of([5, 10, 15]), ...),
    )
    return create_model(
        "Errands",
        __base__=Answer,
        mood=(text(20), ...),
        steps=(list[step], Field(min_length=1, max_length=3)),
    )


def test_nested_schema_with_enum_always_parses(real_model):
    prompt = Prompt(
        "errands",
        "You are Isabella Rodriguez, who runs Hobbs Cafe.",
        "Plan two errands for this morning, each at one of these places: " + "; ".join(PLACES),
        agent="Isabella Rodriguez",
    )
    for seed in range(5):
        answer = real_model.generate(prompt, errand_schema(), seed=seed)
        assert 1 <= len(answer.steps) <= 3
        assert all(step.place in PLACES for step in answer.steps)
    totals = real_model.log.totals
    assert totals.calls == 5 and totals.parse_failures == 0
    assert totals.generated_tokens > 0 and totals.seconds > 0
    # Same prompt again and again: llama.cpp reuses the prefix it already holds.
    assert totals.reused_tokens > totals.prompt_tokens / 2


def test_strings_in_the_grammar_are_single_line_json():
    grammar = grammar_text(json_schema(errand_schema()))
    assert r'char ::= [^"\\\x7F\x00-\x1F] | "\\" ["\\/]' in grammar


def test_model_info_comes_from_the_gguf(real_backend):
    info = real_backend.info
    assert info.chat_template == "from the GGUF"
    assert info.n_ctx == 4096 and info.n_ctx_train == 8192


def test_the_steps_of_an_activity_go_on_from_the_residents_name(real_model):
    """decompose's grammar writes "<name> is " before each step, and the model goes on from
    it; the answer holds what follows."""
    from simulacra.llm.templates import find_template

    decompose = find_template("decompose")
    name = decompose.example["name"]
    for seed in range(3):
        answer = decompose.ask_example(real_model, seed=seed)
        for step in answer.steps:
            assert step.activity[:1].islower() and not step.activity.startswith(name)
    assert real_model.log.totals.parse_failures == 0


def test_an_events_situation_comes_last_and_the_rest_is_read_from_the_cache(real_model):
    """event.prompt.toml tells the action after the answer's shape: a resident's next event
    reads only its new situation."""
    from simulacra.llm.templates import find_template

    event = find_template("event")
    example = {**event.example, "agent": event.example["name"]}
    event.ask(real_model, seed=0, **example)
    later = {**example, "now": "Monday February 13, 2023, 08:15", "activity": "wiping the tray"}
    answer = event.ask(real_model, seed=0, **later)
    assert answer.object_state in event.words["states"]
    call = real_model.log.last
    assert call["prompt_tokens"] - call["reused_tokens"] < 50


def test_a_day_plan_s_times_rise_even_when_asked_for_one_time(real_model):
    """The grammar writes a rising list's times in order: asked for every item at 09:00, the
    model cannot write one twice (the 1.5B wrote three of a day plan's items at 12:00)."""
    from simulacra.cognition.plan import day_plan_for

    answer_model = day_plan_for(
        name="Maria Lopez", usual_wake="07:00", usual_sleep="23:00", events_today=[]
    )
    prompt = Prompt(
        "day_plan",
        "You are Maria Lopez, a student.",
        "Plan Maria's day: write every item at 09:00 and every later item at 13:00.",
        agent="Maria Lopez",
    )
    for seed in range(3):
        answer = real_model.generate(prompt, answer_model, seed=seed)
        for part in (answer.morning, answer.afternoon, answer.evening):
            times = [item.time for item in part]
            assert times == sorted(set(times))
    assert real_model.log.totals.parse_failures == 0
