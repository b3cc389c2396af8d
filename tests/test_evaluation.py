"""The paper's evaluation on hand-built towns (tiny4: four residents) and the scripted model:
each metric proven on a case whose answer is known."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from rich.console import Console

from simulacra.cognition import summary
from simulacra.errors import UserError
from simulacra.evaluation.checks import Check, CheckKind, People, denies, judge_answer
from simulacra.evaluation.conditions import Condition, HiddenKinds, parse_conditions
from simulacra.evaluation.facts import Fact, parse_fact, seeded_facts
from simulacra.evaluation.interview import interview_agents
from simulacra.evaluation.judge import judge_answers, ranking_schema, rankings
from simulacra.evaluation.questions import Category, agent_variables, write_interview
from simulacra.evaluation.records import (
    INTERVIEW_FILE,
    TOWN_FILE,
    InterviewRecord,
    TownRecord,
    read_records,
)
from simulacra.evaluation.results import interview_table, summarise_interviews, town_table
from simulacra.evaluation.runview import Interviewee, Interviewees, RunView, Stay, inside
from simulacra.evaluation.town import coordinate, evaluate_town
from simulacra.llm.schema import json_schema
from simulacra.memory import Kind, MemoryStore, NewMemory
from simulacra.settings import Settings
from simulacra.world import load_world

WORLD4 = Path(__file__).parent / "fixtures" / "worlds" / "tiny4"
START = datetime(2023, 2, 13, 7)
LATER = START + timedelta(hours=5)
NOW = START + timedelta(hours=34)  # Tuesday 17:00
TOLD = "Bob Baker said there will be a bake sale at Corner Cafe on Friday"


def build(tmp_path, embedder, memories=None, stays=None) -> tuple[RunView, Interviewees]:
    """A run by hand: tiny4's residents with their seed memories at the start and
    ``memories`` ({name: [(kind, text)]}) five hours later."""
    world = load_world(WORLD4)
    settings = Settings()
    store = MemoryStore(tmp_path / "memory")
    minds = {}
    for p in world.personas:
        stream = store.stream(p.name, embedder, settings.retrieval)
        stream.add([NewMemory(s, importance=3) for s in p.seed_memories()], START)
        later = [NewMemory(t, k, importance=5) for k, t in (memories or {}).get(p.name, [])]
        stream.add(later, LATER)
        persona = p.persona()
        minds[p.name] = Interviewee(
            persona, stream, summary.identity(persona, None), persona.currently
        )
    run = RunView(
        directory=tmp_path,
        world=world,
        agents=[p.name for p in world.personas],
        start=START,
        now=NOW,
        step=12240,
        step_seconds=10,
        stays=stays or {},
    )
    return run, Interviewees(NOW, minds, settings, store.close)


def out_dir(tmp_path) -> Path:
    path = tmp_path / "eval"
    path.mkdir()
    return path


def rendered(table) -> str:
    console = Console(record=True, width=200)
    console.print(table)
    return console.export_text()


# ------------------------------------------------------------------ factual checks


def test_an_answer_naming_a_person_never_met_is_a_hallucination():
    people = People(["Ada Byron", "Bob Baker", "Cy Cole", "Dora Diaz"])
    known = {"Ada Byron", "Bob Baker"}
    said = judge_answer(
        "I had tea with Dora yesterday, and Bob was there too.",
        question="What did you do yesterday?",
        check=Check(),
        people=people,
        known=known,
    )
    assert said.hallucinated and said.unknown_people == ("Dora Diaz",)
    fine = judge_answer(
        "Bob Baker makes good coffee.", question="Who is Bob?", check=Check(), people=people,
        known=known,
    )  # fmt: skip
    assert not fine.hallucinated and fine.correct is None
    # Named in the question is not made up; "will" is not Will.
    asked = judge_answer(
        "I will ask Dora Diaz about it.",
        question="Who is Dora Diaz?",
        check=Check(kind=CheckKind.UNKNOWN),
        people=people,
        known=known,
    )
    assert asked.unknown_people == () and asked.claims_unknown and asked.hallucinated
    denied = judge_answer(
        "I don\u2019t know who that is.",
        question="Who is Dora Diaz?",
        check=Check(kind=CheckKind.UNKNOWN),
        people=people,
        known=known,
    )
    assert denied.correct and not denied.hallucinated
    assert denies("Sorry, I have never heard of her") and not denies("Yes, she is my friend")


def test_the_names_check_wants_the_place_or_person_the_memory_holds():
    people = People(["Isabella Rodriguez", "Maria Lopez"])
    check = Check(kind=CheckKind.NAMES, expected=("Hobbs Cafe", "Isabella Rodriguez"))
    right = judge_answer("Yes, at hobbs cafe at 5pm!", question="q", check=check,
                         people=people, known={"Maria Lopez", "Isabella Rodriguez"})  # fmt: skip
    wrong = judge_answer("At the pub, I think.", question="q", check=check, people=people,
                         known={"Maria Lopez"})  # fmt: skip
    assert right.correct and not wrong.correct
    assert judge_answer("Isabella is hosting", question="q", check=check, people=people,
                        known={"Isabella Rodriguez"}).correct  # fmt: skip


def test_facts_are_held_by_whole_words_and_typed_on_the_command_line():
    party, candidacy = seeded_facts(["Isabella Rodriguez", "Sam Moore"])
    assert party.held_in("Isabella is planning a Valentine's Day party at Hobbs Cafe")
    assert not party.held_in("Arthur plans a special menu for Valentine's Day")
    assert candidacy.held_in("Sam Moore is running for mayor")
    assert not candidacy.held_in("the same mayoral election")
    assert [f.name for f in seeded_facts(["Isabella Rodriguez"])] == ["party"]
    fact = parse_fact("a bake sale=bake sale, Friday")
    assert fact.keywords == ("bake sale", "Friday") and fact.topic == "a bake sale"
    with pytest.raises(UserError, match="--fact"):
        parse_fact("a bake sale")


def test_the_smallville_scenario_seeds_each_fact_in_one_resident():
    world = load_world(Path(__file__).parent.parent / "worlds" / "smallville")
    assert world.scenario.start == START
    facts = seeded_facts([p.name for p in world.personas])
    for fact in facts:
        holders = [
            p.name for p in world.personas if fact.held_by([p.learned, p.currently])
        ]  # fmt: skip
        assert holders == [fact.source], fact.name
    party = facts[0]
    assert (party.place, party.start, party.end) == (
        "Hobbs Cafe",
        datetime(2023, 2, 14, 17),
        datetime(2023, 2, 14, 19),
    )


# ------------------------------------------------------------------ the town


def test_a_fact_told_to_exactly_two_of_four_agents_is_known_by_half(
    tmp_path, word_embedder, scripted
):
    run, town = build(
        tmp_path,
        word_embedder,
        {"Ada Byron": [(Kind.CHAT, TOLD)], "Cy Cole": [(Kind.CHAT, TOLD)]},
    )
    # Everyone says yes: only the two whose memory holds it count; the others hallucinate.
    said = {"memory": "1", "answer": "Yes, I heard about it.", "knows": True}
    model = scripted({"town_question": said})
    result = evaluate_town(
        run,
        town,
        model,
        agents=run.agents,
        facts=[parse_fact("a bake sale=bake sale")],
        embedder=word_embedder,
        out=out_dir(tmp_path),
        with_density=False,
    )
    (spread,) = result.diffusion
    assert spread.start == [] and sorted(spread.end) == ["Ada Byron", "Cy Cole"]
    assert len(spread.end) / spread.agents == 0.5
    assert len(spread.claimed) == 4 and sorted(spread.in_memory) == ["Ada Byron", "Cy Cole"]
    assert (result.hallucinated, result.answers) == (2, 4)
    text = rendered(town_table(result))
    assert "2/4 (50%)" in text and "hallucinated answers" in text and "6/453 (1.3%)" in text
    # The bake sale was asked about with the agents' own memories in the prompt.
    asked = model.completer.calls("town_question")
    assert any(TOLD in r.user for r in asked)
    # Each record keeps the memory its answer named first, for a reader of town.jsonl.
    on_file = read_records(tmp_path / "eval" / TOWN_FILE, TownRecord)
    assert {r.memory for r in on_file if r.agent == "Ada Byron"} == {TOLD}
    town.close()


def test_network_density_by_interview_counts_only_what_memory_backs(
    tmp_path, word_embedder, scripted
):
    # Bob's seed says he knows Ada; later Cy talks with Dora. Everyone answers "yes".
    run, town = build(
        tmp_path,
        word_embedder,
        {"Cy Cole": [(Kind.CHAT, "Cy Cole talked with Dora Diaz about her choir")]},
    )
    model = scripted({"town_question": {"memory": "1", "answer": "Yes.", "knows": True}})
    result = evaluate_town(
        run, town, model, agents=run.agents, facts=[], embedder=word_embedder,
        out=out_dir(tmp_path),
    )  # fmt: skip
    d = result.density
    assert d.start == pytest.approx(1 / 6)  # Ada-Bob
    assert d.end == pytest.approx(2 / 6)  # and Cy-Dora
    assert d.start_claimed == d.end_claimed == 1.0
    assert result.answers == 2 * 12
    # Asked at the start from the seed memories only: Cy's conversation is not there yet.
    calls = model.completer.calls("town_question")
    at_start = [" ".join(r.variables["memories"]) for r in calls if "07:00" in r.variables["now"]]
    assert at_start and not any("choir" in m and "talked" in m for m in at_start)
    town.close()


def test_coordination_is_who_was_at_the_place_at_its_time(tmp_path, word_embedder):
    party_start, party_end = datetime(2023, 2, 14, 17), datetime(2023, 2, 14, 19)
    stays = {
        "Ada Byron": [Stay(party_start + timedelta(minutes=30), party_end, "Corner Cafe: cafe")],
        "Cy Cole": [
            Stay(
                party_start - timedelta(hours=1),
                party_start + timedelta(minutes=5),
                "Corner Cafe: cafe: table",
            )
        ],  # fmt: skip
        "Dora Diaz": [Stay(party_start, party_end, "Ada's house: kitchen")],
    }
    run, town = build(
        tmp_path,
        word_embedder,
        {"Ada Byron": [(Kind.CHAT, "Bob Baker invited Ada Byron to a party at Corner Cafe")]},
        stays,
    )
    fact = Fact(name="party", topic="a party", keywords=("party",), source="Bob Baker",
                place="Corner Cafe", start=party_start, end=party_end)  # fmt: skip
    c = coordinate(run, fact, run.agents, town)
    assert c.knew == ["Ada Byron"] and c.came == ["Ada Byron", "Cy Cole"]
    assert inside("Corner Cafe: cafe: table", "corner cafe") and not inside("Corner", "Corner Cafe")
    town.close()


# ------------------------------------------------------------------ the interviews


def test_each_agent_gets_five_questions_in_each_of_five_categories(tmp_path, word_embedder):
    run, town = build(tmp_path, word_embedder, {"Ada Byron": [(Kind.CHAT, TOLD)]})
    people = People(p.name for p in run.residents)
    remembered = [r.description for r in town.minds["Ada Byron"].stream]
    variables = agent_variables(run, "Ada Byron", remembered, people)
    assert variables["friend"] == "Bob Baker"  # named in a memory: no conversation needed
    assert variables["stranger"] in {"Cy Cole", "Dora Diaz"}
    party = Fact(name="party", topic="p", keywords=("party",), names=("Corner Cafe",))
    questions = write_interview("Ada Byron", variables, [party], {"party": False})
    assert len(questions) == 25
    assert {q.category for q in questions} == set(Category)
    stranger = next(q for q in questions if variables["stranger"] in q.text)
    assert stranger.check.kind is CheckKind.UNKNOWN
    town.close()


def scripted_interviews():
    """Answers that say how many memories the prompt held; a judge that prefers more."""

    def answer(request):
        return {"answer": f"I remember {len(request.variables['memories'])} things."}

    def judge(request):
        found = [
            (label, int(re.fullmatch(r"I remember (\d+) things\.", said).group(1)))
            for label, said in request.variables["answers"]
        ]
        return {"ranking": ">".join(lab for lab, _ in sorted(found, key=lambda f: -f[1]))}

    return {"interview": answer, "judge": judge}


def test_ablations_hide_memory_kinds_and_the_judge_ranks_full_first(
    tmp_path, word_embedder, scripted
):
    run, town = build(
        tmp_path,
        word_embedder,
        {
            "Ada Byron": [
                (Kind.OBSERVATION, "Bob Baker is making coffee at Corner Cafe"),
                (Kind.CHAT, TOLD),
                (Kind.REFLECTION, "Ada Byron thinks Bob Baker is generous"),
                (Kind.PLAN, "Ada Byron plans to buy a cake at the bake sale"),
            ]
        },
    )
    model = scripted(scripted_interviews())
    out = out_dir(tmp_path)
    records = interview_agents(
        run, town, model, agents=["Ada Byron"], conditions=list(Condition), facts=[],
        out=out, per_category=1,
    )  # fmt: skip
    assert len(records) == 5 * 4
    for r in records:
        kinds = {m.kind for m in r.memories}
        assert kinds <= {k.value for k in Condition(r.condition).visible}
    by_condition = {r.condition: len(r.memories) for r in records if r.question_id.endswith("1")}
    assert by_condition["none"] == 0
    assert by_condition["full"] > by_condition["no-reflection"] > by_condition["no-planning"]
    # Kept with the memories it used, and resumed rather than asked again.
    kept = read_records(out / INTERVIEW_FILE, InterviewRecord, run.step)
    assert len(kept) == 20 and kept[0].memories
    asked = len(model.completer.calls("interview"))
    again = interview_agents(
        run, town, model, agents=["Ada Byron"], conditions=list(Condition), facts=[],
        out=out, per_category=1,
    )  # fmt: skip
    assert len(again) == 20 and len(model.completer.calls("interview")) == asked

    judgments = judge_answers(run, records, model, out=out)
    assert len(judgments) == 5
    assert all(sorted(j.ranking) == sorted(c.value for c in Condition) for j in judgments)
    result = summarise_interviews(run.step, ["Ada Byron"], records, judgments, list(Condition))
    mu = {row.condition: row.mu for row in result.rows}
    assert mu["full"] > mu["no-reflection"] > mu["no-planning"] > mu["none"]
    assert mu["human"] is None
    text = rendered(interview_table(result))
    assert "29.89" in text and "22.95" in text and "full architecture" in text
    town.close()


def test_an_interview_answer_naming_an_unknown_person_is_kept_as_a_hallucination(
    tmp_path, word_embedder, scripted
):
    run, town = build(tmp_path, word_embedder)
    model = scripted({"interview": {"answer": "I had tea with Dora Diaz yesterday."}})
    records = interview_agents(
        run, town, model, agents=["Ada Byron"], conditions=[Condition.FULL], facts=[],
        out=out_dir(tmp_path), per_category=1,
    )  # fmt: skip
    assert records and all(r.verdict.hallucinated for r in records)
    named = [r for r in records if "Dora" not in r.question]
    assert named and all(r.verdict.unknown_people == ("Dora Diaz",) for r in named)
    line = json.loads((tmp_path / "eval" / INTERVIEW_FILE).read_text().splitlines()[0])
    assert line["verdict"]["hallucinated"] and "memories" in line
    town.close()


def test_a_ranking_is_one_whole_permutation_under_the_grammar():
    assert rankings(["A", "B", "C"]) == ["A>B>C", "A>C>B", "B>A>C", "B>C>A", "C>A>B", "C>B>A"]
    schema = json_schema(ranking_schema(labels=["A", "B", "C", "D"]))
    assert len(schema["properties"]["ranking"]["enum"]) == 24


def test_hidden_kinds_and_conditions(tmp_path, word_embedder):
    run, town = build(
        tmp_path,
        word_embedder,
        {"Ada Byron": [(Kind.REFLECTION, "Ada Byron thinks numbers are beautiful")]},
    )
    stream = town.minds["Ada Byron"].stream
    seen = HiddenKinds(stream, Condition.NO_REFLECTION.visible).retrieve("numbers", NOW, 10)
    assert seen and all(h.record.kind is not Kind.REFLECTION for h in seen)
    assert HiddenKinds(stream, Condition.NONE.visible).retrieve("numbers", NOW) == []
    assert parse_conditions("full, none") == [Condition.FULL, Condition.NONE]
    with pytest.raises(UserError, match="--conditions"):
        parse_conditions("full,no-memory")
    town.close()
