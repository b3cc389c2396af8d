"""The social feed (issue 14) on the scripted model: thread boundary, reply-target enum,
ignore, cursors across a kill and resume, the per-wake cap, insight memories answering an
award question, summarising, the CLI and the page's API."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from simulacra.errors import UserError
from simulacra.feed import FeedRun
from simulacra.feed.steps import reaction_for
from simulacra.llm.schema import json_schema

FAN_FEED = Path(__file__).resolve().parent.parent / "worlds" / "fan-feed"


def rate_by_count(request):
    return {"ratings": [{"level": "notable"}] * len(request.variables["memories"])}


def newest(request) -> str:
    """The newest message's text in a react prompt."""
    number = asked_id(request)
    return next(m["text"] for m in request.variables["chain"] if m["id"] == number)


def options(request) -> list[int]:
    return request.schema["properties"]["target"]["enum"]


def react_on_idols(request):
    """React to idol talk, ignore the rest: what a good model would do."""
    text = newest(request).lower()
    on_topic = any(
        w in text for w in ("stage", "song", "idol", "nova", "parfait", "encore", "debut")
    )
    ended = any(w in text for w in ("bye", "thanks", "see you"))
    choice = "react" if on_topic and not ended else "ignore"
    target = asked_id(request)
    interests = request.schema["properties"]["interest"]["enum"]
    return {
        "topic": "idol talk" if on_topic else "something else",
        "interest": interests[0] if on_topic else interests[-1],
        "thought": f"it is {'idol talk' if choice == 'react' else 'not for me'}",
        "reaction": choice,
        "target": target,
    }


def write_world(tmp_path: Path, *, rules: str = "", posts: str | None = None) -> Path:
    world = tmp_path / "world"
    shutil.copytree(FAN_FEED, world)
    # The bag-of-words test embedder knows no meaning: every thread is near the interests,
    # unless a test says otherwise.
    rules = "interest_similarity = -1.0\n" + rules
    text = (world / "feed.toml").read_text()
    for line in rules.strip().splitlines():
        key = line.split("=")[0].strip()
        text = re.sub(rf"^{key} = .*$", line.strip(), text, flags=re.MULTILINE)
    (world / "feed.toml").write_text(text)
    if posts is not None:
        (world / "posts.toml").write_text(posts)
    return world


@pytest.fixture
def feed(tmp_path, scripted, word_embedder, settings):
    """``feed(scripts, world=..., directory=...)``: a new or reopened feed run."""

    def make(scripts=None, *, world=None, directory=None, reopen=False):
        scripts = {"importance": rate_by_count, "feed_react": react_on_idols, **(scripts or {})}
        model = scripted(scripts)
        directory = directory or tmp_path / "run"
        kwargs = dict(settings=settings, model=model, embedder=word_embedder)
        if reopen:
            run = FeedRun.open(directory, **kwargs)
        else:
            run = FeedRun.create(directory, world or write_world(tmp_path), **kwargs)
        return run, model.completer

    return make


# -- the thread boundary and the reply-target enum ---------------------------------------

BRANCHY = """
[[post]]
ref = "p"
author = "ann"
at = 2023-08-05T12:01:00
text = "Post 1: the Nova stage was great"
[[post]]
ref = "c1"
author = "bo"
at = 2023-08-05T12:02:00
reply_to = "p"
text = "Comment 1.1 on the stage"
[[post]]
ref = "c2"
author = "cy"
at = 2023-08-05T12:03:00
reply_to = "p"
text = "Comment 1.2 side branch"
[[post]]
ref = "r11"
author = "ann"
at = 2023-08-05T12:04:00
reply_to = "c1"
text = "Reply 1.1.1 about the song"
[[post]]
ref = "r12"
author = "dee"
at = 2023-08-05T12:05:00
reply_to = "c1"
text = "Reply 1.1.2 side branch"
[[post]]
ref = "r111"
author = "bo"
at = 2023-08-05T12:06:00
reply_to = "r11"
text = "Reply 1.1.1.1 about the idol"
"""


def test_a_reply_to_1_1_1_1_sees_exactly_its_chain(tmp_path, feed):
    run, backend = feed(world=write_world(tmp_path, posts=BRANCHY, rules="per_wake = 10"))
    run.run(0.1)
    last = [r for r in backend.calls("feed_react") if asked_id(r) == 6]
    assert len(last) == 1
    prompt = last[0].user
    for text in ("Post 1", "Comment 1.1 on", "Reply 1.1.1 about", "Reply 1.1.1.1"):
        assert text in prompt
    assert "side branch" not in prompt
    assert options(last[0]) == [1, 2, 4, 6]  # the chain's ids, nothing else
    assert [m.id for m in run.board.chain(6)] == [1, 2, 4, 6]


def test_a_thread_far_from_the_interests_is_ignored_without_a_model_call(tmp_path, feed):
    posts = """
[[post]]
author = "taro"
at = 2023-08-05T12:01:00
text = "Anyone selling a spare phone charger?"
[[post]]
author = "ann"
at = 2023-08-05T12:02:00
text = "idol groups and their live stages were great"
"""
    run, backend = feed(world=write_world(tmp_path, posts=posts, rules="interest_similarity = 0.3"))
    run.run(0.1)
    assert run.board.decision("Hikari", 1).reaction == "ignore"
    assert run.board.decision("Hikari", 2).reaction == "react"
    assert len(backend.calls("feed_react")) == 1  # the charger cost no call


def test_the_reply_target_is_an_enum_of_the_chain_without_the_agent_own(tmp_path, feed):
    schema = json_schema(reaction_for(options=[1, 2, 4], interests=["idols"]))
    assert schema["properties"]["interest"]["enum"] == ["idols", "none of them"]
    assert schema["properties"]["target"]["enum"] == [1, 2, 4]
    assert schema["properties"]["reaction"] == {"$ref": "#/$defs/Choice"}
    # what it is about and a thought come before the decision
    assert list(schema["properties"]) == ["topic", "interest", "thought", "reaction", "target"]
    run, backend = feed(world=write_world(tmp_path, posts=BRANCHY, rules="per_wake = 10"))
    run.run(0.1)
    reply = run.board.get(run.board.decision("Hikari", 2).reply)
    run.post("ann", "Reply to Hikari about the stage", reply_to=reply.id)
    run.run(0.5)
    (asked,) = [r for r in backend.calls("feed_react") if "Reply to Hikari" in r.user]
    assert reply.id not in options(asked)  # never a reply to itself
    assert options(asked) == [1, 2, asked_id(asked)]


def asked_id(request) -> int:
    """The id of the message a react prompt asks about."""
    return request.variables["newest"]


# -- react and ignore --------------------------------------------------------------------


def test_off_topic_and_ended_threads_are_ignored_without_a_reply(tmp_path, feed):
    run, backend = feed(world=write_world(tmp_path, rules="per_wake = 10"))
    run.run(2)
    by_text = {m.text: m for m in run.board.messages()}
    ramen = by_text["Does anyone know a good ramen shop near the station? Very hungry."]
    decision = run.board.decision("Hikari", ramen.id)
    assert decision.reaction == "ignore" and decision.reply is None
    assert not [m for m in run.board.messages() if m.parent == ramen.id]
    nova = next(m for m in run.board.messages() if m.text.startswith("Starlight Nova"))
    assert run.board.decision("Hikari", nova.id).reaction == "react"
    run.post("mika_fan", "Thanks Hikari, see you at the next stage, bye!", reply_to=nova.id)
    before = len(backend.calls("feed_action"))
    run.run(1)
    bye = run.board.messages()[-1] if not run.board.messages()[-1].by_agent else None
    assert bye is not None and run.board.decision("Hikari", bye.id).reaction == "ignore"
    assert len(backend.calls("feed_action")) == before  # no reply written


def test_a_chain_past_max_chain_has_ended_without_asking(tmp_path, feed):
    posts = "\n".join(
        f'[[post]]\nref = "m{i}"\nauthor = "{"ab"[i % 2]}"\nat = 2023-08-05T12:0{i}:00\n'
        + (f'reply_to = "m{i - 1}"\n' if i else "")
        + f'text = "idol stage talk {i}"\n'
        for i in range(4)
    )
    world = write_world(tmp_path, posts=posts, rules="max_chain = 3\nper_wake = 10")
    run, backend = feed(world=world)
    run.run(0.1)
    assert run.board.decision("Hikari", 4).reaction == "ignore"
    assert run.board.decision("Hikari", 4).thought == "the thread is long enough"
    assert not [r for r in backend.calls("feed_react") if asked_id(r) == 4]


# -- observe: cursors, cadence, the cap, kill and resume ---------------------------------


def test_each_wake_observes_at_most_per_wake_and_continues_from_the_cursor(tmp_path, feed):
    run, backend = feed(world=write_world(tmp_path, rules="per_wake = 2"))
    run.run(0.25)  # wakes at 13:00: three posts are out; the cap leaves one for 13:30
    assert [d.message for d in run.board.decisions()] == [1, 2]
    run.run(0.25)  # 13:30 (the end is inclusive): the third post, and the one of 13:20
    assert [d.message for d in run.board.decisions()] == [1, 2, 3, 4]  # 4 was posted at 13:20
    run.run(1)
    humans = [m.id for m in run.board.messages() if not m.by_agent]
    assert sorted(d.message for d in run.board.decisions()) == humans


class Killed(Exception):
    pass


def kill_at(template: str, n: int, answer):
    """A script that dies on the ``n``-th call of ``template`` (a kill -9 stand-in)."""
    count = {"calls": 0}

    def script(request):
        count["calls"] += 1
        if count["calls"] == n:
            raise Killed
        return answer(request) if callable(answer) else answer

    return {template: script}


@pytest.mark.parametrize(
    "kill",
    [
        # after the decision and reply are on the board, before the memory commit
        kill_at("feed_insight", 2, {"facts": ["Starlight Nova played a stage that fans loved"]}),
        # before the decision: nothing of that message is saved
        kill_at("feed_react", 3, react_on_idols),
        kill_at("feed_action", 2, {"reply": "So exciting!"}),
    ],
    ids=["between-board-and-memory", "mid-react", "mid-action"],
)
def test_kill_and_resume_neither_replies_twice_nor_skips(tmp_path, feed, kill):
    world = write_world(tmp_path, rules="per_wake = 3")
    run, _ = feed(kill, world=world)
    with pytest.raises(Killed):
        run.run(3)
    run.close()
    resumed, _ = feed(reopen=True)
    resumed.run(3)
    humans = [m for m in resumed.board.messages() if not m.by_agent]
    decided = [d.message for d in resumed.board.decisions()]
    assert sorted(decided) == [m.id for m in humans]  # each exactly once: none skipped
    replies = [m for m in resumed.board.messages() if m.by_agent]
    reacted = [d for d in resumed.board.decisions() if d.reaction == "react"]
    assert len(replies) == len(reacted) == 3  # Nova, its comment, Peach Parfait: once each
    assert len({r.parent for r in replies}) == len(replies)
    agent = resumed.agent("Hikari")
    assert agent.cursor[1] == humans[-1].id


def test_the_clock_and_schedule_survive_reopening(tmp_path, feed):
    run, _ = feed()
    run.run(1)
    assert run.now.hour == 14 and run.agents[0].next_wake.strftime("%H:%M") == "14:30"
    run.close()
    again, _ = feed(reopen=True)
    assert again.now.hour == 14 and again.agents[0].next_wake.strftime("%H:%M") == "14:30"


# -- action, insight, the award question, summarise --------------------------------------


def test_the_reply_draws_on_similar_memories_ordered_by_time(tmp_path, feed):
    run, backend = feed(
        {"feed_insight": {"facts": ["Starlight Nova debuted at the festival with Comet Letter"]}}
    )
    run.run(1.5)
    first, *_ = backend.calls("feed_action")
    assert "Hikari loves idol live stages" in first.user
    decision = next(d for d in run.board.decisions() if d.reply is not None)
    created = [m["created"] for m in decision.memories]
    assert created == sorted(created) and 1 <= len(created) <= 5
    assert decision.thought == "it is idol talk"


def test_insight_memories_answer_a_later_award_question(tmp_path, feed):
    fact = (
        "Starlight Nova, a debut group, opened its 12:30 Hot Stage with the new song"
        " Comet Letter, which fans found moving"
    )

    def insight(request):
        thread = " ".join(m["text"] for m in request.variables["chain"])
        return {
            "facts": [fact if "Starlight Nova" in thread else "Peach Parfait did an encore twice"]
        }

    run, backend = feed({"feed_insight": insight, "interview": {"answer": "Starlight Nova!"}})
    run.run(2)
    agent = run.agent("Hikari")
    assert any(r.description == fact for r in agent.stream)
    answer = agent.interview("Which debut idol shone most at this year's festival?", at=run.now)
    assert answer == "Starlight Nova!"
    (asked,) = backend.calls("interview")
    assert fact in asked.user


def test_low_value_memories_are_folded_and_leave_retrieval(tmp_path, feed):
    world = write_world(tmp_path, rules="low_value = 5\nfold_after = 3\nper_wake = 10")
    run, backend = feed(
        {"feed_summarise": {"statements": ["Hikari heard a lot about the festival stages"]}},
        world=world,
    )
    run.run(2)
    assert backend.calls("feed_summarise")
    agent = run.agent("Hikari")
    assert agent.stream.hidden
    folded = {hit.record.id for hit in agent.memories("festival stages", k=50)}
    assert not folded & agent.stream.hidden
    summary = [r for r in agent.stream if r.description.startswith("Hikari heard")]
    assert summary and set(summary[0].evidence) <= agent.stream.hidden
    run.close()
    again, _ = feed(reopen=True)
    assert again.agent("Hikari").stream.hidden == agent.stream.hidden


# -- people posting, and mistakes --------------------------------------------------------


def test_posting_checks_its_input(tmp_path, feed):
    run, _ = feed()
    with pytest.raises(UserError, match="no message #4 on the feed yet"):
        run.post("ann", "hello", reply_to=4)  # scheduled for 13:20; the clock says 13:00
    with pytest.raises(UserError, match="no message #99"):
        run.post("ann", "hello", reply_to=99)
    with pytest.raises(UserError, match="is an agent"):
        run.post("Hikari", "hello")
    message = run.post("ann", "  the Nova stage!  ")
    assert message.text == "the Nova stage!" and message.posted == run.now


def test_a_world_with_a_bad_reply_to_is_one_line_error(tmp_path):
    from simulacra.feed import load_world

    world = write_world(
        tmp_path,
        posts='[[post]]\nauthor = "a"\nat = 2023-08-05T12:00:00\nreply_to = "nope"\ntext = "x"\n',
    )
    with pytest.raises(UserError, match=r"posts.toml: post\[1\].reply_to"):
        load_world(world)
    (world / "characters" / "hikari.toml").write_text('name = "Hikari"\nage = 19\n')
    with pytest.raises(UserError, match="hikari.toml"):
        load_world(world)


# -- the terminal and the page -----------------------------------------------------------


def test_show_prints_threads_and_thoughts(tmp_path, feed):
    from simulacra.feed.show import render_threads

    run, _ = feed()
    run.run(2)
    run.close()
    lines = list(render_threads(tmp_path / "run", thoughts=True))
    text = "\n".join(lines)
    assert "#1 " in text and "└ #2" in text and "Hikari reacts: it is idol talk" in text
    assert "Hikari ignores" in text


def test_the_viewer_serves_the_feed_page_and_board(tmp_path, feed):
    import http.client

    from simulacra.viewer.server import ViewerServer

    run, _ = feed()
    run.run(2)
    run.close()
    with ViewerServer(tmp_path / "run").start() as server:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        conn.request("GET", "/api/feed", headers={"Host": f"127.0.0.1:{server.port}"})
        data = json.loads(conn.getresponse().read())
        conn.request("GET", "/", headers={"Host": f"127.0.0.1:{server.port}"})
        page = conn.getresponse().read().decode()
        conn.request("GET", "/static/feed.js", headers={"Host": f"127.0.0.1:{server.port}"})
        script = conn.getresponse()
        assert script.status == 200
        script.read()
    assert "feed.js" in page
    assert data["agents"] == ["Hikari"] and len(data["messages"]) >= 5
    replied = [d for d in data["decisions"] if d["reply"] is not None]
    assert replied and replied[0]["thought"] and replied[0]["memories"]


def test_every_feed_template_renders_its_example_under_a_bounded_schema():
    from simulacra.llm.schema import max_answer_tokens
    from simulacra.llm.templates import all_templates

    feed_templates = {n: t for n, t in all_templates().items() if n.startswith("feed_")}
    assert set(feed_templates) == {
        "feed_observe",
        "feed_react",
        "feed_action",
        "feed_insight",
        "feed_summarise",
    }
    for template in feed_templates.values():
        prompt = template.render(**template.example)
        assert prompt.user and "{{" not in prompt.user
        assert max_answer_tokens(json_schema(template.schema(**template.example))) < 2000


@pytest.mark.browser
def test_the_feed_page_shows_threads_and_on_click_the_thought_and_memories(tmp_path, feed):
    chromium_path = Path("/usr/bin/chromium")
    if not chromium_path.exists():
        pytest.skip("Debian's chromium is not installed")
    from playwright.sync_api import sync_playwright

    from simulacra.viewer.server import ViewerServer

    run, _ = feed()
    run.run(2)
    run.close()
    errors: list[str] = []
    with ViewerServer(tmp_path / "run").start() as server, sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(chromium_path), args=["--headless", "--no-sandbox"]
        )
        page = browser.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url + "feed")
        page.wait_for_selector("#threads .thread", timeout=10_000)
        assert page.locator("#threads .thread").count() == 4  # posts; replies nest inside
        page.locator(".msg.agent").first.click()
        shown = page.locator("#detail").inner_text().lower()  # headings are upper-cased
        assert "thought process" in shown and "it is idol talk" in shown
        assert "memories used" in shown and "facts remembered" in shown
        page.screenshot(path=str(tmp_path / "feed.png"), full_page=True)
        browser.close()
    assert not errors, errors


def test_insight_drops_facts_copied_from_the_template(tmp_path, feed):
    copy = "The Blue Tide band's 18:00 lake show ended with a surprise duet, which the crowd loved."
    real = "Starlight Nova played Comet Letter at its first festival"
    run, _ = feed({"feed_insight": {"facts": [copy, real]}})
    run.run(1)
    texts = [r.description for r in run.agent("Hikari").stream]
    assert real in texts and copy not in texts
