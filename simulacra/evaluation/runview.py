"""A run as the interviews see it: the event log as daylog.py reads it, with the world, and
the residents' minds (their memories as they stand at the last checkpoint).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from simulacra.embed import Embedder
from simulacra.errors import UserError
from simulacra.evaluation.daylog import Conversation, Stay, read_day_log
from simulacra.llm import StructuredModel
from simulacra.memory import MemoryStore, MemoryStream, NewMemory
from simulacra.persona import Persona
from simulacra.settings import LLMSettings, Settings
from simulacra.world import ResidentPersona, World, load_world
from simulacra.world.tree import split_address


@dataclass
class RunView:
    """A finished (or stopped) run, read-only: who took part, what they said, where they were."""

    directory: Path
    world: World
    agents: list[str]
    start: datetime
    now: datetime  # the time after the last logged step
    step: int  # steps logged so far
    step_seconds: int
    chats: list[Conversation] = field(default_factory=list)
    stays: dict[str, list[Stay]] = field(default_factory=dict)
    day_plans: dict[str, list[list[str]]] = field(default_factory=dict)

    def persona(self, name: str) -> ResidentPersona:
        return self.world.persona(name)

    @property
    def residents(self) -> list[ResidentPersona]:
        """Every persona of the world, taking part or not (the vocabulary of names)."""
        return list(self.world.residents)

    def partners(self, name: str) -> list[str]:
        """Whom ``name`` talked with, most conversations first."""
        counts: dict[str, int] = {}
        for chat in self.chats:
            if name in chat.between:
                for other in chat.between:
                    if other != name:
                        counts[other] = counts.get(other, 0) + 1
        return sorted(counts, key=lambda n: (-counts[n], n))

    def last_chat(self, a: str, b: str) -> Conversation | None:
        found = [c for c in self.chats if a in c.between and b in c.between]
        return found[-1] if found else None

    def present(self, name: str, place: str, start: datetime, end: datetime) -> bool:
        """Whether ``name`` was anywhere inside ``place`` (an address prefix, e.g. a sector)
        at some moment in [start, end)."""
        for stay in self.stays.get(name, []):
            if stay.start < end and stay.end > start and inside(stay.place, place):
                return True
        return False


def inside(address: str, place: str) -> bool:
    """``"Hobbs Cafe: cafe: counter"`` is inside ``"Hobbs Cafe"``."""
    a = split_address(address.lower())
    p = split_address(place.lower())
    return a[: len(p)] == p


def read_run(directory: Path) -> RunView:
    from simulacra.sim import rundir

    meta = rundir.read_meta(directory)
    world = load_world(rundir.world_path(directory, meta))
    log = read_day_log(directory)
    return RunView(
        directory=directory,
        world=world,
        agents=log.agents,
        start=log.start,
        now=log.now,
        step=log.step,
        step_seconds=meta.step_seconds,
        chats=log.conversations,
        stays=log.stays,
        day_plans={
            name: [
                [p.day] + [f"{b.start:%H:%M}-{b.end:%H:%M} {b.activity}" for b in p.blocks]
                for p in plans
            ]
            for name, plans in log.plans.items()
        },
    )


# ----------------------------------------------------------------------------- minds


@dataclass
class Interviewee:
    """One resident as the evaluation sees it: persona, memory stream, and the identity its
    prompts start with (its summary description brought up to date)."""

    persona: Persona
    stream: MemoryStream
    identity: str
    currently: str  # what the agent is up to now (revised each morning from its memories)

    @property
    def name(self) -> str:
        return self.persona.name


@dataclass
class Interviewees:
    """The residents' minds at the run's last checkpoint."""

    now: datetime
    minds: dict[str, Interviewee]
    settings: Settings
    _close: object

    def close(self) -> None:
        self._close()


def open_town(
    directory: Path,
    *,
    model: StructuredModel,
    embedder: Embedder,
    overrides: LLMSettings | None = None,
) -> Interviewees:
    """Open the run at its last checkpoint with ``model`` (the evaluation's own, whose calls
    are logged apart from the run's). Nothing is written back: interviews leave no trace."""
    from simulacra.sim.simulation import Simulation

    sim = Simulation.open(directory, overrides=overrides, model=model, embedder=embedder)
    minds = {}
    for name, resident in sim.residents.items():
        agent = resident.agent
        agent.refresh_summary(sim.now)
        minds[name] = Interviewee(agent.persona, agent.stream, agent.identity, agent.currently)

    def close() -> None:
        sim.store.close()

    return Interviewees(sim.now, minds, sim.settings, close)


@contextmanager
def streams_at_start(
    town: Interviewees, start: datetime, embedder: Embedder
) -> Iterator[dict[str, MemoryStream]]:
    """Each resident's memory as it was when the run began (the memories created at its
    start time), in a scratch store: for interviews "at the start" of the run."""
    with tempfile.TemporaryDirectory(prefix="simulacra-start-") as tmp:
        store = MemoryStore(Path(tmp))
        streams = {}
        for name, mind in town.minds.items():
            stream = store.stream(name, embedder, town.settings.retrieval)
            seeds = [r for r in mind.stream if r.created <= start]
            stream.add(
                [
                    NewMemory(
                        r.description,
                        r.kind,
                        r.importance,
                        subject=r.subject,
                        predicate=r.predicate,
                        object=r.object,
                    )
                    for r in seeds
                ],
                start,
            )
            streams[name] = stream
        try:
            yield streams
        finally:
            store.close()


def run_settings(directory: Path, overrides: LLMSettings | None = None) -> Settings:
    """The run's own settings, with the model settings the user gave explicitly."""
    from simulacra.sim import rundir

    settings = rundir.settings_of(rundir.read_meta(directory), directory)
    if overrides is not None:
        settings.llm = settings.llm.model_copy(update=overrides.model_dump(exclude_unset=True))
    return settings


def pick_agents(run: RunView, text: str | None) -> list[str]:
    """``--agents "Isabella,Maria Lopez"``: full names or unambiguous prefixes."""
    if not text:
        return list(run.agents)
    chosen = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        low = part.lower()
        found = [n for n in run.agents if n.lower() == low] or [
            n for n in run.agents if n.lower().startswith(low)
        ]
        if len(found) != 1:
            raise UserError(
                f"{'several residents match' if found else 'no resident of this run named'} "
                f"{part!r}",
                field="--agents",
                fix="residents: " + ", ".join(found or run.agents),
            )
        chosen.append(found[0])
    return list(dict.fromkeys(chosen))
