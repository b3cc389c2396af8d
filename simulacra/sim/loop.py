"""The simulation loop: one step of game time (10 seconds by default) at a time, every
resident in turn perceives → plans or reacts → reflects → acts, then everyone moves a tile.

The model is called only when something changed: a new observation, a new day, an action
that is due, a decision about something noticed, a conversation. Sleeping, walking and
carrying on with an action cost nothing. Given a seed and the replay cache, a run is
deterministic, so a resumed run continues exactly as the uninterrupted one would have.
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from simulacra import gametime
from simulacra.agent import GenerativeAgent
from simulacra.cognition import decide as decision
from simulacra.cognition import plan as planning
from simulacra.cognition.act import place_action
from simulacra.cognition.dialogue import converse, remember_conversation
from simulacra.cognition.emoji import emoji
from simulacra.embed import Embedder, open_embedder
from simulacra.errors import UserError
from simulacra.llm import StructuredModel, open_model
from simulacra.memory import MemoryStore, NewMemory
from simulacra.settings import LLMSettings, Settings
from simulacra.sim import rundir
from simulacra.sim.eventlog import EVENTS_FILE, EventLog
from simulacra.sim.places import PlaceChooser, arena_of, bed_of
from simulacra.sim.resident import Action, Resident
from simulacra.world import Event, World, WorldState, load_world
from simulacra.world.tree import GameObject

SECONDS_PER_LINE = 20  # how long one line of a conversation takes to say, in game time


@dataclass
class StepReport:
    """What one step did, for progress displays."""

    step: int
    time: datetime
    actions: dict[str, str] = field(default_factory=dict)  # name -> emoji + activity
    chats: int = 0


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
        self.state = WorldState(world)
        self.step_no = 0
        self.wall_seconds = 0.0  # real time spent stepping, over every session of this run
        self._running_since: float | None = None
        self.cooldowns: dict[str, str] = {}  # "A|B" -> game time the pair may talk again
        self.residents: dict[str, Resident] = {}
        for persona in world.personas:
            if persona.name not in meta.agents:
                continue
            stream = self.store.stream(persona.name, embedder, settings.retrieval)
            agent = GenerativeAgent(persona.persona(), stream, model, settings, now=meta.start)
            self.residents[persona.name] = Resident(agent, persona, world)
        self.events: EventLog | None = None
        self.places = PlaceChooser(world, embedder, settings.plan.place_choices)
        self._new_plans: dict[str, list[str]] = {}  # day plans made during the current step
        # Per resident, the first memory id not yet written to the event log.
        self._unlogged = {name: r.agent.stream.next_id() for name, r in self.residents.items()}

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
    ) -> Simulation:
        world = load_world(world_folder)
        names = [p.name for p in world.personas]
        if agents:
            unknown = [a for a in agents if a not in names]
            if unknown:
                raise_unknown(unknown[0], names, world_folder)
            names = [n for n in names if n in agents]
        copy = rundir.prepare(directory, world)
        start = world.scenario.start
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
        sim._unlogged = dict.fromkeys(sim.residents, 1)  # seed memories go in the first step
        for resident in sim.residents.values():
            sim.state.place(resident.name)
            resident.agent.remember([NewMemory(m) for m in resident.persona.seed_memories()], start)
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
    ) -> Simulation:
        """A simulation at its last checkpoint, ready to inspect or change. Settings are the
        run's own; ``overrides`` replaces the model settings the user gave explicitly."""
        meta = rundir.read_meta(directory)
        settings = rundir.settings_of(meta)
        if overrides is not None:
            settings.llm = settings.llm.model_copy(update=overrides.model_dump(exclude_unset=True))
        world = load_world(rundir.world_path(directory, meta))
        sim = cls._open(directory, meta, world, settings, model, embedder)
        saved = sim.store.load_state(rundir.CHECKPOINT_KEY)
        if saved is None:
            raise UserError(
                "this run has no checkpoint yet",
                file=directory,
                fix="start it again with `simulacra run WORLD --out DIR`",
            )
        sim.set_state(saved)
        return sim

    @classmethod
    def resume(cls, directory: Path, **kwargs) -> Simulation:
        """Open at the last checkpoint and drop any events logged after it."""
        sim = cls.open(directory, **kwargs)
        EventLog.cut(directory / EVENTS_FILE, sim.step_no)
        return sim

    @classmethod
    def _open(cls, directory, meta, world, settings, model, embedder) -> Simulation:
        model = model or open_model(settings.llm, log_dir=directory)
        embedder = embedder or open_embedder(settings.embed, settings.llm.cache_dir)
        return cls(directory, meta, world, settings, model, embedder)

    def extend(self, hours: float) -> None:
        """Run further: move the end time ``hours`` past the current time."""
        self.meta.end = max(self.meta.end, self.now) + timedelta(hours=hours)
        rundir.write_json(self.directory / rundir.META_FILE, self.meta.to_json())

    def resident(self, name: str) -> Resident:
        return self.residents[match_name(name, list(self.residents))]

    # -- state -----------------------------------------------------------------------------

    @property
    def now(self) -> datetime:
        return self.meta.step_time(self.step_no)

    def get_state(self) -> dict:
        return {
            "step": self.step_no,
            "wall_seconds": round(self._wall(), 3),
            "world": self.state.get_state(),
            "cooldowns": dict(self.cooldowns),
            "residents": {name: r.get_state() for name, r in self.residents.items()},
        }

    def set_state(self, state: dict) -> None:
        self.step_no = state["step"]
        self.wall_seconds = state["wall_seconds"]
        self.state.set_state(state["world"])
        self.cooldowns = dict(state["cooldowns"])
        for name, resident_state in state["residents"].items():
            if name in self.residents:
                self.residents[name].set_state(resident_state)

    def checkpoint(self) -> None:
        """Events on disk first, then state and memories in one commit."""
        if self.events is not None:
            self.events.sync()
        self.store.save_state(rundir.CHECKPOINT_KEY, self.get_state())
        self.store.commit()

    def close(self) -> None:
        if self.events is not None:
            self.events.close()
            self.events = None
        self.model.log.close()
        self.store.close()

    # -- running ---------------------------------------------------------------------------

    def run(
        self,
        *,
        until_step: int | None = None,
        on_step: Callable[[StepReport], None] | None = None,
        should_stop: Callable[[], bool] = lambda: False,
    ) -> None:
        """Step until the end (or ``until_step``), checkpointing every N steps and at the end.
        ``should_stop`` is polled between steps (Ctrl-C sets it)."""
        last = self.meta.total_steps if until_step is None else until_step
        if self.events is None:
            self.events = EventLog(self.directory / EVENTS_FILE)
        every = self.settings.sim.checkpoint_every
        self._running_since = time.monotonic()
        try:
            while self.step_no < last and not should_stop():
                report = self.step()
                if self.step_no % every == 0:
                    self.checkpoint()
                if on_step is not None:
                    on_step(report)
        finally:
            self.wall_seconds = self._wall()
            self._running_since = None
            self.checkpoint()

    def _wall(self) -> float:
        running = time.monotonic() - self._running_since if self._running_since else 0.0
        return self.wall_seconds + running

    def step(self) -> StepReport:
        now = self.now
        self.model.log.tags["step"] = self.step_no
        record: dict = {
            "step": self.step_no,
            "time": now.isoformat(timespec="seconds"),
            "agents": {},
        }
        chats: list[dict] = []
        self._new_plans = {}
        memories: dict[str, list[list[str]]] = {}
        objects_before = self.state.changed_objects()
        for resident in self.residents.values():
            self._live(resident, now, chats)
            new = resident.agent.stream.since_id(self._unlogged[resident.name])
            if new:
                memories[resident.name] = [[r.kind.value, r.description] for r in new]
                self._unlogged[resident.name] = new[-1].id + 1
        for resident in self.residents.values():
            self._move(resident)
        report = StepReport(self.step_no, now, chats=len(chats))
        for name, resident in self.residents.items():
            a = resident.action
            tile = self.state.tile_of(name)
            record["agents"][name] = {
                "tile": list(tile),
                "action": self.state.event_of(name).description,
                "emoji": a.emoji if a else "",
                "place": a.address if a else self.world.place_at(tile).address,
            }
            report.actions[name] = f"{a.emoji if a else ''} {a.activity if a else 'idle'}"
        objects = self.state.changed_objects()
        changed = {k: v for k, v in objects.items() if objects_before.get(k) != v}
        changed.update({k: "idle" for k in objects_before if k not in objects})
        for key, value in (
            ("objects", changed),
            ("chats", chats),
            ("plans", self._new_plans),
            ("memories", memories),
        ):
            if value:
                record[key] = value
        self.events.write(record)
        self.step_no += 1
        return report

    # -- one resident, one step --------------------------------------------------------------

    def _live(self, r: Resident, now: datetime, chats: list[dict]) -> None:
        agent = r.agent
        agent.now = now
        if r.needs_day_plan(now.date()):
            self._plan_day(r, now)
        if r.asleep and now < r.action.end:
            return  # eyes closed: no perceiving, no deciding, no calls
        agent.refresh_summary(now)
        # The state of the thing one is using oneself is no news.
        seen = [
            e
            for e in r.perception.perceive(self.state, self.settings.perception)
            if e.subject != r.using
        ]
        if seen:
            agent.remember([observation(e) for e in seen], now)
        focus = self._focus(r, seen, now)
        if focus is not None and not r.talking:
            self._decide(r, focus, now, chats)
        if r.action is None or now >= r.action.end:
            self._next_action(r, now)

    def _plan_day(self, r: Resident, now: datetime) -> None:
        if r.plan is not None:
            r.yesterday = planning.revise_for_new_day(r.agent, now.date())
        r.plan = planning.plan_day(r.agent, now.date(), r.yesterday)
        self._new_plans[r.name] = planning.describe(r.plan)  # logged with this step
        if r.action is not None and not r.talking:
            r.action.end = now  # today's plan decides what comes next

    def _next_action(self, r: Resident, now: datetime) -> None:
        activity, _, end = planning.current_step(
            r.agent, r.plan, now, self.settings.plan.decompose_minutes
        )
        self._start(r, activity, now, max(end, now + timedelta(seconds=self.meta.step_seconds)))

    def _start(self, r: Resident, activity: str, now: datetime, end: datetime) -> None:
        self._stop_using(r)
        activity = " ".join(activity.split()).rstrip(".")
        if planning.is_sleeping(activity):
            address = bed_of(self.world, r.persona)
            action = Action(
                activity, now, end, address, emoji("sleep"), "is", activity, "being slept in"
            )
        else:
            tile = self.state.tile_of(r.name)
            here = self.world.place_at(tile).address or "the street"
            options = self.places.candidates(r, activity, tile)
            placed = place_action(
                r.agent,
                now=gametime.describe(now),
                here=here,
                activity=activity,
                minutes=max(1, int((end - now).total_seconds() // 60)),
                places=options.places,
                notes=options.notes,
            )
            action = Action(
                activity,
                now,
                end,
                placed.place,
                placed.emoji,
                placed.predicate,
                placed.object,
                placed.object_state,
            )
        r.action = action
        self._show(r)
        self._walk_to(r, action.address)

    def _walk_to(self, r: Resident, address: str) -> None:
        taken = [t for name, t in self.state.positions().items() if name != r.name]
        path = self.world.path_to(self.state.tile_of(r.name), address, avoid=taken)
        r.path = path or []
        r.waiting = not self.state.has_room(address, r.name)
        if r.waiting:
            place = self.world.phrase(arena_of(self.world, address))
            self.state.set_action(r.name, "is", f"waiting for {place} to be free")
        elif not r.path:
            self._arrive(r)

    def _move(self, r: Resident) -> None:
        if r.action is None or not r.path:
            return
        if r.waiting:
            if not self.state.has_room(r.action.address, r.name):
                return
            r.waiting = False
            self._show(r)
        self.state.move(r.name, r.path.pop(0))
        if not r.path:
            self._arrive(r)

    def _show(self, r: Resident) -> None:
        """Make the resident's action its event in the world: the model's triple, told as
        "<name> is <activity>"."""
        a = r.action
        self.state.set_action(r.name, a.predicate, a.object, f"{r.name} is {a.activity}")

    def _arrive(self, r: Resident) -> None:
        action = r.action
        if action is None or not action.object_state:
            return
        if isinstance(self.world.find(action.address), GameObject):
            self.state.set_object_state(action.address, action.object_state)
            r.using = action.address

    def _stop_using(self, r: Resident) -> None:
        if r.using is not None:
            self.state.reset_object_state(r.using)
            r.using = None

    # -- noticing, deciding, talking ---------------------------------------------------------

    def _focus(self, r: Resident, seen: list[Event], now: datetime) -> Event | None:
        """The first new event worth a decision: a person, else an object doing something.
        Not the same subject again within the reaction cool-down."""
        wait = timedelta(minutes=self.settings.plan.react_cooldown_minutes)
        fresh = []
        for event in seen:
            if event.is_idle or event.subject == r.name:
                continue
            last = r.last_decision.get(event.subject)
            if last is not None and now - datetime.fromisoformat(last) < wait:
                continue
            fresh.append(event)
        people = [e for e in fresh if e.subject in self.residents]
        things = [e for e in fresh if e.subject not in self.residents]
        return (people or things or [None])[0]

    def _decide(self, r: Resident, focus: Event, now: datetime, chats: list[dict]) -> None:
        r.last_decision[focus.subject] = now.isoformat()
        other = self.residents.get(focus.subject)
        people = [other.name] if other is not None and self._can_talk(r, other, now) else []
        queries = [f"What is {r.name}'s relationship with {focus.subject}?", focus.description]
        memories: dict[int, str] = {}
        for hits in r.agent.stream.retrieve_many(queries, now, 5):
            for hit in hits:
                memories[hit.record.id] = hit.record.description
        options = decision.options(people)
        answer = r.agent.ask(
            decision.DECIDE,
            now=gametime.describe(now),
            place=self.world.place_at(self.state.tile_of(r.name)).address or "the street",
            status=r.action.activity if r.action else "idle",
            observation=focus.description,
            memories=list(memories.values()),
            options=options,
        )
        if answer.choice.startswith(decision.TALK) and other is not None:
            self._talk(r, other, now, chats)
        elif answer.choice == decision.REACT:
            planning.replan_from(r.plan, now, answer.instead, answer.minutes)
            self._next_action(r, now)

    def _can_talk(self, a: Resident, b: Resident, now: datetime) -> bool:
        if b.asleep or b.talking or a.talking:
            return False
        if self.world.region_at(self.state.tile_of(a.name)) != self.world.region_at(
            self.state.tile_of(b.name)
        ):
            return False
        until = self.cooldowns.get(pair(a.name, b.name))
        return until is None or now >= datetime.fromisoformat(until)

    def _talk(self, a: Resident, b: Resident, now: datetime, chats: list[dict]) -> None:
        here = self.world.place_at(self.state.tile_of(a.name)).address
        setting = self.world.phrase(here) if here else "on the street"
        lines = converse(
            a.agent,
            b.agent,
            now=now,
            setting=setting,
            max_utterances=self.settings.conversation.max_utterances,
        )
        seconds = max(self.meta.step_seconds, SECONDS_PER_LINE * len(lines))
        end = now + timedelta(seconds=seconds)
        for me, you in ((a, b), (b, a)):
            self._stop_using(me)
            me.path = []
            me.waiting = False
            activity = f"talking with {you.name}"
            where = self.world.place_at(self.state.tile_of(me.name)).address
            me.action = Action(
                activity, now, end, where, emoji("talk"), "is", activity, partner=you.name
            )
            self._show(me)
            remember_conversation(me.agent, you.name, lines, now)
        # The one spoken to comes over and stands next to the one who spoke first.
        walk = self.world.path(self.state.tile_of(b.name), self.state.tile_of(a.name))
        b.path = (walk or [])[:-1]
        cooldown = timedelta(minutes=self.settings.conversation.cooldown_minutes)
        self.cooldowns[pair(a.name, b.name)] = (now + cooldown).isoformat()
        chats.append(
            {"between": [a.name, b.name], "lines": [[line.speaker, line.text] for line in lines]}
        )


def observation(event: Event) -> NewMemory:
    return NewMemory(
        event.description, subject=event.subject, predicate=event.predicate, object=event.object
    )


def pair(a: str, b: str) -> str:
    return "|".join(sorted((a, b)))


def raise_unknown(name: str, names: list[str], world_folder: Path):
    close = difflib.get_close_matches(name, names, n=2)
    raise UserError(
        f"no resident named {name!r}",
        file=world_folder,
        field="--agents",
        fix=("did you mean " + " or ".join(repr(c) for c in close))
        if close
        else f"residents are: {', '.join(names)}",
    )


def match_name(text: str, names: list[str]) -> str:
    """A resident by full name, or by an unambiguous first name or prefix."""
    lowered = text.strip().lower()
    exact = [n for n in names if n.lower() == lowered]
    found = exact or [n for n in names if n.lower().startswith(lowered)]
    if len(found) == 1:
        return found[0]
    raise UserError(
        f"{'several residents match' if found else 'no resident named'} {text!r}",
        field="AGENT",
        fix=f"residents: {', '.join(found or names)}",
    )
