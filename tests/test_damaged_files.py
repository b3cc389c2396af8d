"""Issue 33, items 7 to 16: damaged files and failed commands. A damaged run directory is a
one-line error naming the file and the fix, with nothing saved changed; a damaged shared cache
is reported and set aside, never fatal; input is checked before anything is opened for
writing; a full disk and a log that ends early are said in one line."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hostile_helpers import OBJECT, WORLD, cli, copy_world, fingerprint

from simulacra.sim import runlock

# ------------------------------------------------------------ 7. a damaged run directory


def saved(run: Path) -> dict[str, str]:
    """What the run holds, less the lock file (it names the last process to take it)."""
    found = fingerprint(run)
    found.pop(".lock", None)
    return found


def _sql(path: Path, *statements: str) -> None:
    import sqlite3

    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()


def _meta(run: Path, **changes) -> None:
    import json

    meta = json.loads((run / "meta.json").read_text())
    meta.update(changes)
    (run / "meta.json").write_text(json.dumps(meta))


def _garbage(path: Path) -> None:
    path.write_bytes(b"not a database " * 100)


DAMAGES = {
    "memory.sqlite is no database": (lambda r: _garbage(r / "memory.sqlite"), "memory.sqlite"),
    "memory.sqlite malformed": (
        lambda r: _damage_in_the_middle(r / "memory.sqlite"),
        "memory.sqlite",
    ),
    "memory.sqlite cut": (
        lambda r: (r / "memory.sqlite").write_bytes((r / "memory.sqlite").read_bytes()[:9000]),
        "memory.sqlite",
    ),
    "checkpoint cut in half": (
        lambda r: _sql(
            r / "memory.sqlite",
            "UPDATE state SET value = substr(value, 1, length(value) / 2)",
        ),
        "memory.sqlite: damaged: its checkpoint is cut short",
    ),
    "the last memories deleted": (
        lambda r: _sql(r / "memory.sqlite", "DELETE FROM memories WHERE id > 4"),
        "holds 4 memories of",
    ),
    "the first memories deleted": (
        lambda r: _sql(r / "memory.sqlite", "DELETE FROM memories WHERE id <= 4"),
        "(ids 5 to 8)",
    ),
    "every other memory deleted": (
        lambda r: _sql(r / "memory.sqlite", "DELETE FROM memories WHERE id % 2 = 0"),
        "memory.sqlite: damaged: holds",
    ),
    "one resident's memories deleted": (
        lambda r: _sql(r / "memory.sqlite", "DELETE FROM memories WHERE agent = 'Maria Lopez'"),
        "holds 0 memories of Maria Lopez",
    ),
    "chroma.sqlite3 is no database": (
        lambda r: _garbage(r / "chroma" / "chroma.sqlite3"),
        "chroma.sqlite3: damaged",
    ),
    "chroma.sqlite3 malformed": (
        lambda r: _damage_in_the_middle(r / "chroma" / "chroma.sqlite3"),
        "chroma.sqlite3: damaged",
    ),
    "a step of 0 seconds": (lambda r: _meta(r, step_seconds=0), "meta.json: step_seconds"),
    "a step of -10 seconds": (lambda r: _meta(r, step_seconds=-10), "meta.json: step_seconds"),
    "a step that is text": (lambda r: _meta(r, step_seconds="10"), "meta.json: step_seconds"),
    "an agent who is no resident": (
        lambda r: _meta(r, agents=["Maria Lopez", "Nobody Atall"]),
        "meta.json: agents: names 'Nobody Atall', who is not a resident",
    ),
    "an end before the start": (
        lambda r: _meta(r, end="2023-02-13T06:00:00"),
        "meta.json: end:",
    ),
}


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_run_is_one_line_on_resume_and_nothing_changes(run, damage):
    do, named = DAMAGES[damage]
    do(run)
    before = saved(run)
    line = cli("run", "--resume", run, "--hours", "0.1").one_line_error()
    assert named in line, line
    assert "restore" in line or "move" in line or "write" in line, line  # the fix
    assert saved(run) == before
    assert not runlock._held  # this process is no writer of the run it refused


@pytest.mark.parametrize(
    "command",
    [["whisper", "{run}", "Maria", "I will paint"], ["set", "{run}", OBJECT, "is on fire"]],
)
def test_commands_that_open_a_run_name_the_damage_too(run, command):
    _sql(run / "memory.sqlite", "UPDATE state SET value = substr(value, 1, 100)")
    before = saved(run)
    line = cli(*[str(run) if a == "{run}" else a for a in command]).one_line_error()
    assert "memory.sqlite: damaged: its checkpoint is cut short" in line
    assert saved(run) == before
    assert not runlock._held


def test_an_undamaged_run_still_resumes(run, scripted, word_embedder):
    from scripted_town import SCRIPTS

    from simulacra.sim.simulation import Simulation

    sim = Simulation.resume(run, model=scripted(SCRIPTS), embedder=word_embedder)
    assert sim.step_no == 3
    sim.run(until_step=5)
    sim.close()
    again = Simulation.open(run, model=scripted(SCRIPTS), embedder=word_embedder)
    assert again.step_no == 5
    again.close()


def test_the_fix_for_a_damaged_chroma_works(run, scripted, word_embedder):
    from scripted_town import SCRIPTS

    from simulacra.sim.simulation import Simulation

    _garbage(run / "chroma" / "chroma.sqlite3")
    line = cli("run", "--resume", run, "--hours", "0.1").one_line_error()
    assert f"mv {run / 'chroma'} {run / 'chroma.damaged'}" in line
    (run / "chroma").rename(run / "chroma.damaged")
    sim = Simulation.resume(run, model=scripted(SCRIPTS), embedder=word_embedder)
    maria = sim.resident("Maria Lopez").agent.stream
    assert maria.retrieve("physics", sim.now)  # the vectors are back
    sim.close()


def test_a_checkpoint_of_an_older_simulacra_is_checked_against_its_cursor(run):
    import json
    import sqlite3

    db = sqlite3.connect(run / "memory.sqlite")
    (value,) = db.execute("SELECT value FROM state WHERE key = 'checkpoint'").fetchone()
    state = json.loads(value)
    del state["memories"]  # written before the checkpoint counted memories
    db.execute("UPDATE state SET value = ? WHERE key = 'checkpoint'", (json.dumps(state),))
    db.execute("DELETE FROM memories WHERE agent = 'Klaus Mueller' AND id > 2")
    db.commit()
    db.close()
    line = cli("run", "--resume", run, "--hours", "0.1").one_line_error()
    assert "holds 2 memories of Klaus Mueller (ids 1 to 2), but its checkpoint saw 8" in line


# ------------------------------------------------------------ 10. deeply nested TOML


def test_a_value_nested_thousands_deep_is_one_line_in_world_check(tmp_path):
    world = copy_world(tmp_path)
    scenario = world / "scenario.toml"
    scenario.write_text(scenario.read_text() + "\ndeep = " + "[" * 5000 + "]" * 5000 + "\n")
    done = cli("world", "check", world)
    assert done.code == 2 and "Traceback" not in done.err, done.err
    line = done.one_line_error()
    assert str(scenario) in line and "nested too deeply" in line


def test_a_settings_file_nested_thousands_deep_is_one_line(tmp_path):
    config = tmp_path / "settings.toml"
    config.write_text("[llm]\nseed = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n")
    line = cli("--config", config, "world", "check", WORLD).one_line_error()
    assert str(config) in line and "nested too deeply" in line


# ------------------------------------------------------------ 12, 13. whisper, set, interview


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["whisper", "{run}", "Nobody", "I will paint"], "no resident named 'Nobody'"),
        (["whisper", "{run}", "Maria", "   "], "STATEMENT"),
        (["whisper", "{run}", "Maria", ""], "STATEMENT"),
        (["set", "{run}", "the moon", "is on fire"], "the moon"),
        (["interview", "{run}", "Nobody", "How are you?"], "no resident named 'Nobody'"),
        (["set", "{run}", OBJECT, "   "], "state is empty"),
    ],
)
def test_a_refused_whisper_or_set_changes_no_file(run, args, named):
    before = fingerprint(run)
    line = cli(*[str(run) if a == "{run}" else a for a in args]).one_line_error()
    assert named in line
    assert fingerprint(run) == before  # Chroma's files too: nothing was opened for writing


def test_an_empty_inner_voice_is_refused_by_the_agent_too(scripted, word_embedder, tmp_path):
    from datetime import datetime

    from simulacra.agent import GenerativeAgent
    from simulacra.errors import UserError
    from simulacra.persona import Persona

    persona = Persona(name="Maria Lopez", age=21, innate="curious", learned="Maria paints")
    at = datetime(2023, 2, 13, 8)
    maria = GenerativeAgent.create(
        tmp_path / "maria", persona, at=at, model=scripted(), embedder=word_embedder
    )
    held = len(maria.stream)
    with pytest.raises(UserError, match="STATEMENT"):
        maria.inner_voice(" \n ", at)
    assert len(maria.stream) == held


# ------------------------------------------------------------ 14. feed input

FAN_FEED = WORLD.parent / "fan-feed"
POST = "[[post]]\nauthor = {author}\nat = 2023-08-05T12:00:00\ntext = {text}\n{extra}\n"


def _feed_world(tmp_path: Path, *posts: str) -> Path:
    world = tmp_path / "feed-world"
    shutil.copytree(FAN_FEED, world)
    (world / "posts.toml").write_text("\n".join(posts))
    return world


def test_two_posts_with_the_same_ref_are_refused(tmp_path):
    from simulacra.errors import UserError
    from simulacra.feed import load_world

    first = POST.format(author='"a"', text='"one"', extra='ref = "x"')
    second = POST.format(author='"b"', text='"two"', extra='ref = "x"')
    world = _feed_world(tmp_path, first, second)
    with pytest.raises(UserError, match=r"posts.toml: post\[2\].ref: ref 'x' is given to"):
        load_world(world)


@pytest.mark.parametrize(
    ("author", "text", "field"),
    [
        ('"mika\\u001b[31m"', '"hello"', "author"),
        ('"mika"', '"ring \\u0007 ring"', "text"),
        ('"mika"', '"\\u202ereversed"', "text"),
    ],
)
def test_control_characters_in_posts_are_refused_as_the_town_refuses_them(
    tmp_path, author, text, field
):
    from simulacra.errors import UserError
    from simulacra.feed import load_world

    world = _feed_world(tmp_path, POST.format(author=author, text=text, extra=""))
    with pytest.raises(UserError, match=rf"post.1.\.{field}: contains the control character"):
        load_world(world)


def test_a_post_keeps_its_newlines(tmp_path):
    from simulacra.feed import load_world

    world = _feed_world(tmp_path, POST.format(author='"mika"', text='"one\\ntwo"', extra=""))
    assert load_world(world).posts[0].text == "one\ntwo"


def test_posting_from_the_command_line_refuses_control_characters(tmp_path):
    from simulacra.errors import UserError
    from simulacra.feed.run import post_to

    class NoBoard:  # the checks come before the board is asked anything
        now = None

    with pytest.raises(UserError, match="--as: contains the control character U[+]001B"):
        post_to(NoBoard(), [], "ann\x1b[2J", "hello")
    with pytest.raises(UserError, match="TEXT: contains the control character U[+]0007"):
        post_to(NoBoard(), [], "ann", "ring \x07")


# ------------------------------------------------------------ 15. the play server


@pytest.fixture
def played(run):
    """The run resumed live (paused) behind a play server."""
    from conftest import WordEmbedder
    from scripted_town import SCRIPTS

    from simulacra.llm import open_model
    from simulacra.llm.scripted import ScriptedModel
    from simulacra.settings import Settings
    from simulacra.sim.live import LiveRun
    from simulacra.sim.simulation import Simulation
    from simulacra.viewer.server import ViewerServer

    settings = Settings()
    settings.llm.cache = False
    model = open_model(settings.llm, completer=ScriptedModel(SCRIPTS))
    sim = Simulation.resume(run, model=model, embedder=WordEmbedder())
    live = LiveRun(sim, speed=None, paused=True).start()
    try:
        with ViewerServer(run, live=live) as server:
            server.start()
            yield server
    finally:
        live.stop()
        sim.close()


def _handlers_done(before: set) -> None:
    """Wait for the server's request threads to end (each handles one connection); those of
    servers other tests left behind in this process are not this test's."""
    import threading
    import time

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if not any("process_request" in t.name for t in set(threading.enumerate()) - before):
            return
        time.sleep(0.01)
    raise AssertionError("a request thread is still running")


def test_a_client_that_goes_away_mid_body_leaves_no_traceback(played, capfd):
    import socket
    import struct
    import threading

    from simulacra.viewer.server import TOKEN_HEADER

    before = set(threading.enumerate())
    for _ in range(3):
        client = socket.create_connection(("127.0.0.1", played.port), timeout=10)
        head = (
            f"POST /api/play/whisper HTTP/1.1\r\nHost: 127.0.0.1:{played.port}\r\n"
            f"Content-Type: application/json\r\n{TOKEN_HEADER}: {played.token}\r\n"
            "Content-Length: 1000\r\n\r\n"
        )
        client.sendall(head.encode() + b'{"resident": "Ma')
        # Reset, not a polite close: the server's next read or write fails.
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()
    _handlers_done(before)
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Error" not in err, err
    assert not played.live.sim.town.user.actions  # half a body is no action


def test_many_clients_at_once_are_all_answered(played):
    """The listen backlog holds every connection of a busy page (64 here) while the server
    is not accepting: with the default of 5 the seventh could not connect."""
    import socket

    from simulacra.viewer.server import ViewerServer

    with ViewerServer(played.directory, live=played.live) as busy:  # not serving yet
        address = ("127.0.0.1", busy.port)
        clients = [socket.create_connection(address, timeout=10) for _ in range(64)]
        request = (
            f"GET /api/meta HTTP/1.1\r\nHost: 127.0.0.1:{busy.port}\r\nConnection: close\r\n\r\n"
        )
        for client in clients:
            client.sendall(request.encode())
        busy.start()
        for client in clients:
            answer = b""
            while chunk := client.recv(65536):
                answer += chunk
            assert answer.startswith(b"HTTP/1.1 200"), answer[:200]
            client.close()


# ------------------------------------------------------------ 9. shared caches


def test_models_list_reads_a_marker_holding_any_bytes(tmp_path, monkeypatch):
    from simulacra.llm import catalogue as cat

    monkeypatch.setenv("SIMULACRA_CACHE_DIR", str(tmp_path))
    for model in cat.catalogue():
        target = cat.assembled_path(model, tmp_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"GGUF" + b"\0" * 100)
        target.with_name(target.name + ".verified").write_bytes(b"\xff\xfe\x00 \xe9t\xe9")
    done = cli("models", "list")
    assert done.code == 0 and "Traceback" not in done.err, done.err
    assert not any(cat.status(m, tmp_path).verified for m in cat.catalogue() if m.parts.count > 1)


def _request(user: str = "u"):
    from simulacra.llm.completion import Request

    return Request("t", "s", user, None, 10, 0.5, 0.9, 1)


def _filled_replay_cache(path: Path) -> None:
    from simulacra.llm.replay import ReplayCache
    from simulacra.llm.scripted import ScriptedModel

    cache = ReplayCache(ScriptedModel({"t": "recorded"}), path)
    for i in range(300):  # several pages
        cache.complete(_request(f"question {i} " + "x" * 200))
    cache.close()


def _damage_in_the_middle(path: Path) -> None:
    data = bytearray(path.read_bytes())
    for at in range(4096, len(data), 4096):  # every page but the first, the header kept
        data[at + 8 : at + 40] = b"\xa5" * 32
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: p.write_bytes(b"this is no database at all\n" * 50),
        lambda p: p.write_bytes(p.read_bytes()[:5000]),  # cut
        _damage_in_the_middle,
        lambda p: (p.unlink(), p.mkdir(), (p / "x").write_text("x")),  # a directory in its place
    ],
    ids=["garbage", "cut", "pages", "directory"],
)
def test_a_damaged_replay_cache_is_reported_set_aside_and_rebuilt(tmp_path, capsys, damage):
    from simulacra.llm.replay import ReplayCache
    from simulacra.llm.scripted import ScriptedModel

    path = tmp_path / "llm-replay.sqlite"
    _filled_replay_cache(path)
    damage(path)
    backend = ScriptedModel({"t": "asked again"})
    cache = ReplayCache(backend, path)
    answers = [cache.complete(_request(f"question {i} " + "x" * 200)).text for i in range(300)]
    assert set(answers) <= {"recorded", "asked again"} and "asked again" in answers
    assert cache.complete(_request("question 0 " + "x" * 200)).cache_hit  # a working cache
    cache.close()
    warning = capsys.readouterr().err.strip()
    assert len(warning.splitlines()) == 1, warning
    assert warning.startswith(f"warning: {path}: the replay cache is damaged"), warning
    (aside,) = tmp_path.glob("llm-replay.sqlite.damaged-*")
    assert "set aside as " + aside.name in warning
    assert path.is_file()


@pytest.mark.parametrize("kind", ["garbage", "directory"])
def test_a_damaged_embedding_cache_is_reported_set_aside_and_rebuilt(tmp_path, capsys, kind):
    from conftest import WordEmbedder

    from simulacra.embed.embedder import CachedEmbedder

    path = tmp_path / "embeddings.sqlite"
    filled = CachedEmbedder(WordEmbedder(), path)
    first = filled.embed(["one", "two"])
    filled._db.close()  # as at the end of a process
    if kind == "garbage":
        path.write_bytes(b"\x00garbage" * 1000)
    else:
        path.unlink()
        path.mkdir()
    inner = WordEmbedder()
    again = CachedEmbedder(inner, path).embed(["one", "two"])
    assert (again == first).all() and inner.calls == 1  # computed again
    warning = capsys.readouterr().err.strip()
    assert warning.startswith(f"warning: {path}: the embedding cache is damaged"), warning
    assert len(warning.splitlines()) == 1
    assert len(list(tmp_path.glob("embeddings.sqlite.damaged-*"))) == 1


def test_a_busy_cache_is_not_taken_for_a_damaged_one(tmp_path):
    import sqlite3

    from simulacra.cachedb import damaged

    path = tmp_path / "c.sqlite"
    path.write_bytes(b"garbage" * 100)
    with pytest.raises(sqlite3.DatabaseError) as e:
        sqlite3.connect(path).execute("SELECT 1 FROM sqlite_master").fetchall()
    assert damaged(e.value)
    assert not damaged(sqlite3.OperationalError("database is locked"))


# ------------------------------------------------------------ 16. a log that ends early


def _short_log(run: Path) -> str:
    """The run's log cut to its first step (the checkpoint is at step 3)."""
    events = run / "events.jsonl"
    events.write_bytes(events.read_bytes().split(b"\n")[0] + b"\n")
    return (
        f"{events}: the event log ends at step 0, but the checkpoint is at step 3: "
        "steps 1 to 2 are missing"
    )


def _viewing(monkeypatch):
    from simulacra.viewer.server import ViewerServer

    def stop(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(ViewerServer, "serve_forever", stop)


@pytest.mark.parametrize(
    "command",
    [["log"], ["log", "--agent", "Maria"], ["stats"], ["report", "--out", "{tmp}"], ["view"]],
)
def test_readers_say_in_one_line_that_the_log_ends_before_the_checkpoint(
    run, tmp_path, monkeypatch, command
):
    said = _short_log(run)
    _viewing(monkeypatch)
    before = saved(run)
    args = [str(tmp_path / "report") if a == "{tmp}" else a for a in command]
    extra = {"view": ["--no-browser"], "log": ["--chats"]}.get(args[0], [])
    done = cli(*args[:1], run, *args[1:], *extra)
    assert done.code == 0 and "Traceback" not in done.err, done.err
    (line,) = done.err.splitlines()
    assert line.startswith(f"warning: {said}"), line
    assert "restore events.jsonl" in line
    assert saved(run) == before
    # run --resume refuses the same log with the same words.
    assert said in cli("run", "--resume", run, "--hours", "0.1").one_line_error()


def test_readers_of_a_whole_log_say_nothing(run, monkeypatch):
    _viewing(monkeypatch)
    for args in (["log", run], ["stats", run], ["view", run, "--no-browser"]):
        done = cli(*args)
        assert done.code == 0 and done.err == "", (args, done.err)


# ------------------------------------------------------------ 8. a full disk


def _scripted_runs(monkeypatch) -> None:
    """`simulacra run` in this process on the scripted town and the word embedder."""
    from conftest import WordEmbedder
    from scripted_town import SCRIPTS

    from simulacra import llm
    from simulacra.llm.scripted import ScriptedModel
    from simulacra.sim import simulation

    real_open = llm.open_model

    def scripted_model(settings, *, log_dir=None, **_):
        return real_open(settings, completer=ScriptedModel(SCRIPTS), log_dir=log_dir)

    monkeypatch.setattr(simulation, "open_model", scripted_model)
    monkeypatch.setattr(simulation, "open_embedder", lambda *a, **k: WordEmbedder())


def test_a_full_disk_stops_a_run_with_one_line_and_nothing_lost(run, monkeypatch):
    import errno
    import sqlite3

    from simulacra.llm.calllog import CallLog
    from simulacra.memory.store import MemoryStore
    from simulacra.sim.eventlog import EventLog, read_events

    full = []
    write, commit, close = EventLog.write, MemoryStore.commit, CallLog.close

    def write_until_full(self, record):
        if record.step == 5:
            full.append(True)
            raise OSError(errno.ENOSPC, "No space left on device", str(self.path))
        write(self, record)

    def commit_unless_full(self):
        if full:  # as Chroma and SQLite fail, each in its own words
            raise sqlite3.OperationalError("database or disk is full")
        commit(self)

    def close_when_full(self):
        close(self)
        if full:
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(EventLog, "write", write_until_full)
    monkeypatch.setattr(MemoryStore, "commit", commit_unless_full)
    monkeypatch.setattr(CallLog, "close", close_when_full)
    _scripted_runs(monkeypatch)
    done = cli("run", "--resume", run, "--hours", "0.1")
    line = done.one_line_error()
    assert "Traceback" not in done.err and "During handling" not in done.err
    assert line.startswith(f"error: {run}: the disk is full (writing {run / 'events.jsonl'})")
    assert "nothing was lost, the run stays at its last checkpoint, step 3" in line
    assert f"simulacra run --resume {run}" in line
    # With space again, the run goes on from step 3: the steps written past it are cut.
    monkeypatch.undo()
    _scripted_runs(monkeypatch)
    done = cli("run", "--resume", run, "--hours", "0.01")
    assert done.code == 0, done.err
    steps = [r.step for r in read_events(run / "events.jsonl")]
    assert steps == list(range(len(steps))) and len(steps) > 5


def test_a_full_disk_in_any_other_command_is_one_line(run, monkeypatch):
    import errno

    from simulacra.sim import rundir

    def full(path, data, **_):
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(rundir, "write_json", full)
    before = saved(run)
    line = cli("fork", run, run.parent / "copy").one_line_error()
    assert f"the disk is full (writing {run.parent / 'copy' / 'meta.json'})" in line
    assert "free some space" in line
    assert saved(run) == before
