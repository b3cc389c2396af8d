"""A step's record (record.py) as the town makes it: where each resident is and what it is
doing, and what is new since the last record: memories, object states, day plans, chats and
what the user did. It keeps what the log has seen so far: each resident's first memory not
yet logged and the object states as last logged.
"""

from __future__ import annotations

from datetime import datetime

from simulacra import gametime
from simulacra.cognition.emoji import word_of
from simulacra.cognition.plan import DayPlan
from simulacra.sim import record as rec
from simulacra.sim.resident import Resident
from simulacra.sim.sandbox import Sandbox
from simulacra.world.tree import IDLE


class Recorder:
    def __init__(self, residents: dict[str, Resident], sandbox: Sandbox) -> None:
        self.residents = residents
        self.sandbox = sandbox
        # Per resident, the first memory id not yet written to the event log.
        self.unlogged = {name: r.agent.stream.next_id() for name, r in residents.items()}
        # Object states as the log last had them: a change between steps (`simulacra set`,
        # the page) is logged with the next step, like one during it.
        self.logged_objects: dict[str, str] = {}

    def restore(self, unlogged: dict[str, int], logged_objects: dict[str, str]) -> None:
        # Checkpoints before the event record kept no cursor (sim/checkpoint.py): every
        # memory was logged, and the cursors stay where the memories end.
        self.unlogged.update(unlogged)
        self.logged_objects = dict(logged_objects)

    def log_memories_from_start(self) -> None:
        """The next record logs every memory from each resident's first (a new run's seed
        memories)."""
        self.unlogged = dict.fromkeys(self.residents, 1)

    def record(
        self,
        step: int,
        now: datetime,
        *,
        chats: list[rec.Chat],
        plans: dict[str, DayPlan],
        actions: list[rec.UserAction],
        avatar: rec.AvatarStep | None,
    ) -> rec.StepRecord:
        memories = {}
        for name, r in self.residents.items():
            new = r.agent.stream.since_id(self.unlogged[name])
            if new:
                memories[name] = [rec.Memory(kind=m.kind.value, text=m.description) for m in new]
                self.unlogged[name] = new[-1].id + 1
        before = self.logged_objects
        objects = self.sandbox.state.changed_objects()
        changed = {k: v for k, v in objects.items() if before.get(k) != v}
        changed.update({k: IDLE for k in before if k not in objects})
        self.logged_objects = objects
        return rec.StepRecord(
            step=step,
            time=now,
            agents={name: self._agent_step(r) for name, r in self.residents.items()},
            objects=changed,
            chats=chats,
            plans={name: _plan_record(plan) for name, plan in plans.items()},
            memories=memories,
            actions=actions,
            avatar=avatar,
        )

    def _agent_step(self, r: Resident) -> rec.AgentStep:
        a = r.action
        state = self.sandbox.state
        tile = state.tile_of(r.name)
        mark = a.emoji if a else ""
        return rec.AgentStep(
            tile=tile,
            activity=self.sandbox.doing(r),
            description=state.event_of(r.name).description,
            emoji=mark,
            emoji_word=word_of(mark),
            place=a.address if a else self.sandbox.world.place_at(tile).address,
        )


def _plan_record(plan: DayPlan) -> rec.DayPlanRecord:
    return rec.DayPlanRecord(
        day=gametime.day(plan.day),
        blocks=[rec.PlanBlock(start=b.start, end=b.end, activity=b.activity) for b in plan.blocks],
        kept=plan.kept,
    )
