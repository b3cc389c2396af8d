"""`simulacra prompts eval`: cases in the template files, checks, scoring and the command."""

import json

import pytest
from click.testing import CliRunner

from simulacra.cli import cli
from simulacra.llm.prompt_eval import (
    CHECKS,
    _get,
    cases_of,
    evaluate,
    likely_range,
    run_case,
    score_cell,
)
from simulacra.llm.templates import all_templates, find_template


def test_every_template_carries_cases_with_known_checks():
    for name, template in all_templates().items():
        cases = cases_of(template)
        assert cases, f"{name} has no [[case]]"
        for case in cases:
            assert case.checks, f"{name}: {case.name} checks nothing"
            assert all(c.kind in CHECKS for c in case.checks)
            # Every case renders and has a schema: a typo in its variables fails here.
            case.template.render(**case.variables)
            case.template.schema(**case.variables)


def test_scoring_counts_passes_and_says_why_a_case_failed(scripted):
    importance = find_template("importance")
    # Rate every memory 2: "asking out above brushing teeth" fails, "bed is mundane" passes.
    model = scripted(
        {"importance": lambda r: {"ratings": [{"level": "trivial"}] * len(r.variables["memories"])}}
    )
    (score,) = evaluate(model, [importance])
    by_name = {r.case.name: r for r in score.results}
    assert by_name["making the bed is mundane"].passed
    failed = by_name["asking someone out matters more than brushing teeth"]
    assert not failed.passed and "is not above ratings.0.level" in failed.failures[0]
    assert score.passed == 1 and len(score.results) == 4
    assert 0 < score.rate < 1


def test_a_score_carries_the_range_its_true_rate_likely_lies_in():
    low, high = likely_range(25, 30)
    assert (round(low, 3), round(high, 3)) == (0.664, 0.927)  # the Wilson interval
    assert likely_range(3, 3)[1] == 1.0 and likely_range(0, 3)[0] == 0.0
    assert likely_range(0, 0) == (0.0, 1.0)
    # 83% and 88% on 30 and 24 samples: the ranges overlap, the difference may be chance.
    assert likely_range(21, 24)[0] < likely_range(25, 30)[1]
    assert score_cell(25, 30) == "83% (25/30, 66–93%)"


def test_an_answer_that_copies_the_shape_fails_every_case(scripted):
    decompose = find_template("decompose")
    step = {"activity": "taking notes, at most 60 characters>", "minutes": 10}
    model = scripted({"decompose": lambda r: {"involves": "class", "steps": [step] * 3}})
    (score,) = evaluate(model, [decompose])
    assert score.passed == 0
    assert all("copies the answer's shape" in r.failures[-1] for r in score.results)


def test_text_checks():
    data = {"says": "The party starts at 5 pm!", "values": ["a", "a", "b"]}
    assert CHECKS["mentions"](data["says"], ["five", "5"], data, {}) is None
    assert CHECKS["avoids"](data["says"], ["party"], data, {})
    assert CHECKS["max_share"](["a", "a", "b"], 0.5, data, {})
    assert CHECKS["distinct_at_least"](["a", "A ", "b"], 2, data, {}) is None
    assert CHECKS["shorter_than"]("x" * 79, 80, data, {}) is None
    assert CHECKS["shorter_than"]("x" * 80, 80, data, {})
    assert CHECKS["between"]("06:15", ["05:30", "06:30"], data, {}) is None
    assert CHECKS["between"]("07:15", ["05:30", "06:30"], data, {})
    plan = [
        {"time": "21:00", "activity": "reading"},
        {"time": "09:00", "activity": "streaming games"},
        {"time": "12:00", "activity": "lunch"},
    ]
    assert CHECKS["timed"](plan, ["19:00", "23:30", ["stream"]], data, {})
    assert CHECKS["timed"](plan, ["08:00", "10:00", ["stream"]], data, {}) is None
    assert CHECKS["timed"](plan, ["10:00", "12:00", ["stream"]], data, {}) is None  # in force
    # Two items that start at one time both hold it: today's event, and its preparations.
    party = [{"time": "17:00", "activity": "at the party"}, {"time": "17:00", "activity": "x"}]
    assert CHECKS["timed"](party + plan, ["17:00", "18:30", ["party"]], data, {}) is None
    # A plan's items are one thing repeated when their activities are, whatever the times.
    repeated = [{"time": t, "activity": "working"} for t in ("08:00", "10:00")] + plan[:1]
    activities = _get({"plan": repeated}, "plan.*.activity")
    assert activities == ["working", "working", "reading"]
    assert CHECKS["max_share"](activities, 0.5, data, {})
    assert CHECKS["max_share"](_get({"plan": plan}, "plan.*.activity"), 0.5, data, {}) is None
    history = [{"speaker": "A", "text": "Hello there"}]
    assert CHECKS["differs_from"]("hello  there", "history", data, {"history": history})


def test_cites_support_wants_shared_words_with_the_cited_statements():
    variables = {"name": "Klaus Mueller", "memories": ["Klaus reads about gentrification", "rain"]}
    good = [{"insight": "Klaus Mueller cares about gentrification", "because": [1]}]
    bad = [{"insight": "Klaus Mueller cares about gentrification", "because": [2]}]
    assert CHECKS["cites_support"](good, True, {}, variables) is None
    assert CHECKS["cites_support"](bad, True, {}, variables)


@pytest.mark.real
def test_prompts_eval_runs_on_the_real_small_model(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["prompts", "eval", "importance", "decide"])
    assert result.exit_code == 0, result.output
    assert "importance" in result.output and "decide" in result.output
    assert "all" in result.output and "prompt tokens" in result.output
    calls = next(tmp_path.glob("runs/prompts/eval-*/calls.jsonl")).read_text().splitlines()
    assert {json.loads(c)["template"] for c in calls} == {"importance", "decide"}


@pytest.mark.real
def test_the_capable_model_reacts_to_the_fire_and_works_at_the_cafe(capable_model):
    """The two failures of the first capable-model run that the prompts fixed, alone: all of
    the two templates' cases took 4.5 minutes of CI. The whole measured table is in
    docs/evaluation.md (`simulacra prompts eval`)."""
    from simulacra.llm import open_model
    from simulacra.settings import Settings

    settings = Settings()
    settings.llm.model = capable_model
    model = open_model(settings.llm, retries=0)
    wanted = {
        "decide": "a burning stove is reacted to",
        "act": "a cafe owner's work happens at the cafe",
    }
    for template, name in wanted.items():
        (case,) = [c for c in cases_of(find_template(template)) if c.name == name]
        result = run_case(model, case, sample=0, seed=42)
        assert result.passed, (name, result.failures)
