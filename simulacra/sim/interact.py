"""What a user can do to a running town (paper §3.1 and §5): interview a resident in a
persona of their choosing, speak as its inner voice, change an object's state in words, and
walk in as an avatar the residents perceive and talk with.

Every action is checked (unknown names and too-long texts are a :class:`UserError`), done
through the same cognition the residents use, and noted as a
:class:`~simulacra.sim.record.UserAction` that the town logs with its next step. Only the
simulation's own thread may call these (see :mod:`simulacra.sim.live`): one writer.
"""

from __future__ import annotations

from dataclasses import dataclass

from simulacra.cognition.dialogue import Line
from simulacra.errors import UserError
from simulacra.sim import inputs
from simulacra.sim import record as rec
from simulacra.sim.avatar import ENTRANCE, Avatar
from simulacra.sim.resident import Resident
from simulacra.sim.simulation import Simulation
from simulacra.sim.user import User
from simulacra.text import bounded, check_name
from simulacra.world.grid import Tile

NAME_CHARS = 40
MEMORY_SETTING = "limits.memory_chars"


@dataclass(frozen=True)
class TalkResult:
    answer: str
    memories: list[str]  # what the answer was given from, most relevant first


@dataclass(frozen=True)
class SayResult:
    reply: str
    ended: bool  # the resident ended the conversation (or it reached its length)


class Interactions:
    def __init__(self, sim: Simulation) -> None:
        self.sim = sim

    @property
    def user(self) -> User:
        return self.sim.town.user

    def apply(self, command: inputs.UserInput) -> object:
        """Do what one typed input of the user's asks; its answer (see each method)."""
        match command:
            case inputs.Talk():
                c = command
                return self.talk(c.resident, c.persona, c.question, remember=c.remember)
            case inputs.Whisper():
                return self.whisper(command.resident, command.statement)
            case inputs.SetObject():
                return self.set_object(command.object, command.state)
            case inputs.Enter():
                return self.enter(command.name)
            case inputs.Move():
                return self.walk_to((command.x, command.y))
            case inputs.TileStep():
                return self.step(command.dx, command.dy)
            case inputs.Say():
                return self.say(command.resident, command.text)
            case inputs.Leave():
                return self.leave()
        raise TypeError(f"not a user input: {command!r}")

    # -- interviews, the inner voice, objects ------------------------------------------------

    def talk(self, resident: str, persona: str, question: str, *, remember: bool) -> TalkResult:
        r = self.resident(resident)
        limit = self.sim.settings.limits.memory_chars
        question = bounded(question.strip(), limit, field="question", setting=MEMORY_SETTING)
        persona = bounded(persona.strip(), limit, field="persona", setting=MEMORY_SETTING)
        if not question or not persona:
            raise UserError("say who you are and what you ask", field="question")
        got = r.agent.interview_from_memory(question, persona, remember=remember, at=self.sim.now)
        said = {"text": question, "answer": got.answer, "remembered": remember}
        self._note(kind="talk", by=persona, to=r.name, **said)
        if remember:
            self.sim.checkpoint()
        return TalkResult(got.answer, [m.description for m in got.memories])

    def whisper(self, resident: str, statement: str) -> str:
        r = self.resident(resident)
        record = r.agent.inner_voice(statement, self.sim.now)  # bounded there
        self._note(kind="whisper", to=r.name, text=record.description)
        self.sim.checkpoint()
        return record.description

    def set_object(self, name: str, state: str) -> tuple[str, str]:
        limit = self.sim.settings.limits.object_state_chars
        state = bounded(state, limit, field="state", setting="limits.object_state_chars")
        address = self.sim.state.set_object_state(name, state)
        now = self.sim.state.object_state(address)
        self._note(kind="set", to=address, text=now)
        self.sim.checkpoint()
        return address, now

    # -- the avatar --------------------------------------------------------------------------

    def enter(self, name: str) -> Tile:
        """The avatar walks in at the town entrance (again, if it is there already)."""
        try:
            name = check_name(name)
        except ValueError as e:
            raise UserError(str(e), field="name") from None
        if len(name) > NAME_CHARS:
            raise UserError(f"the name is longer than {NAME_CHARS} characters", field="name")
        avatar = self.user.avatar
        if avatar is not None and avatar.name != name:
            raise UserError(
                f"you are in the town as {avatar.name} already", field="name", fix=avatar.name
            )
        if name in self.sim.residents:
            raise UserError(f"{name} lives in the town: choose another name", field="name")
        tile = self.user.let_in(name, self.sim.world.spawn_of(ENTRANCE))
        self._note(kind="enter", by=name, tile=tile)
        self.sim.checkpoint()
        return tile

    def walk_to(self, tile: Tile) -> int:
        """Set off to a tile, one tile a step like everyone; returns the number of steps."""
        avatar = self.avatar()
        world = self.sim.world
        tile = (int(tile[0]), int(tile[1]))
        if tile not in world.grid or not world.is_walkable(tile):
            raise UserError(f"tile {tile} is not a place to walk to", field="tile")
        path = world.path(self.sim.state.tile_of(avatar.name), tile)
        if path is None:
            raise UserError(f"there is no way to tile {tile} from here", field="tile")
        self._end_conversation()
        avatar.set_off(path)
        self.user.show_avatar()
        self._note(kind="move", by=avatar.name, tile=tile)
        return len(path)

    def step(self, dx: int, dy: int) -> Tile:
        """One tile now (the arrow keys), whether the town runs or not."""
        avatar = self.avatar()
        x, y = self.sim.state.tile_of(avatar.name)
        if abs(dx) + abs(dy) != 1:
            raise UserError("one tile at a time: left, right, up or down", field="dx")
        tile = (x + dx, y + dy)
        world = self.sim.world
        if tile not in world.grid or not world.is_walkable(tile):
            raise UserError("something is in the way", field="tile")
        self._end_conversation()
        avatar.set_off([])
        self.sim.state.move(avatar.name, tile)
        self.user.show_avatar()
        self._note(kind="move", by=avatar.name, tile=tile)
        return tile

    def say(self, resident: str, text: str) -> SayResult:
        """A line to a resident nearby; it answers through the dialogue the residents use
        with each other, and remembers the conversation when it ends."""
        avatar = self.avatar()
        r = self.resident(resident)
        limit = self.sim.settings.limits.memory_chars  # the transcript becomes a memory
        text = bounded(text.strip(), limit, field="text", setting=MEMORY_SETTING)
        if not text:
            raise UserError("say something", field="text")
        self._check_can_talk(avatar, r)
        if avatar.partner not in (None, r.name):
            self._end_conversation()
        now = self.sim.now
        avatar.say_to(r.name, text)
        self.sim.town.conversations.talk_with_avatar(r, avatar.name, now)
        self.user.show_avatar()
        setting = self.sim.town.sandbox.setting_of(r)
        reply = r.agent.respond(avatar.lines, avatar.name, setting=setting, at=now)
        avatar.hear(Line(r.name, reply.text))
        ended = reply.ends_conversation
        if len(avatar.lines) >= self.sim.settings.conversation.max_utterances:
            ended = True
        self._note(kind="say", by=avatar.name, to=r.name, text=text, answer=reply.text)
        if ended:
            # respond() kept it already when the resident was the one to end it.
            self._end_conversation(remembered=reply.ends_conversation)
        self.sim.checkpoint()
        return SayResult(reply.text, ended)

    def leave(self) -> None:
        """End the conversation the avatar is having."""
        avatar = self.avatar()
        if avatar.partner is None:
            raise UserError("you are not talking with anyone")
        self._end_conversation()
        self.sim.checkpoint()

    # -- helpers -----------------------------------------------------------------------------

    def resident(self, name: str) -> Resident:
        found = self.sim.residents.get(" ".join(name.split()))
        if found is None:
            names = ", ".join(self.sim.residents)
            raise UserError(f"no resident named {name!r}", field="resident", fix=names)
        return found

    def avatar(self) -> Avatar:
        if self.user.avatar is None:
            raise UserError("enter the town first", field="name", fix="give your avatar a name")
        return self.user.avatar

    def _check_can_talk(self, avatar: Avatar, r: Resident) -> None:
        why = self.sim.town.conversations.why_not(avatar.name, r, self.sim.now)
        if why == "far":
            raise UserError(f"{r.name} is too far away to hear you", fix="walk over first")
        if why == "asleep":
            raise UserError(f"{r.name} is asleep")
        if why == "busy":
            raise UserError(f"{r.name} is talking with {r.action.partner}", fix="wait a little")
        if why == "cooling":  # the avatar sets no cool-down: never, as things are
            raise UserError(f"{r.name} talked with you a moment ago", fix="wait a little")

    def _end_conversation(self, *, remembered: bool = False) -> None:
        """The conversation is over: the resident keeps it (the transcript, a planning note
        and a memo, as after any conversation) and it goes into the log as a chat."""
        avatar = self.user.avatar
        if avatar is None or avatar.partner is None:
            return
        r = self.sim.residents[avatar.partner]
        now = self.sim.now
        if not remembered:
            self.sim.town.conversations.remember(r, avatar.name, avatar.lines, now)
        self.user.note_avatar_chat(
            rec.Chat(
                between=[avatar.name, r.name],
                lines=[rec.ChatLine(speaker=x.speaker, text=x.text) for x in avatar.lines],
            )
        )
        self._note(kind="leave", by=avatar.name, to=r.name)
        self.sim.town.conversations.end_talk_with_avatar(r, avatar.name, now)
        avatar.end_conversation()
        self.user.show_avatar()

    def _note(self, **fields) -> None:
        self.user.note(rec.UserAction(**fields))
