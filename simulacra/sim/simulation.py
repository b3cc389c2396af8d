"""A simulation: a run directory, the town's rules and the engine that drives them.

Creating one copies the world into a new run directory; opening one restores the last
checkpoint. Given a seed and the replay cache, a run is deterministic, so a resumed run
continues exactly as the uninterrupted one would have.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path

from simulacra.agent import GenerativeAgent
from simulacra.embed import Embedder, open_embedder
from simulacra.errors import UserError
from simulacra.llm import StructuredModel, open_model
from simulacra.memory import MemoryStore, NewMemory
from simulacra.settings import LLMSettings, Settings
from simulacra.sim import rundir, runlock, savedstate
from simulacra.sim.checkpoint import Checkpoint
from simulacra.sim.engine import Engine
from simulacra.sim.eventlog import EVENTS_FILE, EventLog
from simulacra.sim.lockstep import Lockstep, LockstepModel
from simulacra.sim.record import StepRecord
from simulacra.sim.resident import Resident
from simulacra.sim.town import Town
from simulacra.world import World, load_world


class Simulation:
    def __init__(
        self,
        directory: Path,
        meta: rundir.Meta,
        world: World,
        settings: Settings,
        model: StructuredModel,
        embedder: Embedder,
    ) -> None:
        self.directory = directory
        self.meta = meta
        self.world = world
        self.settings = settings
        self.model = model
        self.embedder = embedder
        self.store = MemoryStore(directory, vector_server=settings.vectors.server)
        self.lockstep = Lockstep(settings.engine.concurrency)
        thinking = LockstepModel(model, self.lockstep)  # calls wait for their round
        residents: dict[str, Resident] = {}
        for persona in world.personas:
            if persona.name not in meta.agents:
                continue
            stream = self.store.stream(persona.name, embedder, settings.retrieval)
            agent = GenerativeAgent(persona.persona(), stream, thinking, settings, now=meta.start)
            residents[persona.name] = Resident(agent, persona, world)
        self.town = Town(
            world,
            settings,
            residents,
            embedder,
            step_seconds=meta.step_seconds,
            lockstep=self.lockstep,
            model=model,
        )
        self.engine: Engine[StepRecord] = Engine(
            start=meta.start,
            step_seconds=meta.step_seconds,
            rules=self.town,
            checkpoint=self.checkpoint,
            checkpoint_every=settings.sim.checkpoint_every,
        )
        self.events: EventLog | None = None
        self.said: list[str] = []  # what opening the run had to say (a torn line cut...)

    # -- creating, resuming ----------------------------------------------------------------

    @classmethod
    def create(
        cls,
        world_folder: Path,
        directory: Path,
        *,
        hours: float,
        settings: Settings,
        agents: list[str] | None = None,
        model: StructuredModel | None = None,
        embedder: Embedder | None = None,
        start: datetime | None = None,
    ) -> Simulation:
        """A new run of ``world_folder`` in ``directory``, from the scenario's start or from
        ``start`` (a benchmark's window), for ``hours`` game hours."""
        world = load_world(world_folder)
        names = [p.name for p in world.personas]
        if agents:
            unknown = [a for a in agents if a not in names]
            if unknown:
                _raise_unknown(unknown[0], names, world_folder)
            names = [n for n in names if n in agents]
        copy = rundir.prepare(directory, world)
        start = start or world.scenario.start
        meta = rundir.Meta(
            world_folder=str(copy.relative_to(directory / rundir.WORLD_DIR)),
            world_source=str(world_folder),
            agents=names,
            start=start,
            end=start + timedelta(hours=hours),
            step_seconds=world.scenario.step_seconds,
            seed=settings.llm.seed,
            settings=settings.model_dump(mode="json"),
            created=datetime.now().isoformat(timespec="seconds"),
        )
        rundir.write_json(directory / rundir.MAP_FILE, world.export_map(), indent=None)
        rundir.write_json(directory / rundir.META_FILE, meta.to_json())
        sim = cls._open(directory, meta, load_world(copy), settings, model, embedder)
        # Seed memories go in the first step's record; the cursor is saved with the
        # checkpoint, so a run killed during step 0 still logs them when resumed.
        sim.town.recorder.log_memories_from_start()
        for resident in sim.residents.values():
            sim.state.place(resident.name)

        def seed(resident: Resident) -> None:
            resident.agent.remember([NewMemory(m) for m in resident.persona.seed_memories()], start)

        # As lockstep tasks: the residents' ratings of their seed memories decode together.
        sim.lockstep.run([partial(seed, r) for r in sim.residents.values()])
        sim.checkpoint()
        return sim

    @classmethod
    def open(
        cls,
        directory: Path,
        *,
        overrides: LLMSettings | None = None,
        model: StructuredModel | None = None,
        embedder: Embedder | None = None,
        concurrency: int | None = None,
    ) -> Simulation:
        """A simulation at its last checkpoint, ready to inspect or change. Settings are the
        run's own; ``overrides`` replaces the model settings the user gave explicitly, and
        ``concurrency`` the engine's."""
        rundir.require_saved_state(directory)
        meta = rundir.read_meta(directory)
        settings = rundir.settings_of(meta, directory)
        # Damaged files are named before a model is loaded or anything is written.
        savedstate.check(directory, meta, vector_server=settings.vectors.server)
        if overrides is not None:
            settings.llm = settings.llm.model_copy(update=overrides.model_dump(exclude_unset=True))
        if concurrency is not None:
            settings.engine.concurrency = concurrency
        world = load_world(rundir.world_path(directory, meta))
        savedstate.check_agents(meta, [p.name for p in world.personas], directory)
        sim = cls._open(directory, meta, world, settings, model, embedder)
        saved = sim.store.load_text(rundir.CHECKPOINT_KEY)
        if saved is None:  # killed after making the memories, before the first checkpoint
            sim.close()
            raise rundir.set_up_unfinished(directory, meta)
        try:
            sim.set_state(savedstate.read_checkpoint(saved, directory))
        except BaseException:
            sim.close()
            raise
        return sim

    @classmethod
    def resume(cls, directory: Path, **kwargs) -> Simulation:
        """Open at the last checkpoint and cut the events logged after it (after reading
        every line: a damaged log is an error, and nothing is cut)."""
        rundir.hold_for_writing(directory)
        try:
            sim = cls.open(directory, **kwargs)
        except BaseException:
            runlock.release(directory)  # a damaged run: this process is no writer after all
            raise
        try:
            sim.said += EventLog.cut(directory / EVENTS_FILE, sim.step_no)
        except UserError:
            sim.close()
            raise
        return sim

    @classmethod
    def _open(cls, directory, meta, world, settings, model, embedder) -> Simulation:
        model = model or open_model(settings.llm, log_dir=directory, agents=len(world.personas))
        embedder = embedder or open_embedder(settings.embed, settings.llm.cache_dir)
        return cls(directory, meta, world, settings, model, embedder)

    def extend(self, hours: float) -> None:
        """Run further: move the end time ``hours`` past the current time."""
        self.meta.end = max(self.meta.end, self.now) + timedelta(hours=hours)
        rundir.write_json(self.directory / rundir.META_FILE, self.meta.to_json())

    # -- what is in it ---------------------------------------------------------------------

    @property
    def residents(self) -> dict[str, Resident]:
        return self.town.residents

    def resident(self, name: str) -> Resident:
        return self.town.residents[name]

    @property
    def state(self):
        return self.town.state

    @property
    def step_no(self) -> int:
        return self.engine.step_no

    @property
    def now(self) -> datetime:
        return self.engine.now

    # -- state -----------------------------------------------------------------------------

    def get_state(self) -> Checkpoint:
        # How many memories each resident holds: saved with them, so that memories lost
        # from memory.sqlite are found on opening (savedstate.py), not resumed without.
        memories = {name: len(r.agent.stream) for name, r in self.residents.items()}
        return Checkpoint(
            step=self.engine.step_no,
            wall_seconds=round(self.engine.wall(), 3),
            memories=memories,
            town=self.town.get_state(),
        )

    def set_state(self, state: Checkpoint) -> None:
        self.engine.resume_at(state.step, state.wall_seconds)
        self.town.set_state(state.town)

    def checkpoint(self) -> None:
        """Events on disk first, then state and memories in one commit."""
        if self.events is not None:
            self.events.sync()
        self.store.save_text(rundir.CHECKPOINT_KEY, self.get_state().model_dump_json())
        self.store.commit()

    def close(self) -> None:
        """Close every part, even after one failed to close (a full disk fails the logs'
        last writes); the first failure is raised when all are closed."""
        events, self.events = self.events, None
        parts = [events.close] if events is not None else []
        parts += [self.lockstep.close, self.model.log.close, self.store.close]
        failed: Exception | None = None
        for close in parts:
            try:
                close()
            except Exception as e:  # noqa: BLE001 - raised below, once the rest is closed
                failed = failed or e
        runlock.release(self.directory)
        if failed is not None:
            raise failed

    # -- running ---------------------------------------------------------------------------

    def run(
        self,
        *,
        until_step: int | None = None,
        on_step: Callable[[StepRecord], None] | None = None,
        should_stop: Callable[[], bool] = lambda: False,
        between_steps: Callable[[], None] = lambda: None,
    ) -> None:
        """Step until the end (or ``until_step``), checkpointing every N steps and at the end.
        ``should_stop`` is polled between steps (Ctrl-C sets it); see Engine.run for
        ``between_steps``."""
        if self.events is None:
            self.events = EventLog(self.directory / EVENTS_FILE)
        last = self.meta.total_steps if until_step is None else until_step
        self.engine.run(
            self.events,
            until_step=last,
            on_step=on_step,
            should_stop=should_stop,
            between_steps=between_steps,
        )


def _raise_unknown(name: str, names: list[str], world_folder: Path):
    close = difflib.get_close_matches(name, names, n=2)
    raise UserError(
        f"no resident named {name!r}",
        file=world_folder,
        field="--agents",
        fix=("did you mean " + " or ".join(repr(c) for c in close))
        if close
        else f"residents are: {', '.join(names)}",
    )
