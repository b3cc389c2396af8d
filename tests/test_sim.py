"""The simulation loop on smallville-3 with the scripted town (no language model)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from datetime import datetime, timedelta
from datetime import time as clock
from pathlib import Path

import pytest
from scripted_town import SCRIPTS, enum

from simulacra.cognition.decide import Decision, OptionKind
from simulacra.cognition.plan import ROUTINE_STEPS, current_step, is_sleeping
from simulacra.errors import UserError
from simulacra.llm import open_model
from simulacra.llm.scripted import ScriptedModel
from simulacra.memory import Kind
from simulacra.settings import Settings
from simulacra.sim import rundir
from simulacra.sim.conversation import pair
from simulacra.sim.eventlog import EVENTS_FILE, read_events
from simulacra.sim.interact import Interactions
from simulacra.sim.resident import Action
from simulacra.sim.simulation import Simulation
from simulacra.sim.stats import run_stats
from simulacra.sim.thinking import Placing
from simulacra.world import Event
from simulacra.world.tree import GameObject

ROOT = Path(__file__).resolve().parent.parent
WORLD = ROOT / "worlds" / "smallville-3"


class StepCounter(ScriptedModel):
    """The scripted model, noting at which simulation step each call happens."""

    def __init__(self, scripts) -> None:
        super().__init__(scripts)
        self.sim: Simulation | None = None
        self.steps: list[int] = []

    def complete(self, request):
        self.steps.append(self.sim.step_no if self.sim else -1)
        return super().complete(request)


def make_sim(tmp_path, word_embedder, hours=1.5, scripts=None, settings=None):
    settings = settings or Settings()
    settings.llm.cache = False
    backend = StepCounter({**SCRIPTS, **(scripts or {})})
    model = open_model(settings.llm, completer=backend)
    sim = Simulation.create(
        WORLD, tmp_path / "run", hours=hours, settings=settings, model=model, embedder=word_embedder
    )
    backend.sim = sim
    return sim, backend


def test_information_spreads_from_isabella_to_maria(tmp_path, word_embedder):
    sim, backend = make_sim(tmp_path, word_embedder)
    sim.run()
    maria = sim.resident("Maria Lopez").agent
    chats = [r for r in maria.stream if r.kind is Kind.CHAT]
    assert chats and "Valentine's Day party at Hobbs Cafe" in chats[0].description
    notes = [r for r in maria.stream if r.evidence == (chats[0].id,)]
    assert any("For Maria Lopez's planning" in r.description for r in notes)
    # A talk takes place in a room: "Isabella Rodriguez is the kitchen sink in the kitchen at
    # Hobbs Cafe, talking with …" had her introduce herself as the sink (party seed 3).
    settings = {r.variables["setting"] for r in backend.calls("respond")}
    assert settings and all(re.fullmatch(r"in the [a-z ]+ at [A-Z][\w ']+", s) for s in settings)

    later = sim.now + timedelta(hours=3)
    maria.interview("Are you going to any parties this week?", at=later)
    (asked,) = backend.calls("interview")
    assert "Valentine's Day party at Hobbs Cafe" in asked.user  # retrieved from memory
    events = list(read_events(sim.directory / EVENTS_FILE))
    said = [c for e in events for c in e.chats]
    assert said[0].between == ["Isabella Rodriguez", "Maria Lopez"]
    sim.close()


def test_the_model_is_called_only_when_something_changed(tmp_path, word_embedder):
    sim, backend = make_sim(tmp_path, word_embedder, hours=1.5)
    sim.run()
    busy = set(backend.steps)
    assert len(busy) < sim.step_no * 0.1, "most steps need no model at all"
    # Maria sleeps until 07:30 (step 180): after her morning plan, not one call of hers.
    maria = [
        s
        for s, r in zip(backend.steps, backend.requests, strict=True)
        if r.variables.get("name") == "Maria Lopez" and s > 0
    ]
    assert maria and min(maria) >= 180
    # Walking to the cafe takes minutes; the walk itself costs nothing.
    walking = [
        e.step
        for e in read_events(sim.directory / EVENTS_FILE)
        if e.agents["Maria Lopez"].activity == "studying physics at Hobbs Cafe"
    ]
    assert any(s not in busy for s in walking)
    sim.close()


def test_the_morning_routine_is_done_at_home_without_asking_where(tmp_path, word_embedder):
    """Its steps are the code's words: their places follow from the home (see Sandbox)."""
    sim, backend = make_sim(tmp_path, word_embedder, hours=1.5)
    sim.run()
    steps = {step for step, _ in ROUTINE_STEPS}
    assert not [r for r in backend.calls("act") if r.variables["activity"] in steps]
    done = {
        (name, a.activity, a.place.split(":")[0])
        for e in read_events(sim.directory / EVENTS_FILE)
        for name, a in e.agents.items()
        if a.activity in steps and a.place
    }
    assert {(name, activity) for name, activity, _ in done} >= {
        (name, step) for name in ("Klaus Mueller", "Maria Lopez") for step in steps
    }
    homes = {r.name: r.persona.home.split(":")[0] for r in sim.residents.values()}
    assert all(building == homes[name] for name, _, building in done)
    sim.close()


@pytest.mark.parametrize(
    ("step", "stay"),
    [
        ("having a coffee", True),
        ("having a coffee at Hobbs Cafe", False),
        # A step that names another building may go there: in a party run Klaus was "sitting
        # at Hobbs Cafe and drinking coffee" among the library's bookshelves.
        ("having a coffee at Hobbs Cafe", True),
    ],
)
def test_a_block_is_placed_by_its_activity_and_its_steps_stay_in_that_building(
    tmp_path, word_embedder, step, stay
):
    def decompose(request):
        klaus = request.variables["name"] == "Klaus Mueller"
        if not klaus or "library" not in request.variables["activity"]:
            return SCRIPTS["decompose"](request)
        reading = "reading about gentrification in the library"
        steps = ["sitting down", step, reading]
        return {"involves": "reading", "steps": [{"activity": a, "minutes": 15} for a in steps]}

    settings = Settings()
    settings.plan.stay_in_building = stay
    settings.plan.stay_at_place = False  # the steps are asked, to see what they are offered
    sim, backend = make_sim(tmp_path, word_embedder, 2, {"decompose": decompose}, settings)
    sim.run()
    # Asked without the building when every place offered is in it (see place_action).
    said = (step, step.removesuffix(" at Hobbs Cafe"))
    (coffee, *_) = [
        r
        for r in backend.calls("act")
        if r.variables["name"] == "Klaus Mueller" and r.variables["activity"] in said
    ]
    # The block's first step is placed as a part of the block: "sitting down" alone says nowhere.
    sitting = [r for r in backend.calls("act") if r.variables["activity"] == "sitting down"]
    assert sitting and all(r.variables["purpose"] for r in sitting)
    offered = {p.split(":")[0] for p in enum(coffee, "place")}
    if stay and "Hobbs" not in step:
        assert offered == {"Oak Hill College"}
    else:
        assert "Hobbs Cafe" in offered
    sim.close()


def test_a_blocks_later_steps_stay_where_it_is_unless_they_name_another_place(
    tmp_path, word_embedder
):
    """Asked again, the 1.5B moved Maria's reading from the dorm kitchen's table on to its
    refrigerator (see PlaceChooser.kept): a later step stays where the step before it is, with
    no call, or goes to the thing it names there; naming another building, it is asked."""
    steps = [
        "sitting down",
        "reading about gentrification",
        "taking notes",
        "looking at the bookshelves",
        "having a coffee at Hobbs Cafe",
    ]

    def decompose(request):
        klaus = request.variables["name"] == "Klaus Mueller"
        if not klaus or "library" not in request.variables["activity"]:
            return SCRIPTS["decompose"](request)
        return {"involves": "reading", "steps": [{"activity": a, "minutes": 10} for a in steps]}

    sim, backend = make_sim(tmp_path, word_embedder, 3, {"decompose": decompose})
    sim.run()
    asked = [
        r.variables["activity"]
        for r in backend.calls("act")
        if r.variables["name"] == "Klaus Mueller"
    ]
    # Asked without the building when every place offered is in it (see place_action).
    assert "sitting down" in asked and "having a coffee" in asked
    assert "reading about gentrification" not in asked and "taking notes" not in asked
    placed: dict[str, str] = {}
    for e in read_events(sim.directory / EVENTS_FILE):
        klaus = e.agents["Klaus Mueller"]
        if klaus.activity in steps and klaus.place:
            placed.setdefault(klaus.activity, klaus.place)
    assert placed["reading about gentrification"] == placed["sitting down"]
    assert placed["taking notes"] == placed["sitting down"]
    assert placed["looking at the bookshelves"].endswith(": bookshelves")
    assert placed["having a coffee at Hobbs Cafe"].startswith("Hobbs Cafe")
    sim.close()


def test_a_step_in_a_room_of_another_building_than_its_block_s_is_asked_again(
    tmp_path, word_embedder
):
    """Party seeds 2y and 2z: Maria's block at Hobbs Cafe was cut into "reading books at the
    library", read at the cafe's notice board. Asked again, else left out; a step that names
    another building by name is an outing (the test above), and stays."""
    away = "reading books at the library"
    decompose = cut_into(
        "Maria Lopez", "Hobbs Cafe", [away, "solving physics problems", "taking notes"]
    )
    sim, backend = make_sim(tmp_path, word_embedder, 2, {"decompose": decompose})
    entries, record = [], sim.model.log.record
    sim.model.log.record = lambda *a, **k: entries.append(record(*a, **k)) or entries[-1]
    sim.run()
    asked = [r for r in backend.calls("decompose") if r.variables["name"] == "Maria Lopez"]
    assert len(asked) >= 2 and asked[0].variables == asked[1].variables
    assert not places_of(sim, "Maria Lopez", away)
    assert places_of(sim, "Maria Lopez", "solving physics problems")
    refused = [r["raw"] for e in entries for r in e["repairs"] if r["rule"] == "plan.step_away"]
    assert refused and set(refused) == {away}
    sim.close()


def cut_into(name: str, word: str, steps: list[str]):
    """A decompose script: ``name``'s blocks whose activity holds ``word`` cut into ``steps``
    of 15 minutes; every other block as the scripted town cuts it."""

    def decompose(request):
        if request.variables["name"] != name or word not in request.variables["activity"]:
            return SCRIPTS["decompose"](request)
        return {"involves": "it", "steps": [{"activity": a, "minutes": 15} for a in steps]}

    return decompose


def places_of(sim, name: str, activity: str) -> set[str]:
    """Where ``name`` was while doing ``activity``, by the event log."""
    return {
        e.agents[name].place
        for e in read_events(sim.directory / EVENTS_FILE)
        if e.agents[name].activity == activity
    }


def test_a_blocks_first_step_that_names_a_thing_offered_goes_to_it_unasked(tmp_path, word_embedder):
    """Party seed 2y: "sitting at a table at Hobbs Cafe and reading", asked, went to the
    cafe's notice board (kind of place "library")."""
    first = "sitting at a table in the library with a book"
    decompose = cut_into(
        "Klaus Mueller", "library", [first, "reading about gentrification", "taking notes"]
    )
    sim, backend = make_sim(tmp_path, word_embedder, 2, {"decompose": decompose})
    sim.run()
    asked = [r.variables["activity"] for r in backend.calls("act")]
    assert not any(a.startswith("sitting at a table") for a in asked)
    assert places_of(sim, "Klaus Mueller", first) == {"Oak Hill College: library: library tables"}
    sim.close()


def test_a_blocks_first_step_is_placed_in_the_building_it_names(tmp_path, word_embedder):
    """README run, stop 90: the host's block "preparing for Valentine's Day party", which
    names no place, began with "decorating the cafe by painting the walls and setting up
    tables and chairs" and was placed unasked at Johnson Park's picnic tables, the one thing
    offered that it named; the whole hour stayed there."""
    # The word embedder offers the park's garden shed for the block; the real one offered
    # the picnic tables.
    first = "decorating the cafe with flowers from the garden shed"

    def plan(request):
        answer = SCRIPTS["day_plan"](request)
        if request.variables["name"] == "Isabella Rodriguez":
            answer["morning"] = [{"time": "07:00", "activity": "getting ready for the party"}]
        return answer

    decompose = cut_into(
        "Isabella Rodriguez", "getting ready", [first, "setting up the tables", "hanging up lights"]
    )
    sim, _ = make_sim(tmp_path, word_embedder, 2.5, {"day_plan": plan, "decompose": decompose})
    sim.run()
    placed = places_of(sim, "Isabella Rodriguez", first)
    assert placed and {p.split(":")[0] for p in placed} == {"Hobbs Cafe"}
    sim.close()


def test_a_block_is_placed_with_the_plan_item_it_came_from(tmp_path, word_embedder):
    """The schedule writes what is done, the plan where: Maria's "studying at Hobbs Cafe" was
    scheduled as "reading her physics textbook" and placed at the dorm's stove."""
    reading = "reading her physics textbook"

    def schedule(request):
        if request.variables["name"] != "Maria Lopez":
            return SCRIPTS["hourly_schedule"](request)
        properties = request.schema["properties"]  # the items' own hours are fixed
        return {h: p.get("const", reading) for h, p in properties.items()}

    sim, backend = make_sim(tmp_path, word_embedder, 2.5, {"hourly_schedule": schedule})
    sim.run()
    maria = sim.resident("Maria Lopez")
    block = next(b for b in maria.plan.blocks if b.activity == reading)
    assert block.plan_item == "studying physics at Hobbs Cafe"
    maria_acts = [r for r in backend.calls("act") if r.variables["name"] == "Maria Lopez"]
    first = next(r for r in maria_acts if r.variables["activity"] == reading)
    assert {p.split(":")[0] for p in enum(first, "place")} == {"Hobbs Cafe"}
    # Her plan's lunch is no part of the item, and the item after it begins at its hour.
    later = [(b.activity, b.plan_item) for b in maria.plan.blocks if b.start > block.start]
    assert later[:3] == [
        ("having lunch", ""),
        ("studying physics at Hobbs Cafe", ""),
        (reading, "studying physics at Hobbs Cafe"),
    ]
    # A block that names its building itself is placed there (seed 2g: "writing at Hobbs
    # Cafe" went on in the college's lounge after a talk at the cafe).
    # Its step names the counter, which is offered: it goes there unasked.
    counter = "working at the counter of Hobbs Cafe"
    assert places_of(sim, "Isabella Rodriguez", counter) == {"Hobbs Cafe: cafe: cafe counter"}
    sim.close()


def test_a_block_in_a_habits_hours_is_placed_in_the_habits_building(tmp_path, word_embedder):
    """Party seed 1v: the host's plan put "10:00 reading a book" in her shift ("08:00 working at
    Hobbs Cafe", from 8am to 8pm), and she read at the college library. Where the block and
    its item name no place, the habit's item does; where they do, they win."""

    def plan(request):
        answer = SCRIPTS["day_plan"](request)
        if request.variables["name"] == "Isabella Rodriguez":
            answer["08:00"] = "working at Hobbs Cafe"
            answer["morning"] = [{"time": "10:00", "activity": "reading a book"}]
        return answer

    sim, backend = make_sim(tmp_path, word_embedder, 3.3, {"day_plan": plan})
    sim.run()
    isabella = sim.resident("Isabella Rodriguez")
    block = isabella.plan.block_at(isabella.plan.wake.replace(hour=10))
    assert (block.activity, block.habit) == ("reading a book", "working at Hobbs Cafe")
    assert not isabella.plan.block_at(isabella.plan.wake.replace(hour=11)).habit  # its own
    asked = [r for r in backend.calls("act") if r.variables["activity"] == "reading a book"]
    assert asked and {p.split(":")[0] for p in enum(asked[0], "place")} == {"Hobbs Cafe"}
    sim.close()


def test_after_a_conversation_the_next_step_is_placed_for_its_block(tmp_path, word_embedder):
    """A chat happens where two met: in a run, Klaus talked with Maria in the dorm on his way
    out and then read "in the library" on the dorm's sofa all morning."""
    sim, _ = make_sim(tmp_path, word_embedder, hours=0.1)
    sim.run()
    klaus = sim.resident("Klaus Mueller")
    block = next(b for b in klaus.plan.blocks if not is_sleeping(b.activity))
    now = block.start + timedelta(minutes=10)
    hall = "Dorm for Oak Hill College: common room"
    klaus.action = Action("talking", now, now, hall, "💬", partner="Maria Lopez")
    placing = sim.town.thinking.placing(klaus, now)
    context = (block.activity, block.plan_item, block.habit)
    assert placing == Placing(purpose=block.activity, context=context)
    klaus.action = Action("reading", now, now, hall, "📖")  # a step of the block: stay there
    placing = sim.town.thinking.placing(klaus, now)
    assert placing == Placing(within="Dorm for Oak Hill College", context=context, at=hall)
    sim.close()


def test_after_a_conversation_the_step_it_interrupted_goes_on_where_it_was(tmp_path, word_embedder):
    """Party seed 3w: Klaus's "drinking coffee with Maria Lopez" was on its way to her
    classroom when the host stopped him in the cafe; placed again by its block's words, it
    stayed at the cafe's notice board. Going back to it asks the model nothing."""
    sim, backend = make_sim(tmp_path, word_embedder, hours=0.1)
    sim.run()
    klaus, now = sim.resident("Klaus Mueller"), sim.now
    for r in sim.residents.values():
        r.action.end = now + timedelta(hours=1)  # nobody else's step is due
    activity, _, _ = current_step(klaus.agent, klaus.plan, now, 15)
    sim.town.sandbox.start(klaus, activity, now, now + timedelta(minutes=30))
    before = klaus.action
    sim.town.conversations.start_talking(klaus, "Maria Lopez", now)
    assert klaus.talking and klaus.interrupted is before
    later = now + timedelta(minutes=2)
    klaus.action.end = later
    asked = len(backend.calls("act"))
    sim.town.thinking.act(later, set())
    assert (klaus.action.activity, klaus.action.address) == (activity, before.address)
    assert klaus.action.start == later and klaus.interrupted is None
    assert len(backend.calls("act")) == asked
    sim.close()


def test_a_block_that_names_its_building_brings_its_steps_back_there(tmp_path, word_embedder):
    """Seed 2h: a reaction took Maria to the dorm, and her block "studying at Hobbs Cafe"
    stayed there all afternoon, each step in the building of the one before."""
    sim, _ = make_sim(tmp_path, word_embedder, hours=0.1)
    sim.run()
    maria = sim.resident("Maria Lopez")
    tile = sim.town.sandbox.state.tile_of(maria.name)
    dorm = "Dorm for Oak Hill College"
    offered = sim.town.sandbox.places.candidates(
        maria, "reading a book", tile, dorm, ("studying at Hobbs Cafe", "")
    )
    assert {p.split(":")[0] for p in offered.places} == {"Hobbs Cafe"}
    assert offered.settled == ("Hobbs Cafe",)
    offered = sim.town.sandbox.places.candidates(maria, "reading a book", tile, dorm)
    assert {p.split(":")[0] for p in offered.places} == {dorm}
    assert offered.settled == (dorm, "home")  # what the step need not say: all are there
    # A later step stays where the step before it is (PlaceChooser.kept), but not so here.
    table = f"{dorm}: kitchen: kitchen table"
    places, block = sim.town.sandbox.places, ("studying at Hobbs Cafe", "")
    open_hours = sim.now.replace(hour=10)
    assert places.kept(maria, "reading a book", table, open_hours, block) is None
    assert places.kept(maria, "reading a book", table, open_hours) == table
    # Nor where another place in the building suits it better by meaning, by the margin:
    # here, by the tests' bag of words, the common room's sofa (0.14 above the table).
    resting = "resting in the common area"
    places.settings.stay_margin = 0.1
    assert places.kept(maria, resting, table, open_hours) is None
    places.settings.stay_margin = 0.2
    assert places.kept(maria, resting, table, open_hours) == table
    sim.close()


def test_one_rule_says_who_may_talk_residents_and_the_avatar_alike(tmp_path, word_embedder):
    """Conversations.why_not decides for the town's pairs and for the avatar's lines: in one room
    within sight, the listener awake and in no conversation with a third, no recent talk."""
    sim, _ = make_sim(tmp_path, word_embedder, hours=0.1)
    talking, now = sim.town.conversations, sim.now
    maria, klaus = sim.resident("Maria Lopez"), sim.resident("Klaus Mueller")
    hall = "Dorm for Oak Hill College: common room"
    tiles = [t for t in sim.world.tiles_of(hall) if sim.world.is_walkable(t)]
    corner, beside, far_corner = tiles[0], tiles[1], tiles[-1]  # 11 tiles apart; sight: 8
    sim.state.place(maria.name, corner)
    sim.state.place(klaus.name, beside)
    assert talking.why_not(maria.name, klaus, now) is None
    sim.state.place(klaus.name, far_corner)
    assert talking.why_not(maria.name, klaus, now) == "far"  # one room, out of sight
    sim.state.place(klaus.name, sim.world.spawn_of(klaus.name))
    assert talking.why_not(maria.name, klaus, now) == "far"  # another room
    sim.state.place(klaus.name, beside)
    klaus.action = Action("sleeping", now, now + timedelta(hours=1), hall, "😴", asleep=True)
    assert talking.why_not(maria.name, klaus, now) == "asleep"
    klaus.action = Action("talking", now, now, hall, "💬", partner="Isabella Rodriguez")
    assert talking.why_not(maria.name, klaus, now) == "busy"
    klaus.action = Action("talking", now, now, hall, "💬", partner=maria.name)
    assert talking.why_not(maria.name, klaus, now) is None  # a conversation going on
    assert not talking.can_start(klaus, maria, now)  # but the town starts none while in one

    # The avatar is told the same rule's reasons, in words.
    me = Interactions(sim)
    me.enter("Ana")
    sim.state.place("Ana", corner)
    with pytest.raises(UserError, match="Klaus Mueller is talking with Maria Lopez"):
        me.say(klaus.name, "Hello!")
    klaus.action = Action("sleeping", now, now + timedelta(hours=1), hall, "😴", asleep=True)
    with pytest.raises(UserError, match="Klaus Mueller is asleep"):
        me.say(klaus.name, "Hello!")
    sim.state.place("Ana", far_corner)
    with pytest.raises(UserError, match="too far away"):
        me.say(maria.name, "Hello!")

    # After a conversation, the pair waits out the cool-down.
    klaus.action = None
    sim.state.place("Ana", sim.world.spawn_of("town entrance"))
    talk = Decision(OptionKind.TALK, partner=klaus.name)
    (chat,) = talking.hold({maria.name: talk}, now)
    assert chat.between == [maria.name, klaus.name]
    assert talking.why_not(maria.name, klaus, now) == "cooling"
    later = now + timedelta(minutes=sim.settings.conversation.cooldown_minutes)
    assert talking.why_not(klaus.name, maria, later) is None
    # What they said is heard by their next talk that day (a line of it is not said again),
    # not by one the day after.
    said = [line.text for line in chat.lines]
    assert said and talking.said_today(klaus.name, maria.name, later.date()) == said
    assert talking.said_today(maria.name, klaus.name, (now + timedelta(days=1)).date()) == []
    sim.close()


def test_only_news_or_someone_to_talk_to_calls_for_a_decision(tmp_path, word_embedder):
    """A resident going about their day whom one may not talk to now, or a thing in such a
    resident's use, brings no `decide` call; a resident's reaction, a thing a user set on
    fire, or someone one may talk to, does."""
    sim, _ = make_sim(tmp_path, word_embedder, hours=0.1)
    thinking, now = sim.town.thinking, sim.now
    maria, klaus = sim.resident("Maria Lopez"), sim.resident("Klaus Mueller")
    hall = "Dorm for Oak Hill College: common room"
    tiles = [t for t in sim.world.tiles_of(hall) if sim.world.is_walkable(t)]
    sim.state.place(maria.name, tiles[0])
    sim.state.place(klaus.name, tiles[1])
    klaus.action = Action("reading a book", now, now + timedelta(hours=1), hall, "📖")
    seen = Event(klaus.name, "is", "reading a book", "Klaus Mueller is reading a book")
    assert thinking._focus(maria, [seen], now) == seen  # they may talk
    sim.town.conversations.cooldowns[pair(maria.name, klaus.name)] = now + timedelta(hours=2)
    assert thinking._focus(maria, [seen], now) is None  # they talked a while ago
    klaus.action.reaction = True  # he stopped reading for something he noticed
    assert thinking._focus(maria, [seen], now) == seen

    tv = next(o for o in sim.world.find(hall).objects.values()).address
    klaus.action = Action("watching TV", now, now + timedelta(hours=1), tv, "📺")
    klaus.action.object_state = "in use"
    sim.state.set_object_state(tv, "in use")
    klaus.using = tv
    used = Event(tv, "is", "in use", f"{tv} is in use")
    assert thinking._focus(maria, [used], now) is None
    sim.state.set_object_state(tv, "on fire")
    fire = Event(tv, "is", "on fire", f"{tv} is on fire")
    assert thinking._focus(maria, [fire], now) == fire
    sim.close()


def test_a_talk_s_news_of_an_event_later_today_re_plans_the_day(tmp_path, word_embedder):
    """Party run of seed 1i: Maria heard of the party on its morning, after her plan was made,
    and never came. The talk's note of an event today takes its hours in the plan, and the
    changed plan is recorded with the step."""
    today = {
        "for_planning": "Isabella's party at Hobbs Cafe today from 5pm to 7pm",
        "memo": "looking forward to it",
    }
    sim, backend = make_sim(tmp_path, word_embedder, scripts={"after_chat": lambda r: today})
    sim.run()
    assert backend.calls("event_item")
    maria = sim.resident("Maria Lopez")
    party = maria.plan.block_at(datetime.combine(maria.plan.day, clock(17, 30)))
    assert party.activity == "at the party at Hobbs Cafe"
    assert (party.start.time(), party.end.time()) == (clock(17), clock(19))
    recorded = [e.plans[maria.name] for e in read_events(sim.directory / EVENTS_FILE) if e.plans]
    assert any("at the party" in b.activity for p in recorded for b in p.blocks)
    sim.close()


def test_a_whole_day_turns_over_with_a_new_plan(tmp_path, word_embedder):
    sim, backend = make_sim(tmp_path, word_embedder, hours=18)
    sim.run()
    assert len(backend.calls("new_day")) == 3  # at midnight, for each resident
    assert len(backend.calls("day_plan")) == 6
    plans = [e.plans for e in read_events(sim.directory / EVENTS_FILE) if e.plans]
    assert len(plans) >= 2
    sim.close()
    # Each has an event or a day of it to come (the party, Valentine's Day): no day is kept.
    counted = run_stats(sim.directory)
    assert (counted.day_plans, counted.kept_plans) == (6, 0)


def test_a_one_person_place_makes_the_next_person_wait(tmp_path, word_embedder):
    bathroom = "Dorm for Oak Hill College: women's one-person bathroom"
    sim, _ = make_sim(tmp_path, word_embedder, hours=0.1)
    world = sim.world
    maria, klaus = sim.resident("Maria Lopez"), sim.resident("Klaus Mueller")
    inside = world.tiles_of(bathroom)
    sim.state.place(maria.name, inside[0])
    shower = next(
        o.address for o in world.arenas if o.address == bathroom for o in o.objects.values()
    )
    sim.town.sandbox.start(klaus, "taking a shower", sim.now, sim.now + timedelta(minutes=10))
    klaus.action.address = shower  # whatever the model chose, this is where Klaus goes
    sim.town.sandbox.walk_to(klaus, shower)
    assert klaus.waiting
    assert "waiting for" in sim.state.event_of(klaus.name).description
    for _ in range(3):
        sim.town.sandbox.move(klaus)
    assert sim.state.tile_of(klaus.name) not in inside
    sim.state.place(maria.name, world.spawn_of(maria.name))  # she leaves
    sim.town.sandbox.move(klaus)
    assert not klaus.waiting
    assert sim.state.event_of(klaus.name).description == "Klaus Mueller is taking a shower"
    sim.close()


def test_an_object_set_by_the_user_is_noticed_next_step(tmp_path, word_embedder):
    sim, _ = make_sim(tmp_path, word_embedder, hours=0.5)
    klaus = sim.resident("Klaus Mueller")
    here = sim.world.place_at(sim.state.tile_of(klaus.name))
    while here.arena is None or klaus.path:  # until Klaus stands in a room
        sim.run(until_step=sim.step_no + 1)
        here = sim.world.place_at(sim.state.tile_of(klaus.name))
    arena = sim.world.find(f"{here.sector}: {here.arena}")
    thing = next(iter(arena.objects.values())).address
    sim.state.set_object_state(thing, "is on fire")
    sim.run(until_step=sim.step_no + 1)
    seen = [r.description for r in klaus.agent.stream.recent(5)]
    assert any(d.endswith("is on fire") for d in seen)
    sim.close()


RUNNER = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {tests!r})
    from pathlib import Path
    from conftest import WordEmbedder
    from scripted_town import SCRIPTS, enum
    from simulacra.llm import open_model
    from simulacra.llm.scripted import ScriptedModel
    from simulacra.settings import Settings
    from simulacra.sim.simulation import Simulation

    out, mode = Path(sys.argv[1]), sys.argv[2]
    settings = Settings()
    settings.llm.cache = False
    settings.sim.checkpoint_every = 7
    model = open_model(settings.llm, completer=ScriptedModel(SCRIPTS))
    if mode.startswith("new"):
        sim = Simulation.create(Path({world!r}), out, hours=1.5, settings=settings,
                                model=model, embedder=WordEmbedder())
    else:
        sim = Simulation.resume(out, model=model, embedder=WordEmbedder())

    def pause(report):
        if mode == "new-slow":  # slow enough to be killed mid-way
            time.sleep(0.005)

    sim.run(on_step=pause)
    sim.close()
    """
)


def runner(*args):
    script = RUNNER.format(tests=str(Path(__file__).parent), world=str(WORLD))
    return [sys.executable, "-c", script, *map(str, args)]


def steps_of(directory: Path) -> list[int]:
    return [e.step for e in read_events(directory / EVENTS_FILE)]


def test_sigkill_then_resume_finishes_the_run_exactly(tmp_path):
    reference = tmp_path / "reference"
    subprocess.run(runner(reference, "new"), check=True, timeout=300)

    killed = tmp_path / "killed"
    proc = subprocess.Popen(runner(killed, "new-slow"))
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if (killed / EVENTS_FILE).exists() and len(steps_of(killed)) > 150:
            break
        time.sleep(0.01)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert len(steps_of(killed)) < len(steps_of(reference)), "killed before the end"

    subprocess.run(runner(killed, "resume"), check=True, timeout=300)
    steps = steps_of(killed)
    assert steps == list(range(len(steps_of(reference))))  # none missing, none repeated
    # Deterministic: the resumed run is the uninterrupted one, line for line.
    assert (killed / EVENTS_FILE).read_text() == (reference / EVENTS_FILE).read_text()


CLI = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {tests!r})
    from conftest import WordEmbedder
    from scripted_town import SCRIPTS
    import simulacra.sim.engine as engine
    import simulacra.sim.simulation as simulation
    from simulacra.llm import open_model
    from simulacra.llm.scripted import ScriptedModel

    def scripted(settings, log_dir=None, **_):
        settings = settings.model_copy(update={{"cache": False}})
        return open_model(settings, completer=ScriptedModel(SCRIPTS), log_dir=log_dir)

    simulation.open_model = scripted
    simulation.open_embedder = lambda *a, **k: WordEmbedder()
    step = engine.Engine.step

    def slow(self, sink):  # slow enough to be stopped mid-way
        time.sleep(0.01)
        return step(self, sink)

    engine.Engine.step = slow
    from simulacra.cli import main
    main(sys.argv[1:])
    """
)


def test_sigterm_stops_a_run_at_a_checkpoint_and_says_where(tmp_path, word_embedder):
    """What timeout, systemd and docker stop send: handled as Ctrl-C, not a sudden death."""
    run = tmp_path / "run"
    script = CLI.format(tests=str(Path(__file__).parent))
    proc = subprocess.Popen(
        [sys.executable, "-c", script, "run", WORLD, "--hours", "1.5", "--out", run],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not (run / EVENTS_FILE).exists() or len(steps_of(run)) < 5:
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.01)
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    stopped = re.search(r"stopped \(SIGTERM\) at .+, step (\d+)/540", out)
    assert stopped, out
    assert f"simulacra run --resume {run}" in " ".join(out.split())
    step = int(stopped.group(1))
    assert steps_of(run) == list(range(step))
    settings = Settings()
    settings.llm.cache = False
    model = open_model(settings.llm, completer=ScriptedModel(SCRIPTS))
    sim = Simulation.open(run, model=model, embedder=word_embedder)
    assert sim.step_no == step  # checkpointed where it said
    sim.close()


SET_UP_KILLED = textwrap.dedent(
    """
    import os, signal, sys
    sys.path.insert(0, {tests!r})
    from pathlib import Path
    from conftest import WordEmbedder
    from scripted_town import SCRIPTS
    from simulacra.llm import open_model
    from simulacra.llm.scripted import ScriptedModel
    from simulacra.settings import Settings
    from simulacra.sim import simulation

    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    if sys.argv[2] == "meta":
        write_json = simulation.rundir.write_json
        simulation.rundir.write_json = lambda path, data, **kw: (
            die() if path.name == "meta.json" else write_json(path, data, **kw)
        )
    elif sys.argv[2] == "memories":
        simulation.MemoryStore = die
    else:
        simulation.Simulation.checkpoint = die
    settings = Settings()
    settings.llm.cache = False
    model = open_model(settings.llm, completer=ScriptedModel(SCRIPTS))
    simulation.Simulation.create(Path({world!r}), Path(sys.argv[1]), hours=0.1,
                                 settings=settings, model=model, embedder=WordEmbedder())
    """
)


@pytest.mark.parametrize("killed_before", ["meta", "memories", "checkpoint"])
def test_a_run_killed_while_being_set_up_says_nothing_was_simulated(tmp_path, killed_before):
    """Killed before meta.json, between it and memory.sqlite, or between that and the first
    checkpoint: nothing was simulated, and that is what a resume says, and how to start again."""
    from hostile_helpers import cli, fingerprint

    run = tmp_path / "run"
    script = SET_UP_KILLED.format(tests=str(Path(__file__).parent), world=str(WORLD))
    killed = subprocess.run([sys.executable, "-c", script, run, killed_before], timeout=120)
    assert killed.returncode == -signal.SIGKILL
    assert (run / "memory.sqlite").exists() == (killed_before == "checkpoint")

    def saved():  # what the set-up wrote to keep (the databases may roll back a transaction)
        return {k: v for k, v in fingerprint(run).items() if k.startswith(("meta", "world"))}

    before = saved()
    for args in (["run", "--resume", run], ["whisper", run, "Maria", "I will paint"]):
        line = cli(*args).one_line_error()
        assert "nothing was simulated" in line and "stopped while being set up" in line
        assert "start" in line and "again" in line
        if killed_before != "meta":
            assert f"simulacra run {WORLD} --out {run} --hours 0.1;" in line
        assert "gone" not in line
    assert saved() == before and not (run / EVENTS_FILE).exists()


def test_fork_copies_a_run_that_then_continues_on_its_own(tmp_path, word_embedder):
    sim, _ = make_sim(tmp_path, word_embedder, hours=0.5)
    sim.run(until_step=40)
    sim.close()
    rundir.fork(tmp_path / "run", tmp_path / "fork")
    meta = json.loads((tmp_path / "fork" / "meta.json").read_text())
    assert meta["forked_from"] == str((tmp_path / "run").resolve())
    settings = Settings()
    settings.llm.cache = False
    forked = Simulation.resume(
        tmp_path / "fork",
        model=open_model(settings.llm, completer=ScriptedModel(SCRIPTS)),
        embedder=word_embedder,
    )
    assert forked.step_no == 40
    forked.run()
    forked.close()
    assert steps_of(tmp_path / "fork") == list(range(180))
    assert steps_of(tmp_path / "run") == list(range(40))


def create_with(tmp_path, word_embedder, agents):
    settings = Settings()
    settings.llm.cache = False
    model = open_model(settings.llm, completer=ScriptedModel(SCRIPTS))
    return Simulation.create(
        WORLD,
        tmp_path / "r",
        hours=0.1,
        settings=settings,
        model=model,
        embedder=word_embedder,
        agents=agents,
    )


def test_agents_can_be_chosen(tmp_path, word_embedder):
    sim = create_with(tmp_path, word_embedder, ["Maria Lopez"])
    assert list(sim.residents) == ["Maria Lopez"]
    sim.close()


def test_a_run_can_start_at_another_time_than_its_scenario(tmp_path, word_embedder):
    settings = Settings()
    settings.llm.cache = False
    model = open_model(settings.llm, completer=ScriptedModel(SCRIPTS))
    start = datetime(2023, 2, 14, 16, 0)
    sim = Simulation.create(
        WORLD, tmp_path / "r", hours=0.01, settings=settings, model=model,
        embedder=word_embedder, start=start,
    )  # fmt: skip
    sim.run()
    sim.close()
    assert rundir.read_meta(tmp_path / "r").start == start
    first = next(read_events(tmp_path / "r" / EVENTS_FILE))
    assert first.time == start and first.memories  # the seed memories, made at the start


def test_an_unknown_agent_is_named_with_the_fix(tmp_path, word_embedder):
    from simulacra.errors import UserError

    with pytest.raises(UserError, match="no resident named 'maria lopez'.*Maria Lopez"):
        create_with(tmp_path, word_embedder, ["maria lopez", "Klaus Mueller"])


def test_a_step_with_someone_goes_where_they_are(tmp_path, word_embedder):
    """Seed 1q: Maria was "studying with Klaus Mueller for help" and "eating lunch and chatting
    with Klaus Mueller" in rooms he was not in, seven times on one day."""
    sim, _ = make_sim(tmp_path, word_embedder, hours=0.1)
    sim.run()
    thinking = sim.town.thinking
    maria, klaus = sim.resident("Maria Lopez"), sim.resident("Klaus Mueller")
    now = klaus.action.start
    library = "Oak Hill College: library"
    klaus.action = Action("reading", now, now, f"{library}: library tables", "📖")
    rooms = thinking.rooms()
    assert thinking.company(maria, ("studying with Klaus Mueller for help", ""), rooms) == library
    assert thinking.company(maria, ("reading", "studying with Klaus Mueller"), rooms) == library
    assert thinking.company(maria, ("going to Klaus Mueller's house", ""), rooms) is None
    assert thinking.company(maria, ("studying alone", ""), rooms) is None
    # Party seed 2x: one who moves on in this step is not where their last step was.
    moving = thinking.rooms(moving={klaus.name})
    assert thinking.company(maria, ("studying with Klaus Mueller for help", ""), moving) is None
    restroom = "Hobbs Cafe: one-person restroom"  # seed 3u: she followed him in
    klaus.action = Action("washing his hands", now, now, f"{restroom}: washbasin", "🚿")
    rooms = thinking.rooms()
    assert rooms["Klaus Mueller"] == restroom
    assert thinking.company(maria, ("studying with Klaus Mueller", ""), rooms) is None
    klaus.action = Action("talking", now, now, "", "💬", partner=maria.name)  # on the street
    rooms = thinking.rooms()
    assert rooms["Klaus Mueller"] is None
    own = "Dorm for Oak Hill College: Klaus Mueller's room"
    klaus.action = Action("reading", now, now, f"{own}: desk", "📖")  # not hers to walk into
    rooms = thinking.rooms()
    assert thinking.company(maria, ("studying with Klaus Mueller", ""), rooms) is None
    tile = sim.town.sandbox.state.tile_of(maria.name)
    offered = sim.town.sandbox.places.candidates(maria, "studying", tile, library)
    assert offered.places and all(p.startswith(f"{library}: ") for p in offered.places)
    # Seed 3t: "discussing the paper with Maria Lopez", a later step of Klaus's block
    # "writing at Hobbs Cafe", stayed at the cafe while she was at the college.
    maria.action = Action("reading", now, now, f"{library}: library tables", "📖")
    block = next(b for b in klaus.plan.blocks if not is_sleeping(b.activity))
    later = block.start + timedelta(minutes=10)
    klaus.action = Action("writing", later, later, "Hobbs Cafe: cafe: cafe tables", "✍️")
    rooms = thinking.rooms()
    talk = "discussing the paper with Maria Lopez"
    assert thinking.step_placing(klaus, later, talk, rooms) == Placing(within=library)
    assert thinking.step_placing(klaus, later, "writing", rooms).within == "Hobbs Cafe"
    sim.close()


def test_act_is_told_the_room_not_the_thing_one_is_at(tmp_path, word_embedder):
    """Told Klaus was at the dorm kitchen's refrigerator, the 1.5B placed his next step there
    again in 5 of 5 samples (party seed 2s): ``act`` is told the room. A block's first step is
    not told where the resident is: told, Maria streamed games at the classroom's blackboard
    (stop 67)."""

    def decompose(request):
        if "library" not in request.variables["activity"]:
            return SCRIPTS["decompose"](request)
        steps = ["sitting down", "taking notes", "reading about gentrification"]
        return {"involves": "reading", "steps": [{"activity": a, "minutes": 15} for a in steps]}

    settings = Settings()
    settings.plan.stay_at_place = False  # the later steps asked, as those naming a thing twice are
    sim, backend = make_sim(tmp_path, word_embedder, 2, {"decompose": decompose}, settings)
    sim.run()
    world = sim.town.sandbox.world
    asked = backend.calls("act")
    untold = [r for r in asked if r.variables["here"] is None]
    told = [r.variables["here"] for r in asked if r.variables["here"] is not None]
    assert untold and told
    assert not [here for here in told if isinstance(world.find(here), GameObject)]
    sim.close()
