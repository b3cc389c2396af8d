"""The party benchmark's report (scripts/bench_party.py, party_report.py) and the morning
benchmark's day-judge section, written from runs made here: a written two days that hold
every part of the story, and a scripted half hour of the party itself. The benchmarks' model
runs are not made here."""

from __future__ import annotations

import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from scripted_town import SCRIPTS
from synthetic_run import Day, at

from simulacra.evaluation.day import judge
from simulacra.evaluation.daylog import read_day_log
from simulacra.evaluation.facts import seeded_facts
from simulacra.evaluation.town import Coordination, Diffusion, TownResult
from simulacra.llm import open_model
from simulacra.llm.scripted import ScriptedModel
from simulacra.settings import Settings
from simulacra.sim import rundir
from simulacra.sim.simulation import Simulation
from simulacra.sim.stats import run_stats

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import bench_morning  # noqa: E402
import bench_party  # noqa: E402
from party_report import holds, learned, write_report  # noqa: E402

WORLD = ROOT / "worlds" / "smallville-3"
FIXTURE = Path(__file__).parent / "fixtures" / "run-smallville-3"
PARTY = next(f for f in seeded_facts(["Isabella Rodriguez"]) if f.name == "party")
CAFE = "Hobbs Cafe: cafe: cafe tables"
INVITE = "I'm throwing a Valentine's Day party at Hobbs Cafe tomorrow from 5pm to 7pm!"


def two_days() -> Day:
    """Feb 13 07:00 to Feb 14 19:00 in half hours: Isabella tells Maria on the 13th, Maria
    tells Klaus on the 14th; Maria plans it and comes, Klaus does neither."""
    day = Day(bench_party.START, bench_party.END, step_minutes=30)
    dorm = "Dorm for Oak Hill College: common room: sofa"
    day.does(
        "Isabella Rodriguez", at(13, "07:00"), "serving coffee", "Hobbs Cafe: cafe: cafe counter"
    )
    day.does("Maria Lopez", at(13, "07:00"), "studying physics", CAFE)
    day.does("Maria Lopez", at(13, "12:00"), "studying physics", "Oak Hill College: library: desk")
    day.does("Maria Lopez", at(14, "16:30"), "going to Isabella's party", CAFE)
    day.does(
        "Klaus Mueller", at(13, "07:00"), "writing his paper", "Oak Hill College: library: desk"
    )
    day.says(at(13, "10:00"), ("Isabella Rodriguez", INVITE), ("Maria Lopez", "I'd love to come!"))
    talk = "Conversation between Maria Lopez and Isabella Rodriguez"
    day.remembers("Maria Lopez", at(13, "10:00"), "chat", f"{talk}: {INVITE}")
    memo = "Maria Lopez's memo about talking with Isabella Rodriguez: a party tomorrow!"
    day.remembers("Maria Lopez", at(13, "10:00"), "chat", memo)
    day.says(
        at(14, "12:00"),
        ("Maria Lopez", "Are you coming to Isabella's Valentine's Day party at five?"),
        ("Klaus Mueller", "Which party? I have my paper to finish."),
    )
    day.plans("Isabella Rodriguez", at(13, "07:00"), ("07:00", "19:00", "serving coffee"),
              ("19:00", "21:00", "arriving at Hobbs Cafe for the party"))  # fmt: skip
    day.plans("Maria Lopez", at(14, "00:00"), ("07:00", "17:00", "studying physics"),
              ("17:00", "19:00", "attending the Valentine's Day party at Hobbs Cafe"))  # fmt: skip
    day.does("Klaus Mueller", at(14, "17:00"), "reading on the sofa", dorm)
    return day


def town_result() -> TownResult:
    return TownResult(
        step=72,
        time=bench_party.END,
        agents=["Isabella Rodriguez", "Maria Lopez", "Klaus Mueller"],
        diffusion=[
            Diffusion(
                fact="party",
                label=PARTY.title,
                agents=3,
                start=["Isabella Rodriguez"],
                end=["Isabella Rodriguez", "Maria Lopez"],
                claimed=["Isabella Rodriguez", "Maria Lopez"],
                in_memory=["Isabella Rodriguez", "Maria Lopez", "Klaus Mueller"],
                paper=PARTY.paper,
            )  # fmt: skip
        ],
        density=None,
        coordination=[
            Coordination(
                fact="party",
                label=PARTY.title,
                place="Hobbs Cafe",
                start=PARTY.start,
                end=PARTY.end,
                knew=["Maria Lopez", "Klaus Mueller"],
                came=["Maria Lopez"],
                logged=True,
                paper=PARTY.paper,
            )  # fmt: skip
        ],
        answers=3,
        hallucinated=0,
    )


def report_of(run: Path, town: TownResult | None) -> str:
    log = read_day_log(run)
    return write_report(
        log,
        fact=PARTY,
        town=town,
        day=judge(log),
        stats=run_stats(run),
        seconds=3600.0,
        town_seconds=60.0,
        model="qwen.gguf",
        seed=7,
    )


def row(report: str, *starts: str) -> str:
    found = [line for line in report.splitlines() if line.startswith("| " + " | ".join(starts))]
    assert len(found) == 1, (starts, report)
    return found[0]


def test_the_report_tells_the_story_of_two_days(tmp_path):
    run = two_days().write(tmp_path / "run")
    shutil.copy(FIXTURE / rundir.MAP_FILE, run / rundir.MAP_FILE)  # for the run's stats
    report = report_of(run, town_result())
    # Who learned it, when, from whom, by which line; and whose memory holds it.
    maria = row(report, "Maria Lopez", "Mon 10:00", "Isabella Rodriguez")
    assert "Valentine's Day party at Hobbs Cafe tomorrow" in maria
    assert "| Mon 10:00 (chat: Conversation between" in maria and "| yes | yes (memory" in maria
    assert row(report, "Isabella Rodriguez", "the host").endswith("| from the start | yes | yes |")
    klaus = row(report, "Klaus Mueller", "Tue 12:00", "Maria Lopez")
    assert "| none | no | no (memory holds it) |" in klaus
    # Whose plans hold it, on its day at its hours, and the day before.
    assert row(report, "Maria Lopez", "17:00-19:00 attending").endswith("| yes | — |")
    assert "| no | 19:00-21:00 arriving at Hobbs Cafe for the party |" in row(
        report, "Isabella Rodriguez", "—"
    )
    # Who was at Hobbs Cafe during it, and the day before at its hours.
    assert row(report, "Maria Lopez", "17:00-19:00 (cafe)", "no")
    assert row(report, "Klaus Mueller", "no", "no")
    assert row(report, "Isabella Rodriguez", "17:00-19:00 (cafe)", "17:00-19:00 (cafe)")
    # Conversations per resident-day and what they were about.
    assert row(report, "Maria Lopez", "Mon 13 Feb", "1", "Isabella Rodriguez", "1")
    assert row(report, "Klaus Mueller", "Tue 14 Feb", "1", "Maria Lopez", "1")
    assert "  - Maria Lopez's memo: a party tomorrow!" in report
    # The day judge, the town, the costs.
    assert "## The day judge" in report and "an event of another day" in report
    assert "19:00-21:00 arriving at Hobbs Cafe for the party" in report
    assert "| knows of Isabella's Valentine's Day party | 1/3 | 2/3" in report
    assert "| came to Isabella's Valentine's Day party | | 1 of 2 who knew" in report
    assert "| conversations | 2 |" in report and "| wall time | 1:00:00" in report


def test_the_report_without_the_town(tmp_path):
    run = two_days().write(tmp_path / "run")
    shutil.copy(FIXTURE / rundir.MAP_FILE, run / rundir.MAP_FILE)
    report = report_of(run, None)
    assert "## The town (`simulacra eval town`)\n\nNot run." in report
    assert "| says so at the end |" in report
    assert row(report, "Maria Lopez", "Mon 10:00").endswith("| — |")


@pytest.fixture(scope="module")
def scripted_party(tmp_path_factory) -> Path:
    """The scripted town from Feb 14 16:50 for half an hour: the party's first minutes."""
    from conftest import WordEmbedder

    settings = Settings()
    settings.llm.cache = False
    model = open_model(settings.llm, completer=ScriptedModel(SCRIPTS))
    run = tmp_path_factory.mktemp("party") / "run"
    sim = Simulation.create(
        WORLD, run, hours=0.5, settings=settings, model=model, embedder=WordEmbedder(),
        start=datetime(2023, 2, 14, 16, 50),
    )  # fmt: skip
    sim.run()
    sim.close()
    return run


def test_the_report_of_a_scripted_run(scripted_party):
    report = report_of(scripted_party, None)
    maria = row(report, "Maria Lopez", "Tue 17:")  # invited when they met at the cafe
    assert "| Isabella Rodriguez | Good to see you! I'm throwing a Valentine's Day" in maria
    assert [w.resident for w in learned(read_day_log(scripted_party), PARTY)] == [
        "Maria Lopez",
        "Klaus Mueller",
    ]
    assert row(report, "Maria Lopez", "17:00-17:20 (cafe)", "not in the run")  # studying there
    assert row(report, "Klaus Mueller", "no", "not in the run")  # he reads in the library


def test_the_morning_report_has_the_day_judge(scripted_party):
    report = bench_morning.summarise(scripted_party, WORLD, "scripted", 10.0, 42)
    assert "## The day judge" in report and "| Maria Lopez | Tue 14 Feb |" in report
    assert "| model calls |" in report


def test_the_party_is_the_papers_and_the_script_explains_itself():
    assert bench_party.the_party(WORLD) == PARTY
    assert PARTY.start.date() == bench_party.END.date() and PARTY.end == bench_party.END
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench_party.py"), "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0 and "--keep" in done.stdout and "Feb 14 19:00" in done.stdout


def test_a_plan_changed_by_a_talk_joins_the_day_s_outline(tmp_path):
    """A talk's news re-plans the day (planning.plan_news): its item is remembered apart from
    the day's plan, and the report's plans hold both."""
    day = Day(bench_party.START, bench_party.END, step_minutes=30)
    plan = "Klaus Mueller's plan for Tuesday February 14: wake up at 07:00; 07:00 reading"
    day.remembers("Klaus Mueller", at(14, "00:00"), "plan", plan)
    news = "Klaus Mueller added to today's plan: 17:00 going to the Valentine's Day party"
    day.remembers("Klaus Mueller", at(14, "10:30"), "plan", news)
    log = read_day_log(day.write(tmp_path / "run"))
    outline = log.outlines["Klaus Mueller"][datetime(2023, 2, 14).date()]
    assert [f"{i.start:%H:%M} {i.activity}" for i in outline] == [
        "07:00 reading",
        "17:00 going to the Valentine's Day party",
    ]


def test_a_plan_that_goes_to_the_party_s_place_at_its_hours_holds_it():
    """Party seed 2x: Maria's "17:00 going to Hobbs Cafe on February 14th from 17:00 to 19:00
    with Isabella Rodriguez" names neither a party nor Valentine's Day."""
    from simulacra.evaluation.daylog import PlannedStretch

    going = "going to Hobbs Cafe on February 14th from 17:00 to 19:00 with Isabella Rodriguez"
    assert holds(PlannedStretch(datetime(2023, 2, 14, 17), None, going), PARTY)
    assert not holds(PlannedStretch(datetime(2023, 2, 13, 17), None, going), PARTY)  # a day early
    writing = PlannedStretch(datetime(2023, 2, 14, 13), datetime(2023, 2, 14, 16), going)
    assert not holds(writing, PARTY)  # at the cafe, but before the party
