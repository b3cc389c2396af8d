"""Every agent feature end to end on the real stack: SmolLM2-135M in llama.cpp, the real
embedder, Chroma and SQLite. The small model's words are nonsense more often than not; what
is tested is that every answer parses and lands where it should."""

from datetime import datetime, timedelta

import pytest

from simulacra import GenerativeAgent, Persona, Settings
from simulacra.llm.calllog import read_calls, summarise
from simulacra.memory import Kind

pytestmark = pytest.mark.real

T0 = datetime(2023, 2, 13, 8, 0)


def test_a_real_agent_observes_reflects_answers_reacts_and_talks(tmp_path, real_embedder):
    settings = Settings()
    settings.reflection.threshold = 8  # reflect within a few memories, whatever the ratings
    settings.reflection.questions = 2
    settings.reflection.insights_per_question = 2
    persona = Persona(
        name="Maria Lopez",
        age=21,
        innate="energetic, enthusiastic, inquisitive",
        learned="Maria Lopez is a physics student at Oak Hill College; Maria Lopez streams "
        "games on Twitch; Maria Lopez has a crush on Klaus Mueller",
    )
    maria = GenerativeAgent.create(
        tmp_path / "maria", persona, at=T0, settings=settings, embedder=real_embedder
    )
    maria.observe_many(
        [
            "Klaus Mueller is writing a paper about gentrification",
            "Isabella Rodriguez invited Maria to a Valentine's Day party at Hobbs Cafe",
            "the kettle is idle",
        ],
        T0 + timedelta(minutes=30),
    )
    for i in range(6):
        maria.observe(
            f"Maria Lopez is solving physics problem {i + 1}", T0 + timedelta(hours=1, minutes=i)
        )
    assert any(r.kind is Kind.REFLECTION for r in maria.stream)

    answer = maria.interview("What are you doing on Valentine's Day?")
    assert isinstance(answer, str) and answer
    reaction = maria.react(
        "Klaus Mueller walks into the library", T0 + timedelta(hours=2), people=["Klaus Mueller"]
    )
    assert reaction.kind in ("none", "act", "say")
    utterance = maria.respond([("Klaus Mueller", "Hi Maria, how is your exam prep going?")])
    assert utterance.text
    assert maria.inner_voice("I will tell Klaus how I feel").importance == 9
    assert maria.memories("Klaus")[0].record.description

    log = summarise(read_calls(tmp_path / "maria" / "calls.jsonl"))
    assert log.total.parse_failures == 0
    for template in (
        "importance",
        "reflection_questions",
        "reflection_insights",
        "summary",
        "interview",
        "decide",
        "respond",
    ):
        assert log.by_template[template].calls + log.by_template[template].cache_hits >= 1

    reopened = GenerativeAgent.open(tmp_path / "maria", settings=settings, embedder=real_embedder)
    assert len(reopened.stream) == len(maria.stream)


def test_news_of_an_event_later_today_re_plans_a_real_day(tmp_path, real_embedder):
    """A talk's note of an event later today (planning.plan_news): its item is asked of the
    real model under its grammar and takes its hours in the day's blocks."""
    from datetime import time

    from simulacra.cognition import plan as planning
    from simulacra.cognition.plan import PlanItem

    persona = Persona(name="Klaus Mueller", age=20, innate="kind, inquisitive, passionate")
    klaus = GenerativeAgent.create(
        tmp_path / "klaus", persona, at=T0, settings=Settings(), embedder=real_embedder
    )
    midnight = datetime.combine(T0.date(), time(0))
    wake, bedtime = midnight + timedelta(hours=7), midnight + timedelta(hours=23)
    blocks = planning._blocks(midnight, wake, bedtime, ["reading in the library"] * 16)
    plan = planning.DayPlan(T0.date(), wake, bedtime, [PlanItem("07:00 reading")], blocks)
    note = "Isabella Rodriguez's book club at Hobbs Cafe today from 5pm to 7pm"
    (item,) = planning.plan_news(klaus, plan, note, T0 + timedelta(hours=2))
    assert "16:00" <= item.time <= "19:00"  # the times offered: the note names 17:00 and 19:00
    block = plan.block_at(datetime.combine(T0.date(), time.fromisoformat(item.time)))
    assert block.activity == item.activity and plan.events == [item]
    assert sum(b.minutes for b in plan.blocks) == 24 * 60
    assert summarise(read_calls(tmp_path / "klaus" / "calls.jsonl")).total.parse_failures == 0


def test_a_real_day_like_yesterday_keeps_its_plan_without_a_call(tmp_path, real_embedder):
    """Monday planned by the real model under its grammars; Tuesday, with nothing new, is
    Monday's plan kept (planning._like_yesterday): no call, and remembered as Tuesday's."""
    from datetime import time

    from simulacra import gametime
    from simulacra.cognition import plan as planning

    persona = Persona(name="Klaus Mueller", age=20, innate="kind, inquisitive, passionate")
    klaus = GenerativeAgent.create(
        tmp_path / "klaus", persona, at=T0, settings=Settings(), embedder=real_embedder
    )
    monday = planning.plan_day(klaus, T0.date())
    # The hour each item begins in is the item, which the grammar wrote (hourly_schedule).
    last = monday.bedtime.hour + (monday.bedtime.minute > 0)
    hours = [f"{h:02d}:00" for h in range(monday.wake.hour, last)]
    for hour, item in gametime.begun(monday.outline, hours, routine=1).items():
        at = datetime.combine(T0.date(), time.fromisoformat(hour))
        assert at <= monday.wake or monday.block_at(at).activity == item, (hour, item)
    calls = tmp_path / "klaus" / "calls.jsonl"
    asked = summarise(read_calls(calls)).total
    tuesday = planning.plan_day(klaus, T0.date() + timedelta(days=1), before=monday)
    assert tuesday.kept and tuesday.outline == monday.outline
    assert sum(b.minutes for b in tuesday.blocks) == 24 * 60
    assert summarise(read_calls(calls)).total.calls == asked.calls
    assert asked.parse_failures == 0
    assert "Tuesday February 14" in klaus.stream.recent(1)[0].description


def test_a_real_day_plan_has_an_item_at_each_hour_the_habits_name(tmp_path, real_embedder):
    """The real model writes what the habits say at their hours (plan.habit_times), fields of
    their own, and the items stay in the day's outline at those hours."""
    from simulacra.cognition import plan as planning

    notes = "attends physics classes at Oak Hill College from 9am to 1pm on weekdays"
    persona = Persona(
        name="Maria Lopez", age=21, innate="energetic, curious", lifestyle={"notes": notes}
    )
    maria = GenerativeAgent.create(
        tmp_path / "maria", persona, at=T0, settings=Settings(), embedder=real_embedder
    )
    monday = planning.plan_day(maria, T0.date())
    assert [i for i in monday.outline if i.time == "09:00"], monday.outline
    assert summarise(read_calls(tmp_path / "maria" / "calls.jsonl")).total.parse_failures == 0


def test_a_real_day_plan_writes_today_s_event_at_its_hours_once(tmp_path, real_embedder):
    """On the party's day the day plan's grammar writes the party's item at its hour and its
    lists offer none of its hours: the outline has the party once, and nothing else in it."""
    from simulacra.cognition import plan as planning

    persona = Persona(name="Isabella Rodriguez", age=34, innate="friendly, outgoing")
    isabella = GenerativeAgent.create(
        tmp_path / "isabella", persona, at=T0, settings=Settings(), embedder=real_embedder
    )
    isabella.currently = (
        "Isabella Rodriguez is throwing a Valentine's Day party at Hobbs Cafe on February 14th"
        " from 5pm to 7pm."
    )
    tuesday = planning.plan_day(isabella, T0.date() + timedelta(days=1))
    (party,) = tuesday.events
    assert party.time == "17:00" and party in tuesday.outline
    assert [i for i in tuesday.outline if "17:00" <= i.time < "19:00"] == [party]
    assert summarise(read_calls(tmp_path / "isabella" / "calls.jsonl")).total.parse_failures == 0


def test_a_real_block_s_steps_stay_out_of_rooms_away_from_it(tmp_path, real_embedder):
    """A block at Hobbs Cafe cut by the real model: a step that names a room away from it
    (here the library, as the world's places would say) is asked again, else left out."""
    from datetime import time

    from simulacra.cognition import plan as planning

    persona = Persona(name="Maria Lopez", age=21, innate="energetic, enthusiastic, curious")
    maria = GenerativeAgent.create(
        tmp_path / "maria", persona, at=T0, settings=Settings(), embedder=real_embedder
    )
    start = datetime.combine(T0.date(), time(13))
    block = planning.Block("reading books and studying physics at Hobbs Cafe", start, 60)
    planning.decompose(maria, block, start, 60, away=lambda step: "library" in step.lower())
    assert sum(s.minutes for s in block.steps) == 60
    assert not [s for s in block.steps if "library" in s.activity.lower()]
    assert summarise(read_calls(tmp_path / "maria" / "calls.jsonl")).total.parse_failures == 0


def test_a_real_event_s_own_hours_are_cut_into_the_event(tmp_path, real_embedder):
    """An event's own block decomposed by the real model under its grammar: no step of it
    makes the event ready (plan.made_ready), and the steps fill the block."""
    from datetime import time

    from simulacra.cognition import plan as planning
    from simulacra.cognition.plan import PlanItem

    persona = Persona(name="Isabella Rodriguez", age=34, innate="friendly, outgoing")
    isabella = GenerativeAgent.create(
        tmp_path / "isabella", persona, at=T0, settings=Settings(), embedder=real_embedder
    )
    party = PlanItem("17:00 throwing a Valentine's Day party at Hobbs Cafe")
    start = datetime.combine(T0.date(), time(17))
    block = planning.Block(party.activity, start, 60)
    planning.decompose(isabella, block, start, 60, [party])
    assert sum(s.minutes for s in block.steps) == 60
    assert not [s for s in block.steps if planning._makes_ready(s.activity)]
