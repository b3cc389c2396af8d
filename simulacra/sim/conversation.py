"""Conversations (paper §3.1.1 and §4.3.2): the one rule for who may talk, the conversations
residents decided on in a step, and the cool-down after each; the user's avatar talks to a
resident under the same rule.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from functools import partial
from typing import Literal

from simulacra.cognition import plan as planning
from simulacra.cognition.decide import Decision
from simulacra.cognition.dialogue import Line, converse, remember_conversation
from simulacra.cognition.emoji import emoji
from simulacra.cognition.plan import DayPlan
from simulacra.llm.phrases import phrases_beside
from simulacra.settings import Settings
from simulacra.sim import record as rec
from simulacra.sim.lockstep import Lockstep
from simulacra.sim.resident import Action, Resident
from simulacra.sim.sandbox import Sandbox
from simulacra.state import State

PHRASES = phrases_beside(__file__, "town")
NoTalk = Literal["far", "asleep", "busy", "cooling"]  # why one may not speak to another now

Pair = tuple[str, str]  # two residents' names, in sorted order (see pair)


class Cooldown(State):
    """Two residents who talked may talk again from ``until``."""

    between: Pair
    until: datetime


class Talked(State):
    """The lines two residents said to each other in their talks on ``day``."""

    between: Pair
    day: date
    lines: list[str]


class Conversations:
    def __init__(
        self,
        settings: Settings,
        residents: dict[str, Resident],
        sandbox: Sandbox,
        *,
        lockstep: Lockstep,
        step_seconds: int,
    ) -> None:
        self.settings = settings
        self.residents = residents
        self.sandbox = sandbox
        self.lockstep = lockstep
        self.step_seconds = step_seconds
        self.cooldowns: dict[Pair, datetime] = {}  # when each pair may talk again
        self.said: dict[Pair, Talked] = {}  # what each pair said on the last day they talked
        self.replanned: dict[str, DayPlan] = {}  # day plans talks changed, until taken

    def saved_cooldowns(self) -> list[Cooldown]:
        return [Cooldown(between=p, until=t) for p, t in self.cooldowns.items()]

    def restore_cooldowns(self, cooldowns: list[Cooldown]) -> None:
        self.cooldowns = {c.between: c.until for c in cooldowns}

    def saved_said(self) -> list[Talked]:
        return list(self.said.values())

    def restore_said(self, said: list[Talked]) -> None:
        self.said = {s.between: s for s in said}

    def said_today(self, a: str, b: str, today: date) -> list[str]:
        """The lines ``a`` and ``b`` said to each other in their talks today so far."""
        said = self.said.get(pair(a, b))
        return list(said.lines) if said is not None and said.day == today else []

    # -- the rule ----------------------------------------------------------------------------

    def why_not(self, speaker: str, listener: Resident, now: datetime) -> NoTalk | None:
        """The one rule for who may talk, residents with each other and the user's avatar
        with a resident: ``speaker`` may speak to ``listener`` when the two are in one room
        (arena) within sight of each other, the listener is awake and in no conversation with
        a third, and the two did not talk within the cool-down. None when they may."""
        state, world = self.sandbox.state, self.sandbox.world
        mine, theirs = state.tile_of(speaker), state.tile_of(listener.name)
        radius = self.settings.perception.vision_radius
        near = max(abs(mine[0] - theirs[0]), abs(mine[1] - theirs[1])) <= radius
        if not near or world.region_at(mine) != world.region_at(theirs):
            return "far"
        if listener.asleep:
            return "asleep"
        if listener.action is not None and listener.action.partner not in (None, speaker):
            return "busy"
        until = self.cooldowns.get(pair(speaker, listener.name))
        if until is not None and now < until:
            return "cooling"
        return None

    def can_start(self, a: Resident, b: Resident, now: datetime) -> bool:
        # A resident starts a conversation only while it is in none.
        return not a.talking and self.why_not(a.name, b, now) is None

    # -- the step's conversations (phase 2) ---------------------------------------------------

    def hold(self, talks: dict[str, Decision], now: datetime) -> list[rec.Chat]:
        """The conversations decided on, in resident order, each pair at most once."""
        pairs: list[tuple[Resident, Resident]] = []
        for name, r in self.residents.items():
            decision = talks.get(name)
            other = self.residents.get(decision.partner) if decision else None
            if other is not None and self.can_start(r, other, now):
                pairs.append((r, other))
                # Both are talking from now on, so neither joins another pair this step.
                for me, you in ((r, other), (other, r)):
                    self.start_talking(me, you.name, now)
        said: list[list[Line]] = [[] for _ in pairs]
        earlier = [self.said_today(a.name, b.name, now.date()) for a, b in pairs]
        self.lockstep.run(
            [
                partial(self._converse, a, b, now, said[i], earlier[i])
                for i, (a, b) in enumerate(pairs)
            ]
        )
        chats = []
        for (a, b), lines, before in zip(pairs, said, earlier, strict=True):
            self.said[pair(a.name, b.name)] = Talked(
                between=pair(a.name, b.name),
                day=now.date(),
                lines=before + [line.text for line in lines],
            )
            seconds = self.settings.conversation.seconds_per_line * len(lines)
            end = now + timedelta(seconds=max(self.step_seconds, seconds))
            a.action.end = b.action.end = end
            # The one spoken to comes over and stands next to the one who spoke first.
            self.sandbox.come_over(b, a)
            cooldown = timedelta(minutes=self.settings.conversation.cooldown_minutes)
            self.cooldowns[pair(a.name, b.name)] = now + cooldown
            chats.append(
                rec.Chat(
                    between=[a.name, b.name],
                    lines=[rec.ChatLine(speaker=x.speaker, text=x.text) for x in lines],
                )
            )
        return chats

    def start_talking(self, me: Resident, partner: str, now: datetime) -> None:
        """The action of talking, ending when the conversation's length is known; the action
        it interrupts is kept to go back to."""
        if not me.talking:
            me.interrupted = me.action
        activity = PHRASES.text("talking", partner=partner)
        here = self.sandbox.here(me)
        action = Action(activity, now, now, here, emoji("talk"), "is", activity, partner=partner)
        self.sandbox.begin(me, action)

    def _converse(
        self, a: Resident, b: Resident, now: datetime, lines: list[Line], earlier: list[str]
    ) -> None:
        lines += converse(
            a.agent,
            b.agent,
            now=now,
            setting=self.sandbox.setting_of(a),
            max_utterances=self.settings.conversation.max_utterances,
            earlier=earlier,
        )
        self.remember(a, b.name, lines, now)
        self.remember(b, a.name, lines, now)

    def remember(self, r: Resident, partner: str, lines: list[Line], now: datetime) -> None:
        """``r`` keeps a conversation, and re-plans the day for an event later today that it
        told of (planning.plan_news); the changed plan waits in ``replanned`` for the step's
        record (take_replanned)."""
        note = remember_conversation(r.agent, partner, lines, now)
        if planning.plan_news(r.agent, r.plan, note, now):
            self.replanned[r.name] = r.plan

    def take_replanned(self) -> dict[str, DayPlan]:
        replanned, self.replanned = self.replanned, {}
        return replanned

    # -- with the user's avatar ---------------------------------------------------------------

    def talk_with_avatar(self, r: Resident, avatar: str, now: datetime) -> None:
        """The resident stops to talk with the avatar; each line keeps it talking a while."""
        if r.action is None or r.action.partner != avatar:
            self.start_talking(r, avatar, now)
        seconds = self.settings.conversation.seconds_per_line * 2
        r.action.end = now + timedelta(seconds=max(self.step_seconds, seconds))

    def end_talk_with_avatar(self, r: Resident, avatar: str, now: datetime) -> None:
        """The resident goes back to the day's plan at the next step."""
        if r.action is not None and r.action.partner == avatar:
            r.action.end = now


def pair(a: str, b: str) -> Pair:
    first, second = sorted((a, b))
    return first, second
