"""Each resident's own thinking in a step (paper §4): a day plan when a day begins, then,
unless asleep, perceiving, remembering and deciding about the first thing worth it (phase
1); and, once the conversations are held, the next action of whoever's is over or who
reacted (phase 3). The model is called only when something changed.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import NamedTuple

from simulacra.cognition import plan as planning
from simulacra.cognition.decide import Decision, OptionKind, decide
from simulacra.memory import NewMemory
from simulacra.settings import Settings
from simulacra.sim.conversation import Conversations
from simulacra.sim.lockstep import Lockstep
from simulacra.sim.places import arena_of
from simulacra.sim.resident import Resident
from simulacra.sim.sandbox import Sandbox
from simulacra.world import Event
from simulacra.world.state import state_words
from simulacra.world.tree import IDLE, split_address


@dataclass
class Thoughts:
    """What the residents' own thinking in a step came to, for the phases after it."""

    plans: dict[str, planning.DayPlan] = field(default_factory=dict)  # day plans made
    talks: dict[str, Decision] = field(default_factory=dict)  # who decided to talk, to whom
    reacting: set[str] = field(default_factory=set)  # who reacted: their next action is now


class Placing(NamedTuple):
    """What a step is placed with besides its own words (see Thinking.placing)."""

    within: str | None = None  # the building it stays in, or the room of whom it is with
    purpose: str | None = None  # the block it is the first step of
    # Words that may name its building: its block's, its plan item's, its habit's.
    context: tuple[str, ...] = ()
    at: str | None = None  # where the step before it in its block is, which it may stay at


class Thinking:
    def __init__(
        self,
        settings: Settings,
        residents: dict[str, Resident],
        sandbox: Sandbox,
        conversations: Conversations,
        *,
        lockstep: Lockstep,
        step_seconds: int,
    ) -> None:
        self.settings = settings
        self.residents = residents
        self.sandbox = sandbox
        self.conversations = conversations
        self.lockstep = lockstep
        self.step_seconds = step_seconds
        # How each resident is named in a step that has them as company: "Klaus Mueller",
        # not "Klaus Mueller's house", which is a place.
        self._named = {
            name: re.compile(rf"(?<!\w){re.escape(name)}(?![\w'’])") for name in sorted(residents)
        }

    # -- phase 1: each resident on its own ------------------------------------------------

    def think(self, now: datetime) -> Thoughts:
        thoughts = Thoughts()
        self.lockstep.run([partial(self._think, r, now, thoughts) for r in self.residents.values()])
        return thoughts

    def _think(self, r: Resident, now: datetime, thoughts: Thoughts) -> None:
        agent = r.agent
        agent.now = now
        if r.needs_day_plan(now.date()):
            if r.plan is not None:
                r.yesterday = planning.revise_for_new_day(agent, now.date())
            closing = self.sandbox.places.closing_hours(r.name)
            r.plan = planning.plan_day(agent, now.date(), r.yesterday, r.plan, closing)
            thoughts.plans[r.name] = r.plan
            if r.action is not None and not r.talking:
                r.action.end = now  # today's plan decides what comes next
        if r.asleep and now < r.action.end:
            return  # eyes closed: no perceiving, no deciding, no calls
        agent.refresh_summary(now)
        # The state of the thing one is using oneself is no news.
        seen = [
            e
            for e in r.perception.perceive(self.sandbox.state, self.settings.perception)
            if e.subject != r.using
        ]
        if seen:
            agent.remember([observation(e) for e in seen], now)
        focus = self._focus(r, seen, now)
        if focus is None or r.talking:
            return
        r.last_decision[focus.subject] = now
        other = self.residents.get(focus.subject)
        may_talk = other is not None and self.conversations.can_start(r, other, now)
        decision = decide(
            agent,
            now=now,
            place=self.sandbox.location(r),
            status=r.action.activity if r.action else IDLE,
            observation=focus.description,
            subject=focus.subject,
            people=[other.name] if may_talk else [],
            k=self.settings.plan.react_memories,
        )
        if decision.choice is OptionKind.TALK:
            thoughts.talks[r.name] = decision
        elif decision.choice is OptionKind.REACT:
            planning.replan_from(r.plan, now, decision.activity, decision.minutes)
            thoughts.reacting.add(r.name)

    def _focus(self, r: Resident, seen: list[Event], now: datetime) -> Event | None:
        """The first new event worth a decision: a person, else an object doing something.
        Not the same subject again within the reaction cool-down."""
        wait = timedelta(minutes=self.settings.plan.react_cooldown_minutes)
        fresh = []
        for event in seen:
            if event.is_idle or event.subject == r.name or self._everyday(r, event, now):
                continue
            last = r.last_decision.get(event.subject)
            if last is not None and now - last < wait:
                continue
            fresh.append(event)
        people = [e for e in fresh if e.subject in self.residents]
        things = [e for e in fresh if e.subject not in self.residents]
        return (people or things or [None])[0]

    def _everyday(self, r: Resident, event: Event, now: datetime) -> bool:
        """Whether ``event`` is a resident going about their day (no reaction) whom ``r`` may
        not talk to now, or a thing in such a resident's use in the state they left it in. A
        decision about it could only call it an emergency: on a Monday of party seed 3f, 130
        of 152 `decide` calls had no one to talk to (2,656 s of the model's 5,268), about half
        of them of things "in use", and one sent Klaus from his lunch to a fire no one had lit
        ("Isabella Rodriguez is preparing food again, which ... may cause a fire"). A thing a
        user set on fire, or a resident's reaction to it, is still news."""
        other = self.residents.get(event.subject)
        if other is not None:
            reacting = other.action is not None and other.action.reaction
            return not reacting and not self.conversations.can_start(r, other, now)
        user = next((o for o in self.residents.values() if o.using == event.subject), None)
        if user is None or user.action is None or user.action.reaction:
            return False
        left = state_words(user.action.object_state or "")
        return self.sandbox.state.object_state(event.subject) == left

    # -- phase 3: the next action -----------------------------------------------------------

    def act(self, now: datetime, reacting: set[str]) -> None:
        """Whoever's action is over, or who reacted, picks the next one and sets off."""
        due = [r for r in self.residents.values() if self._due(r, now, reacting)]
        if not due:
            return
        rooms = self.rooms(moving={r.name for r in due})
        self.lockstep.run(
            [partial(self._next_action, r, now, r.name in reacting, rooms) for r in due]
        )

    def _due(self, r: Resident, now: datetime, reacting: set[str]) -> bool:
        if r.talking and now < r.action.end:
            return False
        return r.action is None or now >= r.action.end or r.name in reacting

    def _next_action(
        self, r: Resident, now: datetime, reacting: bool, rooms: dict[str, str | None]
    ) -> None:
        block = r.plan.block_at(now)
        context = (block.activity, block.plan_item, block.habit) if block else ()
        away = self.sandbox.places.away_from(r, context)
        activity, _, end = planning.current_step(
            r.agent, r.plan, now, self.settings.plan.decompose_minutes, away
        )
        end = max(end, now + timedelta(seconds=self.step_seconds))
        interrupted, r.interrupted = r.interrupted, None
        # A conversation is not a step: after one, the step it interrupted goes on where it
        # was placed. Placed again by its block's words, Klaus's "drinking coffee with Maria
        # Lopez", on his way to her classroom when the host stopped him in the cafe, stayed at
        # the cafe's notice board (party seed 3w).
        if r.talking and not reacting and interrupted and interrupted.activity == activity:
            self.sandbox.resume(r, interrupted, now, end)
            return
        placing = self.step_placing(r, now, activity, rooms, reacting)
        self.sandbox.start(r, activity, now, end, *placing, reaction=reacting)

    def step_placing(
        self,
        r: Resident,
        now: datetime,
        activity: str,
        rooms: dict[str, str | None],
        reacting: bool = False,
    ) -> Placing:
        """What ``activity``, ``r``'s next step, is placed with: its block's (``placing``),
        and the room of whom it is with (``company``)."""
        placing = Placing() if reacting else self.placing(r, now)
        company = self.company(r, (activity, placing.purpose or ""), rooms)
        if company is None:
            return placing
        # A later step's company over its block's place: Klaus's "discussing the paper with
        # Maria Lopez", in his block "writing at Hobbs Cafe", was placed at the cafe's notice
        # board while she was at the college (seed 3t). A block's first step still goes where
        # the block or its plan item says ("studying with Klaus at Hobbs Cafe").
        return placing._replace(within=company) if placing.purpose else Placing(company)

    def rooms(self, moving: Collection[str] = ()) -> dict[str, str | None]:
        """Each resident's room (``_room``), read before anyone moves on, so that no step's
        place depends on which call of the step ran first; None for those ``moving`` on in
        this step, whose next room is not known yet: Klaus's "sitting at a table with Maria
        Lopez" took him to the student lounge she left at that minute for the cafe (party
        seed 2x, Monday 13:00)."""
        return {
            r.name: None if r.name in moving else self._room(r) for r in self.residents.values()
        }

    def _room(self, r: Resident) -> str | None:
        """The room where ``r`` is, or is going, awake; None asleep, on the street (a talk
        begun there has no address: seed 1y stopped on one at 23:08) or nowhere yet."""
        if r.action is None or r.action.asleep or not r.action.address:
            return None
        return arena_of(self.sandbox.world, r.action.address)

    def company(
        self, r: Resident, words: tuple[str, ...], rooms: dict[str, str | None]
    ) -> str | None:
        """The room of the first resident that ``words`` (a step, its block) have ``r`` be
        with, where ``r`` may go: plans say "studying with Klaus Mueller for help" or "eating
        lunch and chatting with Klaus Mueller", and placed by their words alone Maria did so
        in rooms he was not in, seven times on one day (party seed 1q). Going where he is, they
        meet, and may talk (``PlaceChooser.may_join`` says where ``r`` may follow)."""
        for name, named in self._named.items():
            room = rooms.get(name)
            if name == r.name or room is None or not any(named.search(w) for w in words):
                continue
            if self.sandbox.places.may_join(r.name, room):
                return room
        return None

    def placing(self, r: Resident, now: datetime) -> Placing:
        """The building the next step stays in, or the block it is placed as a part of.

        A block's first step is placed as a part of the block's activity and the plan item
        it came from: "in a seat", placed alone, put Maria's physics class on the dorm's sofa,
        and "reading her physics textbook", placed without her plan's "studying at Hobbs
        Cafe", at the dorm's stove. Its later steps stay in the building where the last one
        happened: Maria's morning routine had her read the news in the college library and
        listen to music at the cafe, five minutes apart; unless the block's words, or its plan
        item's, name another: after a reaction took Maria to the dorm, her block "studying at
        Hobbs Cafe" stayed there all afternoon (seed 2h). A conversation is not a step: it
        happens where two met, and after one in the dorm on his way out, Klaus read "in the
        library" on the dorm's sofa all morning. Where neither the block nor its item names a
        place, the habit it is within does (``Block.habit``)."""
        block = r.plan.block_at(now) if r.plan is not None else None
        last = r.action
        if block is None:
            return Placing()
        context = (block.activity, block.plan_item, block.habit)
        if last is None or last.start < block.start or last.asleep or last.partner:
            return Placing(purpose=block.activity, context=context)
        if not self.settings.plan.stay_in_building:
            return Placing(context=context)
        at = last.address if self.settings.plan.stay_at_place else None
        return Placing(within=split_address(last.address)[0], context=context, at=at)


def observation(event: Event) -> NewMemory:
    return NewMemory(
        event.description, subject=event.subject, predicate=event.predicate, object=event.object
    )
