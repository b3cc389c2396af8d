"""simulacra play: the user's actions on a running town, the avatar, the local API that
takes them only from the page it served, and the page in a real Chromium. The scripted
town stands in for the model (one test at the end runs the real small model)."""

from __future__ import annotations

import http.client
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import WordEmbedder
from scripted_town import SCRIPTS
from test_viewer import browser  # noqa: F401 (the fixture)

from simulacra.errors import UserError
from simulacra.llm import open_model
from simulacra.llm.scripted import ScriptedModel
from simulacra.memory import Kind
from simulacra.settings import Settings
from simulacra.sim import rundir
from simulacra.sim.eventlog import EVENTS_FILE, read_events
from simulacra.sim.interact import Interactions
from simulacra.sim.live import LiveRun
from simulacra.sim.simulation import Simulation
from simulacra.viewer.server import TOKEN_HEADER, ViewerServer

ROOT = Path(__file__).resolve().parent.parent
WORLD = ROOT / "worlds" / "smallville-3"
ARTIFACTS = ROOT / "test-artifacts"
ISABELLA = "Isabella Rodriguez"
SCRIPTED = {
    **SCRIPTS,
    "interview": lambda request: {"answer": "I'm planning a Valentine's Day party at the cafe."},
}


def scripted_model():
    settings = Settings()
    settings.llm.cache = False
    return open_model(settings.llm, completer=ScriptedModel(SCRIPTED))


@pytest.fixture(scope="module")
def morning(tmp_path_factory) -> Path:
    """smallville-3 run (scripted) until Isabella stands at her cafe counter; closed."""
    settings = Settings()
    settings.llm.cache = False
    directory = tmp_path_factory.mktemp("play") / "run"
    sim = Simulation.create(
        WORLD,
        directory,
        hours=1,
        settings=settings,
        model=scripted_model(),
        embedder=WordEmbedder(),
    )
    while sim.step_no < 10 or sim.resident(ISABELLA).path:
        sim.run(until_step=sim.step_no + 1)
    sim.close()
    return directory


@pytest.fixture
def sim(morning, tmp_path):
    """The morning run, a copy of it for this test, resumed."""
    directory = tmp_path / "run"
    rundir.fork(morning, directory)
    opened = Simulation.resume(directory, model=scripted_model(), embedder=WordEmbedder())
    yield opened
    opened.close()


def next_to(sim, name: str) -> tuple[int, int]:
    x, y = sim.state.tile_of(name)
    for tile in ((x, y + 1), (x + 1, y), (x - 1, y), (x, y - 1)):
        if sim.world.is_walkable(tile):
            return tile
    raise AssertionError(f"no free tile next to {name}")


def walk_over(sim, me: Interactions, name: str) -> None:
    me.walk_to(next_to(sim, name))
    while sim.town.avatar.path:
        sim.run(until_step=sim.step_no + 1)
    sim.run(until_step=sim.step_no + 1)  # they see each other


def events(sim) -> list:
    return list(read_events(sim.directory / EVENTS_FILE))


# --------------------------------------------------------------------------- the actions


def test_the_avatar_enters_walks_and_is_perceived(sim):
    me = Interactions(sim)
    assert me.enter("Ana") == sim.world.spawn_of("town entrance")
    walk_over(sim, me, ISABELLA)
    seen = [m.description for m in sim.resident(ISABELLA).agent.stream]
    assert "Ana is standing by the cafe counter" in seen
    log = events(sim)
    kinds = [a.kind for e in log for a in e.actions]
    assert kinds == ["enter", "move"]
    assert log[-1].avatar.name == "Ana" and log[-1].avatar.tile == next_to(sim, ISABELLA)
    assert "Ana" not in log[-1].agents  # the residents' records stay the residents'


def test_talk_answers_from_memory_and_remembers_only_when_asked(sim):
    me = Interactions(sim)
    stream = sim.resident(ISABELLA).agent.stream
    before = len(stream)
    got = me.talk(ISABELLA, "a news reporter", "What are you planning?", remember=False)
    assert "Valentine" in got.answer
    assert any("party" in m for m in got.memories)  # the memories it answered from
    assert len(stream) == before
    me.talk(ISABELLA, "Isabella's friend", "Who is coming?", remember=True)
    assert any(r.kind is Kind.CHAT and "Who is coming?" in r.description for r in stream)
    sim.run(until_step=sim.step_no + 1)
    (talk, kept) = events(sim)[-1].actions
    assert (talk.kind, talk.by, talk.to, talk.remembered) == (
        "talk",
        "a news reporter",
        ISABELLA,
        False,
    )
    assert kept.remembered and kept.by == "Isabella's friend"


def test_setting_an_object_is_logged_and_noticed_nearby(sim):
    me = Interactions(sim)
    address, state = me.set_object("Hobbs Cafe: cafe: piano", "is playing by itself")
    assert (address, state) == ("Hobbs Cafe: cafe: piano", "playing by itself")
    sim.run(until_step=sim.step_no + 1)
    last = events(sim)[-1]
    assert last.objects[address] == state
    assert last.actions[0].kind == "set" and last.actions[0].to == address
    seen = [m.description for m in sim.resident(ISABELLA).agent.stream]
    assert "piano is playing by itself" in seen


def test_whisper_is_logged(sim):
    me = Interactions(sim)
    said = me.whisper(ISABELLA, "I should bake a cake for the party")
    sim.run(until_step=sim.step_no + 1)
    (action,) = events(sim)[-1].actions
    assert (action.kind, action.to, action.text) == ("whisper", ISABELLA, said)


def test_saying_a_line_gets_an_answer_and_both_keep_the_conversation(sim):
    me = Interactions(sim)
    me.enter("Ana")
    with pytest.raises(UserError, match="too far away"):
        me.say(ISABELLA, "Hello!")
    walk_over(sim, me, ISABELLA)
    got = me.say(ISABELLA, "Hello Isabella, anything on this week?")
    assert "Valentine's Day party" in got.reply and not got.ended
    assert sim.resident(ISABELLA).talking  # she stopped to talk
    me.leave()
    stream = sim.resident(ISABELLA).agent.stream
    chats = [r for r in stream if r.kind is Kind.CHAT and r.object == "Ana"]
    assert chats and "anything on this week?" in chats[-1].description
    sim.run(until_step=sim.step_no + 1)
    last = events(sim)[-1]
    assert [a.kind for a in last.actions] == ["say", "leave"]
    (chat,) = last.chats
    assert chat.between == ["Ana", ISABELLA]
    assert [line.speaker for line in chat.lines] == ["Ana", ISABELLA]
    assert not sim.resident(ISABELLA).talking  # back to her day


def test_mistakes_are_one_line_errors(sim):
    me = Interactions(sim)
    with pytest.raises(UserError, match="no resident named 'Bob'"):
        me.talk("Bob", "a friend", "hi?", remember=False)
    with pytest.raises(UserError, match="object"):
        me.set_object("flux capacitor", "on")
    with pytest.raises(UserError, match="enter the town first"):
        me.walk_to((1, 1))
    with pytest.raises(UserError, match="lives in the town"):
        me.enter(ISABELLA)
    me.enter("Ana")
    wall = next(
        (x, y)
        for y in range(sim.world.height)
        for x in range(sim.world.width)
        if not sim.world.is_walkable((x, y))
    )
    for tile in (wall, (sim.world.width, 0)):
        with pytest.raises(UserError, match="not a place to walk to"):
            me.walk_to(tile)
    with pytest.raises(UserError, match="more than the 600 allowed"):
        me.talk(ISABELLA, "a friend", "why? " * 500, remember=False)
    assert not sim.town.actions or [a.kind for a in sim.town.actions] == ["enter"]


def test_the_avatar_and_unlogged_actions_survive_a_resume(sim):
    me = Interactions(sim)
    me.enter("Ana")
    me.walk_to(next_to(sim, ISABELLA))
    sim.run(until_step=sim.step_no + 2)
    me.set_object("cafe counter", "is sticky")  # not yet in the log: in the checkpoint
    tile, path = sim.state.tile_of("Ana"), list(sim.town.avatar.path)
    directory, step = sim.directory, sim.step_no
    sim.close()
    again = Simulation.resume(directory, model=scripted_model(), embedder=WordEmbedder())
    try:
        assert again.step_no == step
        assert again.state.tile_of("Ana") == tile and again.town.avatar.path == path
        again.run(until_step=step + 1)
        last = events(again)[-1]
        assert [a.kind for a in last.actions] == ["set"]
        assert last.avatar.name == "Ana"
    finally:
        again.close()


def test_old_event_lines_still_read(tmp_path):
    from simulacra.sim.eventlog import parse_line

    line = b'{"v":2,"step":0,"time":"2023-02-13T07:00:00","agents":{}}'
    record = parse_line(line, path=tmp_path / "events.jsonl", number=1)
    assert record.actions == [] and record.avatar is None
    assert '"actions"' not in record.line() and '"avatar"' not in record.line()


# --------------------------------------------------------------------------- live, the API


@pytest.fixture
def live(sim):
    running = LiveRun(sim, speed=None, paused=True).start()
    yield running
    running.stop()


@pytest.fixture
def server(live):
    with ViewerServer(live.sim.directory, live=live) as running:
        running.start()
        yield running


def post(server, action, body, *, token=True, headers=None, raw=None):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    sent = {"Content-Type": "application/json"}
    if token:
        sent[TOKEN_HEADER] = server.token
    sent.update(headers or {})
    conn.request("POST", f"/api/play/{action}", body=raw or json.dumps(body), headers=sent)
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, data


def test_the_live_run_steps_pauses_and_takes_actions_between_steps(live):
    sim = live.sim
    start = sim.step_no
    time.sleep(0.3)
    assert sim.step_no == start  # paused
    live.control(paused=False)
    deadline = time.monotonic() + 20
    while sim.step_no < start + 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sim.step_no >= start + 3
    tile = live.call(lambda me: me.enter("Ana"))
    assert live.status()["avatar"]["tile"] == list(tile)
    live.control(paused=True)
    with pytest.raises(UserError):
        live.call(lambda me: me.talk("Nobody", "a friend", "hi", remember=False))


def test_the_api_acts_and_answers_mistakes_with_400(server):
    status, data = post(server, "talk", {"resident": ISABELLA, "question": "What's new?"})
    assert status == 200, data
    answer = json.loads(data)
    assert "Valentine" in answer["answer"] and answer["memories"]
    status, data = post(server, "talk", {"resident": "Bob", "question": "hi"})
    assert status == 400 and "no resident named 'Bob'" in json.loads(data)["error"]
    status, data = post(server, "set", {"object": "flux capacitor", "state": "on"})
    assert status == 400 and "flux capacitor" in json.loads(data)["error"]
    status, data = post(server, "talk", {"resident": ISABELLA, "question": "x" * 5000})
    assert status == 400 and "question" in json.loads(data)["error"]
    status, data = post(server, "talk", {"resident": ISABELLA, "question": "hi", "sudo": True})
    assert status == 400
    status, data = post(server, "talk", None, raw=b"{not json")
    assert status == 400
    status, _ = post(server, "nothing", {})
    assert status == 404


@pytest.mark.parametrize(
    ("headers", "token"),
    [
        ({}, False),  # no token
        ({TOKEN_HEADER: "guessed"}, False),
        ({"Origin": "http://evil.example"}, True),
        ({"Host": "evil.example"}, True),
        ({"Sec-Fetch-Site": "cross-site"}, True),
        ({"Content-Type": "text/plain"}, True),  # a form another site could send
    ],
)
def test_requests_not_from_the_page_are_refused(server, headers, token):
    before = list(server.live.sim.town.actions)
    status, data = post(server, "set", {"object": "cafe counter", "state": "on fire"}, token=token,
                        headers=headers)  # fmt: skip
    assert status == 403, data
    assert server.live.sim.town.actions == before
    assert server.live.sim.state.object_state("Hobbs Cafe: cafe: cafe counter") != "on fire"


def test_a_view_server_takes_no_actions(morning):
    with ViewerServer(morning) as viewer:
        viewer.start()
        status, data = post(viewer, "set", {"object": "cafe counter", "state": "on"})
    assert status == 403 and b"simulacra play" in data


def test_play_starts_a_run_from_a_world_and_stops_on_ctrl_c(tmp_path):
    """The command itself, on the scripted model (a subprocess: it owns its signals)."""
    script = f"""
import sys
sys.path[:0] = [{str(ROOT / "tests")!r}]
from conftest import WordEmbedder
import simulacra.sim.simulation as simulation
from test_play import scripted_model
simulation.open_model = lambda *a, **k: scripted_model()
simulation.open_embedder = lambda *a, **k: WordEmbedder()
from simulacra.cli import main
main(["play", {str(WORLD)!r}, "--no-browser", "--speed", "0"])
"""
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        line = ""
        while "playing" not in line and time.monotonic() < deadline:
            line = proc.stdout.readline()
        assert "http://127.0.0.1:" in line, proc.stderr.read()
        time.sleep(1.0)
        proc.send_signal(2)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "go on with: simulacra play runs/smallville-3-" in out
    (run,) = (tmp_path / "runs").iterdir()
    assert list(read_events(run / EVENTS_FILE))  # it ran, and checkpointed on the way out
    shutil.rmtree(run)
