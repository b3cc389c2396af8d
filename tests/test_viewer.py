"""`simulacra view`: the server's API and safety, and the page driven in a real headless
Chromium (Debian's `chromium`) against a small recorded run."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from simulacra.errors import UserError
from simulacra.viewer.chromium import CHROMIUM, CHROMIUM_ARGS
from simulacra.viewer.server import STATIC_DIR, ViewerServer

ROOT = Path(__file__).resolve().parent.parent
RUN = Path(__file__).parent / "fixtures" / "run-smallville-3"
ARTIFACTS = ROOT / "test-artifacts"
EVENTS = [json.loads(line) for line in (RUN / "events.jsonl").read_text("utf-8").splitlines()]
AGENTS = json.loads((RUN / "meta.json").read_text("utf-8"))["agents"]
CHAT = next(e["step"] for e in EVENTS if e.get("chats"))  # the first conversation


def get(server: ViewerServer, path: str, host: str | None = None) -> tuple[int, str, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    headers = {"Host": host} if host else {}
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, response.getheader("Content-Type", ""), body


@pytest.fixture(scope="module")
def server():
    with ViewerServer(RUN) as running:
        running.start()
        yield running


def partial_run(tmp_path: Path, lines: int, tail: str = "") -> Path:
    """The fixture as a run still being written: its first event lines, maybe half a line."""
    run = tmp_path / "run"
    run.mkdir()
    for name in ("meta.json", "world.json", "calls.jsonl"):
        shutil.copy(RUN / name, run / name)
    text = (RUN / "events.jsonl").read_text("utf-8").splitlines(keepends=True)
    (run / "events.jsonl").write_text("".join(text[:lines]) + tail, "utf-8")
    return run


def append_events(run: Path, start: int, stop: int, tail: str = "") -> None:
    text = (RUN / "events.jsonl").read_text("utf-8").splitlines(keepends=True)
    with (run / "events.jsonl").open("a", encoding="utf-8") as f:
        f.write("".join(text[start:stop]) + tail)


# ------------------------------------------------------------------------- the server


def test_api_serves_meta_world_and_events(server):
    status, kind, body = get(server, "/api/meta")
    meta = json.loads(body)
    assert status == 200 and kind == "application/json"
    assert meta["agents"] == AGENTS and meta["total_steps"] == 180 and meta["available"] == 180
    assert meta["follow"] is False and meta["emoji_words"]["😴"] == "sleep"
    assert meta["agent_colors"][AGENTS[0]] == "#d9412b"
    world = json.loads(get(server, "/api/world")[2])
    assert (world["width"], world["height"]) == (106, 68)
    page = json.loads(get(server, "/api/events?from=85&limit=3")[2])
    assert [e["step"] for e in page["events"]] == [85, 86, 87]
    assert page["events"][0] == EVENTS[85]
    assert (page["available"], page["total_steps"]) == (180, 180)
    assert len(json.loads(get(server, "/api/events")[2])["events"]) == 180
    assert json.loads(get(server, "/api/events?from=999")[2])["events"] == []
    assert get(server, "/api/events?from=-1")[0] == 400
    assert get(server, "/api/events?from=x")[0] == 400


def test_the_page_and_its_files_are_served(server):
    status, kind, body = get(server, "/")
    assert status == 200 and kind.startswith("text/html") and b"/static/app.js" in body
    assert get(server, "/static/app.js")[1].startswith("text/javascript")
    assert get(server, "/static/style.css")[1].startswith("text/css")


@pytest.mark.parametrize(
    "path",
    [
        "/static/../server.py",
        "/static/%2e%2e/server.py",
        "/static/..%2fserver.py",
        "/static/../../meta.json",
        "/../meta.json",
        "/meta.json",
        "/events.jsonl",
        "/static/",
        "/static//etc/passwd",
        "/static/%2Fetc%2Fpasswd",
        "/api/../meta.json",
    ],
)
def test_nothing_outside_the_page_and_api_is_served(server, path):
    assert get(server, path)[0] == 404


def test_only_its_own_host_name_is_answered(server):
    # A page elsewhere rebinding its name to 127.0.0.1 must not read the run.
    assert get(server, "/api/meta", host="evil.example:80")[0] == 403
    assert get(server, "/api/meta", host=f"localhost:{server.port}")[0] == 200


def test_listens_on_loopback_only(server):
    assert server.httpd.server_address[0] == "127.0.0.1"
    assert server.url == f"http://127.0.0.1:{server.port}/"


def test_events_grow_line_by_line_and_start_over_when_cut(tmp_path):
    run = partial_run(tmp_path, 50)
    with ViewerServer(run) as srv:
        srv.start()
        assert json.loads(get(srv, "/api/meta")[2])["available"] == 50
        line = json.dumps(EVENTS[50], ensure_ascii=False)
        with (run / "events.jsonl").open("a", encoding="utf-8") as f:
            f.write(line[:30])  # a line still being written
        assert json.loads(get(srv, "/api/events?from=50")[2])["events"] == []
        with (run / "events.jsonl").open("a", encoding="utf-8") as f:
            f.write(line[30:] + "\n")
        append_events(run, 51, 100)
        page = json.loads(get(srv, "/api/events?from=50")[2])
        assert [e["step"] for e in page["events"]] == list(range(50, 100))
        # A resume cuts the log back to its checkpoint by replacing the file.
        cut = tmp_path / "cut.jsonl"
        cut.write_text("".join(json.dumps(e) + "\n" for e in EVENTS[:60]), "utf-8")
        os.replace(cut, run / "events.jsonl")
        page = json.loads(get(srv, "/api/events?from=55")[2])
        assert page["available"] == 60 and [e["step"] for e in page["events"]] == list(
            range(55, 60)
        )


def test_a_directory_that_is_not_a_run(tmp_path):
    with pytest.raises(UserError, match="meta.json"):
        ViewerServer(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "simulacra", "view", str(tmp_path), "--no-browser"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and "meta.json" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_port_in_use(server):
    with pytest.raises(UserError, match="--port"):
        ViewerServer(RUN, port=server.port)


def test_view_prints_the_address_and_stops_on_ctrl_c():
    proc = subprocess.Popen(
        [sys.executable, "-m", "simulacra", "view", str(RUN), "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        line = proc.stdout.readline()
        assert "http://127.0.0.1:" in line, line + proc.stderr.read()
        port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/api/meta")
        assert conn.getresponse().status == 200
        conn.close()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "stopped" in out and "Traceback" not in err


# ------------------------------------------------------------------------- in Chromium


@pytest.fixture(scope="module")
def browser():
    missing = None
    if not CHROMIUM.exists():
        missing = f"Debian's chromium is not installed ({CHROMIUM}); apt-get install chromium"
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = missing or "the playwright package is not installed (pip install playwright)"
    if missing:
        if os.environ.get("SIMULACRA_REQUIRE_BROWSER") == "1":
            pytest.fail(missing)
        pytest.skip(missing)
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def open_page(browser, server):
    """A fresh page on a server; fails the test on any script error in the page."""
    contexts, errors = [], []

    def open_(srv: ViewerServer = server, query: str = ""):
        context = browser.new_context(viewport={"width": 1600, "height": 1000})
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("console", lambda m: m.type == "error" and errors.append(m.text))
        page.goto(srv.url + query)
        page.wait_for_function("() => window.viewer && window.viewer.ready", timeout=10_000)
        return page

    yield open_
    for context in contexts:
        context.close()
    assert not errors, errors


def go_to(page, step: int) -> None:
    """Move the scrubber, as a user would, and wait for the map to show that step."""
    page.locator("#scrubber").fill(str(step))
    page.wait_for_function(f"() => window.viewer.drawnStep === {step}", timeout=5000)


def close_to(rgba, hex_color: str, tolerance: int = 12) -> bool:
    want = [int(hex_color[i : i + 2], 16) for i in (1, 3, 5)]
    return all(abs(a - b) <= tolerance for a, b in zip(rgba[:3], want, strict=True))


@pytest.mark.browser
def test_the_page_draws_the_town(open_page):
    page = open_page()
    assert page.evaluate("() => window.viewer.worldLoaded")
    assert page.evaluate("() => window.viewer.loaded") == 180
    assert "Smallville" in page.locator("#world-name").inner_text()
    box = page.locator("#map").bounding_box()
    assert box["width"] > 600 and box["height"] > 380
    tile = page.evaluate("() => window.viewer.tileSize")

    def pixel(x, y):
        cx, cy = box["x"] + (x + 0.5) * tile, box["y"] + (y + 0.5) * tile
        return page.evaluate(f"() => window.viewer.pixel({cx}, {cy})")

    assert close_to(pixel(1, 5), "#4a4440")  # the west wall of the Lins' house
    assert close_to(pixel(23, 14), "#dcd6c8")  # a street
    assert pixel(3, 18)[:3] != pixel(30, 18)[:3]  # Hobbs Cafe and the pub differ
    assert page.locator("#agent-list li").count() == 3


@pytest.mark.browser
@pytest.mark.parametrize("step", [0, CHAT, 150])
def test_agents_stand_on_their_tiles(open_page, step):
    page = open_page()
    go_to(page, step)
    avatars = page.evaluate("() => window.viewer.avatars()")
    assert set(avatars) == set(AGENTS)
    for name in AGENTS:
        want = EVENTS[step]["agents"][name]["tile"]
        assert avatars[name]["tile"] == want, name
        a = avatars[name]
        assert close_to(page.evaluate(f"() => window.viewer.pixel({a['x']}, {a['y']})"), a["color"])
        row = page.locator(f"#agent-list li[data-agent='{name}']")
        assert EVENTS[step]["agents"][name]["activity"] in row.inner_text()


@pytest.mark.browser
def test_clicking_an_agent_shows_what_it_does(open_page):
    page = open_page()
    go_to(page, CHAT)
    assert page.locator("#agent-panel").is_hidden()
    maria = page.evaluate("() => window.viewer.avatars()")["Maria Lopez"]
    page.mouse.click(maria["x"], maria["y"])
    panel = page.locator("#agent-panel")
    panel.wait_for(state="visible", timeout=3000)
    assert page.evaluate("() => window.viewer.selected") == "Maria Lopez"
    assert page.locator("#agent-name").inner_text() == "Maria Lopez"
    assert (
        page.locator("#agent-action").inner_text()
        == EVENTS[CHAT]["agents"]["Maria Lopez"]["description"]
    )
    plan = EVENTS[0]["plans"]["Maria Lopez"]
    assert plan["day"] in page.locator("#agent-plan-title").inner_text()
    items = page.locator("#agent-plan li").all_inner_texts()
    assert items == [
        f"{b['start'][11:16]}-{b['end'][11:16]} {b['activity']}" for b in plan["blocks"]
    ]
    assert (
        page.locator("#agent-plan li.current").inner_text()
        == "07:00-23:59 studying physics at Hobbs Cafe"
    )
    memories = page.locator("#agent-memories").inner_text()
    assert "looking forward to the party" in memories and "REFLECTION" in memories.upper()

    # What the lead looks at: the town at the first conversation, Isabella chosen.
    isabella = page.evaluate("() => window.viewer.avatars()")["Isabella Rodriguez"]
    page.mouse.click(isabella["x"], isabella["y"])
    page.wait_for_function("() => window.viewer.selected === 'Isabella Rodriguez'")
    page.mouse.move(1, 999)  # no tooltip over the town
    page.wait_for_function(f"() => window.viewer.drawnStep === {CHAT}")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "viewer.png"), full_page=True)
    assert (ARTIFACTS / "viewer.png").stat().st_size > 50_000


@pytest.mark.browser
def test_the_scrubber_moves_time(open_page):
    page = open_page()
    assert page.evaluate("() => window.viewer.step") == 0
    assert "07:00:00" in page.locator("#clock").inner_text()
    go_to(page, 150)
    assert "07:25:00" in page.locator("#clock").inner_text()
    assert page.evaluate("() => window.viewer.time") == EVENTS[150]["time"]
    moved = page.evaluate("() => window.viewer.avatars()")["Isabella Rodriguez"]["tile"]
    assert moved == EVENTS[150]["agents"]["Isabella Rodriguez"]["tile"]
    assert moved != EVENTS[0]["agents"]["Isabella Rodriguez"]["tile"]

    # A real click halfway along the scrubber lands near the middle of the run.
    box = page.locator("#scrubber").bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function("() => ![null, 150].includes(window.viewer.drawnStep)")
    step = page.evaluate("() => window.viewer.step")
    assert 70 <= step <= 110
    assert EVENTS[step]["time"][11:] in page.locator("#clock").inner_text()


@pytest.mark.browser
def test_play_advances_and_pause_stops(open_page):
    page = open_page()
    go_to(page, 10)
    page.select_option("#speed", "30")
    page.click("#play")
    page.wait_for_function("() => window.viewer.step >= 25", timeout=5000)
    assert page.evaluate("() => window.viewer.playing")
    page.click("#play")
    assert not page.evaluate("() => window.viewer.playing")
    paused = page.evaluate("() => window.viewer.step")
    page.wait_for_timeout(400)
    assert page.evaluate("() => window.viewer.step") == paused
    assert page.locator("#scrubber").input_value() == str(paused)


@pytest.mark.browser
def test_conversations_appear_as_they_happen(open_page):
    page = open_page()
    lines = EVENTS[CHAT]["chats"][0]["lines"]
    go_to(page, CHAT - 1)
    assert "no conversation yet" in page.locator("#chats").inner_text()
    go_to(page, CHAT)
    text = page.locator("#chats").inner_text()
    assert all(line["text"] in text for line in lines)
    assert page.locator("#chats .chat.current").count() == 1
    go_to(page, 150)
    assert lines[0]["text"] in page.locator("#chats").inner_text()
    assert page.locator("#chats .chat.current").count() == 0
    assert "library tables" in page.locator("#objects").inner_text()


@pytest.mark.browser
def test_follows_a_run_being_written(open_page, tmp_path):
    run = partial_run(tmp_path, 50)
    with ViewerServer(run, follow=True) as srv:
        srv.start()
        page = open_page(srv)
        assert page.evaluate("() => window.viewer.live")
        assert page.evaluate("() => [window.viewer.loaded, window.viewer.step]") == [50, 49]
        half = json.dumps(EVENTS[120], ensure_ascii=False)[:50]
        append_events(run, 50, 120, tail=half)  # the last line only half written
        page.wait_for_function("() => window.viewer.loaded === 120", timeout=5000)
        page.wait_for_function("() => window.viewer.drawnStep === 119", timeout=5000)
        tile = page.evaluate("() => window.viewer.avatars()")["Maria Lopez"]["tile"]
        assert tile == EVENTS[119]["agents"]["Maria Lopez"]["tile"]
        assert EVENTS[119]["time"][11:] in page.locator("#clock").inner_text()
        with (run / "events.jsonl").open("a", encoding="utf-8") as f:
            f.write(json.dumps(EVENTS[120], ensure_ascii=False)[50:] + "\n")
        append_events(run, 121, 180)
        page.wait_for_function("() => window.viewer.loaded === 180", timeout=5000)
        page.wait_for_function("() => window.viewer.drawnStep === 179", timeout=5000)
        page.close()


# A board as GET /api/feed answers (simulacra/viewer/feed.py): the town run above has none.
BOARD = {
    "name": "a feed",
    "description": "",
    "clock": "2024-05-01T10:00:00",
    "agents": ["Hikari"],
    "messages": [
        {
            "id": 1,
            "parent": None,
            "author": "fan",
            "by_agent": False,
            "text": "hello",
            "posted": "2024-05-01T09:58:00",
        },
    ],
    "decisions": [],
}


@pytest.mark.browser
def test_every_module_of_both_pages_loads(browser, server):
    """Both pages are ES modules without a build step: every import must come back as
    JavaScript and run without an error, the pages share the helper module, and no shipped
    script is left that neither page loads."""
    from playwright.sync_api import TimeoutError as PageTimeout

    scripts: dict[str, set[str]] = {}
    for path, shown in (
        ("", "() => window.viewer && window.viewer.ready"),
        ("feed", "() => document.querySelector('#threads .thread')"),
    ):
        context = browser.new_context()
        page = context.new_page()
        problems: list[str] = []
        loaded: set[str] = set()

        def seen(response, problems=problems, loaded=loaded):
            name = response.url.rsplit("/", 1)[-1]
            if not name.endswith(".js"):
                return
            loaded.add(name)
            kind = response.headers.get("content-type", "")
            if response.status != 200 or not kind.startswith("text/javascript"):
                problems.append(f"{name}: {response.status} {kind}")

        page.on("response", seen)
        page.on("requestfailed", lambda r, p=problems: p.append(f"{r.url}: {r.failure}"))
        page.on("pageerror", lambda e, p=problems: p.append(str(e)))
        page.on("console", lambda m, p=problems: m.type == "error" and p.append(m.text))
        page.route("**/api/feed", lambda route: route.fulfill(json=BOARD))
        page.goto(server.url + path)
        try:
            page.wait_for_function(shown, timeout=10_000)
        except PageTimeout:
            problems.append("the page never showed the run")  # a module failed to load
        context.close()
        assert not problems, (path or "/", problems)
        scripts[path or "/"] = loaded
    assert scripts["feed"] == {"feed.js", "util.js"}
    assert "util.js" in scripts["/"] and "app.js" in scripts["/"]
    shipped = {p.name for p in STATIC_DIR.glob("*.js")}
    assert scripts["/"] | scripts["feed"] == shipped
