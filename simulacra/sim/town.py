"""The town's rules: what happens to its residents in one step of game time.

A step has four phases. (1) Each resident on its own: a day plan when a day begins, then,
unless asleep, perceiving, remembering and deciding about the first thing worth it. (2) The
conversations decided on, in resident order, each pair at most once. (3) Whoever's action
is over (or who reacted) picks the next one and sets off. (4) Everyone moves a tile.
Phases 1-3 run as lockstep tasks (see lockstep.py): the model calls of different residents
overlap, everything else happens in the same order at any concurrency.

The model is called only when something changed: a new observation, a new day, an action
that is due, a decision about something noticed, a conversation. Sleeping, walking and
carrying on with an action cost nothing.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from functools import partial
from typing import Literal

from simulacra import gametime
from simulacra.cognition import plan as planning
from simulacra.cognition.act import place_action
from simulacra.cognition.decide import Decision, OptionKind, decide
from simulacra.cognition.dialogue import Line, converse, remember_conversation
from simulacra.cognition.emoji import emoji, word_of
from simulacra.embed import Embedder
from simulacra.llm import StructuredModel
from simulacra.llm.phrases import phrases_beside
from simulacra.memory import NewMemory
from simulacra.settings import Settings
from simulacra.sim import record as rec
from simulacra.sim.avatar import Avatar, AvatarState
from simulacra.sim.lockstep import Lockstep
from simulacra.sim.places import PlaceChooser, arena_of, bed_of
from simulacra.sim.resident import Action, Resident, ResidentState
from simulacra.state import State
from simulacra.world import Event, World, WorldSnapshot, WorldState
from simulacra.world.grid import Tile
from simulacra.world.tree import IDLE, GameObject, split_address

PHRASES = phrases_beside(__file__, "town")
NoTalk = Literal["far", "asleep", "busy", "cooling"]  # why one may not speak to another now

Pair = tuple[str, str]  # two residents' names, in sorted order (see pair)


class Cooldown(State):
    """Two residents who talked may talk again from ``until``."""

    between: Pair
    until: datetime


class TownState(State):
    world: WorldSnapshot
    cooldowns: list[Cooldown]
    unlogged: dict[str, int]  # per resident, the first memory id not yet in the event log
    residents: dict[str, ResidentState]
    avatar: AvatarState | None
    actions: list[rec.UserAction]  # the user's, since the last step
    avatar_chats: list[rec.Chat]
    logged_objects: dict[str, str]


class Town:
    def __init__(
        self,
        world: World,
        settings: Settings,
        residents: dict[str, Resident],
        embedder: Embedder,
        *,
        step_seconds: int,
        lockstep: Lockstep,
        model: StructuredModel,
    ) -> None:
        self.world = world
        self.settings = settings
        self.residents = residents
        self.step_seconds = step_seconds
        self.lockstep = lockstep
        self.model = model  # its call log notes the step of each call
        self.state = WorldState(world)
        self.cooldowns: dict[Pair, datetime] = {}  # when each pair may talk again
        self.places = PlaceChooser(world, embedder, settings.plan)
        # Per resident, the first memory id not yet written to the event log.
        self.unlogged = {name: r.agent.stream.next_id() for name, r in residents.items()}
        # The user's side (simulacra play): the avatar, and what the user did and said since
        # the last step, logged with the next one (kept in checkpoints until then).
        self.avatar: Avatar | None = None
        self.actions: list[rec.UserAction] = []
        self.avatar_chats: list[rec.Chat] = []
        # Object states as the log last had them: a change between steps (`simulacra set`,
        # the page) is logged with the next step, like one during it.
        self.logged_objects: dict[str, str] = {}

    # -- state -----------------------------------------------------------------------------

    def get_state(self) -> TownState:
        return TownState(
            world=self.state.get_state(),
            cooldowns=[Cooldown(between=p, until=t) for p, t in self.cooldowns.items()],
            unlogged=dict(self.unlogged),
            residents={name: r.get_state() for name, r in self.residents.items()},
            avatar=self.avatar.get_state() if self.avatar else None,
            actions=list(self.actions),
            avatar_chats=list(self.avatar_chats),
            logged_objects=dict(self.logged_objects),
        )

    def set_state(self, state: TownState) -> None:
        self.state.set_state(state.world)
        self.cooldowns = {c.between: c.until for c in state.cooldowns}
        # Checkpoints before the event record kept no cursor (sim/checkpoint.py): every
        # memory was logged, and the cursors stay where the memories end.
        self.unlogged.update(state.unlogged)
        for name, resident_state in state.residents.items():
            if name in self.residents:
                self.residents[name].set_state(resident_state)
        self.avatar = Avatar.from_state(state.avatar) if state.avatar else None
        self.actions = list(state.actions)
        self.avatar_chats = list(state.avatar_chats)
        self.logged_objects = dict(state.logged_objects)

    def log_memories_from_start(self) -> None:
        """The next step's record logs every memory from each resident's first (a new run's
        seed memories)."""
        self.unlogged = dict.fromkeys(self.residents, 1)

    # -- what the user did, logged with the next step ----------------------------------------

    def note(self, action: rec.UserAction) -> None:
        self.actions.append(action)

    def note_avatar_chat(self, chat: rec.Chat) -> None:
        self.avatar_chats.append(chat)

    # -- one step --------------------------------------------------------------------------

    def step(self, step: int, now: datetime) -> rec.StepRecord:
        self.model.log.tags["step"] = step
        residents = list(self.residents.values())
        plans: dict[str, planning.DayPlan] = {}
        talks: dict[str, Decision] = {}
        replanned: set[str] = set()
        objects_before = self.logged_objects
        self.lockstep.run(
            [partial(self._think, r, now, plans, talks, replanned) for r in residents]
        )
        chats = self._conversations(talks, now)
        due = [r for r in residents if self._due(r, now, replanned)]
        self.lockstep.run([partial(self._next_action, r, now, r.name in replanned) for r in due])
        for r in residents:
            self.move(r)
        self._move_avatar()
        return self._record(step, now, objects_before, chats, plans)

    def _record(self, step, now, objects_before, chats, plans) -> rec.StepRecord:
        memories = {}
        for name, r in self.residents.items():
            new = r.agent.stream.since_id(self.unlogged[name])
            if new:
                memories[name] = [rec.Memory(kind=m.kind.value, text=m.description) for m in new]
                self.unlogged[name] = new[-1].id + 1
        objects = self.state.changed_objects()
        changed = {k: v for k, v in objects.items() if objects_before.get(k) != v}
        changed.update({k: IDLE for k in objects_before if k not in objects})
        self.logged_objects = objects
        actions, self.actions = self.actions, []
        chats = [*self.avatar_chats, *chats]
        self.avatar_chats = []
        return rec.StepRecord(
            step=step,
            time=now,
            agents={name: self._agent_step(r) for name, r in self.residents.items()},
            objects=changed,
            chats=chats,
            plans={name: _plan_record(plan) for name, plan in plans.items()},
            memories=memories,
            actions=actions,
            avatar=self._avatar_step(),
        )

    def _avatar_step(self) -> rec.AvatarStep | None:
        if self.avatar is None:
            return None
        name = self.avatar.name
        event = self.state.event_of(name)
        return rec.AvatarStep(name=name, tile=event.tile, description=event.description)

    def _agent_step(self, r: Resident) -> rec.AgentStep:
        a = r.action
        tile = self.state.tile_of(r.name)
        mark = a.emoji if a else ""
        return rec.AgentStep(
            tile=tile,
            activity=self._doing(r),
            description=self.state.event_of(r.name).description,
            emoji=mark,
            emoji_word=word_of(mark),
            place=a.address if a else self.world.place_at(tile).address,
        )

    def _doing(self, r: Resident) -> str:
        if r.action is None:
            return IDLE
        if r.waiting:
            return self._waiting(r.action.address)
        return r.action.activity

    def _waiting(self, address: str) -> str:
        return PHRASES.text("waiting", place=self.world.phrase(arena_of(self.world, address)))

    # -- phase 1: each resident on its own ------------------------------------------------

    def _think(self, r, now, plans, talks, replanned) -> None:
        agent = r.agent
        agent.now = now
        if r.needs_day_plan(now.date()):
            if r.plan is not None:
                r.yesterday = planning.revise_for_new_day(agent, now.date())
            r.plan = planning.plan_day(agent, now.date(), r.yesterday)
            plans[r.name] = r.plan
            if r.action is not None and not r.talking:
                r.action.end = now  # today's plan decides what comes next
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
        if focus is None or r.talking:
            return
        r.last_decision[focus.subject] = now
        other = self.residents.get(focus.subject)
        people = [other.name] if other is not None and self._can_talk(r, other, now) else []
        decision = decide(
            agent,
            now=now,
            place=self._here(r) or PHRASES.text("street"),
            status=r.action.activity if r.action else IDLE,
            observation=focus.description,
            subject=focus.subject,
            people=people,
            k=self.settings.plan.react_memories,
        )
        if decision.choice is OptionKind.TALK:
            talks[r.name] = decision
        elif decision.choice is OptionKind.REACT:
            planning.replan_from(r.plan, now, decision.activity, decision.minutes)
            replanned.add(r.name)

    def _focus(self, r: Resident, seen: list[Event], now: datetime) -> Event | None:
        """The first new event worth a decision: a person, else an object doing something.
        Not the same subject again within the reaction cool-down."""
        wait = timedelta(minutes=self.settings.plan.react_cooldown_minutes)
        fresh = []
        for event in seen:
            if event.is_idle or event.subject == r.name:
                continue
            last = r.last_decision.get(event.subject)
            if last is not None and now - last < wait:
                continue
            fresh.append(event)
        people = [e for e in fresh if e.subject in self.residents]
        things = [e for e in fresh if e.subject not in self.residents]
        return (people or things or [None])[0]

    def _can_talk(self, a: Resident, b: Resident, now: datetime) -> bool:
        # A resident starts a conversation only while it is in none.
        return not a.talking and self.why_not_talk(a.name, b, now) is None

    def why_not_talk(self, speaker: str, listener: Resident, now: datetime) -> NoTalk | None:
        """The one rule for who may talk, residents with each other and the user's avatar
        with a resident: ``speaker`` may speak to ``listener`` when the two are in one room
        (arena) within sight of each other, the listener is awake and in no conversation with
        a third, and the two did not talk within the cool-down. None when they may."""
        mine, theirs = self.state.tile_of(speaker), self.state.tile_of(listener.name)
        radius = self.settings.perception.vision_radius
        near = max(abs(mine[0] - theirs[0]), abs(mine[1] - theirs[1])) <= radius
        if not near or self.world.region_at(mine) != self.world.region_at(theirs):
            return "far"
        if listener.asleep:
            return "asleep"
        if listener.action is not None and listener.action.partner not in (None, speaker):
            return "busy"
        until = self.cooldowns.get(pair(speaker, listener.name))
        if until is not None and now < until:
            return "cooling"
        return None

    # -- phase 2: conversations -------------------------------------------------------------

    def _conversations(self, talks: dict[str, Decision], now: datetime) -> list[rec.Chat]:
        pairs: list[tuple[Resident, Resident]] = []
        for name, r in self.residents.items():
            decision = talks.get(name)
            other = self.residents.get(decision.partner) if decision else None
            if other is not None and self._can_talk(r, other, now):
                pairs.append((r, other))
                # Both are talking from now on, so neither joins another pair this step.
                for me, you in ((r, other), (other, r)):
                    self._start_talking(me, you.name, now)
        said: list[list[Line]] = [[] for _ in pairs]
        self.lockstep.run(
            [partial(self._converse, a, b, now, said[i]) for i, (a, b) in enumerate(pairs)]
        )
        chats = []
        for (a, b), lines in zip(pairs, said, strict=True):
            seconds = self.settings.conversation.seconds_per_line * len(lines)
            end = now + timedelta(seconds=max(self.step_seconds, seconds))
            a.action.end = b.action.end = end
            # The one spoken to comes over and stands next to the one who spoke first.
            walk = self.world.path(self.state.tile_of(b.name), self.state.tile_of(a.name))
            b.path = (walk or [])[:-1]
            cooldown = timedelta(minutes=self.settings.conversation.cooldown_minutes)
            self.cooldowns[pair(a.name, b.name)] = now + cooldown
            chats.append(
                rec.Chat(
                    between=[a.name, b.name],
                    lines=[rec.ChatLine(speaker=x.speaker, text=x.text) for x in lines],
                )
            )
        return chats

    def _start_talking(self, me: Resident, partner: str, now: datetime) -> None:
        """The action of talking, ending when the conversation's length is known."""
        self._stop_using(me)
        me.path = []
        me.waiting = False
        activity = PHRASES.text("talking", partner=partner)
        me.action = Action(
            activity, now, now, self._here(me), emoji("talk"), "is", activity, partner=partner
        )
        self._show(me)

    def _converse(self, a: Resident, b: Resident, now: datetime, lines: list[Line]) -> None:
        lines += converse(
            a.agent,
            b.agent,
            now=now,
            setting=self.setting_of(a),
            max_utterances=self.settings.conversation.max_utterances,
        )
        remember_conversation(a.agent, b.name, lines, now)
        remember_conversation(b.agent, a.name, lines, now)

    # -- phase 3: the next action -----------------------------------------------------------

    def _due(self, r: Resident, now: datetime, replanned: set[str]) -> bool:
        if r.talking and now < r.action.end:
            return False
        return r.action is None or now >= r.action.end or r.name in replanned

    def _next_action(self, r: Resident, now: datetime, reacting: bool = False) -> None:
        activity, _, end = planning.current_step(
            r.agent, r.plan, now, self.settings.plan.decompose_minutes
        )
        within, purpose = (None, None) if reacting else self._placing(r, now)
        self.start(
            r,
            activity,
            now,
            max(end, now + timedelta(seconds=self.step_seconds)),
            within=within,
            purpose=purpose,
        )

    def _placing(self, r: Resident, now: datetime) -> tuple[str | None, str | None]:
        """The building the next step stays in and the activity it is placed for.

        A block's first step is placed as a part of the block's activity: "in a seat",
        placed alone, put Maria's physics class on the dorm's sofa. Its later steps stay in
        the building where the last one happened: Maria's morning routine had her read the
        news in the college library and listen to music at the cafe, five minutes apart. A
        conversation is not a step: it happens where two met, and after one in the dorm on
        his way out, Klaus read "in the library" on the dorm's sofa all morning."""
        block = r.plan.block_at(now) if r.plan is not None else None
        last = r.action
        if block is None:
            return None, None
        if last is None or last.start < block.start or last.asleep or last.partner:
            return None, block.activity
        if not self.settings.plan.stay_in_building:
            return None, None
        return split_address(last.address)[0], None

    def start(
        self,
        r: Resident,
        activity: str,
        now: datetime,
        end: datetime,
        within: str | None = None,
        purpose: str | None = None,
    ) -> None:
        """Begin ``activity``: place it (as a part of ``purpose``, its block, if given;
        in the building ``within``, if given and it has a place the agent may use), show it,
        and set off there."""
        self._stop_using(r)
        activity = " ".join(activity.split()).rstrip(".")
        if planning.is_sleeping(activity):
            action = Action(
                activity,
                now,
                end,
                bed_of(self.world, r.persona),
                emoji("sleep"),
                object=activity,
                object_state=PHRASES.text("slept_in"),
                asleep=True,
            )
        else:
            query = purpose or activity
            options = self.places.candidates(r, query, self.state.tile_of(r.name), within)
            placed = place_action(
                r.agent,
                now=gametime.describe(now),
                here=self._here(r) or PHRASES.text("street"),
                activity=activity,
                purpose=purpose,
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
        self.walk_to(r, action.address)

    def walk_to(self, r: Resident, address: str) -> None:
        taken = [t for name, t in self.state.positions().items() if name != r.name]
        path = self.world.path_to(self.state.tile_of(r.name), address, avoid=taken)
        r.path = path or []
        r.waiting = not self.state.has_room(address, r.name)
        if r.waiting:
            self.state.set_action(r.name, "is", self._waiting(address))
        elif not r.path:
            self._arrive(r)

    # -- phase 4: moving --------------------------------------------------------------------

    def move(self, r: Resident) -> None:
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

    # -- the avatar -----------------------------------------------------------------------

    def _move_avatar(self) -> None:
        if self.avatar is not None and self.avatar.path:
            self.state.move(self.avatar.name, self.avatar.path.pop(0))
            self.show_avatar()

    def show_avatar(self) -> None:
        """The avatar's doings as its event in the world, which perception reads."""
        a = self.avatar
        if a is not None:
            self.state.set_action(a.name, "is", "", a.describe(self.world, self.state))

    def let_in(self, name: str, entrance: Tile) -> Tile:
        """The user's avatar walks in at ``entrance`` (again, if it is in the town already:
        it stops where it was going)."""
        self.avatar = self.avatar or Avatar(name)
        self.avatar.path = []
        tile = self.state.place(name, entrance)
        self.show_avatar()
        return tile

    def talk_with_avatar(self, r: Resident, now: datetime) -> None:
        """The resident stops to talk with the avatar; each line keeps it talking a while."""
        if r.action is None or r.action.partner != self.avatar.name:
            self._start_talking(r, self.avatar.name, now)
        seconds = self.settings.conversation.seconds_per_line * 2
        r.action.end = now + timedelta(seconds=max(self.step_seconds, seconds))

    def end_talk_with_avatar(self, r: Resident, now: datetime) -> None:
        """The resident goes back to the day's plan at the next step."""
        if r.action is not None and r.action.partner == self.avatar.name:
            r.action.end = now

    # -- the world's side of an action ------------------------------------------------------

    def setting_of(self, r: Resident) -> str:
        """Where a conversation with ``r`` takes place, in words."""
        here = self._here(r)
        return self.world.phrase(here) if here else PHRASES.text("on_the_street")

    def _here(self, r: Resident) -> str:
        return self.world.place_at(self.state.tile_of(r.name)).address

    def _show(self, r: Resident) -> None:
        """Make the resident's action its event in the world: the model's triple, told as
        "<name> is <activity>"."""
        a = r.action
        told = PHRASES.text("doing", name=r.name, activity=a.activity)
        self.state.set_action(r.name, a.predicate, a.object, told)

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


def observation(event: Event) -> NewMemory:
    return NewMemory(
        event.description, subject=event.subject, predicate=event.predicate, object=event.object
    )


def pair(a: str, b: str) -> Pair:
    first, second = sorted((a, b))
    return first, second


def _plan_record(plan: planning.DayPlan) -> rec.DayPlanRecord:
    return rec.DayPlanRecord(
        day=gametime.day(plan.day),
        blocks=[rec.PlanBlock(start=b.start, end=b.end, activity=b.activity) for b in plan.blocks],
    )
