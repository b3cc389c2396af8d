"""Believability without a person (paper §6.2): a judge model sees the answers of every
condition to one question, shuffled and labelled A, B, ..., and ranks them; the rankings
feed a TrueSkill rating per condition, as the paper's human rankings did."""

from __future__ import annotations

import random
import sys
import zlib
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import cache
from itertools import permutations
from pathlib import Path
from string import ascii_uppercase
from typing import Any

from simulacra.evaluation.records import (
    JUDGMENTS_FILE,
    Appender,
    InterviewRecord,
    Judgment,
    model_identity,
    read_records,
)
from simulacra.evaluation.runview import RunView
from simulacra.llm import LanguageModel
from simulacra.llm.phrases import phrases_beside
from simulacra.llm.schema import Answer
from simulacra.llm.templates import template_beside
from simulacra.world.tree import split_address

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

JUDGE = template_beside(__file__, "judge")
PHRASES = phrases_beside(__file__, "judge")
MAX_CONDITIONS = 5  # 5! = 120 rankings is the largest enum a judge is offered
SEP = JUDGE.words["sep"]


def rankings(labels: Sequence[str]) -> list[str]:
    """Every order of ``labels`` as "B>A>C": the judge's answer is exactly one of them, so a
    ranking is always complete and never repeats a label."""
    return [SEP.join(p) for p in permutations(labels)]


def ranking_schema(**variables: Any) -> type[Answer]:
    """The answer of judge.prompt.toml: one of the rankings of its ``labels``."""
    return JUDGE.answer_model({**variables, "rankings": rankings(variables["labels"])})


@cache
def judge_system() -> str:
    return tomllib.loads(JUDGE.path.read_text(encoding="utf-8"))["system"].strip()


def life_digest(run: RunView, name: str) -> list[str]:
    """A few lines of what the agent did, from the event log, for the judge."""
    lines = []
    talks: dict[str, int] = defaultdict(int)
    for chat in run.chats:
        if name in chat.between:
            for other in chat.between:
                if other != name:
                    talks[other] += 1
    if talks:
        lines.append(PHRASES.raw("talked_with", talks=list(talks.items())))
    else:
        lines.append(PHRASES.raw("talked_with_no_one"))
    seconds: dict[str, float] = defaultdict(float)
    for stay in run.stays.get(name, []):
        where = split_address(stay.place)[0] or PHRASES.raw("street")
        seconds[where] += (stay.end - stay.start).total_seconds()
    top = sorted(seconds, key=lambda w: -seconds[w])[:4]
    if top:
        lines.append(PHRASES.raw("spent_most_time", places=top))
    plans = run.day_plans.get(name, [])
    if plans:
        lines.append(PHRASES.raw("last_plan", plan="; ".join(plans[-1][1:])[:400]))
    return lines


def person_text(run: RunView, name: str) -> str:
    persona = run.persona(name)
    learned = "; ".join(p.strip() for p in persona.learned.split(";") if p.strip())
    return f"{learned}. {persona.currently}".strip()


def judge_answers(
    run: RunView,
    records: Sequence[InterviewRecord],
    model: LanguageModel,
    *,
    out: Path,
    seed: int = 0,
    on_judgment: Callable[[Judgment], None] = lambda j: None,
) -> list[Judgment]:
    """Judge every question answered under two conditions or more (once per step)."""
    path = out / JUDGMENTS_FILE
    me = model_identity(model)
    judged = read_records(path, Judgment, run.step, me)
    done = {j.key for j in judged}
    groups: dict[tuple[str, str], dict[str, InterviewRecord]] = defaultdict(dict)
    for r in records:
        groups[r.agent, r.question_id][r.condition] = r
    writer = Appender(path)
    try:
        for (agent, qid), by_condition in groups.items():
            if len(by_condition) < 2 or (agent, qid) in done:
                continue
            shown = sorted(by_condition)
            # Shuffled the same way every time for the same question: a rerun is a replay.
            random.Random(zlib.crc32(f"{seed}|{agent}|{qid}".encode())).shuffle(shown)
            shown = shown[:MAX_CONDITIONS]
            labels = list(ascii_uppercase[: len(shown)])
            prompt = JUDGE.render(
                name=agent,
                person=person_text(run, agent),
                life=life_digest(run, agent),
                question=by_condition[shown[0]].question,
                answers=[
                    (lab, by_condition[c].answer) for lab, c in zip(labels, shown, strict=True)
                ],
                labels=labels,
                example=SEP.join(reversed(labels)),
            )
            prompt = replace(prompt, system=judge_system())
            answer = model.generate(prompt, ranking_schema(labels=labels))
            order = [shown[labels.index(lab)] for lab in answer.ranking.split(SEP)]
            judgment = Judgment(
                step=run.step,
                model=me,
                agent=agent,
                question_id=qid,
                question=by_condition[shown[0]].question,
                shown=shown,
                ranking=order,
            )
            writer.write(judgment)
            judged.append(judgment)
            done.add(judgment.key)
            on_judgment(judgment)
    finally:
        writer.close()
    wanted = {(r.agent, r.question_id) for r in records}
    return [j for j in judged if j.key in wanted]


def trueskill_ratings(
    judgments: Sequence[Judgment], conditions: Sequence[str]
) -> dict[str, tuple[float, float]]:
    """(mu, sigma) per condition: each judgment is one free-for-all match whose finishing
    order is the ranking (the paper's use of TrueSkill)."""
    import trueskill

    env = trueskill.TrueSkill(draw_probability=0.0)
    ratings = {c: env.create_rating() for c in conditions}
    for j in judgments:
        order = [c for c in j.ranking if c in ratings]
        if len(order) < 2:
            continue
        rated = env.rate([(ratings[c],) for c in order], ranks=list(range(len(order))))
        for c, (r,) in zip(order, rated, strict=True):
            ratings[c] = r
    return {c: (r.mu, r.sigma) for c, r in ratings.items()}
