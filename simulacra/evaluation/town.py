"""The end-to-end evaluation (paper §7.1): what emerged in the town.

- information diffusion: for each fact, the share of agents who know it at the start (their
  persona and seed memories) and at the end — by interview, counted only where the agent's
  memory holds the fact, so hallucinated knowledge does not count;
- relationship formation: network density at the start and at the end, by asking every agent
  "do you know X?" about every other (edges checked against memory the same way);
- coordination: who was at a fact's place at its time (from the event log);
- hallucination: the share of all these answers that claim what the memory does not hold.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from simulacra import gametime
from simulacra.cognition import summary as summary_mod
from simulacra.embed import Embedder
from simulacra.evaluation.checks import People, Verdict, denies, known_people, mentions
from simulacra.evaluation.facts import Fact, PaperDiffusion
from simulacra.evaluation.questions import town_question
from simulacra.evaluation.records import (
    TOWN_FILE,
    Appender,
    TownRecord,
    model_identity,
    read_records,
)
from simulacra.evaluation.runview import Interviewees, RunView, streams_at_start
from simulacra.llm import LanguageModel
from simulacra.llm.templates import template_beside
from simulacra.memory import MemoryStream

QUESTION = template_beside(__file__, "town_question")
PAPER_DENSITY = (0.167, 0.74)
PAPER_HALLUCINATION = (6, 453)


class Diffusion(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fact: str
    label: str
    agents: int
    start: list[str]  # knew it when the run began (persona and seed memories)
    end: list[str]  # say they know it at the end, and their memory holds it
    claimed: list[str]  # say they know it at the end
    in_memory: list[str]  # their memory holds it at the end, whatever they say
    paper: PaperDiffusion | None = None


class Density(BaseModel):
    model_config = ConfigDict(extra="forbid")

    agents: int
    start: float
    end: float
    start_claimed: float  # counting every "yes", checked or not
    end_claimed: float
    paper_start: float = PAPER_DENSITY[0]
    paper_end: float = PAPER_DENSITY[1]


class Coordination(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fact: str
    label: str
    place: str
    start: datetime
    end: datetime
    knew: list[str]  # held the fact in memory before it began (its source not counted)
    came: list[str]  # were at the place at some moment of it (its source not counted)
    logged: bool  # the event log covers the time
    paper: PaperDiffusion | None = None


class TownResult(BaseModel):
    model_config = ConfigDict(extra="forbid")

    step: int
    time: datetime
    agents: list[str]
    diffusion: list[Diffusion]
    density: Density | None
    coordination: list[Coordination]
    answers: int
    hallucinated: int
    paper_hallucinated: tuple[int, int] = PAPER_HALLUCINATION


def density(edges: set[frozenset[str]], n: int) -> float:
    """Paper §7.1.2: 2|E| / (|V|(|V|-1)), an edge where one agent knows the other."""
    return 2 * len(edges) / (n * (n - 1)) if n > 1 else 0.0


def evaluate_town(
    run: RunView,
    town: Interviewees,
    model: LanguageModel,
    *,
    agents: Sequence[str],
    facts: Sequence[Fact],
    embedder: Embedder,
    out: Path,
    with_density: bool = True,
    on_record: Callable[[TownRecord], None] = lambda r: None,
) -> TownResult:
    path = out / TOWN_FILE
    me = model_identity(model)
    records = {r.key: r for r in read_records(path, TownRecord, run.step, me)}
    people = People(p.name for p in run.residents)
    k = town.settings.agent.interview_memories
    writer = Appender(path)
    asked: list[TownRecord] = []  # this evaluation's answers, new or on file

    def ask(
        moment, kind, name, about, subject, question, stream, identity, when, known, supported,
        holds, names=(),
    ):  # fmt: skip
        """One question, unless this step's answer is on file already. An answer says it
        knows when its ``knows`` says so, when it names one of ``names`` (a fact's place or
        host), or when the memory it names ``holds`` the subject and it does not deny: in the
        party run of seed 2 the host answered "I have heard that there is a Valentine's Day
        party at Hobbs Cafe on February 14th from 5pm to 7pm. I don't know a Valentine's Day
        party." and her ``knows`` followed the instruction's last words; in seed 2y's, Maria,
        asked of Klaus, named her memo of a talk with him and answered with it ("Maria Lopez
        feels excited about the conversation and plans about Valentine's Day with Klaus
        Mueller"), ``knows`` false (the 1.5B's ``knows`` was false in 3 of the eval's 11
        misses beside a memory and an answer of the subject, stop 89)."""
        key = (moment, kind, name, about)
        if key in records:
            asked.append(records[key])
            return records[key]
        hits = stream.retrieve(question, when, k, touch=False)
        answer = QUESTION.ask(
            model,
            identity=identity,
            agent=name,
            name=name,
            now=gametime.describe(when),
            question=question,
            subject=subject,
            memories=[h.record.description for h in hits],
        )
        strangers = sorted(people.named_in(answer.answer) - people.named_in(question) - known)
        recalled = _named(answer.memory, hits)
        claims = (
            answer.knows
            or any(mentions(answer.answer, n, people) for n in names)
            or (holds(recalled) and not denies(answer.answer))
        )
        claims_unknown = claims and not supported
        record = TownRecord(
            step=run.step,
            model=me,
            moment=moment,
            kind=kind,
            agent=name,
            about=about,
            question=question,
            answer=answer.answer,
            memory=recalled,
            claims=claims,
            supported=supported,
            verdict=Verdict(
                correct=claims == supported,
                hallucinated=claims_unknown or bool(strangers),
                unknown_people=tuple(strangers),
                claims_unknown=claims_unknown,
            ),
        )
        writer.write(record)
        records[key] = record
        asked.append(record)
        on_record(record)
        return record

    try:
        told_end, told_start, known_end, known_start = {}, {}, {}, {}
        for name in agents:
            mind = town.minds[name]
            base = [mind.persona.learned, mind.persona.currently]
            told_end[name] = base + [r.description for r in mind.stream]
            told_start[name] = base + [r.description for r in mind.stream if r.created <= run.start]
            known_end[name] = known_people(people, told_end[name], name)
            known_start[name] = known_people(people, told_start[name], name)
        # Diffusion, asked at the end.
        diffusion = []
        for fact in facts:
            question = town_question("fact", topic=fact.topic)
            answers = [
                ask(
                    "end",
                    "fact",
                    name,
                    fact.name,
                    fact.topic,
                    question,
                    town.minds[name].stream,
                    town.minds[name].identity,
                    town.now,
                    known_end[name],
                    fact.held_by(told_end[name]),
                    fact.held_in,
                    fact.names,
                )
                for name in agents
            ]
            diffusion.append(
                Diffusion(
                    fact=fact.name,
                    label=fact.title,
                    agents=len(agents),
                    start=[n for n in agents if fact.held_by(told_start[n])],
                    end=[a.agent for a in answers if a.claims and a.supported],
                    claimed=[a.agent for a in answers if a.claims],
                    in_memory=[a.agent for a in answers if a.supported],
                    paper=fact.paper,
                )
            )
        # Relationships: every ordered pair, at the start and at the end.
        result_density = None
        if with_density and len(agents) > 1:
            values = {}
            with streams_at_start(town, run.start, embedder) as seeds:
                for moment in ("start", "end"):
                    confirmed: set[frozenset[str]] = set()
                    claimed: set[frozenset[str]] = set()
                    for a in agents:
                        mind = town.minds[a]
                        if moment == "start":
                            stream: MemoryStream = seeds[a]
                            identity = summary_mod.identity(mind.persona, None)
                            when, known = run.start, known_start[a]
                        else:
                            stream, identity = mind.stream, mind.identity
                            when, known = town.now, known_end[a]
                        for b in agents:
                            if a == b:
                                continue
                            record = ask(
                                moment,
                                "knows",
                                a,
                                b,
                                b,
                                town_question("knows", person=b),
                                stream,
                                identity,
                                when,
                                known,
                                b in known,
                                lambda text, b=b: mentions(text, b, people),
                            )
                            if record.claims:
                                claimed.add(frozenset((a, b)))
                                if record.supported:
                                    confirmed.add(frozenset((a, b)))
                    values[moment] = (
                        density(confirmed, len(agents)),
                        density(claimed, len(agents)),
                    )
            result_density = Density(
                agents=len(agents),
                start=values["start"][0],
                end=values["end"][0],
                start_claimed=values["start"][1],
                end_claimed=values["end"][1],
            )
    finally:
        writer.close()
    coordination = [
        coordinate(run, fact, agents, town)
        for fact in facts
        if fact.place and fact.start and fact.end
    ]
    return TownResult(
        step=run.step,
        time=town.now,
        agents=list(agents),
        diffusion=diffusion,
        density=result_density,
        coordination=coordination,
        answers=len(asked),
        hallucinated=sum(r.verdict.hallucinated for r in asked),
    )


def coordinate(run: RunView, fact: Fact, agents: Sequence[str], town: Interviewees) -> Coordination:
    """Who held the fact in memory before it began, and who was at its place during it."""
    others = [a for a in agents if a != fact.source]
    knew = [
        a
        for a in others
        if fact.held_by(
            [town.minds[a].persona.learned, town.minds[a].persona.currently]
            + [r.description for r in town.minds[a].stream if r.created < fact.start]
        )
    ]
    came = [a for a in others if run.present(a, fact.place, fact.start, fact.end)]
    return Coordination(
        fact=fact.name,
        label=fact.title,
        place=fact.place,
        start=fact.start,
        end=fact.end,
        knew=knew,
        came=came,
        logged=run.now > fact.start,
        paper=fact.paper,
    )


def _named(number: str, hits: list) -> str:
    """The memory an answer named by its number as the prompt showed it ("0": none)."""
    n = int(number)
    return hits[n - 1].record.description if 0 < n <= len(hits) else ""
