"""The event log: typed step records, read strictly (a gap or a bad line is a one-line error
naming the file and line), a resume that cuts only what it may, and runs of the untyped
version 1 still readable."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from scripted_town import SCRIPTS

from simulacra.cli import main
from simulacra.cli.app import cli
from simulacra.errors import UserError
from simulacra.llm import open_model
from simulacra.llm.scripted import ScriptedModel
from simulacra.memory import Kind
from simulacra.settings import Settings
from simulacra.sim.eventlog import EVENTS_FILE, EventLog, read_events
from simulacra.sim.record import VERSION
from simulacra.sim.simulation import Simulation
from simulacra.viewer.server import ViewerServer

ROOT = Path(__file__).resolve().parent.parent
WORLD = ROOT / "worlds" / "smallville-3"
FIXTURES = Path(__file__).parent / "fixtures"


def new_run(tmp_path, word_embedder, hours=0.1, name="run") -> Simulation:
    settings = Settings()
    settings.llm.cache = False
    settings.sim.checkpoint_every = 10
    model = open_model(settings.llm, completer=ScriptedModel(SCRIPTS))
    return Simulation.create(
        WORLD, tmp_path / name, hours=hours, settings=settings, model=model, embedder=word_embedder
    )


def resume(directory, word_embedder) -> Simulation:
    settings = Settings()
    settings.llm.cache = False
    model = open_model(settings.llm, completer=ScriptedModel(SCRIPTS))
    return Simulation.resume(directory, model=model, embedder=word_embedder)


@pytest.fixture
def stopped(tmp_path, word_embedder) -> Path:
    """A run stopped at step 40 (checkpoint at 40), with 36 steps of records."""
    sim = new_run(tmp_path, word_embedder)
    sim.run(until_step=40)
    sim.close()
    (tmp_path / "run" / "calls.jsonl").touch()  # the scripted model kept no call log
    return tmp_path / "run"


def lines(run: Path) -> list[bytes]:
    return (run / EVENTS_FILE).read_bytes().splitlines(keepends=True)


def test_records_are_typed_and_written_once_per_step(stopped):
    records = list(read_events(stopped / EVENTS_FILE))
    assert [r.step for r in records] == list(range(40))
    first = records[0]
    isabella = first.agents["Isabella Rodriguez"]
    assert isabella.description == f"Isabella Rodriguez is {isabella.activity}"
    assert isabella.emoji_word and isabella.place
    plan = first.plans["Isabella Rodriguez"]
    assert plan.day == "Monday February 13, 2023"
    assert plan.blocks[0].activity == "sleeping" and plan.blocks[-1].end.hour == 0
    assert all(a.end == b.start for a, b in zip(plan.blocks, plan.blocks[1:], strict=False))


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda ls: ls[:10] + ls[15:], r"line 11 holds step 15 where step 10 was due"),
        (lambda ls: ls[:10] + [b"garbage\n"] + ls[11:], r"line 11 is not JSON"),
        (lambda ls: ls[:10] + [b"{}\n"] + ls[11:], r"line 11 is not a step record"),
        (lambda ls: ls[:10] + [ls[9]] + ls[10:], r"line 11 holds step 9 .* a step is repeated"),
    ],
)
def test_a_gap_or_a_bad_line_is_named_and_resume_changes_nothing(
    stopped, word_embedder, capsys, damage, message
):
    path = stopped / EVENTS_FILE
    path.write_bytes(b"".join(damage(lines(stopped))))
    before = path.read_bytes()
    with pytest.raises(UserError, match=message) as read:
        list(read_events(path))
    assert str(path) in str(read.value) and "restore events.jsonl" in str(read.value)
    with pytest.raises(UserError, match=message):
        resume(stopped, word_embedder)
    assert path.read_bytes() == before  # nothing it could not read was cut away
    for command in ("log", "stats", "report"):
        code, err = run_cli(capsys, command, str(stopped))
        assert code == 2 and err.startswith("error: ") and "line 11" in err
        assert len(err.strip().splitlines()) == 1


def run_cli(capsys, *args: str) -> tuple[int, str]:
    """The command as a user runs it: exit code and what it said on stderr."""
    capsys.readouterr()
    try:
        main(list(args))
        code = 0
    except SystemExit as e:
        code = e.code
    return code, capsys.readouterr().err


def test_a_log_cut_short_before_the_checkpoint_is_an_error(stopped, word_embedder):
    path = stopped / EVENTS_FILE
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # a truncated file: the tail of a line too
    with pytest.raises(UserError, match=r"ends at step \d+, but the checkpoint is at step 40"):
        resume(stopped, word_embedder)
    assert path.read_bytes() == data[: len(data) // 2]


def test_only_a_torn_last_line_is_cut_and_that_is_said(stopped, word_embedder):
    path = stopped / EVENTS_FILE
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"v":2,"step":40,"ti')  # a kill while writing step 40
    assert [r.step for r in read_events(path)] == list(range(40))  # readers skip it
    sim = resume(stopped, word_embedder)
    assert path.read_bytes() == whole
    assert len(sim.said) == 1 and "torn last line" in sim.said[0]
    sim.run(until_step=45)
    sim.close()
    assert [r.step for r in read_events(path)] == list(range(45))


def test_resume_cuts_the_steps_logged_after_the_checkpoint(stopped, word_embedder):
    path = stopped / EVENTS_FILE
    whole = lines(stopped)
    extra = [
        line.replace(b'"step":%d,' % (3 + i), b'"step":%d,' % (40 + i))
        for i, line in enumerate(whole[3:6])
    ]
    path.write_bytes(b"".join(whole + extra))
    sim = resume(stopped, word_embedder)
    sim.close()
    assert sim.said == [] and lines(stopped) == whole


def test_seed_memories_are_logged_when_step_0_was_killed(tmp_path, word_embedder):
    sim = new_run(tmp_path, word_embedder)
    seeds = {name: len(r.persona.seed_memories()) for name, r in sim.residents.items()}
    sim.close()  # as if killed during step 0: checkpoint at step 0, no event written
    assert not (tmp_path / "run" / EVENTS_FILE).exists()
    sim = resume(tmp_path / "run", word_embedder)
    sim.run(until_step=1)
    sim.close()
    (first,) = read_events(tmp_path / "run" / EVENTS_FILE)
    for name, n in seeds.items():
        seeded = [m for m in first.memories[name] if m.kind == Kind.OBSERVATION.value]
        assert len(seeded) >= n > 1


def test_a_run_of_version_1_still_opens_everywhere(tmp_path):
    run = tmp_path / "old"
    run.mkdir()
    for name in ("meta.json", "world.json", "calls.jsonl"):
        shutil.copy(FIXTURES / "run-smallville-3" / name, run / name)
    shutil.copy(FIXTURES / "events-v1.jsonl", run / EVENTS_FILE)
    records = list(read_events(run / EVENTS_FILE))
    assert len(records) == 180
    talk = next(r for r in records if r.chats)
    assert talk.agents["Maria Lopez"].activity == "talking with Isabella Rodriguez"
    assert talk.agents["Maria Lopez"].emoji_word == "talk"
    plan = records[0].plans["Maria Lopez"]
    assert plan.blocks[-1].activity == "sleeping" and plan.blocks[-1].end.day == 14
    for command in (["log", str(run)], ["stats", str(run)], ["report", str(run)]):
        done = CliRunner().invoke(cli, command)
        assert done.exit_code == 0, done.output
    with ViewerServer(run) as viewer:  # the page gets the records of today
        served = json.loads(viewer.events_from(0, 2))["events"]
    assert served[0] == json.loads(records[0].line()) and served[0]["v"] == VERSION


def test_cut_keeps_the_bytes_it_read(tmp_path):
    path = tmp_path / EVENTS_FILE
    assert EventLog.cut(path, 0) == []
    with pytest.raises(UserError, match="the event log is missing"):
        EventLog.cut(path, 3)
