"""The controlled evaluation (paper §6): interview every agent in five categories under each
ablation condition, keep every answer with the memories it used, and check it against the
run's records."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from simulacra import gametime
from simulacra.cognition.interview import INTERVIEW
from simulacra.evaluation.checks import People, judge_answer, known_people
from simulacra.evaluation.conditions import Condition, HiddenKinds, identity_for
from simulacra.evaluation.facts import Fact
from simulacra.evaluation.questions import (
    PER_CATEGORY,
    QUESTIONS_FILE,
    agent_variables,
    write_interview,
)
from simulacra.evaluation.records import (
    INTERVIEW_FILE,
    Appender,
    InterviewRecord,
    UsedMemory,
    model_identity,
    read_records,
)
from simulacra.evaluation.runview import Interviewees, RunView
from simulacra.llm import LanguageModel

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def interviewer() -> str:
    return tomllib.loads(QUESTIONS_FILE.read_text(encoding="utf-8"))["interviewer"]


def interview_agents(
    run: RunView,
    town: Interviewees,
    model: LanguageModel,
    *,
    agents: Sequence[str],
    conditions: Sequence[Condition],
    facts: Sequence[Fact],
    out: Path,
    per_category: int = PER_CATEGORY,
    on_answer: Callable[[InterviewRecord], None] = lambda r: None,
) -> list[InterviewRecord]:
    """Ask what has not been asked yet at this step; return every record of this step."""
    path = out / INTERVIEW_FILE
    me = model_identity(model)
    records = read_records(path, InterviewRecord, run.step, me)
    done = {r.key for r in records}
    people = People(p.name for p in run.residents)
    k = town.settings.agent.interview_memories
    now_text = gametime.describe(town.now)
    asker = interviewer()
    writer = Appender(path)
    try:
        for name in agents:
            mind = town.minds[name]
            persona = mind.persona
            remembered = [r.description for r in mind.stream]
            told = [persona.learned, persona.currently, *remembered]
            holds = {f.name: f.held_by(told) for f in facts}
            variables = agent_variables(run, name, remembered, people)
            known = known_people(people, told, name)
            questions = write_interview(name, variables, facts, holds, per_category)
            for condition in conditions:
                identity: str | None = None  # made only when something is left to ask
                for q in questions:
                    if (name, q.id, condition.value) in done:
                        continue
                    if identity is None:
                        identity = identity_for(
                            condition,
                            persona=persona,
                            stream=mind.stream,
                            full_identity=mind.identity,
                            model=model,
                            now=town.now,
                            k=town.settings.agent.summary_memories,
                        )
                    hits = HiddenKinds(mind.stream, condition.visible).retrieve(q.text, town.now, k)
                    answer = INTERVIEW.ask(
                        model,
                        identity=identity,
                        agent=name,
                        name=name,
                        now=now_text,
                        interviewer=asker[:1].upper() + asker[1:],
                        question=q.text,
                        memories=[h.record.description for h in hits],
                    ).answer
                    record = InterviewRecord(
                        step=run.step,
                        model=me,
                        agent=name,
                        question_id=q.id,
                        category=q.category.value,
                        question=q.text,
                        condition=condition.value,
                        answer=answer,
                        memories=[
                            UsedMemory(
                                id=h.record.id,
                                kind=h.record.kind.value,
                                description=h.record.description,
                                score=round(h.score, 4),
                            )
                            for h in hits
                        ],
                        check=q.check,
                        verdict=judge_answer(
                            answer, question=q.text, check=q.check, people=people, known=known
                        ),
                    )
                    writer.write(record)
                    records.append(record)
                    done.add(record.key)
                    on_answer(record)
    finally:
        writer.close()
    wanted = set(agents)
    chosen = {c.value for c in conditions}
    return [r for r in records if r.agent in wanted and r.condition in chosen]
