"""A resident of a simulated town: a generative agent with a body in the world.

Adds to :class:`~simulacra.agent.GenerativeAgent` what living on the map needs — senses,
spatial memory, the day's plan, the current action and the walk to it — and one
``get_state``/``set_state`` pair over all of it, so a checkpoint is just their union.
"""

from __future__ import annotations

import copy
from datetime import date, datetime

from pydantic.dataclasses import dataclass

from simulacra.agent import AgentState, GenerativeAgent
from simulacra.cognition.act import Placed
from simulacra.cognition.plan import DayPlan
from simulacra.state import State
from simulacra.world import (
    Perception,
    PerceptionState,
    ResidentPersona,
    SpatialMemory,
    SpatialState,
    World,
)
from simulacra.world.grid import Tile


@dataclass
class Action:
    """What a resident is doing, where, until when; the event others see while it lasts."""

    activity: str  # "brewing coffee for the first customers"
    start: datetime
    end: datetime
    address: str  # the place it happens: an object's or an arena's address
    emoji: str
    predicate: str = "is"
    object: str = ""
    object_state: str | None = None  # what the object used is doing meanwhile
    partner: str | None = None  # in a conversation with
    asleep: bool = False  # eyes closed: no perceiving, no deciding, no talking
    reaction: bool = False  # done about something noticed, not the day's plan: news to others


class ResidentState(State):
    agent: AgentState
    spatial: SpatialState
    perception: PerceptionState
    plan: DayPlan | None
    yesterday: str
    action: Action | None
    path: list[Tile]
    waiting: bool
    using: str | None
    last_decision: dict[str, datetime]  # observed subject -> game time of deciding
    placed: dict[str, Placed] = {}  # runs saved before these were kept have none
    interrupted: Action | None = None  # the step a talk cut; none in runs saved before


class Resident:
    def __init__(self, agent: GenerativeAgent, persona: ResidentPersona, world: World) -> None:
        self.agent = agent
        self.persona = persona
        self.spatial = SpatialMemory.for_persona(world, persona)
        self.perception = Perception(persona.name, self.spatial)
        self.plan: DayPlan | None = None
        self.yesterday = ""  # the previous day in brief, for the next day's plan
        self.action: Action | None = None
        self.path: list[Tile] = []
        self.waiting = False  # for room in a one-person place
        self.using: str | None = None  # the object whose state this resident set
        self.last_decision: dict[str, datetime] = {}  # observed subject -> game time of deciding
        # The events of the activities this resident placed, by activity and place: saved
        # with the state, so resumed runs ask exactly what uninterrupted ones would.
        self.placed: dict[str, Placed] = {}
        # The action a conversation interrupted, resumed after it if the plan's step is still
        # the same (see Thinking.act).
        self.interrupted: Action | None = None

    @property
    def name(self) -> str:
        return self.agent.name

    @property
    def asleep(self) -> bool:
        return self.action is not None and self.action.asleep and not self.path

    @property
    def talking(self) -> bool:
        return self.action is not None and self.action.partner is not None

    def needs_day_plan(self, today: date) -> bool:
        return self.plan is None or self.plan.day != today

    # -- state -----------------------------------------------------------------------------

    def get_state(self) -> ResidentState:
        # Copies: the plan and the action change in place as the resident goes on.
        return ResidentState(
            agent=self.agent.get_state(),
            spatial=self.spatial.get_state(),
            perception=self.perception.get_state(),
            plan=copy.deepcopy(self.plan),
            yesterday=self.yesterday,
            action=copy.copy(self.action),
            path=list(self.path),
            waiting=self.waiting,
            using=self.using,
            last_decision=dict(self.last_decision),
            placed=dict(self.placed),
            interrupted=copy.copy(self.interrupted),
        )

    def set_state(self, state: ResidentState) -> None:
        self.agent.set_state(state.agent)
        self.spatial.set_state(state.spatial)
        self.perception.set_state(state.perception)
        self.plan = copy.deepcopy(state.plan)
        self.yesterday = state.yesterday
        self.action = copy.copy(state.action)
        self.path = list(state.path)
        self.waiting = state.waiting
        self.using = state.using
        self.last_decision = dict(state.last_decision)
        self.placed = dict(state.placed)
        self.interrupted = copy.copy(state.interrupted)
