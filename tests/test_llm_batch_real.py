"""Calls decoded together in one llama.cpp context, on the embedded SmolLM2-135M."""

from __future__ import annotations

import threading

import pytest
from pydantic import create_model

from simulacra.llm.interface import Prompt
from simulacra.llm.schema import Answer, one_of, text

pytestmark = pytest.mark.real

PLACES = ["Hobbs Cafe: counter", "Johnson Park: bench", "Oak Hill College: library desk"]
Plan = create_model("Plan", __base__=Answer, place=(one_of(PLACES), ...), doing=(text(40), ...))


def prompt(name: str, task: str) -> Prompt:
    return Prompt("plan", f"You are {name}, who lives in Smallville.", task, agent=name)


def ask_at_once(model, prompts: list[Prompt]) -> list:
    answers: list = [None] * len(prompts)
    errors: list[BaseException] = []

    def ask(i: int) -> None:
        try:
            answers[i] = model.generate(prompts[i], Plan, seed=i)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(prompts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors, errors
    return answers


def test_calls_made_at_once_decode_together_and_all_parse(real_model):
    names = ["Isabella Rodriguez", "Maria Lopez", "Klaus Mueller", "Sam Moore", "Tom Moreno"]
    prompts = [prompt(n, f"Where does {n} go this morning, and to do what?") for n in names]
    answers = ask_at_once(real_model, prompts)  # five calls for four sequences: one waits
    assert all(a.place in PLACES and a.doing for a in answers)
    entries = [e for e in _entries(real_model)]
    assert len(entries) == 5 and all(e["parsed"] for e in entries)
    # Where the time went is logged for every call, and adds up to no more than its seconds.
    for e in entries:
        parts = e["prefill_s"] + e["decode_s"] + e["sample_s"]
        assert 0 < parts <= e["seconds"] + 1e-3


def test_an_agent_asking_again_reads_only_what_changed(real_model):
    maria = prompt("Maria Lopez", "What does Maria do at 9:00?")
    klaus = prompt("Klaus Mueller", "What does Klaus do at 9:00?")
    for p, seed in ((maria, 1), (klaus, 1), (maria, 2)):
        real_model.generate(p, Plan, seed=seed)
    entries = _entries(real_model)
    # Maria's second call finds her whole prompt in her sequence although Klaus's call came
    # between (only the last token is read again, for its logits), and Klaus's call copied
    # the shared start of the prompt from hers.
    assert entries[2]["reused_tokens"] == entries[2]["prompt_tokens"] - 1
    assert entries[1]["reused_tokens"] > 0


@pytest.mark.parametrize("kv_cache_mb", [1, 64])
def test_a_prompt_read_again_for_want_of_room_is_counted(tmp_path, kv_cache_mb):
    """One sequence for two agents: Maria's second call finds her prompt only in her saved
    state. 1 MB holds no state of this length, so her prompt is read again and counted as
    evicted; 64 MB holds both, and it is reused."""
    from simulacra.llm import StructuredModel
    from simulacra.llm.calllog import CallLog
    from simulacra.llm.llama import LlamaCppModel
    from simulacra.llm.resolve import embedded_model
    from simulacra.settings import Settings

    settings = Settings().llm
    settings.n_parallel, settings.kv_cache_mb = 1, kv_cache_mb
    model = StructuredModel(
        LlamaCppModel(embedded_model(), settings), settings, CallLog(tmp_path / "calls.jsonl")
    )
    story = " ".join(["Maria studies physics at Oak Hill College and streams games at night."] * 8)
    maria = prompt("Maria Lopez", f"{story} What does Maria do at 9:00?")
    klaus = prompt("Klaus Mueller", "What does Klaus do at 9:00?")
    for p, seed in ((maria, 1), (klaus, 1), (maria, 2)):
        model.generate(p, Plan, seed=seed)
    again = _entries(model)[2]
    if kv_cache_mb == 1:
        assert again["evicted_tokens"] > again["prompt_tokens"] / 2
    else:
        assert again["evicted_tokens"] == 0
        assert again["reused_tokens"] == again["prompt_tokens"] - 1


def test_the_grammar_ends_an_answer_without_a_pass_for_the_end_token(real_model):
    answer = real_model.generate(prompt("Sam Moore", "Where is Sam at noon?"), Plan, seed=3)
    assert answer.place in PLACES
    entry = _entries(real_model)[-1]
    # The grammar is checked token by token, and the whole vocabulary masked only on a reject.
    assert entry["resampled"] < entry["generated_tokens"]


def _entries(model) -> list[dict]:
    import json

    lines = model.log.path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_a_batched_town_run_reruns_free_and_identical(tmp_path, real_embedder):
    from pathlib import Path

    from simulacra.settings import Settings
    from simulacra.sim.eventlog import EVENTS_FILE
    from simulacra.sim.simulation import Simulation

    world = Path(__file__).resolve().parent.parent / "worlds" / "smallville-3"

    def run(out):
        settings = Settings()
        settings.llm.cache_dir = tmp_path / "cache"
        settings.engine.concurrency = 4  # the residents' day plans are decoded together
        sim = Simulation.create(world, out, hours=0.1, settings=settings, embedder=real_embedder)
        sim.run()
        totals = sim.model.log.totals
        sim.close()
        return totals

    first = run(tmp_path / "first")
    assert first.calls > 0 and first.parse_failures == 0
    again = run(tmp_path / "again")
    assert again.calls == 0 and again.cache_hits == first.calls
    events = (tmp_path / "first" / EVENTS_FILE).read_bytes()
    assert (tmp_path / "again" / EVENTS_FILE).read_bytes() == events


def test_drafting_from_the_prompt_keeps_the_answer_and_skips_passes(tmp_path):
    """Prompt lookup drafts the tokens an answer copies (a place's address); a token is still
    sampled at each position from the same logits, so a greedy answer is the same with it."""
    from simulacra.llm import StructuredModel
    from simulacra.llm.calllog import CallLog
    from simulacra.llm.llama import LlamaCppModel
    from simulacra.llm.resolve import embedded_model
    from simulacra.settings import Settings

    places = [
        "The Willows Market and Pharmacy: store: grocery store counter",
        "Oak Hill College: library: library table",
        "Isabella Rodriguez's apartment: kitchen: refrigerator",
    ]
    Copy = create_model("Copy", __base__=Answer, place=(one_of(places), ...), why=(text(60), ...))
    task = "Where does Sam buy milk? The places:\n" + "\n".join(f"- {p}" for p in places)
    answers, logs = [], []
    for lookahead in (0, 6):
        settings = Settings().llm
        settings.lookahead, settings.temperature = lookahead, 0.0
        log = CallLog(tmp_path / f"calls-{lookahead}.jsonl")
        model = StructuredModel(LlamaCppModel(embedded_model(), settings), settings, log)
        answers.append(model.generate(prompt("Sam Moore", task), Copy, seed=1))
        logs.append(_entries(model)[-1])
    assert answers[0] == answers[1]
    assert logs[0]["drafted"] == 0
    assert 0 < logs[1]["kept"] <= logs[1]["drafted"]


Line = create_model("Line", __base__=Answer, says=(text(120), ...))


def as_host(task: str) -> Prompt:
    """A greedy ``respond`` prompt for the host."""
    return Prompt(
        "respond",
        "You are Isabella Rodriguez, who runs Hobbs Cafe.",
        task,
        agent="Isabella Rodriguez",
        temperature=0.0,
    )


def test_an_answer_asked_to_avoid_a_text_copies_no_long_run_of_it(real_model):
    """The retry of an echoed line: greedy, SmolLM2 copies the sentence it is shown; told to
    avoid it, no AVOID_RUN tokens in a row of it come back."""
    from dataclasses import replace

    from simulacra.llm.batch import AVOID_RUN

    said = "I'm excited to see how it goes and to have some fun with my friends and customers!"
    ask = as_host(
        f'You said: "{said}" Klaus asks: "What is your plan?" Say your line again, word for word.'
    )
    free = real_model.generate(ask, Line)
    steered = real_model.generate(replace(ask, avoid=(said,)), Line)
    backend = real_model.completer
    runs = _runs(backend.plain_tokens(said), AVOID_RUN)
    assert _runs(backend.plain_tokens(free.says), AVOID_RUN) & runs, "copied when free"
    assert not _runs(backend.plain_tokens(steered.says), AVOID_RUN) & runs


def test_an_option_the_grammar_requires_is_written_even_where_it_is_to_be_avoided(real_model):
    """An opening's topic is an event, and a memo the line is to avoid told of the same event.
    On the 1.5B (bench_talk on party seed 3v) every token the grammar allowed was once banned,
    and llama.cpp aborted the process on the token sampled from nothing allowed; SmolLM2 finds
    another spelling of the option here, so this holds the outcome, not that abort."""
    from dataclasses import replace

    event = "Isabella Rodriguez's Valentine's Day party at Hobbs Cafe on February 14th from 5pm"
    Topic = create_model("Topic", __base__=Answer, topic=(one_of([event]), ...))
    ask = as_host("What do you bring up with Klaus?")
    answer = real_model.generate(replace(ask, avoid=(f"I told Klaus of {event}.",)), Topic)
    assert answer.topic == event


def test_an_answer_kept_from_a_copy_does_not_write_it_without_its_spaces(real_model):
    """Kept from " Day" after "Valentine's", the 1.5B wrote "Valentine'sDay" (party seed 1w):
    the word with and without the space before it is kept from alike."""
    from dataclasses import replace

    said = "See you at the Valentine's Day party at Hobbs Cafe tomorrow at five!"
    ask = as_host(f'Say exactly: "{said}"')
    steered = real_model.generate(replace(ask, avoid=(said,)), Line)
    squashed = [w for w in steered.says.split() if w.strip(".,!?") not in said.split()]
    joined = {a + b for a, b in zip(said.split(), said.split()[1:], strict=False)}
    assert not {w.strip(".,!?") for w in squashed} & {j.strip(".,!?") for j in joined}


def test_an_answer_told_not_to_say_a_name_does_not(real_model):
    """A line asked again because it spoke of the partner names neither of the two."""
    from dataclasses import replace

    ask = as_host('Say exactly: "Hello Klaus! Klaus, come to my party, Klaus!"')
    assert "Klaus" in real_model.generate(ask, Line).says
    told = real_model.generate(replace(ask, unwritten=("Klaus", "Isabella")), Line)
    assert "klaus" not in told.says.lower() and "isabella" not in told.says.lower()


def _runs(tokens: list[int], n: int) -> set[tuple[int, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def test_a_prompt_in_english_gets_no_chinese_back(real_model):
    """Qwen models switch to Chinese mid-phrase ("the effects of gentrification in低", party
    runs): a prompt with no Chinese, Japanese or Korean gets none of those tokens back."""
    from simulacra.llm.llama import _FAR_EAST, far_east_tokens

    backend = real_model.completer
    banned = set(far_east_tokens(backend._load()).tolist())
    assert backend.plain_tokens("你好")[0] in banned
    assert not banned & set(backend.plain_tokens("Hello, café “party” at 5pm — ok?"))
    ask = Prompt("respond", "You speak Chinese.", "Say hello in Chinese characters.", agent="A")
    assert not _FAR_EAST.search(real_model.generate(ask, Line).says)


def test_the_keys_an_answer_must_write_ride_along_as_drafts(tmp_path):
    """An answer's keys and punctuation are fixed by its schema (fixedtext.py): drafted, they
    take no forward pass of their own. (The answer may differ from the one written without
    drafts where a near tie falls the other way in a larger pass's sums.)"""
    from simulacra.llm import StructuredModel
    from simulacra.llm.calllog import CallLog
    from simulacra.llm.llama import LlamaCppModel
    from simulacra.llm.resolve import embedded_model
    from simulacra.llm.schema import one_of
    from simulacra.settings import Settings

    hours = [f"at_{h:02d}" for h in range(8, 14)]
    Day = create_model(
        "Day", __base__=Answer, **{h: (one_of(["home", "cafe", "library"]), ...) for h in hours}
    )
    task = "Where is Sam each hour from 8 to 13? He works at the cafe."
    passes = []
    for lookahead in (0, 6):
        settings = Settings().llm
        settings.lookahead, settings.temperature = lookahead, 0.0
        log = CallLog(tmp_path / f"calls-{lookahead}.jsonl")
        model = StructuredModel(LlamaCppModel(embedded_model(), settings), settings, log)
        model.generate(prompt("Sam Moore", task), Day, seed=1)
        call = _entries(model)[-1]
        passes.append(call["generated_tokens"] - call["kept"])
    # The keys, quotes and the options' ends: well over half of the answer.
    assert passes[1] <= passes[0] / 2, passes
    assert 0 < call["fixed_kept"] <= call["fixed_drafted"] <= call["drafted"], call
