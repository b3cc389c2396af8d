"""Everything the evaluation reads from a run directory, in one place.

The event log and the simulation's own classes are changing (a typed event record is on its
way), so the evaluation never touches them anywhere else: this module turns a run into the
small typed records below, and opens the residents' memories as they stand at the last
checkpoint. Switching to the typed event record means changing this file only.
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
from simulacra.llm import StructuredModel
from simulacra.memory import MemoryStore, MemoryStream, NewMemory
from simulacra.persona import Persona
from simulacra.settings import LLMSettings, Settings
from simulacra.world import ResidentPersona, World, load_world
from simulacra.world.tree import split_address


@dataclass(frozen=True)
class Chat:
    time: datetime
    between: tuple[str, ...]
    lines: tuple[tuple[str, str], ...]
    places: dict[str, str]  # speaker -> address where they stood


@dataclass(frozen=True)
class Stay:
    """A stretch of time one resident spent at one place (an address)."""

    start: datetime
    end: datetime
    place: str


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
    chats: list[Chat] = field(default_factory=list)
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

    def last_chat(self, a: str, b: str) -> Chat | None:
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
    from simulacra.sim.eventlog import EVENTS_FILE, read_events

    meta = rundir.read_meta(directory)
    world = load_world(rundir.world_path(directory, meta))
    view = RunView(
        directory=directory,
        world=world,
        agents=list(meta.agents),
        start=meta.start,
        now=meta.start,
        step=0,
        step_seconds=meta.step_seconds,
    )
    path = directory / EVENTS_FILE
    if not path.is_file():
        raise UserError("no events.jsonl yet", file=path, fix="run the simulation first")
    open_stays: dict[str, Stay] = {}
    for record in read_events(path):
        t = record.time
        step_end = meta.step_time(record.step + 1)
        view.step = record.step + 1
        places = {}
        for name, a in record.agents.items():
            place = a.place
            places[name] = place
            stay = open_stays.get(name)
            if stay is not None and stay.place == place:
                open_stays[name] = Stay(stay.start, step_end, place)
                continue
            if stay is not None:
                view.stays.setdefault(name, []).append(stay)
            open_stays[name] = Stay(t, step_end, place)
        for chat in record.chats:
            between = tuple(chat.between)
            view.chats.append(
                Chat(
                    t,
                    between,
                    tuple((line.speaker, line.text) for line in chat.lines),
                    {n: places.get(n, "") for n in between},
                )
            )
        for name, plan in record.plans.items():
            view.day_plans.setdefault(name, []).append(
                [plan.day] + [f"{b.start:%H:%M}-{b.end:%H:%M} {b.activity}" for b in plan.blocks]
            )
    for name, stay in open_stays.items():
        view.stays.setdefault(name, []).append(stay)
    if view.step == 0:
        raise UserError("no steps recorded yet", file=path, fix="run the simulation first")
    view.now = meta.step_time(view.step)
    return view


def run_progress(directory: Path) -> tuple[int, int, int]:
    """(steps logged, steps the run is meant to have, game seconds per step), for scripts
    that resume runs."""
    from simulacra.sim import rundir
    from simulacra.sim.eventlog import EVENTS_FILE, read_events

    meta = rundir.read_meta(directory)
    path = directory / EVENTS_FILE
    last = -1
    if path.is_file():
        for record in read_events(path):
            last = record.step
    return last + 1, meta.total_steps, meta.step_seconds


# ----------------------------------------------------------------------------- minds


@dataclass
class Mind:
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
class Town:
    """The residents' minds at the run's last checkpoint."""

    now: datetime
    minds: dict[str, Mind]
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
) -> Town:
    """Open the run at its last checkpoint with ``model`` (the evaluation's own, whose calls
    are logged apart from the run's). Nothing is written back: interviews leave no trace."""
    from simulacra.sim.simulation import Simulation

    sim = Simulation.open(directory, overrides=overrides, model=model, embedder=embedder)
    minds = {}
    for name, resident in sim.residents.items():
        agent = resident.agent
        agent.refresh_summary(sim.now)
        minds[name] = Mind(agent.persona, agent.stream, agent.identity, agent.currently)

    def close() -> None:
        sim.store.close()

    return Town(sim.now, minds, sim.settings, close)


@contextmanager
def streams_at_start(
    town: Town, start: datetime, embedder: Embedder
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
