"""The day judge (`simulacra eval day`) on small written days: each kind of broken item that a
reader of the issue's morning saw is counted for its resident and day, and a plain day has
none."""

from __future__ import annotations

import json
import shutil
from datetime import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from synthetic_run import Day, at

from simulacra.cli.app import cli
from simulacra.errors import UserError
from simulacra.evaluation import vocabulary, wording
from simulacra.evaluation.dates import dated_events, other_day
from simulacra.evaluation.day import FindingKind, evaluate_days, judge
from simulacra.evaluation.daylog import read_day_log
from simulacra.evaluation.records import DAY_SUMMARY, EVAL_DIR

FIXTURE = Path(__file__).parent / "fixtures" / "run-smallville-3"
NAMES = ["Isabella Rodriguez", "Maria Lopez", "Klaus Mueller"]
CAFE = "Hobbs Cafe: cafe: cafe counter"
DORM = "Dorm for Oak Hill College"


def counts(result, name: str, day: int) -> dict[FindingKind, int]:
    found = [d for d in result.days if d.agent == name and d.day.day == day]
    assert len(found) == 1, (name, day, result.days)
    return {k: v for k, v in found[0].counts.items() if v}


def the_issues_morning() -> Day:
    """The two hours a new user saw (issue 31), written down."""
    day = Day(at(13, "07:00"), at(13, "09:00"))
    day.does(
        "Klaus Mueller", at(13, "07:00"), "clothing", f"{DORM}: Klaus Mueller's room: wardrobe"
    )
    day.does("Klaus Mueller", at(13, "07:40"), "concluding their research paper, at most 60 chars}",
             "Oak Hill College: library: library tables")  # fmt: skip
    day.does("Isabella Rodriguez", at(13, "07:00"), "preparing food and serves customers", CAFE)
    day.does("Isabella Rodriguez", at(13, "07:20"), "Isabella Rodriguez", CAFE)
    day.does("Isabella Rodriguez", at(13, "07:30"), "brewing coffee", CAFE)
    day.does("Isabella Rodriguez", at(13, "08:10"), "Isabella Rodriguez", CAFE)
    day.does("Isabella Rodriguez", at(13, "08:20"), "brewing coffee", CAFE)
    day.does("Maria Lopez", at(13, "07:00"), "sleeping", f"{DORM}: common room: sofa")
    day.does("Maria Lopez", at(13, "08:00"), "studying physics", f"{DORM}: kitchen: kitchen table")
    day.plans("Maria Lopez", at(13, "07:00"),
              ("00:00", "08:00", "sleeping"), ("08:00", "09:00", "nothing"),
              ("09:00", "18:00", "studying physics"),
              ("18:00", "22:00", "spending Valentine's Day with Klaus Mueller"),
              ("22:00", "24:00", "sleeping"))  # fmt: skip
    day.says(
        at(13, "08:30"),
        ("Klaus Mueller", "Maria, could you help me with my paper on gentrification?"),
        ("Maria Lopez", "I'm sorry, but I don't have experience with gentrification in cities."),
        ("Klaus Mueller", "I'm sorry, I don't have any experience with gentrification in cities."),
    )
    plates = "a few plates and utensils on the table"
    day.sets(at(13, "08:00"), f"{DORM}: kitchen: kitchen table", plates)
    day.sets(at(13, "07:00"), f"{DORM}: common room: sofa", "sleeping")
    return day


def test_the_issues_morning_is_counted_per_resident_and_kind(tmp_path):
    result = evaluate_days(the_issues_morning().write(tmp_path / "run"))
    assert counts(result, "Klaus Mueller", 13) == {
        FindingKind.NOT_DOING: 1,  # "clothing"
        FindingKind.PROMPT: 1,  # "at most 60 chars}"
        FindingKind.LINE: 1,  # his echo of Maria's apology, itself an assistant's
    }
    assert counts(result, "Isabella Rodriguez", 13) == {FindingKind.NOT_DOING: 2}
    assert counts(result, "Maria Lopez", 13) == {
        FindingKind.PLACE: 1,  # asleep on the common room's sofa
        FindingKind.NOT_DOING: 1,  # "08:00-09:00 nothing"
        FindingKind.OTHER_DAY: 1,  # Valentine's Day on the 13th
        FindingKind.LINE: 1,  # "I'm sorry, but I don't have experience"
        FindingKind.NOT_STATE: 2,  # plates on a table; a sofa "sleeping"
    }
    # The name as an activity at 07:20 and at 08:10 is one item, seen twice.
    name = [f for f in result.findings if f.text == "Isabella Rodriguez"]
    assert len(name) == 1 and name[0].seen == 2 and "a name" in name[0].why
    # Written where the other evaluations write, as the records it printed.
    data = json.loads((tmp_path / "run" / EVAL_DIR / DAY_SUMMARY).read_text())
    assert data["step"] == result.step == 12
    assert sum(sum(d["counts"].values()) for d in data["days"]) == sum(result.totals().values())
    assert result.worst() == 6


def test_the_command_prints_counts_and_examples(tmp_path):
    day = the_issues_morning()
    day.does("Isabella Rodriguez", at(13, "08:40"), "[red]brewing[/red] coffee", CAFE)
    run = day.write(tmp_path / "run")
    done = CliRunner().invoke(cli, ["eval", "day", str(run), "--examples", "1"])
    assert done.exit_code == 0, done.output
    for shown in ("Klaus Mueller", "not doing", "'clothing' alone", "prompt text", "day.json"):
        assert shown in done.output
    assert "[red]brewing" in done.output  # the model's words, not markup
    missing = CliRunner().invoke(cli, ["eval", "day", str(tmp_path / "nowhere")])
    assert isinstance(missing.exception, UserError) and "meta.json" in str(missing.exception)


def test_a_plain_day_has_nothing_broken(tmp_path):
    run = tmp_path / "run"
    shutil.copytree(FIXTURE, run)  # the scripted half hour: Isabella invites Maria
    result = evaluate_days(run)
    assert [d.agent for d in result.days] == NAMES
    assert result.findings == [] and result.worst() == 0


def test_an_action_held_far_past_its_plan_block(tmp_path):
    day = Day(at(13, "07:00"), at(14, "08:00"))
    klaus = [("00:00", "07:00", "sleeping"), ("07:00", "08:00", "having breakfast"),
             ("08:00", "09:00", "reading"), ("09:00", "23:00", "writing"),
             ("23:00", "24:00", "sleeping")]  # fmt: skip
    maria = [("00:00", "07:00", "sleeping"), ("07:00", "08:00", "reading"),
             ("08:00", "08:30", "having breakfast"), ("08:30", "23:00", "studying"),
             ("23:00", "24:00", "watching a film and sleeping")]  # fmt: skip
    for when in (at(13, "07:00"), at(14, "00:00")):
        day.plans("Klaus Mueller", when, *klaus).plans("Maria Lopez", when, *maria)
    table, bed = f"{DORM}: kitchen: kitchen table", f"{DORM}: Klaus Mueller's room: bed"
    day.does("Klaus Mueller", at(13, "07:00"), "eating toast", table)  # 2h20 for 1h
    day.does("Klaus Mueller", at(13, "09:20"), "writing his paper", f"{DORM}: common room: desk")
    day.does("Klaus Mueller", at(13, "23:00"), "sleeping", bed)  # until 07:20: 20 min late
    day.does("Klaus Mueller", at(14, "07:20"), "eating toast", table)
    desk, bed = f"{DORM}: Maria Lopez's room: desk", f"{DORM}: Maria Lopez's room: bed"
    day.does("Maria Lopez", at(13, "07:00"), "waking up", bed)
    day.does("Maria Lopez", at(13, "07:30"), "reading", desk)  # until 08:45: past breakfast
    day.does("Maria Lopez", at(13, "08:45"), "studying", desk)
    day.does("Maria Lopez", at(13, "23:00"), "watching a film", desk)
    day.does("Maria Lopez", at(13, "23:40"), "sleeping", bed)  # on into the next day's sleep
    day.does("Maria Lopez", at(14, "07:00"), "reading", desk)
    result = judge(read_day_log(day.write(tmp_path / "run")))
    held = [f for f in result.findings if f.kind is FindingKind.OVERRUN]
    # Sleep over midnight (the two days' sleep blocks joined, or sleep begun in a block that
    # ends in it: party seed 2x) and 20 minutes late are fine.
    assert [(f.agent, f.text) for f in held] == [
        ("Klaus Mueller", "eating toast"),
        ("Maria Lopez", "reading"),
    ]
    assert "07:00-08:00 having breakfast" in held[0].why
    assert "past the next plan item" in held[1].why
    assert [f for f in result.findings if f.kind is not FindingKind.OVERRUN] == []


def test_lines_that_read_like_an_assistant_an_echo_or_the_third_person(tmp_path):
    day = Day(at(13, "10:00"), at(13, "11:00"))
    day.says(
        at(13, "10:00"),
        ("Isabella Rodriguez", "Hi Maria! I'm throwing a Valentine's Day party tomorrow."),
        ("Maria Lopez", "Thanks, Isabella! I'd love to come. Can I bring Klaus?"),
        ("Isabella Rodriguez", "Of course. Maria is always welcome at Hobbs Cafe."),
        ("Maria Lopez", "As an AI language model, I cannot attend parties."),
        ("Isabella Rodriguez", "See you there, Maria."),
        ("Maria Lopez", "Everyone at the dorm is so fond of Isabella. Bye!"),
    )
    day.says(
        at(13, "10:30"),
        ("Klaus Mueller", "I have been reading about gentrification in the library today."),
        ("Isabella Rodriguez", "I have been reading about gentrification in the library too."),
    )
    day.says(  # bench_town, stop 77: her words, in his tense
        at(13, "10:40"),
        ("Maria Lopez", "I woke up at 07:30, showered, got dressed, and had breakfast at home."),
        ("Klaus Mueller", "showering, got dressed, and have breakfast at home."),
        ("Maria Lopez", "Sounds good. I showered too and have a class at nine."),
    )
    result = judge(read_day_log(day.write(tmp_path / "run")))
    lines = {f.text.split(": ", 1)[1]: f.why for f in result.findings if f.kind is FindingKind.LINE}
    assert set(lines) == {
        "Of course. Maria is always welcome at Hobbs Cafe.",
        "As an AI language model, I cannot attend parties.",
        "I have been reading about gentrification in the library too.",
        "Everyone at the dorm is so fond of Isabella. Bye!",
        "showering, got dressed, and have breakfast at home.",
    }
    assert "speaks of Maria Lopez" in lines["Of course. Maria is always welcome at Hobbs Cafe."]
    assert "echoes" in lines["I have been reading about gentrification in the library too."]
    assert counts(result, "Isabella Rodriguez", 13) == {FindingKind.LINE: 2}


def test_a_question_handed_back_or_a_line_begun_mid_sentence(tmp_path):
    """Party run of seed 1 (stop 81)."""
    day = Day(at(13, "07:00"), at(13, "08:00"))
    day.says(
        at(13, "07:30"),
        ("Maria Lopez", "Hello Klaus, it's been a while since we last met. How's it going?"),
        ("Klaus Mueller", "I'm doing well, thanks. What about you?"),
        ("Maria Lopez", "Oh, that's nice! How about you?"),
        ("Klaus Mueller", "I'm glad to hear that! I'm just starting my research paper."),
        ("Maria Lopez", "What about you?"),
    )
    day.says(
        at(13, "07:40"),
        ("Isabella Rodriguez", "Hey Klaus, we're having a party tomorrow at 5pm!"),
        ("Klaus Mueller", "sociology student at Oak Hill College."),
    )
    result = judge(read_day_log(day.write(tmp_path / "run")))
    lines = {f.text.split(": ", 1)[1]: f.why for f in result.findings if f.kind is FindingKind.LINE}
    assert lines == {
        "Oh, that's nice! How about you?": "hands back the question just asked: 'how about you?'",
        "What about you?": "only hands the question back: 'what about you?'",
        "sociology student at Oak Hill College.": (
            "begins mid-sentence: 'sociology student at Oak Hill College.'"
        ),
    }


@pytest.mark.parametrize(
    ("line", "assistant"),
    [
        ("I'm sorry, but I don't have any information about that.", True),
        ("I'm sorry, but if there's anything else I can help with, I'm here!", True),
        ("As an AI language model, I cannot attend parties.", True),
        ("I'm sorry, but I can't help with that.", True),
        ("Do you have any other questions about the topic?", True),
        ("Let me know if you need any more assistance!", True),  # party seed 1z
        # bench_morning, stop 80
        (
            "Could you please provide me with the exam date and any other relevant information?",
            True,
        ),
        ("Could you tell me the time of the exam? I'll provide the snacks.", False),
        ("Let me know if you need help with the decorations!", False),
        ("I can't help with the decorations, I'm at the library until five.", False),
        ("I don't have any plans yet. Maybe I'll write at the library.", False),
        ("Anything else I can help you with? The croissants are fresh.", False),
    ],
)
def test_an_assistant_s_answer_is_told_from_a_person_s(line, assistant):
    from simulacra.evaluation.wording import assistant_line

    assert (assistant_line(line) is not None) is assistant


@pytest.mark.parametrize(
    ("activity", "why"),
    [
        ("clothing", "alone reads as a thing"),
        ("Isabella Rodriguez", "a name"),
        ("Klaus is reading", "a name"),
        ("nothing", "not a verb"),
        ("morning routine", "not a verb"),
        ("still writing a research paper", None),  # seeds 1p and 1q's plans
        ("still", "not a verb"),
        ("occasionally assisting customers", None),  # an adverb, then the doing
        ("occasionally", "not a verb"),
        ("in the classroom", None),  # "in" is an adverb too (party seed 3m)
        ("preparing food and serves customers", "two verb forms"),
        ("setting up the tables and", "cut short"),
        ("brewing coffee", None),
        ("reading", None),
        ("at the library", None),
        ("preparing food and drinks for the party", None),
        # plural nouns (seeds 1p and 1q): "to balloon" and "to chair" are verbs too
        ("placing colorful streamers and balloons around the cafe", None),
        ("making sure all the tables and chairs are set up for the party", None),
        ("logging into streaming platforms and chooses a game", "two verb forms"),
        ("reading books and articles related to sociology", None),  # seed 3m
        ("painting the walls with different colors and patterns using watercolors", None),  # 3z
        # a clause with its own subject and two verbs (seed 3y)
        ("practicing streaming the game to make sure it looks and feels good", None),
        ("showering, getting dressed and having breakfast at home", None),
        ("vlogging about her day", None),  # unknown to the lexicon, but -ing: a doing
    ],
)
def test_what_is_a_doing(activity, why):
    found = wording.not_doing(activity, NAMES)
    assert (found is None) if why is None else (why in found)


@pytest.mark.parametrize(
    ("state", "broken"),
    [
        ("a few plates and utensils on the table", True),
        ("sleeping", True),
        ("in use", False),
        ("being slept in", False),
        ("brewing coffee", False),
        ("a mess", False),
    ],
)
def test_what_is_a_state(state, broken):
    assert (wording.not_state(state) is not None) is broken


@pytest.mark.parametrize(
    ("activity", "address", "broken"),
    [
        ("sleeping", f"{DORM}: Maria Lopez's room: bed", False),
        ("sleeping", f"{DORM}: common room: sofa", True),
        ("having lunch", "Oak Hill College: library: library tables", True),
        ("having lunch", "Hobbs Cafe: cafe: cafe tables", False),
        ("taking a shower", "Isabella Rodriguez's apartment: bathroom: shower", False),
        ("brushing her teeth", "Isabella Rodriguez's apartment: main room: bed", True),
        ("relaxing by taking a warm bath", "Oak Hill College: student lounge: sofas", True),  # 2w
        ("washing dishes", "Hobbs Cafe: kitchen: kitchen sink", False),
        ("gardening", "Johnson Park: community garden: garden shed", False),  # no kind: any place
        ("playing various online games", "Oak Hill College: classroom: blackboard", True),
        ("streaming games", f"{DORM}: Maria Lopez's room: desk", False),
        ("streaming until midnight", "Oak Hill College: classroom: blackboard", True),
        ("setting up and streaming", "Oak Hill College: classroom: blackboard", True),
        # streaming thought about, not done (party seed 3v)
        ("considering the logistics of streaming", "Oak Hill College: library: bookshelves", False),
        ("playing a game on her phone", "The Rose and Crown Pub: pub: bar counter", False),
        ("watching a video game on her phone", "Hobbs Cafe: cafe: armchairs", False),  # 3w
        ("watching a movie on his laptop", "Oak Hill College: library: bookshelves", False),
        ("watching a movie", "Oak Hill College: library: bookshelves", True),
        ("watching a movie", f"{DORM}: common room: sofa", False),
        ("writing the body of the paper", "Johnson Park: community garden: garden shed", True),
        ("taking notes during his research", f"{DORM}: kitchen: stove", True),
        ("studying for the exam", "Oak Hill College: classroom: blackboard", False),
        ("reading the news", f"{DORM}: kitchen: kitchen table", False),
        ("writing at Hobbs Cafe", "Hobbs Cafe: cafe: cafe counter", False),
    ],
)
def test_what_needs_a_place_meant_for_it_is_done_there(activity, address, broken):
    assert (wording.place_for(activity, address) is not None) is broken


@pytest.mark.parametrize(
    ("text", "day", "broken"),
    [
        ("spending Valentine's Day with Klaus Mueller", 13, True),
        ("arriving at Hobbs Cafe for the party on February 14th", 13, True),
        ("preparing decorations for the Valentine's Day party", 13, False),
        ("setting up a table for the Valentine's Day cake", 13, False),  # seed 2's judge
        # seed 2r's host, the day before
        ("assisting with the setup and teardown of the Valentine's Day party", 13, False),
        ("ensuring that the cafe is ready for the Valentine's Day party", 13, False),
        ("hosting the Valentine's Day party at Hobbs Cafe", 14, False),
        ("the party tomorrow, Feb 14", 13, False),
        ("celebrating Christmas", 13, True),
    ],
)
def test_an_event_of_another_day(text, day, broken):
    assert (other_day(text, at(day, "12:00").date()) is not None) is broken


@pytest.mark.parametrize(
    ("text", "day", "broken"),
    [  # the host at her cafe on the 13th (party seeds 2r and 1z): no day named
        ("cleaning up after the party", 13, True),
        ("serving drinks to the party guests", 13, True),
        ("hosting the Valentine's Day party at Hobbs Cafe", 14, False),
        ("buying flowers for the Valentine's Day party", 13, False),
        ("decorating the cafe for the party", 13, False),
        ("telling Klaus about the party tomorrow", 13, False),
        ("cleaning up after the party", 15, False),
        ("attending the party", 15, True),
        ("serving the morning customers", 13, False),
        ("going to the concert", 13, False),  # a concert nobody dated
    ],
)
def test_a_dated_event_held_on_another_day(text, day, broken):
    written = [
        "Isabella Rodriguez is planning a Valentine's Day party at Hobbs Cafe",
        "a party at Hobbs Cafe on February 14th from 5pm to 7pm",
        "a concert from Feb 13 to Feb 14",
        "plan for Monday February 13: 08:00 working; 19:00 preparing for the party",
    ]
    events = dated_events(written, 2023)
    assert events.days == {"party": {at(14, "00:00").date()}}
    assert (other_day(text, at(day, "12:00").date(), events) is not None) is broken


@pytest.mark.parametrize(
    ("text", "clock", "broken"),
    [  # the host on her party's day (party seed 2u), the party from 17:00
        ("cleaning up after the party", "09:35", True),
        ("serving drinks to the party guests", "10:00", True),
        ("greeting the party guests", "16:40", False),  # a little early is its own
        ("hosting the Valentine's Day party at Hobbs Cafe", "17:00", False),
        ("cleaning up after the party", "19:10", False),
        ("decorating the cafe for the party", "09:35", False),
        ("setting up the tables for the party", "10:00", False),
        ("serving the morning customers", "09:35", False),
        ("providing information about the party", "11:30", False),  # seed 3m
        ("wrapping up the party", "11:35", True),  # seed 3, stop 69: its end, hours early
        ("wrapping gifts for the party", "11:35", False),
    ],
)
def test_a_dated_event_held_before_its_hour(text, clock, broken):
    events = dated_events(["a party at Hobbs Cafe on February 14th from 5pm to 7pm"], 2023)
    assert events.starts == {("party", at(14, "00:00").date()): time(17, 0)}
    assert (other_day(text, at(14, clock), events) is not None) is broken


@pytest.mark.parametrize(
    ("day_of", "remembered", "why"),
    [
        (13, "", "Feb 14"),  # the day before: the run's persona dates the party
        # its own day, before its hour (party seed 2u), the hour from what the run wrote
        (
            14,
            "throwing a Valentine's Day party at Hobbs Cafe on February 14th from 5pm to 7pm",
            "17:00",
        ),
    ],
)
def test_the_judge_dates_events_by_what_the_run_wrote(tmp_path, day_of, remembered, why):
    day = Day(at(day_of, "09:00"), at(day_of, "10:00"))
    if remembered:
        day.remembers(ISABELLA, at(day_of, "09:00"), "plan", remembered)
    day.does(ISABELLA, at(day_of, "09:00"), "planning the Valentine's Day party", CAFE)
    day.does(ISABELLA, at(day_of, "09:30"), "cleaning up after the party", CAFE)
    result = evaluate_days(day.write(tmp_path / "run"))
    found = [f for f in result.findings if f.kind == FindingKind.OTHER_DAY]
    assert [f.text for f in found] == ["cleaning up after the party"]
    assert why in found[0].why


KLAUS, MARIA, ISABELLA = "Klaus Mueller", "Maria Lopez", "Isabella Rodriguez"


@pytest.mark.parametrize(
    ("speaker", "to", "line", "why"),
    [  # lines of the 1.5B's mornings (scripts/results/morning.md, earlier versions)
        (KLAUS, MARIA, "Klaus Mueller responded that yes, he was,", "names themself"),
        (ISABELLA, MARIA, "Hi, Isabella! What's on your mind today?", "names themself"),
        (KLAUS, MARIA, "I was thinking about your comment about Klaus' passion", "names themself"),
        (KLAUS, MARIA, "Maria Lopez then asked Klaus how he's making progress", "speaks of"),
        (ISABELLA, MARIA, "I know Maria Lopez and Klaus Mueller, two students", "speaks of"),
        (MARIA, KLAUS, "I remember Klaus Mueller and Klaus Mueller is reading paper.", "speaks of"),
        (KLAUS, MARIA, "Maria, I'm sorry to hear that. I miss you too.", None),
        (MARIA, KLAUS, "Hi Klaus Mueller! Could you teach me this physics problem?", None),
        (KLAUS, MARIA, "Hello, I'm Klaus Mueller, a sociology student.", None),  # introduced
        (ISABELLA, KLAUS, "Hello Klaus, how can I help you today?", None),  # a barista's
        (ISABELLA, MARIA, "I want to help Maria Lopez plan the decorations.", "speaks of"),
        (ISABELLA, MARIA, "I'd love to help, Maria!", None),
    ],
)
def test_who_a_line_names(speaker, to, line, why):
    found = wording.bad_line(line, speaker, [to], [])
    assert (found is None) if why is None else (why in found), found


def test_prompt_and_schema_text():
    assert "at most 60" in wording.prompt_text("concluding their paper, at most 60 chars")
    assert "wake_up" in wording.prompt_text("setting the wake_up time")
    assert wording.prompt_text('{"activity": "reading"}') is not None
    assert wording.prompt_text("in an emergency, what they do instead") is not None
    assert wording.prompt_text("Here's the plan: we meet at 5") is None
    outline = "waking up at 07:00; 07:00 showering and getting dressed; 08:00 reading"  # 2w
    assert wording.prompt_text(outline) is not None
    assert wording.prompt_text("meeting at 17:00; bringing cake") is None
    # the preamble's instruction, in the resident's person (bench_town, stop 49)
    assert wording.prompt_text("staying true to who she is and to what she remembers")
    assert wording.prompt_text("staying true to her friends") is None
    assert wording.prompt_text("living an everyday life in Smallville") is None
    assert wording.prompt_text("being concrete and brief")  # the whole text (party seed 2z)
    assert wording.prompt_text("being brief") is None


def test_a_bad_vocabulary_is_a_one_line_error(tmp_path, monkeypatch):
    bad = tmp_path / "day.toml"
    source = vocabulary.VOCABULARY_FILE.read_text(encoding="utf-8")
    bad.write_text(source.replace("echo_share = 0.8", "echo_share = 2"), encoding="utf-8")
    monkeypatch.setattr(vocabulary, "VOCABULARY_FILE", bad)
    vocabulary.vocabulary.cache_clear()
    try:
        with pytest.raises(UserError) as e:
            vocabulary.vocabulary()
        assert "day.toml" in str(e.value) and "line.echo_share" in str(e.value)
    finally:
        vocabulary.vocabulary.cache_clear()


def test_a_plain_doing_and_a_time_at_the_end_are_not_broken():
    from simulacra.evaluation.wording import not_doing

    # Both read as findings on a 1.5B run: Klaus "is dressing", Maria's class "from 09:00".
    assert not_doing("dressing", []) is None
    assert not_doing("washing", []) is None
    assert not_doing("attending physics classes at Oak Hill College from 09:00", []) is None
    assert not_doing("clothing", []) is not None


def test_company_only_imagined_is_counted_where_it_was_not_there(tmp_path):
    """Seed 1j: Maria spent the party's hours in the dorm's kitchen "eating a chocolate cake
    with Klaus Mueller" while he was at the cafe."""
    day = Day(at(14, "17:00"), at(14, "18:00"))
    kitchen = f"{DORM}: kitchen: kitchen table"
    day.does("Maria Lopez", at(14, "17:00"), "eating a chocolate cake with Klaus Mueller", kitchen)
    day.does("Maria Lopez", at(14, "17:20"), "drinking coffee with Isabella", kitchen)
    day.does("Maria Lopez", at(14, "17:40"), "waiting for Klaus Mueller", kitchen)
    day.does("Klaus Mueller", at(14, "17:00"), "writing", CAFE)
    day.does("Isabella Rodriguez", at(14, "17:00"), "making tea", f"{DORM}: kitchen: stove")
    result = judge(read_day_log(day.write(tmp_path / "run")))
    found = [f for f in result.findings if f.kind is FindingKind.COMPANY]
    assert [(f.text, f.why) for f in found] == [
        ("eating a chocolate cake with Klaus Mueller", f"with Klaus Mueller, who was at {CAFE}")
    ]
    assert wording.company("being given a gift by Klaus", NAMES) == ["Klaus Mueller"]
    assert wording.company("thinking about Klaus Mueller", NAMES) == []
    assert wording.company("planning a date with Klaus Mueller", NAMES) == []


def test_an_activity_done_outside_the_building_it_names(tmp_path):
    """Since buildings have hours (stop 66), a plan's "studying at Hobbs Cafe" at 21:00 is
    placed elsewhere for a guest: its words then say where she is not."""
    day = Day(at(13, "20:00"), at(13, "22:00"))
    library = "Oak Hill College: library: library tables"
    day.does("Maria Lopez", at(13, "20:00"), "studying at Hobbs Cafe", CAFE)
    day.does("Maria Lopez", at(13, "21:00"), "studying at Hobbs Cafe in the evening", library)
    day.does("Klaus Mueller", at(13, "20:00"), "reading in the Dorm for Oak Hill College",
             f"{DORM}: common room: sofa")  # fmt: skip
    day.does("Klaus Mueller", at(13, "21:00"), "walking to Hobbs Cafe", library)
    result = judge(read_day_log(day.write(tmp_path / "run")))
    found = [(f.text, f.why) for f in result.findings if f.kind is FindingKind.PLACE]
    assert found == [
        ("studying at Hobbs Cafe in the evening", f"said at Hobbs Cafe, done at {library}")
    ]
