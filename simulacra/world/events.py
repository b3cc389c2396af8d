"""What happens on a tile, as a subject–predicate–object triple plus a sentence."""

from __future__ import annotations

from dataclasses import dataclass, field

from simulacra.world.grid import Tile
from simulacra.world.tree import IDLE


@dataclass(frozen=True)
class Event:
    """One happening an agent can perceive: ``("Isabella Rodriguez", "is", "brewing coffee",
    "Isabella Rodriguez is brewing coffee")`` or, for an object, its address as the subject
    and ``"coffee machine is brewing coffee"`` as the description.

    Two events are equal when the happening is the same, wherever it was seen: ``address``
    (the place it is in, ``""`` on the street) and ``tile`` do not take part in comparisons.
    """

    subject: str
    predicate: str
    object: str
    description: str
    address: str = field(default="", compare=False)
    tile: Tile | None = field(default=None, compare=False)

    @property
    def triple(self) -> tuple[str, str, str]:
        return (self.subject, self.predicate, self.object)

    @property
    def is_idle(self) -> bool:
        """Idle events are cheap: the original gives them importance 1 without asking the model."""
        return self.predicate == "is" and self.object == IDLE

    def key(self) -> list[str]:
        """The JSON-friendly identity used by retention buffers and checkpoints."""
        return [self.subject, self.predicate, self.object, self.description]
