"""Typed state: every part that outlives a restart round-trips through JSON into a fresh part
(as Concordia tests its components), and a run made before the checkpoint had a version
(tests/data/run-v0) still resumes."""

from __future__ import annotations

import ast
import json
import shutil
import sqlite3
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from conftest import WordEmbedder
from hostile_helpers import cli, saved_json
from pydantic import BaseModel
from scripted_town import SCRIPTS

from simulacra.agent import GenerativeAgent
from simulacra.cognition.dialogue import Line
from simulacra.cognition.plan import PlanItem, PlanStep
from simulacra.feed.agent import FeedAgent, FeedAgentState, FeedState
from simulacra.llm import open_model
from simulacra.llm.scripted import ScriptedModel
from simulacra.memory import MemoryStore
from simulacra.settings import Settings
from simulacra.sim import checkpoint, rundir
from simulacra.sim.avatar import Avatar
from simulacra.sim.conversation import Talked
from simulacra.sim.interact import Interactions
from simulacra.sim.savedstate import saved_checkpoint
from simulacra.sim.simulation import Simulation
from simulacra.world import load_world

PACKAGE = Path(__file__).resolve().parent.parent / "simulacra"
RUN_V0 = Path(__file__).parent / "data" / "run-v0"
ISABELLA, MARIA, KLAUS = "Isabella Rodriguez", "Maria Lopez", "Klaus Mueller"


def scripted_model():
    settings = Settings()
    settings.llm.cache = False
    return open_model(settings.llm, completer=ScriptedModel(SCRIPTS))


def run_v0(target: Path) -> Path:
    shutil.copytree(RUN_V0, target)
    return target


# ------------------------------------------------------------------ the parts, round-tripped


@pytest.fixture(scope="module")
def town(tmp_path_factory):
    """The version-0 run resumed and stepped on, with a user action not yet logged: a town
    whose every part holds something (plans with steps, actions, a cool-down, the avatar in
    a conversation, decisions, perception), and a copy of its directory."""
    directory = run_v0(tmp_path_factory.mktemp("state") / "run")
    sim = Simulation.resume(directory, model=scripted_model(), embedder=WordEmbedder())
    sim.run(until_step=sim.step_no + 12)
    # The lines of Klaus and Maria's talk before the checkpoint, which a run of version 0 did
    # not keep.
    said = Talked(between=(KLAUS, MARIA), day=date(2023, 2, 13), lines=["Good morning, Maria!"])
    sim.town.conversations.restore_said([said])
    Interactions(sim).set_object("Hobbs Cafe: cafe: piano", "is out of tune")  # checkpoints
    copy = tmp_path_factory.mktemp("state") / "copy"
    rundir.fork(directory, copy)
    yield sim, copy
    sim.close()


@pytest.fixture
def fresh(town):
    """A simulation built on the copy as Simulation.open builds one, before its state is
    set: every part in its first state."""
    _, directory = town
    meta = rundir.read_meta(directory)
    settings = rundir.settings_of(meta, directory)
    world = load_world(rundir.world_path(directory, meta))
    sim = Simulation(directory, meta, world, settings, scripted_model(), WordEmbedder())
    yield sim
    sim.close()


def feed_agents(sim: Simulation, fresh: Simulation) -> tuple[FeedAgent, FeedAgent]:
    """A feed agent with a cursor, a wake-up and folded memories, and a fresh one."""
    resident = sim.resident(MARIA)
    agents = []
    for s in (sim, fresh):
        stream = s.resident(MARIA).agent.stream
        persona = s.resident(MARIA).persona.persona()
        agents.append(FeedAgent(persona, stream, s.model, s.settings, now=datetime(2023, 2, 13)))
    feed = FeedState(
        cursor=("2023-02-13 09:30:00", 7), next_wake=datetime(2023, 2, 13, 10), folded=[2, 3]
    )
    source_state = resident.agent.get_state().model_dump()
    agents[0].set_state(FeedAgentState(**source_state, feed=feed))
    agents[0].stream.hidden = {2, 3}
    return agents[0], agents[1]


PARTS = {
    # name: (the part in the stepped town, the same part in the fresh one)
    "simulation": lambda sim, fresh: (sim, fresh),
    "town": lambda sim, fresh: (sim.town, fresh.town),
    "world": lambda sim, fresh: (sim.state, fresh.state),
    "resident": lambda sim, fresh: (sim.resident(ISABELLA), fresh.resident(ISABELLA)),
    "agent": lambda sim, fresh: (sim.resident(ISABELLA).agent, fresh.resident(ISABELLA).agent),
    "spatial": lambda sim, fresh: (sim.resident(KLAUS).spatial, fresh.resident(KLAUS).spatial),
    "perception": lambda sim, fresh: (
        sim.resident(ISABELLA).perception,
        fresh.resident(ISABELLA).perception,
    ),
    "avatar": lambda sim, fresh: (sim.town.user.avatar, Avatar("Someone Else")),
    "feed agent": feed_agents,
}
COVERS = {
    "Simulation",
    "Town",
    "WorldState",
    "Resident",
    "GenerativeAgent",
    "SpatialMemory",
    "Perception",
    "Avatar",
    "FeedAgent",
}


@pytest.mark.parametrize("name", list(PARTS))
def test_every_stateful_part_round_trips_into_a_fresh_one(town, fresh, name):
    sim, _ = town
    part, blank = PARTS[name](sim, fresh)
    state = part.get_state()
    assert isinstance(state, BaseModel)
    assert blank.get_state() != state  # the fresh part starts elsewhere
    text = state.model_dump_json()
    again = type(state).model_validate_json(text)
    assert again == state
    blank.set_state(again)
    assert blank.get_state() == state
    assert blank.get_state().model_dump_json() == text


def test_the_round_trip_covers_every_class_with_state():
    found = set()
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                isinstance(f, ast.FunctionDef) and f.name == "get_state" for f in node.body
            ):
                found.add(node.name)
    assert found - {"Stateful"} == COVERS  # the protocol itself (simulacra/state.py)


def test_the_stepped_town_holds_something_in_every_part(town):
    sim, _ = town
    state = sim.get_state().town
    assert [c.between for c in state.cooldowns] == [(KLAUS, MARIA)]
    assert [s.between for s in state.said] == [(KLAUS, MARIA)]
    assert state.avatar is not None and state.avatar.lines[0] == Line(
        "Ana", state.avatar.lines[0].text
    )
    assert [a.kind for a in state.actions] == ["set"]
    isabella = state.residents[ISABELLA]
    assert isabella.action is not None and isabella.last_decision and isabella.perception.recent
    assert any(isinstance(s, PlanStep) for b in isabella.plan.blocks for s in b.steps)
    assert isabella.agent.ratings and isabella.agent.summary is not None


# ------------------------------------------------------------------ checkpoints of version 0


def test_a_run_made_before_the_typed_checkpoint_resumes(tmp_path):
    directory = run_v0(tmp_path / "run")
    assert "version" not in saved_json(directory)
    sim = Simulation.resume(directory, model=scripted_model(), embedder=WordEmbedder())
    assert sim.step_no == 113
    town = sim.town
    assert town.conversations.cooldowns == {(KLAUS, MARIA): datetime(2023, 2, 13, 7, 38, 50)}
    assert town.user.avatar.lines[0] == Line("Ana", "Hello, what are you up to?")
    assert town.user.avatar.partner == ISABELLA
    steps = town.residents[ISABELLA].plan.blocks[2].steps
    assert steps[0] == PlanStep(
        "working at the counter of Hobbs Cafe", datetime(2023, 2, 13, 7), 40
    )
    assert town.residents[ISABELLA].last_decision == {"Ana": datetime(2023, 2, 13, 7, 17)}
    assert [a.kind for a in town.user.actions] == ["set", "say"]  # logged with the next step
    assert town.residents[MARIA].asleep and not town.residents[KLAUS].asleep
    assert all(isinstance(item, PlanItem) for item in town.residents[KLAUS].plan.outline)
    assert town.residents[KLAUS].plan.outline[1].activity == "having breakfast"
    sim.run(until_step=116)
    sim.close()
    assert saved_json(directory)["version"] == checkpoint.VERSION
    again = Simulation.open(directory, model=scripted_model(), embedder=WordEmbedder())
    assert again.step_no == 116
    assert again.town.conversations.cooldowns == {(KLAUS, MARIA): datetime(2023, 2, 13, 7, 38, 50)}
    again.close()


def test_readers_read_a_checkpoint_of_version_0():
    saved = saved_checkpoint(RUN_V0)
    assert saved is not None and saved.step == 113 and saved.memories[ISABELLA] == 10


def test_a_checkpoint_of_a_newer_simulacra_is_one_line(tmp_path):
    directory = run_v0(tmp_path / "run")
    state = saved_json(directory)
    state["version"] = 99
    with sqlite3.connect(directory / "memory.sqlite") as db:
        db.execute("UPDATE state SET value = ? WHERE key = 'checkpoint'", (json.dumps(state),))
    line = cli("run", "--resume", directory, "--hours", "0.1").one_line_error()
    assert "memory.sqlite: its checkpoint is of version 99" in line and "newer simulacra" in line


def test_an_agent_saved_before_typed_state_opens(tmp_path, word_embedder):
    """A feed agent's state as simulacra wrote it by hand: ISO times, the cursor a list."""
    from simulacra.persona import Persona

    persona = Persona(name="Ada Byron", age=36, innate="curious", learned="", currently="")
    old = {
        "now": "2023-02-13T09:00:00",
        "status": "going about the day",
        "currently": "writing a letter",
        "importance_since_reflection": 12,
        "summary": None,
        "summary_at": None,
        "feed": {"cursor": ["2023-02-13 08:55:00", 4], "next_wake": "2023-02-13T09:30:00"},
    }
    store = MemoryStore(tmp_path)
    store.save_state("Ada Byron", old)
    store.commit()
    store.close()
    (tmp_path / "persona.toml").write_text('name = "Ada Byron"\n')
    agent = FeedAgent._build(tmp_path, persona, None, None, scripted_model(), word_embedder)
    assert agent.now == datetime(2023, 2, 13, 9) and agent.currently == "writing a letter"
    assert agent.cursor == ("2023-02-13 08:55:00", 4)
    assert agent.next_wake - agent.now == timedelta(minutes=30)
    assert agent.ratings == {} and agent.stream.hidden == set()
    agent.close()


def test_a_damaged_agent_state_is_one_line(tmp_path, word_embedder):
    from simulacra.errors import UserError
    from simulacra.persona import Persona

    persona = Persona(name="Ada Byron", age=36, innate="curious", learned="", currently="")
    store = MemoryStore(tmp_path)
    store.save_state("Ada Byron", {"now": "yesterday"})
    store.commit()
    store.close()
    with pytest.raises(UserError, match=r"memory.sqlite: damaged: the saved state of Ada Byron"):
        GenerativeAgent._build(tmp_path, persona, None, None, scripted_model(), word_embedder)
