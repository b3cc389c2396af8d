"""A generative agent you can talk to: a persona, its memory stream, and a language model.

Usable by itself, the way people use LangChain's ``GenerativeAgent``::

    agent = GenerativeAgent.create("agents/klaus", persona, at=datetime(2023, 2, 13, 8))
    agent.observe("Maria Lopez is reading about the physics of cities")
    agent.interview("Who shares your passion for research?")

Game time always comes from the caller; a method called without ``at`` uses the agent's clock
(the latest time it was given).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import ValidationError

from simulacra import gametime
from simulacra.cognition import summary as summary_mod
from simulacra.cognition.decide import OptionKind, decide
from simulacra.cognition.dialogue import (
    PLANNING_NOTE,
    Line,
    ends,
    next_line,
    remember_conversation,
)
from simulacra.cognition.interview import INTERVIEW
from simulacra.cognition.interview import PHRASES as INTERVIEW_PHRASES
from simulacra.cognition.summary import Summary
from simulacra.embed import Embedder, open_embedder
from simulacra.errors import UserError
from simulacra.llm import LanguageModel, open_model
from simulacra.llm.phrases import phrases_beside
from simulacra.llm.templates import PromptTemplate
from simulacra.memory import importance, reflection
from simulacra.memory.record import Kind, MemoryRecord, NewMemory
from simulacra.memory.store import DB_FILE, MemoryStore
from simulacra.memory.stream import MemoryStream, Retrieved
from simulacra.persona import Persona
from simulacra.settings import Settings
from simulacra.state import State, first_error
from simulacra.text import bounded
from simulacra.textfile import parse_toml

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PHRASES = phrases_beside(__file__, "agent")

PERSONA_FILE = "persona.toml"
INNER_VOICE = "resolves"  # predicate marking an inner-voice memory, which plans follow
RATINGS_KEPT = 500
FIRST_DAY = datetime(2023, 2, 13, 7)  # the paper's first game morning: a clock's last resort


class AgentState(State):
    """An agent's own state beside its memories (which the memory store keeps)."""

    now: datetime
    status: str
    currently: str
    importance_since_reflection: int
    ratings: dict[str, int] = {}  # agents saved before ratings were kept have none
    summary: Summary | None = None
    summary_at: datetime | None = None


@dataclass(frozen=True)
class Reaction:
    """What an agent does about an observation: nothing, a new activity, or words."""

    kind: Literal["none", "act", "say"]
    text: str | None = None
    to: str | None = None  # whom the words are for


@dataclass(frozen=True)
class Interview:
    answer: str
    memories: list[MemoryRecord]  # what the answer was given from, most relevant first


@dataclass(frozen=True)
class Utterance:
    text: str
    ends_conversation: bool


class GenerativeAgent:
    state_type: ClassVar[type[AgentState]] = AgentState  # what get_state returns

    def __init__(
        self,
        persona: Persona,
        stream: MemoryStream,
        model: LanguageModel,
        settings: Settings,
        *,
        now: datetime,
        store: MemoryStore | None = None,
    ) -> None:
        self.persona = persona
        self.stream = stream
        self.model = model
        self.settings = settings
        self.now = now
        self.status = PHRASES.text("status")
        self.currently = persona.currently
        self.importance_since_reflection = 0
        # Observations seen before keep their rating: an agent who sees "John Lin is
        # sleeping" every night asks the model once. Saved with the state, so resumed runs
        # ask exactly what uninterrupted ones would.
        self.ratings: dict[str, int] = {}
        self._summary: Summary | None = None
        self._summary_at: datetime | None = None
        # A standalone agent commits after every call; a simulation commits at checkpoints.
        self._store = store

    @property
    def name(self) -> str:
        return self.persona.name

    def __repr__(self) -> str:
        return (
            f"<GenerativeAgent {self.name}: {len(self.stream)} memories, {self.now:%Y-%m-%d %H:%M}>"
        )

    # -- creating and opening --------------------------------------------------------------

    @classmethod
    def create(
        cls,
        directory: str | Path,
        persona: Persona,
        *,
        at: datetime,
        settings: Settings | None = None,
        model: LanguageModel | None = None,
        embedder: Embedder | None = None,
    ) -> GenerativeAgent:
        """A new agent stored in ``directory``; its seed memories are rated in one call."""
        directory = Path(directory)
        if (directory / PERSONA_FILE).exists():
            raise UserError(
                "an agent already lives here",
                file=directory,
                fix="pick a new directory, or open it with GenerativeAgent.open",
            )
        directory.mkdir(parents=True, exist_ok=True)
        (directory / PERSONA_FILE).write_text(persona_toml(persona), encoding="utf-8")
        agent = cls._build(directory, persona, at, settings, model, embedder)
        agent.observe_many([NewMemory(m) for m in persona.seed_memories()], at=at)
        return agent

    @classmethod
    def open(
        cls,
        directory: str | Path,
        *,
        settings: Settings | None = None,
        model: LanguageModel | None = None,
        embedder: Embedder | None = None,
    ) -> GenerativeAgent:
        directory = Path(directory)
        path = directory / PERSONA_FILE
        if not path.is_file():
            raise UserError(
                "no agent here",
                file=directory,
                fix="create one with `simulacra agent new DIR --name ...`",
            )
        try:
            persona = Persona.model_validate(parse_toml(path.read_text(encoding="utf-8")))
        except (tomllib.TOMLDecodeError, ValueError) as e:
            raise UserError(f"unreadable persona: {e}", file=path) from None
        return cls._build(directory, persona, None, settings, model, embedder)

    @classmethod
    def _build(cls, directory, persona, at, settings, model, embedder) -> GenerativeAgent:
        settings = settings or Settings()
        store = MemoryStore(directory, vector_server=settings.vectors.server)
        model = model or open_model(settings.llm, log_dir=directory)
        embedder = embedder or open_embedder(settings.embed, settings.llm.cache_dir)
        stream = store.stream(persona.name, embedder, settings.retrieval)
        saved = store.load_text(persona.name)
        agent = cls(persona, stream, model, settings, now=at or FIRST_DAY, store=store)
        if saved is not None:
            try:
                state = cls.state_type.model_validate_json(saved)
            except ValidationError as e:
                store.close()
                raise UserError(
                    f"damaged: the saved state of {persona.name} is unreadable ({first_error(e)})",
                    file=directory / DB_FILE,
                    fix=f"restore {DB_FILE} from a copy of the agent",
                ) from None
            agent.set_state(state)
        return agent

    def _commit(self) -> None:
        if self._store is not None:
            self._store.save_text(self.name, self.get_state().model_dump_json())
            self._store.commit()

    # -- state -----------------------------------------------------------------------------

    def get_state(self) -> AgentState:
        return AgentState(
            now=self.now,
            status=self.status,
            currently=self.currently,
            importance_since_reflection=self.importance_since_reflection,
            ratings=dict(self.ratings),
            summary=self._summary,
            summary_at=self._summary_at,
        )

    def set_state(self, state: AgentState) -> None:
        self.now = state.now
        self.status = state.status
        self.currently = state.currently
        self.importance_since_reflection = state.importance_since_reflection
        self.ratings = dict(state.ratings)
        self._summary = state.summary
        self._summary_at = state.summary_at

    def _at(self, at: datetime | None) -> datetime:
        if at is not None:
            self.now = max(self.now, at)
            return at
        return self.now

    # -- who the agent is ------------------------------------------------------------------

    @property
    def identity(self) -> str:
        """Name, traits and the summary description: the stable head of every prompt."""
        return summary_mod.identity(self.persona, self._summary, self.currently)

    def ask(self, template: PromptTemplate, **variables: Any) -> Any:
        """Ask the model a template's question as this agent: its identity heads the prompt
        and ``name`` is there for the template."""
        return template.ask(
            self.model, identity=self.identity, agent=self.name, name=self.name, **variables
        )

    def refresh_summary(self, at: datetime | None = None, *, force: bool = False) -> Summary:
        """Recompute the summary description if it is older than the refresh interval."""
        now = self._at(at)
        refresh = self.settings.agent.summary_refresh_hours
        if force or summary_mod.stale(self._summary_at, now, refresh):
            k = self.settings.agent.summary_memories
            self._summary = summary_mod.summarise(
                self.model, self.stream, self.persona, now=now, k=k
            )
            self._summary_at = now
        return self._summary

    # -- memory ----------------------------------------------------------------------------

    def observe(self, text: str, at: datetime | None = None) -> MemoryRecord:
        """Record an observation; its importance is rated by the model (idle events: 1)."""
        return self.observe_many([text], at)[0]

    def observe_many(
        self, observations: Sequence[str | NewMemory], at: datetime | None = None
    ) -> list[MemoryRecord]:
        """Record several memories at once; their importance is rated in a single call."""
        now = self._at(at)
        new = [
            o if isinstance(o, NewMemory) else NewMemory(self._bounded(o, "OBSERVATION"))
            for o in observations
        ]
        records = self.remember(new, now)
        self._commit()
        return records

    def remember(self, memories: Sequence[NewMemory], now: datetime) -> list[MemoryRecord]:
        """Rate, store, and reflect if enough has happened (no commit)."""
        rated = importance.rate(
            self.model, memories, name=self.name, identity=self.identity, known=self.ratings
        )
        for stale in list(self.ratings)[: max(0, len(self.ratings) - RATINGS_KEPT)]:
            del self.ratings[stale]
        records = self.stream.add(rated, now)
        self.importance_since_reflection += sum(
            r.importance for r in records if r.kind in (Kind.OBSERVATION, Kind.CHAT)
        )
        self.reflect_if_due(now)
        return records

    def retrieve(
        self,
        queries: Sequence[str],
        now: datetime,
        k: int | None = None,
        kinds: Iterable[Kind] | None = None,
    ) -> list[list[Retrieved]]:
        """The top ``k`` memories per query, as the agent recalls them while thinking (their
        access times move to ``now``)."""
        return self.stream.retrieve_many(queries, now, k, kinds)

    def next_memory_id(self) -> int:
        return self.stream.next_id()

    def reflect_if_due(self, at: datetime | None = None) -> list[MemoryRecord]:
        now = self._at(at)
        if not reflection.due(self.importance_since_reflection, self.settings.reflection):
            return []
        self.importance_since_reflection = 0
        return reflection.reflect(
            self.model,
            self.stream,
            name=self.name,
            identity=self.identity,
            now=now,
            settings=self.settings.reflection,
        )

    def memories(
        self, query: str, k: int | None = None, at: datetime | None = None
    ) -> list[Retrieved]:
        """What the agent would retrieve for ``query``, with each score component.

        Looking does not count as remembering: last-access times are left as they are.
        """
        return self.stream.retrieve(query, self._at(at), k, touch=False)

    def _bounded(self, text: str, field: str) -> str:
        """User text that will be a memory: bounded, so it fits every later prompt."""
        limit = self.settings.limits.memory_chars
        return bounded(text, limit, field=field, setting="limits.memory_chars")

    def inner_voice(self, statement: str, at: datetime | None = None) -> MemoryRecord:
        """A statement the agent takes as its own resolve (paper §3.1): a high-importance
        thought that its next plans follow."""
        now = self._at(at)
        statement = self._bounded(statement.strip(), "STATEMENT")
        if not statement:
            raise UserError("the statement is empty", field="STATEMENT", fix="say what to resolve")
        memory = NewMemory(
            statement,
            Kind.REFLECTION,
            importance=self.settings.agent.inner_voice_importance,
            subject=self.name,
            predicate=INNER_VOICE,
            object=statement.strip(),
        )
        (record,) = self.stream.add([memory], now)
        self._commit()
        return record

    def resolutions(self, since: datetime) -> list[MemoryRecord]:
        """Inner-voice statements received since ``since``."""
        return [
            r for r in self.stream.since(since, [Kind.REFLECTION]) if r.predicate == INNER_VOICE
        ]

    def planning_notes(self, since: datetime) -> list[MemoryRecord]:
        """What conversations since ``since`` left for the agent's planning."""
        return [
            r for r in self.stream.since(since, [Kind.REFLECTION]) if r.predicate == PLANNING_NOTE
        ]

    # -- talking and reacting --------------------------------------------------------------

    def interview(
        self,
        question: str,
        interviewer: str = "a news reporter",
        *,
        remember: bool = False,
        at: datetime | None = None,
    ) -> str:
        """Answer in character from memory. Leaves no trace unless ``remember`` is true."""
        return self.interview_from_memory(question, interviewer, remember=remember, at=at).answer

    def interview_from_memory(
        self,
        question: str,
        interviewer: str = "a news reporter",
        *,
        remember: bool = False,
        at: datetime | None = None,
    ) -> Interview:
        """:meth:`interview`, with the memories the answer was given from."""
        now = self._at(at)
        question = self._bounded(question, "QUESTION")
        interviewer = self._bounded(interviewer, "--as")
        self.refresh_summary(now)
        k = self.settings.agent.interview_memories
        memories = self.stream.retrieve(question, now, k, touch=remember)
        answer = self.ask(
            INTERVIEW,
            now=gametime.describe(now),
            interviewer=interviewer[:1].upper() + interviewer[1:],
            question=question,
            memories=[m.record.description for m in memories],
        ).answer
        if remember:
            transcript = INTERVIEW_PHRASES.text(
                "transcript",
                interviewer=interviewer,
                name=self.name,
                question=question,
                answer=answer,
            )
            self.remember([NewMemory(transcript, Kind.CHAT)], now)
            self._commit()
        return Interview(answer, [m.record for m in memories])

    def react(
        self,
        observation: str,
        at: datetime | None = None,
        *,
        subject: str | None = None,
        people: Sequence[str] = (),
        place: str = "home",
    ) -> Reaction:
        """Observe, then decide whether to carry on, do something else, or talk to one of
        ``people`` (those present). ``subject`` is who or what the observation is about
        (default: the people present, else the observation itself). The same decision as a
        resident of a town makes."""
        now = self._at(at)
        self.refresh_summary(now)
        self.remember([NewMemory(observation)], now)
        decision = decide(
            self,
            now=now,
            place=place,
            status=self.status,
            observation=observation,
            subject=subject or (people[0] if people else observation),
            people=people,
            k=self.settings.plan.react_memories,
        )
        reaction = Reaction("none")
        if decision.choice is OptionKind.REACT:
            self.status = decision.activity
            reaction = Reaction("act", decision.activity)
        elif decision.choice is OptionKind.TALK:
            line = next_line(self, decision.partner, [], now=now, setting=place)
            reaction = Reaction("say", line.says, to=decision.partner)
        self._commit()
        return reaction

    def respond(
        self,
        conversation: Sequence[Line | tuple[str, str]],
        partner: str | None = None,
        *,
        setting: str = "nearby",
        at: datetime | None = None,
    ) -> Utterance:
        """The agent's next line in a conversation, or its end. When the agent ends it, the
        transcript (with a planning note and a memo) goes into its memory."""
        now = self._at(at)
        self.refresh_summary(now)
        lines = [line if isinstance(line, Line) else Line(*line) for line in conversation]
        partner = partner or next(
            (x.speaker for x in reversed(lines) if x.speaker != self.name), None
        )
        if partner is None:
            raise ValueError("name the partner of a conversation that has no line of theirs yet")
        answer = next_line(self, partner, lines, now=now, setting=setting)
        utterance = Utterance(answer.says, ends(answer))
        if utterance.ends_conversation:
            remember_conversation(self, partner, [*lines, Line(self.name, utterance.text)], now)
        self._commit()
        return utterance


def persona_toml(persona: Persona) -> str:
    """The persona as a small TOML file a person can read and edit."""

    def q(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'

    life = persona.lifestyle
    return "\n".join(
        [
            f"name = {q(persona.name)}",
            f"age = {persona.age}",
            f"innate = {q(persona.innate)}",
            f"learned = {q(persona.learned)}",
            f"currently = {q(persona.currently)}",
            "",
            "[lifestyle]",
            f"wake = {life.wake:%H:%M}:00",
            f"sleep = {life.sleep:%H:%M}:00",
            f"notes = {q(life.notes)}",
            "",
        ]
    )
