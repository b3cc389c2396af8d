"""The sandbox's side of a resident's action (paper §5): where it happens, the event others
perceive while it lasts, the walk there one tile a step (waiting for room in a one-person
place), and the state of the object it uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from simulacra import gametime
from simulacra.cognition.act import Placed, place_action, stage_action
from simulacra.cognition.emoji import EmojiByMeaning, emoji
from simulacra.cognition.plan import is_routine_step, is_sleeping
from simulacra.llm.phrases import phrases_beside
from simulacra.sim.places import PlaceChooser, arena_of, bed_of
from simulacra.sim.resident import Action, Resident
from simulacra.world import World, WorldState
from simulacra.world.tree import IDLE, GameObject

PHRASES = phrases_beside(__file__, "town")


class Sandbox:
    def __init__(self, world: World, state: WorldState, places: PlaceChooser) -> None:
        self.world = world
        self.state = state
        self.places = places
        self.emoji_of = EmojiByMeaning(places.embedder)

    # -- beginning an action ---------------------------------------------------------------

    def start(
        self,
        r: Resident,
        activity: str,
        now: datetime,
        end: datetime,
        within: str | None = None,
        purpose: str | None = None,
        context: Sequence[str] = (),
        at: str | None = None,
        *,
        reaction: bool = False,
    ) -> None:
        """Begin ``activity``: place it (as a part of ``purpose``, its block, if given; at
        ``at``, the place of the step before in its block, or a thing it names there, if
        given and the step names nowhere else; in the building it or ``context`` names, else
        in ``within``, if given and it has a place the agent may use), show it, and set off
        there. A ``reaction`` is done about something noticed, not the day's plan."""
        self.stop_using(r)
        activity = " ".join(activity.split()).rstrip(".")
        if is_sleeping(activity):
            action = Action(
                activity,
                now,
                end,
                bed_of(self.world, r.persona),
                emoji("sleep"),
                object=activity,
                object_state=PHRASES.text("slept_in"),
                asleep=True,
                reaction=reaction,
            )
        else:
            placed = self._place(r, activity, now, end, within, purpose, context, at)
            # The event's triple is the world's own ("is", activity): the model's verb and
            # object cost a third of the event's tokens, and nothing read them but the triple.
            action = Action(
                activity,
                now,
                end,
                placed.place,
                placed.emoji,
                object=activity,
                object_state=placed.object_state,
                reaction=reaction,
            )
        r.action = action
        self.show(r)
        self.walk_to(r, action.address)

    def _place(
        self,
        r: Resident,
        activity: str,
        now: datetime,
        end: datetime,
        within: str | None,
        purpose: str | None,
        context: Sequence[str],
        at: str | None,
    ) -> Placed:
        minutes = max(1, int((end - now).total_seconds() // 60))
        # The routine's steps are the code's words: where they happen follows from the home's
        # places, as a bed does for sleep. Asked, the 1.5B had breakfast on the bed it had
        # just dressed by, and a step it placed once was a habit for the days after.
        at_home = (
            self.places.best_at_home(r.persona, activity) if is_routine_step(activity) else None
        )
        kept = self.places.kept(r, activity, at, now, context) if at and at_home is None else None
        place = at_home or kept
        if place is None:
            # A block's first step (``purpose``, its block) is not told where the resident
            # is: told, the 1.5B named the room's kind for a new block and stayed, so Maria
            # streamed games at the classroom's blackboard and Klaus's lunch break was at the
            # library's bookshelves (every sample of their eval cases; untold, 4 of 5 home and
            # 5 of 5 the lounge, stop 67). A later step is, since it goes on where its block
            # is. The notes still mark where they are: the list is the prefix the block's
            # later steps reuse.
            # The step's own words come after its block's, before its plan item's: the host's
            # block "preparing for Valentine's Day party" began with "decorating the cafe ...
            # setting up tables and chairs", placed at the park's picnic tables (README run,
            # stop 90).
            first = purpose is not None
            tile = self.state.tile_of(r.name)
            where = (activity, *context) if first else context
            options = self.places.candidates(r, purpose or activity, tile, within, where, now)
            place = options.named_thing(activity)
            if place is None:
                return place_action(
                    r.agent,
                    now=gametime.describe(now),
                    here=None if first else self.room(r),
                    activity=activity,
                    purpose=purpose,
                    minutes=minutes,
                    places=options.places,
                    notes=options.notes,
                    emoji_of=self.emoji_of,
                    known=r.placed,
                    settled=options.settled,
                )
        return stage_action(
            r.agent, now=gametime.describe(now), activity=activity, minutes=minutes,
            place=place, emoji_of=self.emoji_of, purpose=purpose or "", known=r.placed,
        )  # fmt: skip

    def resume(self, r: Resident, action: Action, now: datetime, end: datetime) -> None:
        """Go back to ``action``, which a conversation interrupted, from ``now`` to ``end``:
        where it was placed, as it was shown."""
        self.stop_using(r)
        r.action = replace(action, start=now, end=end)
        self.show(r)
        self.walk_to(r, r.action.address)

    def begin(self, r: Resident, action: Action) -> None:
        """Begin ``action`` where ``r`` stands (a conversation): no walk, nothing used."""
        self.stop_using(r)
        r.path = []
        r.waiting = False
        r.action = action
        self.show(r)

    # -- walking ---------------------------------------------------------------------------

    def walk_to(self, r: Resident, address: str) -> None:
        taken = [t for name, t in self.state.positions().items() if name != r.name]
        path = self.world.path_to(self.state.tile_of(r.name), address, avoid=taken)
        r.path = path or []
        r.waiting = not self.state.has_room(address, r.name)
        if r.waiting:
            self.state.set_action(r.name, "is", self.waiting(address))
        elif not r.path:
            self._arrive(r)

    def come_over(self, r: Resident, to: Resident) -> None:
        """``r`` walks over to stand next to ``to``."""
        walk = self.world.path(self.state.tile_of(r.name), self.state.tile_of(to.name))
        r.path = (walk or [])[:-1]

    def move(self, r: Resident) -> None:
        """One tile on the way, or on waiting for room."""
        if r.action is None or not r.path:
            return
        if r.waiting:
            if not self.state.has_room(r.action.address, r.name):
                return
            r.waiting = False
            self.show(r)
        self.state.move(r.name, r.path.pop(0))
        if not r.path:
            self._arrive(r)

    # -- where, and what others see ----------------------------------------------------------

    def here(self, r: Resident) -> str:
        """The address where ``r`` stands; "" on the street."""
        return self.world.place_at(self.state.tile_of(r.name)).address

    def location(self, r: Resident) -> str:
        """Where ``r`` stands as the prompts name it: its address, or the street."""
        return self.here(r) or PHRASES.text("street")

    def room(self, r: Resident) -> str:
        """The room where ``r`` stands, or the street: where ``act`` is told they are. Told
        the thing they were at, the 1.5B placed the next step there again: Klaus, told he was
        at the dorm kitchen's refrigerator, wrote his paper at it in 5 of 5 samples, for a
        block "writing at the kitchen table" (kind of place "kitchen table" in two); told the
        kitchen, at its table in 5 of 5 (party seed 2s, stop 67)."""
        here = self.here(r)
        return arena_of(self.world, here) if here else PHRASES.text("street")

    def setting_of(self, r: Resident) -> str:
        """Where a conversation with ``r`` takes place, in words: "in the kitchen at Hobbs
        Cafe"."""
        return setting_at(self.world, self.here(r))

    def doing(self, r: Resident) -> str:
        """What ``r`` is doing, as shown after its name."""
        if r.action is None:
            return IDLE
        if r.waiting:
            return self.waiting(r.action.address)
        return r.action.activity

    def waiting(self, address: str) -> str:
        return PHRASES.text("waiting", place=self.world.phrase(arena_of(self.world, address)))

    def show(self, r: Resident) -> None:
        """Make the resident's action its event in the world: the model's triple, told as
        "<name> is <activity>"."""
        a = r.action
        told = PHRASES.text("doing", name=r.name, activity=a.activity)
        self.state.set_action(r.name, a.predicate, a.object, told)

    # -- the object used ---------------------------------------------------------------------

    def _arrive(self, r: Resident) -> None:
        action = r.action
        if action is None or not action.object_state:
            return
        if isinstance(self.world.find(action.address), GameObject):
            self.state.set_object_state(action.address, action.object_state)
            r.using = action.address

    def stop_using(self, r: Resident) -> None:
        if r.using is not None:
            self.state.reset_object_state(r.using)
            r.using = None


def setting_at(world: World, address: str | None) -> str:
    """A conversation's setting in words, for one who stands at ``address``."""
    if not address:
        return PHRASES.text("on_the_street")
    return PHRASES.text("in_room", place=world.phrase(arena_of(world, address)))
