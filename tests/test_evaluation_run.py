"""`simulacra eval` on a simulated smallville-3 (scripted town: Isabella invites whoever she
meets to her party), and once on the real small model."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from scripted_town import SCRIPTS

from simulacra.cli.app import cli
from simulacra.errors import UserError
from simulacra.evaluation.conditions import Condition
from simulacra.evaluation.daylog import run_progress
from simulacra.evaluation.evaluate import Models, evaluate_interviews, evaluate_the_town
from simulacra.evaluation.records import EVAL_DIR, INTERVIEW_SUMMARY, TOWN_FILE, TOWN_SUMMARY
from simulacra.evaluation.runview import read_run
from simulacra.llm import open_model
from simulacra.llm.scripted import ScriptedModel, simplest
from simulacra.settings import Settings
from simulacra.sim.simulation import Simulation
from simulacra.viewer.report import write_report

ROOT = Path(__file__).resolve().parent.parent
WORLD = ROOT / "worlds" / "smallville-3"


def knows_by_memory(request):
    """A truthful scripted agent: it knows what its retrieved memories mention."""
    asked = request.variables["question"].lower()
    words = [w for w in ("valentine", "maria", "klaus", "isabella") if w in asked]
    memories = " ".join(request.variables["memories"]).lower()
    knows = bool(words) and all(w in memories for w in words)
    said = "Yes, I know." if knows else "I don't know."
    return {"memory": "1" if knows else "0", "answer": said, "knows": knows}


def filled(script):
    """A scripted town answer with any field the schema has gained since filled in simply,
    so these tests follow the town's prompts as they change."""

    def answer(request):
        given = script(request) if callable(script) else dict(script)
        if not isinstance(given, dict) or request.schema is None:
            return given
        fields = request.schema.get("properties", {})
        return {k: given[k] if k in given else simplest(v, request.schema)
                for k, v in fields.items()}  # fmt: skip

    return answer


TOWN = {name: filled(script) for name, script in SCRIPTS.items()}


def simulate(directory: Path, embedder, hours: float) -> Path:
    settings = Settings()
    settings.llm.cache = False
    model = open_model(settings.llm, completer=ScriptedModel(TOWN))
    sim = Simulation.create(
        WORLD, directory, hours=hours, settings=settings, model=model, embedder=embedder
    )
    sim.run()
    sim.close()
    return directory


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    from conftest import WordEmbedder

    return simulate(tmp_path_factory.mktemp("eval") / "run", WordEmbedder(), 1.5)


def models(word_embedder):
    settings = Settings()
    settings.llm.cache = False
    model = open_model(
        settings.llm, completer=ScriptedModel({**TOWN, "town_question": knows_by_memory})
    )
    return Models(model, model, word_embedder)


def test_the_town_evaluation_traces_the_party_through_a_run(run_dir, word_embedder):
    result = evaluate_the_town(run_dir, models=models(word_embedder))
    (party,) = result.diffusion  # no Sam Moore in smallville-3: no candidacy
    assert party.start == ["Isabella Rodriguez"]
    assert "Maria Lopez" in party.end and "Maria Lopez" in party.in_memory  # she was invited
    assert result.density is not None and result.density.end >= result.density.start
    (coordination,) = result.coordination
    assert not coordination.logged  # the run stopped on Monday morning
    assert (run_dir / EVAL_DIR / TOWN_SUMMARY).is_file()
    assert (run_dir / EVAL_DIR / TOWN_FILE).read_text().count("\n") == result.answers


def test_an_answer_naming_the_party_s_place_says_it_knows(tmp_path, run_dir, word_embedder):
    """Seed 2's host: "... a Valentine's Day party at Hobbs Cafe ... I don't know a
    Valentine's Day party.", with ``knows`` false."""
    import shutil

    def host_like(request):
        if "Valentine" not in request.variables["question"]:
            return knows_by_memory(request)
        said = "a Valentine's Day party at Hobbs Cafe. I don't know a Valentine's Day party."
        memories = " ".join(request.variables["memories"])
        said = said if "Hobbs" in memories else "I don't know."
        return {"memory": "0", "answer": said, "knows": False}

    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    shutil.rmtree(copy / EVAL_DIR, ignore_errors=True)
    settings = Settings()
    settings.llm.cache = False
    model = open_model(settings.llm, completer=ScriptedModel({**TOWN, "town_question": host_like}))
    result = evaluate_the_town(copy, models=Models(model, model, word_embedder))
    (party,) = result.diffusion
    assert "Isabella Rodriguez" in party.end and "Isabella Rodriguez" in party.claimed


def test_an_answer_from_a_memory_of_the_person_says_it_knows(tmp_path, run_dir, word_embedder):
    """Seed 2y's end: Maria, asked of Klaus, named her memo of a talk with him and answered
    with it, ``knows`` false; a denial beside a memory of him still says no."""
    import shutil

    def from_memory(request):
        person = request.variables["subject"]
        memories = request.variables["memories"]
        number = next((i for i, m in enumerate(memories, 1) if person in m), 0)
        denied = request.variables["name"] == "Klaus Mueller"
        said = f"I have never heard of {person}." if denied else f"{person} and I talked."
        return {"memory": str(number), "answer": said, "knows": False}

    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    shutil.rmtree(copy / EVAL_DIR, ignore_errors=True)
    settings = Settings()
    settings.llm.cache = False
    model = open_model(
        settings.llm, completer=ScriptedModel({**TOWN, "town_question": from_memory})
    )
    evaluate_the_town(copy, models=Models(model, model, word_embedder))
    said = [json.loads(line) for line in (copy / EVAL_DIR / TOWN_FILE).read_text().splitlines()]
    knows = {(r["agent"], r["about"]): r["claims"] for r in said if r["kind"] == "knows"}
    assert knows[("Maria Lopez", "Isabella Rodriguez")]  # her memory names the host
    assert not any(c for (a, _), c in knows.items() if a == "Klaus Mueller")


def test_the_interviews_and_the_report(run_dir, word_embedder):
    result = evaluate_interviews(
        run_dir,
        agents="Maria",
        conditions=[Condition.FULL, Condition.NONE],
        per_category=1,
        models=models(word_embedder),
    )
    assert result.agents == ["Maria Lopez"] and result.judgments == 5
    full = next(r for r in result.rows if r.condition == "full")
    assert full.answers == 5 and full.mu is not None
    assert (run_dir / EVAL_DIR / INTERVIEW_SUMMARY).is_file()
    page = write_report(run_dir)
    html = page.read_text()
    assert "eval-trueskill.png" in html and "eval-town.png" in html
    assert (page.parent / "eval-town.png").stat().st_size > 1000


def test_the_run_as_the_evaluation_reads_it(run_dir):
    run = read_run(run_dir)
    assert run_progress(run_dir) == (540, 540, 10)  # 1.5 game hours of 10-second steps
    assert run.step == 540 and run.now == run.start + timedelta(hours=1.5)
    assert run.partners("Maria Lopez") == ["Isabella Rodriguez"]
    chat = run.last_chat("Maria Lopez", "Isabella Rodriguez")
    assert "Valentine" in " ".join(text for _, text in chat.lines)
    assert chat.places["Maria Lopez"].startswith("Hobbs Cafe")
    assert run.present("Isabella Rodriguez", "Hobbs Cafe", chat.time, run.now)


def test_the_commands_are_there_and_say_what_is_wrong(run_dir):
    shown = CliRunner().invoke(cli, ["eval", "--help"])
    assert shown.exit_code == 0 and "interview" in shown.output and "town" in shown.output
    with pytest.raises(UserError, match="--agents"):
        CliRunner().invoke(
            cli, ["eval", "town", str(run_dir), "--agents", "Nobody"], catch_exceptions=False
        )
    with pytest.raises(UserError, match="--conditions"):
        CliRunner().invoke(
            cli,
            ["eval", "interview", str(run_dir), "--conditions", "full,half"],
            catch_exceptions=False,
        )


@pytest.mark.real
def test_the_evaluation_runs_on_the_real_small_model(tmp_path, real_model, real_embedder):
    """SmolLM2 answers, judges and is scored: every answer parses, every ranking is whole."""
    run_dir = simulate(tmp_path / "run", real_embedder, 0.5)
    m = Models(real_model, real_model, real_embedder)
    result = evaluate_interviews(
        run_dir,
        agents="Klaus",
        conditions=[Condition.FULL, Condition.NONE],
        per_category=1,
        models=m,
    )
    assert result.judgments == 5
    rated = [r for r in result.rows if r.mu is not None]
    assert {r.condition for r in rated} == {"full", "none"}
    town = evaluate_the_town(run_dir, agents="Klaus,Maria", models=m)
    assert town.answers == 2 + 2 * 2  # the party for each; both ordered pairs, start and end
    assert 0.0 <= town.density.end <= 1.0


# ----------------------------------------------------------------------------- staging


def staged_chat(run_dir):
    run = read_run(run_dir)
    chat = run.last_chat("Maria Lopez", "Isabella Rodriguez")
    return run, chat


def memory_rows(run_dir: Path) -> int:
    import sqlite3

    with sqlite3.connect(run_dir / "memory.sqlite") as db:
        return db.execute("SELECT COUNT(*) FROM memories").fetchone()[0]


def test_a_conversation_is_staged_with_the_minds_of_its_moment(run_dir, word_embedder):
    """The two speakers as they were just before they talked: what they made later is not
    theirs yet, who they are is written again, and the run keeps every memory it had."""
    from simulacra.cognition.dialogue import converse
    from simulacra.evaluation.staging import minds_at
    from simulacra.memory import Kind

    run, chat = staged_chat(run_dir)
    kept = memory_rows(run_dir)
    settings = Settings()
    settings.llm.cache = False
    scripted = ScriptedModel(TOWN)
    model = open_model(settings.llm, completer=scripted)
    with minds_at(
        run_dir, run.world, chat.between, chat.time,
        model=model, embedder=word_embedder, settings=settings,
    ) as minds:  # fmt: skip
        maria = minds["Maria Lopez"]
        assert len(maria.stream) > 0
        assert all(m.created < chat.time for m in maria.stream)
        assert not any(m.kind is Kind.CHAT for m in maria.stream)  # their talk is still to come
        assert "summary" in [r.template for r in scripted.requests]  # identity written again
        first = chat.lines[0][0]
        other = next(n for n in chat.between if n != first)
        lines = converse(minds[first], minds[other], now=chat.time, setting="at Hobbs Cafe",
                         max_utterances=4)  # fmt: skip
        states = {name: mind.get_state() for name, mind in minds.items()}
    assert [line.speaker for line in lines][:2] == [first, other]
    asked = len(scripted.requests)
    with minds_at(
        run_dir, run.world, chat.between, chat.time,
        model=model, embedder=word_embedder, settings=settings, states=states,
    ) as again:  # fmt: skip
        assert again["Maria Lopez"].identity == minds["Maria Lopez"].identity
    assert len(scripted.requests) == asked  # a second staging asks no summary
    assert memory_rows(run_dir) == kept


def test_the_talk_benchmark_judges_the_run_s_lines_and_the_new_ones(run_dir, word_embedder):
    import argparse
    import sys

    sys.path.insert(0, str(ROOT / "scripts"))
    import bench_talk

    settings = Settings()
    settings.llm.cache = False
    model = open_model(settings.llm, completer=ScriptedModel(TOWN))
    args = argparse.Namespace(
        run=run_dir, samples=2, limit=1, since=None, model=None, seed=None, no_cache=True, out=None
    )
    report = bench_talk.bench(args, model=model, embedder=word_embedder)
    assert "| the run | 1 |" in report and "| said again | 2 |" in report
    assert report.count("Telling ") == 2 and "In the run (" in report
    assert "I'd love to come to your Valentine's Day party!" in report
    args.since = datetime(2023, 2, 15)  # after every talk of the run
    with pytest.raises(UserError, match="no conversation"):
        bench_talk.bench(args, model=model, embedder=word_embedder)


@pytest.mark.real
def test_a_staged_conversation_on_the_real_small_model(run_dir, real_model, real_embedder):
    """SmolLM2 and MiniLM: the minds of the moment are written and speak, every line parses."""
    from simulacra.cognition.dialogue import converse
    from simulacra.evaluation.staging import minds_at

    run, chat = staged_chat(run_dir)
    settings = Settings()
    with minds_at(
        run_dir, run.world, chat.between, chat.time,
        model=real_model, embedder=real_embedder, settings=settings,
    ) as minds:  # fmt: skip
        assert all(mind.identity for mind in minds.values())
        first = chat.lines[0][0]
        other = next(n for n in chat.between if n != first)
        lines = converse(minds[first], minds[other], now=chat.time, setting="at Hobbs Cafe",
                         max_utterances=2)  # fmt: skip
    assert lines and all(line.text.strip() for line in lines)
