"""The user in a running town (paper §3.1, `simulacra play`): the avatar the user walks in
as, perceived by the residents like anyone, and what the user did and said since the last
step, which the town logs with its next step (and checkpoints keep until then).
"""

from __future__ import annotations

from simulacra.sim import record as rec
from simulacra.sim.avatar import Avatar, AvatarState
from simulacra.world import World, WorldState
from simulacra.world.grid import Tile


class User:
    def __init__(self, world: World, state: WorldState) -> None:
        self.world = world
        self.state = state
        self.avatar: Avatar | None = None
        self.actions: list[rec.UserAction] = []  # since the last step
        self.avatar_chats: list[rec.Chat] = []  # ended since the last step

    def restore(
        self, avatar: AvatarState | None, actions: list[rec.UserAction], chats: list[rec.Chat]
    ) -> None:
        self.avatar = Avatar.from_state(avatar) if avatar else None
        self.actions = list(actions)
        self.avatar_chats = list(chats)

    # -- what the user did, logged with the next step ----------------------------------------

    def note(self, action: rec.UserAction) -> None:
        self.actions.append(action)

    def note_avatar_chat(self, chat: rec.Chat) -> None:
        self.avatar_chats.append(chat)

    def take(self) -> tuple[list[rec.UserAction], list[rec.Chat]]:
        """What the user did and the avatar's chats since the last step, for its record."""
        taken = self.actions, self.avatar_chats
        self.actions, self.avatar_chats = [], []
        return taken

    # -- the avatar -----------------------------------------------------------------------

    def let_in(self, name: str, entrance: Tile) -> Tile:
        """The user's avatar walks in at ``entrance`` (again, if it is in the town already:
        it stops where it was going)."""
        self.avatar = self.avatar or Avatar(name)
        self.avatar.set_off([])
        tile = self.state.place(name, entrance)
        self.show_avatar()
        return tile

    def show_avatar(self) -> None:
        """The avatar's doings as its event in the world, which perception reads."""
        a = self.avatar
        if a is not None:
            self.state.set_action(a.name, "is", "", a.describe(self.world, self.state))

    def move_avatar(self) -> None:
        """One tile on the avatar's way, like everyone's."""
        if self.avatar is not None and self.avatar.path:
            self.state.move(self.avatar.name, self.avatar.next_tile())
            self.show_avatar()

    def avatar_step(self) -> rec.AvatarStep | None:
        if self.avatar is None:
            return None
        name = self.avatar.name
        event = self.state.event_of(name)
        return rec.AvatarStep(name=name, tile=event.tile, description=event.description)
