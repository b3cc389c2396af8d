"""Drawing the town: coloured text for a terminal, and a JSON map for a browser viewer."""

from __future__ import annotations

from rich.text import Text

from simulacra.world.core import TileKind, World
from simulacra.world.grid import Tile
from simulacra.world.tree import Sector

# Colours cycle over sectors so neighbouring buildings tell apart.
_PALETTE = ["cyan", "magenta", "yellow", "green", "blue", "red", "bright_cyan", "bright_magenta"]


def draw(
    world: World,
    positions: dict[str, Tile] | None = None,
    *,
    sector: str | None = None,
) -> Text:
    """The map (or one sector of it) as rich Text. Sectors carry their name on their top wall;
    agents show as the initial of their first name, reversed.

    Full map: walls ``#``, doors ``+``, floors ``·`` in the sector's colour, objects by their
    symbol. One sector: its file's own characters, so it reads like the file."""
    tiles = world.tiles
    x0, y0, x1, y1 = 0, 0, world.width, world.height
    zoom: Sector | None = None
    if sector is not None:
        zoom = world.place(sector)  # type: ignore[assignment]
        if not isinstance(zoom, Sector):
            zoom = world.tree.sectors[world.place(sector).sector]  # type: ignore[union-attr]
        (x0, y0), (w, h) = zoom.origin, zoom.size
        x1, y1 = x0 + w, y0 + h
    labels = {} if zoom else _labels(world)
    agents = {tuple(t): name for name, t in (positions or {}).items()}
    out = Text()
    for y in range(y0, y1):
        for x in range(x0, x1):
            i = y * world.width + x
            kind = tiles.kind[i]
            colour = _PALETTE[tiles.sector[i] % len(_PALETTE)] if tiles.sector[i] >= 0 else ""
            if (x, y) in agents:
                out.append(agents[x, y][0], style="bold reverse")
            elif (x, y) in labels:
                out.append(labels[x, y], style=f"bold {colour}")
            elif kind == TileKind.BLOCKED:
                out.append("#", style="green dim")
            elif kind == TileKind.STREET:
                out.append(".", style="dim")
            elif kind == TileKind.WALL:
                out.append("#", style=colour)
            elif kind == TileKind.OBJECT:
                out.append(tiles.glyph[i], style=f"bold {colour}")
            elif zoom is None and kind == TileKind.FLOOR:
                out.append("·", style=f"{colour} dim")
            else:
                out.append(tiles.glyph[i], style=f"{colour} dim")
        out.append("\n")
    return out


def _labels(world: World) -> dict[Tile, str]:
    # Names go on the top wall, one character per tile, leaving the corners as walls.
    found: dict[Tile, str] = {}
    for sector in world.sectors:
        (x, y), (w, _) = sector.origin, sector.size
        room = w - 2
        name = sector.name if len(sector.name) <= room else sector.name[: max(room - 1, 0)] + "…"
        for k, ch in enumerate(name):
            if world.tiles.kind[y * world.width + x + 1 + k] == TileKind.WALL:
                found[x + 1 + k, y] = ch
    return found


def legend(world: World, sector: str | None = None) -> list[str]:
    """Lines explaining the drawing: sectors (full map) or arenas and objects (one sector)."""
    if sector is None:
        return [
            f"{s.name} ({len(s.arenas)} arenas) at {s.origin[0]},{s.origin[1]}"
            for s in world.sectors
        ]
    place = world.place(sector)
    zone = place if isinstance(place, Sector) else world.tree.sectors[place.sector]
    lines = []
    for arena in zone.arenas.values():
        floor = [t for t in arena.tiles if world.kind_at(t) == TileKind.FLOOR]
        letter = world.tiles.glyph[world.grid.index((floor or list(arena.tiles))[0])]
        cap = f", holds {arena.capacity}" if arena.capacity else ""
        cap += f", for {', '.join(arena.users)}" if arena.users is not None else ""
        lines.append(f"{letter}  {arena.name}{cap}")
        for obj in arena.objects.values():
            symbol = world.tiles.glyph[world.grid.index(obj.tiles[0])]
            lines.append(f"   {symbol}  {obj.name} ({obj.default_state})")
    return lines


def export_map(world: World) -> dict:
    """The town for a browser, JSON-serialisable. Shape::

    {
      "name": str, "width": W, "height": H,
      "kinds": ["blocked", "street", "wall", "ground", "door", "floor", "object"],
      "tiles": {            # flat lists, W*H long, index = y * W + x
        "kind":   [int],    # index into "kinds"
        "sector": [int],    # index into "sectors", -1 for none
        "arena":  [int],    # index into "arenas", -1 for none
        "object": [int],    # index into "objects", -1 for none
      },
      "glyphs": [str],      # H rows of W characters as the world files draw them
      "sectors": [{"id", "name", "letter", "x", "y", "width", "height"}],
      "arenas":  [{"id", "name", "address", "sector", "capacity"}],   # sector: id
      "objects": [{"id", "name", "address", "arena", "state", "tiles"}],
                            # arena: id; state: default; tiles: [[x, y], ...]
      "spawns": {name: [x, y]},
      "personas": [name],   # taking part in the scenario, in order
    }
    """
    t = world.tiles
    w = world.width
    return {
        "name": world.name,
        "width": w,
        "height": world.height,
        "kinds": [k.name.lower() for k in TileKind],
        "tiles": {
            "kind": [int(k) for k in t.kind],
            "sector": list(t.sector),
            "arena": list(t.arena),
            "object": list(t.object),
        },
        "glyphs": ["".join(t.glyph[y * w : (y + 1) * w]) for y in range(world.height)],
        "sectors": [
            {
                "id": s.id,
                "name": s.name,
                "letter": world.sector_letters.get(s.name, ""),
                "x": s.origin[0],
                "y": s.origin[1],
                "width": s.size[0],
                "height": s.size[1],
            }
            for s in world.sectors
        ],
        "arenas": [
            {
                "id": a.id,
                "name": a.name,
                "address": a.address,
                "sector": world.tree.sectors[a.sector].id,
                "capacity": a.capacity,
            }
            for a in world.arenas
        ],
        "objects": [
            {
                "id": o.id,
                "name": o.name,
                "address": o.address,
                "arena": world.tree.sectors[o.sector].arenas[o.arena].id,
                "state": o.default_state,
                "tiles": [list(tile) for tile in o.tiles],
            }
            for o in world.objects
        ],
        "spawns": {name: list(tile) for name, tile in world.spawns.items()},
        "personas": [p.name for p in world.personas],
    }
