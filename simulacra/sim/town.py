"""The town's rules: what happens to its residents in one step of game time.

A step has four phases. (1) Each resident on its own: a day plan when a day begins, then,
unless asleep, perceiving, remembering and deciding about the first thing worth it
(thinking.py). (2) The conversations decided on, in resident order, each pair at most once
(conversation.py). (3) Whoever's action is over (or who reacted) picks the next one and sets
off (thinking.py, sandbox.py). (4) Everyone moves a tile, the user's avatar too (sandbox.py,
user.py). The step's record is made last (recorder.py).
Phases 1-3 run as lockstep tasks (see lockstep.py): the model calls of different residents
overlap, everything else happens in the same order at any concurrency.

The model is called only when something changed: a new observation, a new day, an action
that is due, a decision about something noticed, a conversation. Sleeping, walking and
carrying on with an action cost nothing.
"""

from __future__ import annotations

from datetime import datetime

from simulacra.embed import Embedder
from simulacra.llm import StructuredModel
from simulacra.settings import Settings
from simulacra.sim import record as rec
from simulacra.sim.avatar import AvatarState
from simulacra.sim.conversation import Conversations, Cooldown, Talked
from simulacra.sim.lockstep import Lockstep
from simulacra.sim.places import PlaceChooser
from simulacra.sim.recorder import Recorder
from simulacra.sim.resident import Resident, ResidentState
from simulacra.sim.sandbox import Sandbox
from simulacra.sim.thinking import Thinking
from simulacra.sim.user import User
from simulacra.state import State
from simulacra.world import World, WorldSnapshot, WorldState


class TownState(State):
    world: WorldSnapshot
    cooldowns: list[Cooldown]
    said: list[Talked] = []  # none in checkpoints made before a talk heard the day's others
    unlogged: dict[str, int]  # per resident, the first memory id not yet in the event log
    residents: dict[str, ResidentState]
    avatar: AvatarState | None
    actions: list[rec.UserAction]  # the user's, since the last step
    avatar_chats: list[rec.Chat]
    logged_objects: dict[str, str]


class Town:
    """The engine's rules for a town: its parts, composed in a step's four phases."""

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
        self.residents = residents
        self.model = model  # its call log notes the step of each call
        self.state = WorldState(world)
        places = PlaceChooser(world, embedder, settings.plan)
        self.sandbox = Sandbox(world, self.state, places)
        self.conversations = Conversations(
            settings, residents, self.sandbox, lockstep=lockstep, step_seconds=step_seconds
        )
        self.thinking = Thinking(
            settings,
            residents,
            self.sandbox,
            self.conversations,
            lockstep=lockstep,
            step_seconds=step_seconds,
        )
        self.user = User(world, self.state)
        self.recorder = Recorder(residents, self.sandbox)

    # -- state -----------------------------------------------------------------------------

    def get_state(self) -> TownState:
        user = self.user
        return TownState(
            world=self.state.get_state(),
            cooldowns=self.conversations.saved_cooldowns(),
            said=self.conversations.saved_said(),
            unlogged=dict(self.recorder.unlogged),
            residents={name: r.get_state() for name, r in self.residents.items()},
            avatar=user.avatar.get_state() if user.avatar else None,
            actions=list(user.actions),
            avatar_chats=list(user.avatar_chats),
            logged_objects=dict(self.recorder.logged_objects),
        )

    def set_state(self, state: TownState) -> None:
        self.state.set_state(state.world)
        self.conversations.restore_cooldowns(state.cooldowns)
        self.conversations.restore_said(state.said)
        self.recorder.restore(state.unlogged, state.logged_objects)
        for name, resident_state in state.residents.items():
            if name in self.residents:
                self.residents[name].set_state(resident_state)
        self.user.restore(state.avatar, state.actions, state.avatar_chats)

    # -- one step --------------------------------------------------------------------------

    def step(self, step: int, now: datetime) -> rec.StepRecord:
        self.model.log.tags["step"] = step
        thoughts = self.thinking.think(now)
        chats = self.conversations.hold(thoughts.talks, now)
        self.thinking.act(now, thoughts.reacting)
        for r in self.residents.values():
            self.sandbox.move(r)
        self.user.move_avatar()
        actions, avatar_chats = self.user.take()
        return self.recorder.record(
            step,
            now,
            chats=[*avatar_chats, *chats],
            plans={**thoughts.plans, **self.conversations.take_replanned()},
            actions=actions,
            avatar=self.user.avatar_step(),
        )
