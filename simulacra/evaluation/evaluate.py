"""The two evaluations end to end, as the CLI and scripts run them: open the run, ask, judge,
score, write RUN/eval/. Models and the embedder may be passed in (tests pass scripted ones);
otherwise they are the run's own, with the user's explicit model settings on top, and their
calls are logged to RUN/eval/calls.jsonl, apart from the run's."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from simulacra.embed import Embedder, open_embedder
from simulacra.evaluation.conditions import Condition
from simulacra.evaluation.facts import Fact, seeded_facts
from simulacra.evaluation.interview import interview_agents
from simulacra.evaluation.judge import judge_answers
from simulacra.evaluation.questions import PER_CATEGORY
from simulacra.evaluation.records import (
    INTERVIEW_SUMMARY,
    TOWN_SUMMARY,
    eval_dir,
    write_summary,
)
from simulacra.evaluation.results import InterviewResult, summarise_interviews
from simulacra.evaluation.runview import open_town, pick_agents, read_run, run_settings
from simulacra.evaluation.town import TownResult, evaluate_town
from simulacra.llm import StructuredModel, open_model
from simulacra.settings import LLMSettings


@dataclass
class Models:
    """What the evaluation talks to: the interviewed agents' model, the judge, the embedder."""

    agents: StructuredModel
    judge: StructuredModel
    embedder: Embedder
    owned: bool = False  # opened here: close their call logs when done

    def close(self) -> None:
        if self.owned:
            self.agents.log.close()
            self.judge.log.close()


def open_models(
    directory: Path,
    overrides: LLMSettings | None = None,
    *,
    judge_model: Path | None = None,
    models: Models | None = None,
) -> Models:
    if models is not None:
        return models
    settings = run_settings(directory, overrides)
    log_dir = eval_dir(directory)
    agents = open_model(settings.llm, log_dir=log_dir)
    judge = agents
    if judge_model is not None and judge_model != settings.llm.model:
        judge = open_model(settings.llm.model_copy(update={"model": judge_model}), log_dir=log_dir)
    embedder = open_embedder(settings.embed, settings.llm.cache_dir)
    return Models(agents, judge, embedder, owned=True)


def evaluate_interviews(
    directory: Path,
    *,
    agents: str | None = None,
    conditions: Sequence[Condition] = tuple(Condition),
    judge: bool = True,
    per_category: int = PER_CATEGORY,
    overrides: LLMSettings | None = None,
    judge_model: Path | None = None,
    models: Models | None = None,
    on_progress: Callable[[str], None] = lambda what: None,
) -> InterviewResult:
    run = read_run(directory)
    names = pick_agents(run, agents)
    facts = seeded_facts(run.agents)
    m = open_models(directory, overrides, judge_model=judge_model, models=models)
    out = eval_dir(directory)
    town = open_town(directory, model=m.agents, embedder=m.embedder, overrides=overrides)
    try:
        records = interview_agents(
            run,
            town,
            m.agents,
            agents=names,
            conditions=conditions,
            facts=facts,
            out=out,
            per_category=per_category,
            on_answer=lambda r: on_progress(f"{r.agent} · {r.question_id} · {r.condition}"),
        )
        judgments = []
        if judge and len(conditions) > 1:
            judgments = judge_answers(
                run,
                records,
                m.judge,
                out=out,
                on_judgment=lambda j: on_progress(f"judged {j.agent} · {j.question_id}"),
            )
    finally:
        town.close()
        m.close()
    result = summarise_interviews(run.step, names, records, judgments, conditions)
    write_summary(out / INTERVIEW_SUMMARY, result.model_dump(mode="json"))
    return result


def evaluate_the_town(
    directory: Path,
    *,
    agents: str | None = None,
    extra_facts: Sequence[Fact] = (),
    seeded: bool = True,
    with_density: bool = True,
    overrides: LLMSettings | None = None,
    models: Models | None = None,
    on_progress: Callable[[str], None] = lambda what: None,
) -> TownResult:
    run = read_run(directory)
    names = pick_agents(run, agents)
    facts = (seeded_facts(run.agents) if seeded else []) + list(extra_facts)
    m = open_models(directory, overrides, models=models)
    out = eval_dir(directory)
    town = open_town(directory, model=m.agents, embedder=m.embedder, overrides=overrides)
    try:
        result = evaluate_town(
            run,
            town,
            m.agents,
            agents=names,
            facts=facts,
            embedder=m.embedder,
            out=out,
            with_density=with_density,
            on_record=lambda r: on_progress(f"{r.moment} · {r.agent} · {r.about}"),
        )
    finally:
        town.close()
        m.close()
    write_summary(out / TOWN_SUMMARY, result.model_dump(mode="json"))
    return result
