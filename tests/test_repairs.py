"""Repairs: every rule that rewrites a parsed answer is named, and what it changed is logged with
the call that answered (raw -> repaired), counted per rule, and listed in docs/repairs.md."""

from __future__ import annotations

import json
import re
from datetime import date, datetime, time
from pathlib import Path

import pytest
from pydantic import create_model
from scripted_town import SCRIPTS

from simulacra import GenerativeAgent, Persona, Settings
from simulacra.llm.interface import Prompt
from simulacra.llm.repairs import RULES, after_parse, hits, recording, reject, repair, rule
from simulacra.llm.schema import Answer, activity_phrase, json_schema

DOCS = Path(__file__).resolve().parent.parent / "docs" / "repairs.md"
PROMPT = Prompt("test", "system text", "user text", agent="Klaus Mueller")


def rule_modules() -> None:
    """Import every module that declares rules (the CLI does the same to list them all)."""
    from simulacra.cli.stats_commands import declared_rules

    declared_rules()


def entries(directory: Path) -> list[dict]:
    return [json.loads(line) for line in (directory / "calls.jsonl").open()]


def test_a_repair_is_recorded_only_when_it_changes_the_value_and_only_in_a_call():
    mine = RULES.get("test.upper") or rule("test.upper", "upper case")
    assert repair(mine, "done", str.upper) == "DONE"  # outside a call: applied, not recorded
    with recording() as found:
        repair(mine, "abc", str.upper)
        repair(mine, "ABC", str.upper)  # unchanged: not a repair
        reject(mine, "gone")
    assert found == [
        {"rule": "test.upper", "raw": "abc", "repaired": "ABC"},
        {"rule": "test.upper", "raw": "gone", "repaired": None},
    ]
    with pytest.raises(ValueError, match="twice"):
        rule("test.upper", "again")


def test_a_call_logs_what_the_answers_rules_rewrote(scripted, tmp_path):
    schema = create_model("Doing", __base__=Answer, activity=(activity_phrase(60), ...))
    model = scripted({"test": {"activity": "Maria Lopez is drinks coffee"}}, log_dir=tmp_path)
    assert model.generate(PROMPT, schema).activity == "drinking coffee"
    (entry,) = entries(tmp_path)
    assert json.loads(entry["answer"]) == {"activity": "Maria Lopez is drinks coffee"}
    assert entry["repairs"] == [
        {
            "rule": "activity.subject_is",
            "raw": "Maria Lopez is drinks coffee",
            "repaired": "drinks coffee",
        },
        {"rule": "activity.ing", "raw": "drinks coffee", "repaired": "drinking coffee"},
    ]
    assert model.log.totals.repairs == 2


def test_a_stage_after_the_call_runs_inside_it_without_changing_the_grammar(scripted, tmp_path):
    schema = create_model("Doing", __base__=Answer, activity=(activity_phrase(60), ...))
    staged = after_parse(schema, lambda answer: reject(RULES["line.echo"], answer.activity))
    assert json_schema(staged) == json_schema(schema)
    model = scripted({"test": {"activity": "reading"}}, log_dir=tmp_path)
    answer = model.generate(PROMPT, staged)
    assert isinstance(answer, schema)
    assert entries(tmp_path)[0]["repairs"] == [
        {"rule": "line.echo", "raw": "reading", "repaired": None}
    ]


def test_a_day_plans_dropped_items_are_logged_with_its_call(scripted, tmp_path, word_embedder):
    from simulacra.cognition import plan as planning

    def padded(request):
        answer = SCRIPTS["day_plan"](request)
        answer["evening"] += [
            {"time": "20:00", "activity": "none"},
            {"time": "21:00", "activity": "relaxing at home"},  # repeats 18:00's, next to it
        ]
        return answer

    model = scripted({**SCRIPTS, "day_plan": padded}, log_dir=tmp_path)
    persona = Persona(
        name="Klaus Mueller", age=20, innate="curious", learned="Klaus Mueller studies sociology"
    )
    day = date(2023, 2, 13)
    agent = GenerativeAgent.create(
        tmp_path / "klaus",
        persona,
        at=datetime.combine(day, time(5)),
        settings=Settings(),
        model=model,
        embedder=word_embedder,
    )
    plan = planning.plan_day(agent, day)
    assert "20:00 none" not in plan.outline
    (call,) = [e for e in entries(tmp_path) if e["template"] == "day_plan"]
    logged = [(r["rule"], r["raw"], r["repaired"]) for r in call["repairs"]]
    assert ("plan.empty_item", "20:00 none", None) in logged
    assert ("plan.repeated_item", "21:00 relaxing at home", None) in logged


def test_a_line_asked_again_is_logged_as_refused(tmp_path, scripted, word_embedder):
    from simulacra.cognition.dialogue import Line, next_line

    says = "How about a Valentine's Day date? We can go together!"
    echo = {"heard": "a date", "says": says}
    fresh = {"heard": "a date", "says": "I would love that. Where shall we go?"}
    model = scripted({**SCRIPTS, "respond": [echo, fresh]}, log_dir=tmp_path)
    persona = Persona(name="Klaus Mueller", age=20, innate="curious", learned="a student")
    klaus = GenerativeAgent.create(
        tmp_path / "klaus",
        persona,
        at=datetime(2023, 2, 13, 8),
        settings=Settings(),
        model=model,
        embedder=word_embedder,
    )
    lines = [Line("Maria Lopez", says)]
    assert next_line(klaus, "Maria Lopez", lines, now=klaus.now, setting="").says == fresh["says"]
    first, second = [e for e in entries(tmp_path) if e["template"] == "respond"]
    assert first["repairs"] == [{"rule": "line.echo", "raw": says, "repaired": None}]
    assert second["repairs"] == []


def test_hits_count_repairs_per_rule_and_old_logs_count_none():
    logged = [
        {"repairs": [{"rule": "activity.ing"}, {"rule": "activity.ing"}]},
        {"repairs": [{"rule": "plan.empty_item"}]},
        {"template": "act"},  # written before repairs were logged
    ]
    assert hits(logged) == {"activity.ing": 2, "plan.empty_item": 1}


def test_every_rule_is_in_the_docs_and_every_rule_there_exists():
    rule_modules()
    declared = {name for name in RULES if not name.startswith("test.")}
    documented = set(re.findall(r"^\| `([a-z_.]+)` \|", DOCS.read_text(), re.MULTILINE))
    assert declared == documented


def test_stats_prints_hits_per_rule_and_reads_logs_from_before_repairs(tmp_path):
    from click.testing import CliRunner

    from simulacra.cli.app import cli

    call = {
        "template": "decompose",
        "agent": "Klaus Mueller",
        "prompt_tokens": 10,
        "reused_tokens": 0,
        "generated_tokens": 5,
        "seconds": 0.1,
        "cache_hit": False,
        "parsed": True,
    }
    then = {"rule": "activity.sequence", "raw": "then reads", "repaired": "reads"}
    ing = {"rule": "activity.ing", "raw": "reads", "repaired": "reading"}
    lines = [call, {**call, "repairs": [then, ing]}, {**call, "repairs": [ing]}]
    (tmp_path / "calls.jsonl").write_text("".join(json.dumps(c) + "\n" for c in lines))
    result = CliRunner().invoke(cli, ["stats", str(tmp_path)])
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line.split()[1] for line in result.output.splitlines() if line}
    assert rows["activity.ing"] == "2" and rows["activity.sequence"] == "1"
    assert rows["plan.empty_item"] == "0"  # every rule is listed, hit or not


def test_the_prompt_eval_counts_the_repairs_its_answers_needed(scripted):
    from simulacra.llm.prompt_eval import evaluate
    from simulacra.llm.templates import find_template

    decompose = find_template("decompose")
    step = {"activity": "then pours milk into her cup", "minutes": 10}
    model = scripted({"decompose": lambda r: {"involves": "breakfast", "steps": [step] * 3}})
    (score,) = evaluate(model, [decompose])
    cases = len(score.results)
    assert score.repairs == {"activity.sequence": 3 * cases, "activity.ing": 3 * cases}


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("Maria Lopez: Hello there.", "Hello there."),
        # party run c: the answer's key as a verb, the words in quotes
        ("Klaus Mueller says: 'That's great! I want to learn'", "That's great! I want to learn"),
        ('Klaus said: "Yes, see you."', "Yes, see you."),
        ('"Quoted without a name"', '"Quoted without a name"'),
    ],
)
def test_a_line_is_the_words_without_the_speaker_s_name(line, words):
    from simulacra.cognition.dialogue import _without_speaker

    assert _without_speaker(line) == words
