"""simulacra play: the user's actions on a running town, the avatar, the local API that
takes them only from the page it served, and the page in a real Chromium. The scripted
town stands in for the model (one test at the end runs the real small model)."""

from __future__ import annotations

import http.client
import json
import shutil
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import WordEmbedder
from scripted_town import SCRIPTS
from test_viewer import browser  # noqa: F401 (the fixture)

from simulacra.cli.app import cli
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


def scripted_model(log_dir: Path | None = None):
    settings = Settings()
    settings.llm.cache = False
    return open_model(settings.llm, completer=ScriptedModel(SCRIPTED), log_dir=log_dir)


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
    opened = Simulation.resume(directory, model=scripted_model(directory), embedder=WordEmbedder())
    yield opened
    opened.close()


def next_to(sim, name: str) -> tuple[int, int]:
    x, y = sim.state.tile_of(name)
    for tile in ((x - 1, y), (x + 1, y), (x, y + 1), (x, y - 1)):  # not under its label
        if sim.world.is_walkable(tile):
            return tile
    raise AssertionError(f"no free tile next to {name}")


def walk_over(sim, me: Interactions, name: str) -> None:
    me.walk_to(next_to(sim, name))
    while sim.town.user.avatar.path:
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


def test_whisper_is_logged_and_told_by_simulacra_log(sim):
    me = Interactions(sim)
    said = me.whisper(ISABELLA, "I should bake a cake for the party")
    sim.run(until_step=sim.step_no + 1)
    (action,) = events(sim)[-1].actions
    assert (action.kind, action.to, action.text) == ("whisper", ISABELLA, said)
    sim.checkpoint()
    told = CliRunner().invoke(cli, ["log", str(sim.directory), "--agent", "Isabella"])
    assert told.exit_code == 0, told.output
    assert "inner voice to Isabella Rodriguez: 'I should bake a cake for the party'" in told.output


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
    assert not sim.town.user.actions or [a.kind for a in sim.town.user.actions] == ["enter"]


def test_the_avatar_and_unlogged_actions_survive_a_resume(sim):
    me = Interactions(sim)
    me.enter("Ana")
    me.walk_to(next_to(sim, ISABELLA))
    sim.run(until_step=sim.step_no + 2)
    me.set_object("cafe counter", "is sticky")  # not yet in the log: in the checkpoint
    tile, path = sim.state.tile_of("Ana"), list(sim.town.user.avatar.path)
    directory, step = sim.directory, sim.step_no
    sim.close()
    again = Simulation.resume(directory, model=scripted_model(), embedder=WordEmbedder())
    try:
        assert again.step_no == step
        assert again.state.tile_of("Ana") == tile and again.town.user.avatar.path == path
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
    start, wall = sim.step_no, sim.engine.wall()
    time.sleep(0.3)
    assert sim.step_no == start  # paused
    assert sim.engine.wall() - wall < 0.05  # and paused time is not time spent stepping
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


def test_each_user_input_is_one_typed_model_applied_between_steps(live):
    """Every input the page may send is a model of sim/inputs.py with a case in
    Interactions.apply; the live run applies one on its own thread, between two steps."""
    from simulacra.sim import inputs
    from simulacra.viewer.play_api import ACTIONS

    kinds = set(inputs.UserInput.__subclasses__())
    assert {model for model, _ in ACTIONS.values()} == kinds
    tile = live.submit(inputs.Enter(name="Ana"))
    assert live.status()["avatar"]["tile"] == list(tile)
    with pytest.raises(UserError, match="not talking with anyone"):
        live.submit(inputs.Leave())
    with pytest.raises(UserError, match="no resident named 'Nobody'"):
        live.submit(inputs.Whisper(resident="Nobody", statement="hi"))
    with pytest.raises(TypeError, match="not a user input"):
        live.submit(inputs.UserInput())


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
    before = list(server.live.sim.town.user.actions)
    status, data = post(server, "set", {"object": "cafe counter", "state": "on fire"}, token=token,
                        headers=headers)  # fmt: skip
    assert status == 403, data
    assert server.live.sim.town.user.actions == before
    assert server.live.sim.state.object_state("Hobbs Cafe: cafe: cafe counter") != "on fire"


def test_a_view_server_takes_no_actions(morning):
    with ViewerServer(morning) as viewer:
        viewer.start()
        status, data = post(viewer, "set", {"object": "cafe counter", "state": "on"})
    assert status == 403 and b"simulacra play" in data


@pytest.mark.parametrize("stop_signal", [signal.SIGINT, signal.SIGTERM])
def test_play_starts_a_run_from_a_world_and_stops_on_ctrl_c(tmp_path, stop_signal):
    """The command itself, on the scripted model (a subprocess: it owns its signals).
    SIGTERM (timeout, systemd, docker stop) stops it as Ctrl-C does."""
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
        proc.send_signal(stop_signal)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "go on with: simulacra play runs/smallville-3-" in out
    (run,) = (tmp_path / "runs").iterdir()
    assert list(read_events(run / EVENTS_FILE))  # it ran, and checkpointed on the way out
    shutil.rmtree(run)


# --------------------------------------------------------------------------- in Chromium


@pytest.fixture
def play_page(browser, server):  # noqa: F811 (the imported fixture)
    """The play page of a live run (paused, as fast as it goes once running); fails the
    test on any script error in the page."""
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on(
        "console",
        lambda m: m.type == "error" and "status of 4" not in m.text and errors.append(m.text),
    )
    page.goto(server.url)
    page.wait_for_function("() => window.viewer && window.viewer.ready && window.viewer.play")
    yield page
    context.close()
    assert not errors, errors


def run_town(page, steps: int, live: LiveRun) -> None:
    """Run the town from the page for at least ``steps`` steps, then pause it."""
    start = live.sim.step_no
    page.locator("#town-run").click()
    page.wait_for_function("() => !window.viewer.play.paused")
    deadline = time.monotonic() + 30
    while live.sim.step_no < start + steps and time.monotonic() < deadline:
        time.sleep(0.05)
    page.locator("#town-run").click()
    page.wait_for_function("() => window.viewer.play.paused")


@pytest.mark.browser
def test_the_page_talks_to_a_resident(play_page):
    page = play_page
    assert page.locator("#town-controls").is_visible() and page.locator("#play").is_hidden()
    page.locator("#talk-to").select_option(ISABELLA)
    page.locator("#talk-as").fill("a news reporter")
    page.locator("#talk-question").fill("What are you planning this week?")
    page.locator("#talk-form button[type=submit]").click()
    entry = page.locator("#talk-log .entry").first
    entry.wait_for(timeout=10_000)
    assert "Valentine's Day party" in entry.inner_text()
    assert entry.locator("details ol").is_hidden()  # the memories, on demand
    entry.locator("summary").click()
    assert "party" in entry.locator("details ol").inner_text()
    # A mistake is one line in the page.
    page.locator("#talk-to").evaluate("s => s.add(new Option('Bob', 'Bob'))")
    page.locator("#talk-to").select_option("Bob")
    page.locator("#talk-question").fill("hi?")
    page.locator("#talk-form button[type=submit]").click()
    error = page.locator("#play-error")
    error.wait_for(timeout=5000)
    assert "no resident named 'Bob'" in error.inner_text()


@pytest.mark.browser
def test_the_page_sets_an_object_and_shows_the_event(play_page, live):
    page = play_page
    page.locator("details.more summary").click()
    page.locator("#set-object").fill("Hobbs Cafe: cafe: piano")
    page.locator("#set-state").fill("is playing by itself")
    page.locator("#set-form button[type=submit]").click()
    page.wait_for_function("() => document.querySelector('#set-state').value === ''")
    run_town(page, 1, live)
    page.wait_for_function(
        "() => document.querySelector('#actions').innerText.includes('playing by itself')"
    )
    assert (
        "Hobbs Cafe: cafe: piano is now playing by itself" in page.locator("#actions").inner_text()
    )
    page.wait_for_function(
        "() => document.querySelector('#objects').innerText.includes('playing by itself')"
    )
    # A replay of the run shows it too.
    with ViewerServer(live.sim.directory) as replay:
        replay.start()
        again = page.context.new_page()
        again.goto(replay.url + "?follow=0")
        again.wait_for_function("() => window.viewer.ready && !window.viewer.play")
        again.locator("#scrubber").fill(str(again.evaluate("() => window.viewer.loaded") - 1))
        again.wait_for_function(
            "() => document.querySelector('#actions').innerText.includes('playing by itself')"
        )
        assert again.locator("#play-panel").is_hidden()


@pytest.mark.browser
def test_the_avatar_walks_over_and_a_resident_perceives_it(play_page, live):
    page = play_page
    page.locator("#avatar-name").fill("Ana")
    page.locator("#enter-form button[type=submit]").click()
    page.wait_for_function("() => window.viewer.player() !== null")
    entrance = list(live.sim.world.spawn_of("town entrance"))
    assert page.evaluate("() => window.viewer.player().tile") == entrance
    assert "Ana" in page.locator("#avatar-info").inner_text()
    target = next_to(live.sim, ISABELLA)
    point = page.evaluate(f"() => window.viewer.tilePoint({target[0]}, {target[1]})")
    page.mouse.click(point["x"], point["y"])
    page.wait_for_function(
        f"() => String(window.viewer.play.avatar.walking_to) === '{target[0]},{target[1]}'"
    )
    page.locator("#town-run").click()  # run: the avatar walks a tile a step
    page.wait_for_function(
        f"() => String(window.viewer.play.avatar.tile) === '{target[0]},{target[1]}'",
        timeout=30_000,
    )
    page.wait_for_function(f"() => window.viewer.play.step > {live.sim.step_no + 1}")
    page.locator("#town-run").click()
    page.wait_for_function("() => window.viewer.play.paused")
    # The arrow keys: one tile now, town paused or not.
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowDown")
    page.wait_for_function(
        f"() => String(window.viewer.play.avatar.tile) === '{target[0]},{target[1]}'"
    )
    # Isabella saw her: her memories in the page say so.
    page.wait_for_function(
        "() => { const t = window.viewer.avatars()['Isabella Rodriguez']; return t && t.x; }"
    )
    isabella = page.evaluate("() => window.viewer.avatars()['Isabella Rodriguez']")
    page.mouse.click(isabella["x"], isabella["y"])
    page.locator("#agent-panel").wait_for(state="visible")
    page.wait_for_function(
        "() => document.querySelector('#agent-memories').innerText"
        ".includes('Ana is standing by the cafe counter')",
        timeout=10_000,
    )
    # And Ana talks with her, line by line.
    assert page.locator("#say-to").input_value() == ISABELLA  # picked by the click
    page.locator("#say-text").fill("Hello Isabella, anything on this week?")
    page.locator("#say-form button[type=submit]").click()
    page.wait_for_function(
        "() => document.querySelector('#talk-log').innerText.includes('Will you come?')"
    )
    page.locator("#talk-question").fill("How is business at the cafe?")
    page.locator("#talk-form button[type=submit]").click()
    page.wait_for_function("() => document.querySelectorAll('#talk-log .entry').length === 2")
    assert (
        "conversation with Isabella Rodriguez"
        in page.locator("#talk-log .entry").first.inner_text()
    )
    page.locator("#say-end").click()
    page.wait_for_function("() => window.viewer.play.avatar.partner === null")
    assert any(r.object == "Ana" for r in live.sim.resident(ISABELLA).agent.stream)
    run_town(page, 1, live)  # the conversation and the interview go into the log
    page.wait_for_function(
        "() => document.querySelector('#chats').innerText.includes('Ana & Isabella Rodriguez')"
    )
    assert "Ana asked" not in page.locator("#actions").inner_text()
    assert "a news reporter asked Isabella Rodriguez" in page.locator("#actions").inner_text()

    # What the lead looks at: Ana next to Isabella, the conversation, the controls.
    for _ in range(3):
        page.locator("#zoom-in").click()
    page.wait_for_timeout(300)
    page.wait_for_function("() => window.viewer.drawnStep !== null && window.viewer.player()")
    page.evaluate(
        """() => { const pane = document.querySelector('#map-pane');
                   const me = window.viewer.player(), box = pane.getBoundingClientRect();
                   pane.scrollBy(me.x - box.left - box.width / 2,
                                 me.y - box.top - box.height / 2); }"""
    )
    page.mouse.move(1, 999)  # no tooltip over the town
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "play.png"))


class _Elsewhere(BaseHTTPRequestHandler):
    """Another site: a blank page from another origin, with no policy of its own."""

    def do_GET(self):  # noqa: N802
        body = b"<!doctype html><title>elsewhere</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.mark.browser
def test_another_site_cannot_drive_the_town(browser, server):  # noqa: F811
    """A page of another origin posts to the town: the browser's CORS rules (the token
    header needs a preflight, which is never answered) and the server's checks (a simple
    POST has no token and the wrong Origin) both refuse it."""
    elsewhere = ThreadingHTTPServer(("127.0.0.1", 0), _Elsewhere)
    threading.Thread(target=elsewhere.serve_forever, daemon=True).start()
    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(f"http://127.0.0.1:{elsewhere.server_address[1]}/")
        target = f"{server.url}api/play/set"
        body = json.dumps({"object": "Hobbs Cafe: cafe: piano", "state": "on fire"})
        outcome = page.evaluate(
            """async ([url, body]) => {
                 const out = [];
                 for (const init of [
                   {method: "POST", mode: "no-cors", body,
                    headers: {"Content-Type": "text/plain"}},
                   {method: "POST", body,
                    headers: {"Content-Type": "application/json", "X-Simulacra-Token": "x"}},
                 ]) {
                   try { const r = await fetch(url, init); out.push(r.type + ":" + r.status); }
                   catch (e) { out.push("refused"); }
                 }
                 return out;
               }""",
            [target, body],
        )
    finally:
        context.close()
        elsewhere.shutdown()
        elsewhere.server_close()
    assert outcome == ["opaque:0", "refused"]  # sent blind (and refused there), or not at all
    assert server.live.sim.state.object_state("Hobbs Cafe: cafe: piano") != "on fire"
    assert not server.live.sim.town.user.actions


def test_a_body_too_long_is_refused(server):
    status, data = post(server, "talk", None, raw=b'{"question": "' + b"x" * 20_000 + b'"}')
    assert status == 400 and "too long" in json.loads(data)["error"]


def test_when_the_resident_ends_the_conversation_it_is_kept_once(sim):
    me = Interactions(sim)
    me.enter("Ana")
    walk_over(sim, me, ISABELLA)
    sim.model.completer.scripts["respond"] = [
        {"heard": "a greeting", "says": "Hello, Ana! What can I get you?"},
        {"heard": "Ana asks for a minute", "says": "Sorry, I must get back to work.", "end": True},
    ]
    assert not me.say(ISABELLA, "Hello!").ended  # a reply to an opening does not end a talk
    got = me.say(ISABELLA, "Got a minute?")
    assert got.ended and sim.town.user.avatar.partner is None
    stream = sim.resident(ISABELLA).agent.stream
    assert len([r for r in stream if r.kind is Kind.CHAT and r.object == "Ana"]) == 1
    assert [c.between for c in sim.town.user.avatar_chats] == [["Ana", ISABELLA]]


def test_stats_and_report_read_a_played_run(sim):
    me = Interactions(sim)
    me.enter("Ana")
    walk_over(sim, me, ISABELLA)
    me.say(ISABELLA, "Hello!")
    me.leave()
    sim.run(until_step=sim.step_no + 1)
    sim.checkpoint()
    for command in (["stats", str(sim.directory)], ["report", str(sim.directory)]):
        done = CliRunner().invoke(cli, command)
        assert done.exit_code == 0, done.output
    from simulacra.viewer.report import density_series, read_run

    # Network density is among the residents: Ana is no one's acquaintance there.
    assert max(d for _, d in density_series(read_run(sim.directory))) <= 1 / 3


def test_a_town_that_failed_takes_no_more_actions(sim):
    def broken(step, now):
        raise OSError("disk full")

    sim.town.step = broken
    live = LiveRun(sim, speed=None).start()
    try:
        deadline = time.monotonic() + 10
        while live.status()["error"] is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert live.status()["error"] == "the town stopped: disk full"
        with pytest.raises(RuntimeError, match="disk full"):
            live.call(lambda me: me.enter("Ana"))
        assert sim.town.user.avatar is None
    finally:
        live.stop()
