"""Where things happen: the few places offered to the model for an action, and beds."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, time
from functools import cache

import numpy as np

from simulacra.embed import Embedder
from simulacra.llm.phrases import phrases_beside
from simulacra.llm.tidy import noun_forms
from simulacra.settings import PlanSettings
from simulacra.sim.resident import Resident
from simulacra.world import ResidentPersona, World
from simulacra.world.grid import Tile
from simulacra.world.names import where_said
from simulacra.world.tree import Arena, GameObject, Sector, split_address

PHRASES = phrases_beside(__file__, "places")


@dataclass(frozen=True)
class Candidates:
    """The places offered for one action, each with what the model should know about it."""

    places: list[str]
    notes: dict[str, str]  # place -> whether it is home or work, and whether they are there
    # What the one building every place is in is called, "home" too where it is the agent's:
    # said in the activity, it names a kind of place (see ``place_action``).
    settled: tuple[str, ...] = ()

    def named_thing(self, activity: str) -> str | None:
        """The one place offered whose thing ``activity`` names ("sitting at a table at Hobbs
        Cafe" and the cafe's tables), where it names one: there is nothing to ask. Asked, the
        1.5B named the kind of place "library" for that step and put it at the cafe's notice
        board (party seed 2y); 5 of the 6 steps of that window that named a thing offered went
        to it when asked."""
        things = [p for p in self.places if _names_thing(activity, p)]
        return things[0] if len(things) == 1 else None


class PlaceChooser:
    """Ranks the places an agent knows by how well they suit an activity: over-fetch by
    meaning, then favour where the agent is (unless a room for one), home and work, and keep
    the best few (the numbers are settings: ``plan.place_choices``, ``plan.here_bonus``...).

    Other people's homes are never offered: a model that is only shown a bed cannot know it is
    Klaus's. Both come from the world files, not from names: a building someone lives in (a
    resident's ``home``) is for those who live there, and a room with ``users`` (a dorm
    room, a couple's bedroom, the women's bathroom) for those it names.
    """

    def __init__(self, world: World, embedder: Embedder, settings: PlanSettings) -> None:
        self.world = world
        self.embedder = embedder
        self.settings = settings
        self._vectors: dict[str, np.ndarray] = {}
        # Every resident of the world files, taking part or not: Ryan Park's apartment is
        # his in a three-resident Smallville too.
        self._dwellers: dict[str, set[str]] = {}
        # Who may be in a building out of its hours: those who live or work there.
        self._insiders: dict[str, set[str]] = {}
        for p in world.residents:
            self._dwellers.setdefault(split_address(p.home)[0], set()).add(p.name)
            for building in (p.home, p.workplace or ""):
                self._insiders.setdefault(split_address(building)[0], set()).add(p.name)

    def allowed(self, name: str, place: str) -> bool:
        """Whether ``name`` may use ``place``: not a room whose ``users`` leave them out, not
        a building others live in and they do not."""
        found = self.world.tree.find(place)
        room = self.world.tree.find(found.arena_address) if isinstance(found, GameObject) else found
        if isinstance(room, Arena) and room.users is not None and name not in room.users:
            return False
        dwellers = self._dwellers.get(split_address(place)[0])
        return not dwellers or name in dwellers

    def is_open_to(self, name: str, place: str, now: datetime) -> bool:
        """Whether ``place``'s building is open to ``name`` at ``now``: within its ``hours``,
        or ``name`` lives or works there. Maria studied and watched films at Hobbs Cafe, open
        from 8am to 8pm, until 23:59 (party seeds 2a and 3m), each step placed where she was."""
        sector = self._keeping_hours(name, split_address(place)[0])
        return sector is None or sector.is_open(now.time())

    def closing_hours(self, name: str) -> dict[str, str]:
        """The buildings that close to ``name`` (they neither live nor work there), each with
        the "HH:MM" it closes at; none that closes at midnight, when a day's plan ends."""
        kept = ((b, self._keeping_hours(name, b)) for b in sorted(self.world.tree.sectors))
        return {
            building: f"{sector.hours[1]:%H:%M}"
            for building, sector in kept
            if sector is not None and sector.hours is not None and sector.hours[1] != time(0, 0)
        }

    def _keeping_hours(self, name: str, building: str) -> Sector | None:
        """``building``'s sector where its hours hold for ``name``: not where they live or work."""
        if name in self._insiders.get(building, ()):
            return None
        return self.world.tree.sectors.get(building)

    def may_join(self, name: str, room: str) -> bool:
        """Whether ``name`` may go to ``room`` to be with someone in it: a room they may use,
        and not one for one (Maria followed Klaus into the cafe's restroom, seed 3u)."""
        return not self._for_one(room) and self.allowed(name, room)

    def _one_of(self, place: str) -> bool:
        """Whether ``place`` is in a room for one."""
        return self._for_one(arena_of(self.world, place))

    def _for_one(self, room: str) -> bool:
        found = self.world.tree.find(room)
        return isinstance(found, Arena) and found.capacity == 1

    def candidates(
        self,
        r: Resident,
        activity: str,
        tile: Tile,
        within: str | None = None,
        context: Sequence[str] = (),
        now: datetime | None = None,
    ) -> Candidates:
        """The places offered for ``activity``: those of the one building or room it names, or
        else the first of ``context`` that names one (its block's words, its plan item's), or
        else of ``within``, where it has places the agent may use. The hourly schedule writes
        what is done, the day plan often where: asked to choose with both in the prompt, the
        1.5B put "reading her physics textbook" for "studying at Hobbs Cafe" in the library
        where Maria was, 3 times of 3 (stop 44); and a step placed for "writing at Hobbs Cafe"
        after a talk went to the college's lounge, its block's later steps with it (seed 2g).
        The best place of a building or room that ``activity`` names, and the best in the
        resident's workplace, usual places, home room and home, are always among them; at
        ``now``, of the buildings open to the resident only."""
        known = self._known(r, now)
        home = split_address(r.persona.home)[0]
        said = _places_named(activity, known, home)  # also always offered, below
        named = said or _first_named(context, known, home)
        if named:
            # Two buildings named ("from the library to Hobbs Cafe"): none is the one.
            within = next(iter(named)) if len(named) == 1 else None
        here = self.world.place_at(tile)
        if not known:
            only = here.address or r.persona.home
            return Candidates([only], {}, _settled([only], home))
        self._embed(known)
        query = self.embedder.embed_one(activity)
        known = self._rooms_for_one_kept(known, query, within, bool(said))
        room = f"{here.sector}: {here.arena}" if here.arena else None
        # A room for one is used and left, not stayed in: Klaus, placed in the cafe's
        # restroom to check his phone, wrote his paper at its toilet for the next hour, each
        # step kept where he was (party seed 3m).
        if room and self._for_one(room):
            room = None
        work = split_address(r.persona.workplace or "")[0]

        def score(place: str) -> float:
            s = float(self._vectors[place] @ query)
            if room and _in(place, room):
                s += self.settings.here_bonus
            if split_address(place)[0] in (home, work):
                s += self.settings.home_or_work_bonus
            return s

        ranked = sorted(known, key=lambda p: (-score(p), p))
        persona = r.persona
        wheres = (*sorted(said), persona.workplace or "", *persona.usual_places, persona.home, home)
        chosen = _best_of_each(ranked, wheres)[: self.settings.place_choices]
        notes = {}
        for place in chosen:
            sector = split_address(place)[0]
            at_home, at_work = sector == home, sector == work
            now_here = bool(room and _in(place, room))
            if at_home or at_work or now_here:
                notes[place] = PHRASES.text("note", home=at_home, work=at_work, here=now_here)
        # In a fixed order, not by score: the steps of one block are offered the same places,
        # and the same list is a prefix the KV cache keeps between an agent's calls.
        return Candidates(sorted(chosen), notes, _settled(chosen, home))

    def kept(
        self, r: Resident, activity: str, at: str, now: datetime, context: Sequence[str] = ()
    ) -> str | None:
        """Where a block's later step goes with no model call, ``at`` being where the step
        before it is: the thing in that building the step names ("checking the notice
        board", "reading at the table"), one alone or the one in the room ``at`` is in; else
        ``at`` itself. None, and the step is asked, where it names several things there;
        where it, or else the first of ``context`` that names a place (its block's words,
        its plan item's), names another building or room ("having lunch at Hobbs Cafe");
        where another place in the building suits it clearly better by meaning; where ``at``
        is in a room for one; or where the building is closed to ``r`` by now.

        Asked again at each step, told the room they were in, the 1.5B moved a block on to
        another thing in the room: Maria's reading begun at the dorm kitchen's table went on
        at its refrigerator and stove, nine items of a day's judge (party seed 1, stop 69);
        Klaus, told the kitchen, wrote at its refrigerator in 5 of 5 samples (stop 67)."""
        if self._one_of(at) or not self.is_open_to(r.name, at, now):
            return None
        building = split_address(at)[0]
        known = self._known(r, now)
        home = split_address(r.persona.home)[0]
        named = _first_named((activity, *context), known, home)
        if named and not any(_in(at, n) for n in named):
            return None
        inside = [p for p in known if _in(p, building)]
        things = [p for p in inside if _names_thing(activity, p)]
        if len(things) > 1:
            things = [p for p in things if _in(p, arena_of(self.world, at))] or things
        if len(things) > 1:
            return at if at in things else None
        if things:
            return things[0]
        return None if self._suits_better(activity, at, inside) else at

    def _suits_better(self, activity: str, at: str, places: list[str]) -> bool:
        """Whether one of ``places`` suits ``activity`` better by meaning than ``at`` does, by
        ``plan.stay_margin``: kept at the cafe's tables, Klaus went "to the bathroom" there
        (party seed 1, stop 70). By all-MiniLM-L6-v2 the restroom's toilet scores 0.28 above
        the tables for it, and the coffee machine 0.23 above them for "making coffee"; the
        dorm kitchen's table and refrigerator are within 0.04 of each other for reading, and
        the common room's television scores 0.19 above the kitchen table for a film."""
        self._embed([at, *places])
        query = self.embedder.embed_one(activity)
        here = float(self._vectors[at] @ query)
        return any(
            float(self._vectors[p] @ query) >= here + self.settings.stay_margin for p in places
        )

    def away_from(self, r: Resident, context: Sequence[str]) -> Callable[[str], bool]:
        """Whether a step of a block whose words (or else its plan item's or habit's:
        ``context``) name one building, or a room of one, names a room of another: Maria's
        block at Hobbs Cafe was cut into "reading books at the library" and "working on
        homework in the library", the first read at the cafe's notice board (party seeds 2y
        and 2z): where the model thinks reading is done, not an outing. A step that names
        another building by name ("having a coffee at Hobbs Cafe" in the library) is one, and
        goes there. Read only when a step is checked: most of a resident's next actions are
        steps already cut."""
        home = split_address(r.persona.home)[0]

        @cache
        def block_building() -> tuple[list[str], str | None]:
            known = self._known(r, None)
            named = _first_named(context, known, home)
            return known, split_address(next(iter(named)))[0] if len(named) == 1 else None

        def away(step: str) -> bool:
            known, building = block_building()
            if building is None:
                return False
            rooms = [split_address(p) for p in _places_named(step, known, home)]
            return bool(rooms) and all(len(p) > 1 and p[0] != building for p in rooms)

        return away

    def _known(self, r: Resident, now: datetime | None) -> list[str]:
        """The objects ``r`` knows, and the rooms they know with none known in them, that they
        may use (at ``now``, in the buildings open to them)."""
        known = r.spatial.known_objects()
        known += [a for a in r.spatial.known_arenas() if not r.spatial.known_objects(a)]
        known = [p for p in known if self.allowed(r.name, p)]
        if now is not None:
            known = [p for p in known if self.is_open_to(r.name, p, now)]
        return known

    def _rooms_for_one_kept(
        self, known: list[str], query: np.ndarray, within: str | None, said: bool
    ) -> list[str]:
        """``known``, narrowed to ``within`` where it fits, less the rooms for one unless one
        suits the activity best of all.

        A room for one is offered for what it is for: where a place in it suits the activity
        best of all, and then from another building where the block's has none (unless the
        activity names its building). Offered the cafe's restroom for "taking another break"
        and "reviewing their progress", which suit its armchairs and notice board better, the
        1.5B kept Klaus at its toilet for half an hour; and "taking a shower" in a block at the
        college, which has no bathroom, went to its coffee urn (party seed 2, stop 66)."""

        def best_for_one(places: list[str]) -> bool:
            best = min(places, key=lambda p: (-float(self._vectors[p] @ query), p))
            return self._one_of(best)

        inside = [p for p in known if _in(p, within)] if within else []
        for_one = best_for_one(known)
        if inside and (said or not for_one or any(self._one_of(p) for p in inside)):
            known = inside
            for_one = best_for_one(known)
        if not for_one:
            known = [p for p in known if not self._one_of(p)] or known
        return known

    def _embed(self, places: list[str]) -> None:
        """Compute once the vectors of the ``places`` not embedded yet."""
        missing = [p for p in places if p not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self.embedder.embed(missing), strict=True))

    def best_at_home(self, persona: ResidentPersona, words: str) -> str | None:
        """The place of the resident's home that suits ``words`` best by meaning, among those
        they may use; None where their home has no place in it. For what the code says itself
        (the morning routine's steps), whose place follows from the world alone."""
        home = split_address(persona.home)[0]
        mine = [
            o.address
            for o in self.world.tree.objects()
            if split_address(o.address)[0] == home and self.allowed(persona.name, o.address)
        ]
        if not mine:
            return None
        self._embed(mine)
        query = self.embedder.embed_one(words)
        return max(sorted(mine), key=lambda p: float(self._vectors[p] @ query))


def _in(place: str, address: str) -> bool:
    """Whether ``place`` is ``address`` or inside it ("Hobbs Cafe: cafe: piano" in "Hobbs Cafe")."""
    return place == address or place.startswith(f"{address}: ")


def _settled(places: list[str], home: str) -> tuple[str, ...]:
    buildings = {split_address(p)[0] for p in places}
    if len(buildings) != 1:
        return ()
    (building,) = buildings
    return (building, "home") if building == home else (building,)


def _best_of_each(ranked: list[str], wheres: Sequence[str]) -> list[str]:
    """The best of ``ranked`` in each of ``wheres`` first (in that order, once each), then the
    rest by rank. A cafe owner's "working at the counter" must be placeable at the cafe even if
    a pub scores higher, and "having a coffee at Hobbs Cafe" at the cafe; and a place the
    resident usually goes to, where their habits put their days (Klaus writes at Hobbs Cafe in
    the afternoon). Ranked alone, "writing a research paper on the effects of gentrification
    in low-income communities" offered the community garden's shed and the bathroom sink and
    neither the library nor a table at the cafe; he wrote at the shed for two hours (party
    seeds 1p and 1q)."""
    must: list[str] = []
    for where in wheres:
        best = next((p for p in ranked if where and _in(p, where)), None)
        if best is not None and best not in must:
            must.append(best)
    return must + [p for p in ranked if p not in must]


def _places_named(text: str, known: list[str], home: str = "") -> set[str]:
    """The buildings ``text`` names by name, and the rooms it names that only one building
    has ("Oak Hill College: library"), a room in place of its building: a party run had Klaus
    "walking to the library" at the dorm's kitchen table and "sitting at Hobbs Cafe and
    drinking coffee" among the library's bookshelves, his block's building; and in his
    block "reading in the library" he took notes at the classroom's blackboard (seed 2r). A
    room many buildings have ("kitchen") names none of them. "At home" names ``home``: the
    morning routine "… having breakfast at home", placed after a talk in the dorm's kitchen,
    was offered the college's coffee urn and had breakfast there (README run, stop 49)."""
    text = text.lower()
    at_home = where_said(["home"]).search(text)
    if home and at_home and any(split_address(p)[0] == home for p in known):
        named = {home}
        text = text.replace(at_home.group(0), " ")
    else:
        named = set()
    sectors: dict[str, str] = {}  # lower-case name -> name
    arenas: dict[str, set[str]] = {}  # lower-case room -> the rooms of that name
    for place in known:
        sector, *rest = split_address(place)
        sectors[sector.lower()] = sector
        if rest:
            arenas.setdefault(rest[0].lower(), set()).add(f"{sector}: {rest[0]}")
    # Longest first, each said taken out: "the Dorm for Oak Hill College" names no college.
    for low in sorted(sectors, key=len, reverse=True):
        if _said(low, text):
            text = text.replace(low, " ")
            named.add(sectors[low])
    for low, rooms in arenas.items():
        if len(rooms) == 1 and _said(low, text):
            named |= rooms
    # "the library at Oak Hill College" names the library.
    return {n for n in named if not any(o != n and _in(o, n) for o in named)}


def _first_named(texts: Iterable[str], known: list[str], home: str) -> set[str]:
    """The places the first of ``texts`` that names any names (a step's own words first,
    then its block's, then its plan item's); none where none does."""
    return next((n for n in (_places_named(t, known, home) for t in texts) if n), set())


def _names_thing(text: str, place: str) -> bool:
    """Whether ``text`` names the thing at ``place``: its name, or its last word ("the table"
    for "kitchen table"), singular or plural ("a bench" for "park benches": with a trailing
    "s" only, the plural's singular was "benche", and "the shelf" no form of "bookshelves")."""
    parts = split_address(place)
    if len(parts) < 3:
        return False
    name = parts[2].lower()
    forms = {name, *noun_forms(name.split()[-1])}
    return any(_said(form, text.lower()) for form in forms if len(form) > 2)


def _said(name: str, text: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


def bed_of(world: World, persona: ResidentPersona) -> str:
    """Where a resident sleeps: a bed in their home room, else the room itself."""
    home = world.place(persona.home)
    if isinstance(home, Arena):
        for obj in home.objects.values():
            if "bed" in obj.name.lower():
                return obj.address
        return home.address
    return persona.home


def arena_of(world: World, address: str) -> str:
    place = world.place(address)
    return place.arena_address if isinstance(place, GameObject) else address
