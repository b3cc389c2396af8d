"""Loading a world folder: read every file, check it, and assemble the :class:`World`.

A world folder ``worlds/<name>/`` holds::

    world.toml        name; where the town map, the personas and the scenario are
    town.toml         the town map (one letter per sector footprint, '.' street, '#' blocked)
                      and [sectors]: letter -> sector file
    sectors/*.toml    one per sector: name, its own map (same size as its footprint: '#' wall,
                      '+' door, '.' ground, a letter per arena floor, a character per object)
                      and [arenas.<letter>] with name, capacity, users and [arenas.<letter>.objects]
    personas/*.toml   one per resident (see ResidentPersona)
    scenario.toml     start date-time, step seconds, which residents take part

The formats are pydantic models in :mod:`~simulacra.world.formats`; the maps are parsed in
:mod:`~simulacra.world.maps`. Every problem found becomes one :class:`UserError` line naming the
file, the line or field, and the fix; all of them are collected before :class:`WorldError` is
raised.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from simulacra.errors import UserError
from simulacra.world.core import TileKind, TileMap, World
from simulacra.world.formats import STREET, ResidentPersona, Scenario, TownFile, WorldFile
from simulacra.world.grid import Grid, Tile
from simulacra.world.maps import MapText, SectorDraft, footprints, load_sector, map_text
from simulacra.world.reading import Problems, WorldError, norm_path, read_toml, validate
from simulacra.world.tree import Arena, EnvironmentTree, GameObject, Sector

__all__ = ["ResidentPersona", "Scenario", "WorldError", "load_world"]


def load_world(path: str | Path) -> World:
    """Read, validate and assemble a world folder. Raises :class:`WorldError` (a UserError)
    listing every problem found."""
    try:
        return _load(Path(path))
    except WorldError:
        raise
    except UserError as e:
        raise WorldError([e]) from None


def _load(root: Path) -> World:
    world_path = root / "world.toml"
    if not world_path.is_file():
        what = "no world.toml in this folder" if root.is_dir() else "no such world folder"
        raise UserError(
            what, file=root, fix="give a folder holding world.toml, e.g. worlds/smallville"
        )
    data, _ = read_toml(world_path)
    spec: WorldFile = validate(WorldFile, data, world_path)

    town_path = norm_path(root / spec.town)
    town_data, town_raw = read_toml(town_path, referenced=(world_path, "town"))
    town: TownFile = validate(TownFile, town_data, town_path)
    town_map = map_text(town.map, town_raw, town_path)
    sector_footprints = footprints(town, town_map, town_path)

    problems = Problems()
    drafts: list[SectorDraft] = []
    for fp in sector_footprints:
        with problems.collect():
            drafts.append(load_sector(fp, town_path))
    problems.raise_if_any()
    sector_files: dict[str, Path] = {}
    for d in drafts:
        if d.spec.name in sector_files:
            problems.add(
                f'sector name "{d.spec.name}" is also used by {sector_files[d.spec.name]}',
                file=d.footprint.file,
                field="name",
                fix="every sector needs its own name",
            )
        sector_files[d.spec.name] = d.footprint.file
    problems.raise_if_any()

    tree, tile_map, grid, arena_fields = _assemble(town_map, drafts)
    residents, spawns, files = _load_residents(
        root, spec, world_path, tree, grid, tile_map, problems
    )
    scenario = None
    with problems.collect():
        scenario = _load_scenario(norm_path(root / spec.scenario), world_path, residents)
    problems.raise_if_any()
    _check_users(tree, arena_fields, set(files), problems)
    _check_homes(tree, residents, files, problems)
    _check_reachable(tree, grid, spawns, arena_fields, files, world_path, problems)
    problems.raise_if_any()
    assert scenario is not None
    return World(
        name=spec.name,
        folder=root,
        description=spec.description,
        tree=tree,
        grid=grid,
        tiles=tile_map,
        residents=residents,
        scenario=scenario,
        spawns=spawns,
        sector_letters={d.spec.name: d.footprint.letter for d in drafts},
        source_files=[
            world_path,
            town_path,
            *(d.footprint.file for d in drafts),
            *files.values(),
            norm_path(root / spec.scenario),
        ],
    )


def _assemble(
    town_map: MapText, drafts: list[SectorDraft]
) -> tuple[EnvironmentTree, TileMap, Grid, dict[str, tuple[Path, str]]]:
    width, height = town_map.size
    n = width * height
    kind = [
        TileKind.STREET if ch == STREET else TileKind.BLOCKED for row in town_map.rows for ch in row
    ]
    sector_ids, arena_ids, object_ids = [-1] * n, [-1] * n, [-1] * n
    glyph = [ch for row in town_map.rows for ch in row]
    sectors: list[Sector] = []
    # Where each arena and object is declared, for messages about reachability.
    fields: dict[str, tuple[Path, str]] = {}
    next_arena = next_object = 0
    for sector_id, d in enumerate(drafts):
        ox, oy = d.footprint.origin
        arenas: dict[str, Arena] = {}
        for letter, entry in d.spec.arenas.items():
            arena_tiles = tuple(
                (ox + x, oy + y)
                for (x, y), a in sorted(d.arena_of.items(), key=_reading)
                if a == letter
            )
            objects: dict[str, GameObject] = {}
            for symbol, (owner, obj) in d.objects.items():
                if owner != letter:
                    continue
                tiles = tuple(
                    (ox + x, oy + y)
                    for (x, y), s in sorted(d.object_of.items(), key=_reading)
                    if s == symbol
                )
                made = GameObject(obj.name, d.spec.name, entry.name, obj.state, tiles, next_object)
                objects[obj.name] = made
                fields[made.address] = (d.footprint.file, f"arenas.{letter}.objects.{symbol}")
                for x, y in tiles:
                    object_ids[y * width + x] = next_object
                next_object += 1
            users = tuple(entry.users) if entry.users is not None else None
            arena = Arena(
                entry.name, d.spec.name, arena_tiles, entry.capacity, objects, next_arena, users
            )
            arenas[entry.name] = arena
            fields[arena.address] = (d.footprint.file, f"arenas.{letter}")
            for x, y in arena_tiles:
                arena_ids[y * width + x] = next_arena
            next_arena += 1
        w, h = d.footprint.size
        sector_tiles = tuple((ox + x, oy + y) for y in range(h) for x in range(w))
        sectors.append(
            Sector(d.spec.name, (ox, oy), (w, h), sector_tiles, arenas, sector_id, d.spec.hours)
        )
        for (x, y), k in d.kinds.items():
            i = (oy + y) * width + ox + x
            kind[i] = k
            sector_ids[i] = sector_id
            glyph[i] = d.text.rows[y][x]
    tree = EnvironmentTree(sectors)
    tile_map = TileMap(tuple(kind), sector_ids, arena_ids, object_ids, glyph)
    grid = Grid(width, height, [k.walkable for k in kind])
    return tree, tile_map, grid, fields


def _reading(item: tuple[Tile, str]) -> tuple[int, int]:
    (x, y), _ = item
    return (y, x)


def _load_residents(
    root: Path,
    spec: WorldFile,
    world_path: Path,
    tree: EnvironmentTree,
    grid: Grid,
    tile_map: TileMap,
    problems: Problems,
) -> tuple[list[ResidentPersona], dict[str, Tile], dict[str, Path]]:
    folder = norm_path(root / spec.personas)
    if not folder.is_dir():
        problems.add(
            f"no folder {str(folder)}",
            file=world_path,
            field="personas",
            fix="create it with one .toml file per resident, or correct the path",
        )
        return [], {}, {}
    residents: list[ResidentPersona] = []
    spawns: dict[str, Tile] = {}
    files: dict[str, Path] = {}
    found = sorted(folder.glob("*.toml"))
    if not found:
        problems.add(
            f"no persona files in {folder}",
            file=world_path,
            field="personas",
            fix="put one .toml file per resident there (see worlds/smallville/personas)",
        )
    for file in found:
        with problems.collect():
            data, _ = read_toml(file)
            persona: ResidentPersona = validate(ResidentPersona, data, file)
            if persona.name in files:
                raise UserError(
                    f'"{persona.name}" is also the name in {files[persona.name]}',
                    file=file,
                    field="name",
                    fix="every resident needs their own name",
                )
            spawn = _check_places(persona, file, tree, grid, tile_map, set(spawns.values()))
            files[persona.name] = file
            residents.append(persona)
            spawns[persona.name] = spawn
    for name, tile in spec.spawns.items():
        field = f'spawns."{name}"'
        if name in spawns:
            problems.add(
                f'"{name}" is the name of a resident', file=world_path, field=field, fix="rename it"
            )
        elif problem := _bad_tile(tile, grid):
            problems.add(problem, file=world_path, field=field, fix="pick a walkable tile")
        else:
            spawns[name] = tuple(tile)  # type: ignore[assignment]
    return residents, spawns, files


def _check_places(
    persona: ResidentPersona,
    file: Path,
    tree: EnvironmentTree,
    grid: Grid,
    tile_map: TileMap,
    taken: set[Tile],
) -> Tile:
    problems = Problems()

    def need(address: str, field: str, kinds: tuple[type, ...], what: str) -> Any:
        place = tree.find(address)
        if isinstance(place, kinds):
            return place
        pool = [
            p.address
            for p in [*tree.sectors.values(), *tree.arenas(), *tree.objects()]
            if isinstance(p, kinds)
        ]
        close = difflib.get_close_matches(address, pool, n=3, cutoff=0.5)
        hint = "did you mean " + " or ".join(f'"{c}"' for c in close) if close else ""
        if place is not None:
            problem = f'"{address}" is not {what}'
        else:
            problem = f'no place "{address}" in this world'
        fix = hint or f"write {what} that exists; `simulacra world objects WORLD` lists them"
        problems.add(problem, file=file, field=field, fix=fix)
        return None

    home = need(persona.home, "home", (Arena,), 'an arena ("Sector: Arena")')
    if persona.workplace:
        need(persona.workplace, "workplace", (Sector, Arena), 'a sector or "Sector: Arena"')
    for i, address in enumerate(persona.usual_places):
        need(address, f"usual_places[{i}]", (Sector, Arena, GameObject), "a place")
    spawn: Tile | None = None
    if isinstance(persona.spawn, str):
        place = need(persona.spawn, "spawn", (Arena, GameObject), "an arena or object")
        if place is not None:
            spawn = _first_tile(place, tile_map, grid)
    elif persona.spawn is not None:
        if problem := _bad_tile(persona.spawn, grid):
            problems.add(problem, file=file, field="spawn", fix="pick a walkable tile")
        else:
            spawn = persona.spawn
    elif home is not None:
        # People wake up in bed; a couple sharing one gets two of its tiles.
        beds = [
            t for o in home.objects.values() if "bed" in o.name.lower().split() for t in o.tiles
        ]
        floor = [t for t in home.tiles if tile_map.kind[grid.index(t)] == TileKind.FLOOR]
        spawn = next((t for t in [*beds, *floor] if t not in taken), home.tiles[0])
    problems.raise_if_any()
    assert spawn is not None
    return spawn


def _check_users(
    tree: EnvironmentTree,
    fields: dict[str, tuple[Path, str]],
    residents: set[str],
    problems: Problems,
) -> None:
    for arena in tree.arenas():
        for name in arena.users or ():
            if name not in residents:
                file, field = fields[arena.address]
                close = difflib.get_close_matches(name, sorted(residents), n=1)
                fix = f'did you mean "{close[0]}"' if close else "write a resident's name"
                problems.add(
                    f'"{name}" is no resident of this world',
                    file=file,
                    field=f"{field}.users",
                    fix=fix,
                )


def _check_homes(
    tree: EnvironmentTree,
    residents: list[ResidentPersona],
    files: dict[str, Path],
    problems: Problems,
) -> None:
    """A resident may use their own room: a home whose ``users`` leave them out is an error
    (the places offered would never include their bed)."""
    for persona in residents:
        home = tree.find(persona.home.strip())
        if isinstance(home, Arena) and home.users is not None and persona.name not in home.users:
            problems.add(
                f'"{home.address}" is kept for {", ".join(home.users)} (its users)',
                file=files[persona.name],
                field="home",
                fix=f"add {persona.name!r} to the room's users in its sector file, "
                "or give another home",
            )


def _first_tile(place: Arena | GameObject, tile_map: TileMap, grid: Grid) -> Tile:
    if isinstance(place, Arena):
        floor = [t for t in place.tiles if tile_map.kind[grid.index(t)] == TileKind.FLOOR]
        return (floor or list(place.tiles))[0]
    return place.tiles[0]


def _bad_tile(tile: tuple[int, int], grid: Grid) -> str | None:
    if not grid.in_bounds(tile):
        return (
            f"tile {tuple(tile)} is outside the map (x 0-{grid.width - 1}, y 0-{grid.height - 1})"
        )
    if not grid.is_walkable(tile):
        return f"tile {tuple(tile)} is a wall or blocked"
    return None


def _load_scenario(path: Path, world_path: Path, residents: list[ResidentPersona]) -> Scenario:
    data, _ = read_toml(path, referenced=(world_path, "scenario"))
    scenario: Scenario = validate(Scenario, data, path)
    if scenario.personas is not None:
        names = [p.name for p in residents]
        problems = Problems()
        seen: set[str] = set()
        for i, name in enumerate(scenario.personas):
            if name in seen:
                problems.add(
                    f'"{name}" is listed twice',
                    file=path,
                    field=f"personas[{i}]",
                    fix="list each resident once",
                )
            elif name not in names:
                close = difflib.get_close_matches(name, names, n=3)
                fix = ("did you mean " + " or ".join(f'"{c}"' for c in close)) if close else None
                problems.add(
                    f'no resident named "{name}"',
                    file=path,
                    field=f"personas[{i}]",
                    fix=fix or "use the name field of a persona file",
                )
            seen.add(name)
        problems.raise_if_any()
    return scenario


def _check_reachable(
    tree: EnvironmentTree,
    grid: Grid,
    spawns: dict[str, Tile],
    fields: dict[str, tuple[Path, str]],
    persona_files: dict[str, Path],
    world_path: Path,
    problems: Problems,
) -> None:
    """Every spawn point reaches every other and a tile of every arena and object.

    Walking is symmetric, so one flood fill from the first spawn point decides it all.
    """
    if spawns:
        origin_name, origin = next(iter(spawns.items()))
    else:
        walkable = [grid.tile(i) for i in range(grid.width * grid.height)]
        walkable = [t for t in walkable if grid.is_walkable(t)]
        if not walkable:
            problems.add("nothing on the map is walkable", file=world_path, field="town")
            return
        origin_name, origin = "the first walkable tile", walkable[0]
    reach = grid.component(origin)
    for name, tile in spawns.items():
        if tile not in reach:
            file, field = (
                (persona_files[name], "spawn")
                if name in persona_files
                else (world_path, f'spawns."{name}"')
            )
            problems.add(
                f"spawn point {tile} cannot reach {origin_name}'s spawn point {origin}",
                file=file,
                field=field,
                fix="open a door ('+') in the walls around it",
            )
    for arena in tree.arenas():
        if not any(t in reach for t in arena.tiles):
            file, field = fields[arena.address]
            problems.add(
                f'arena "{arena.name}" cannot be reached from the spawn points',
                file=file,
                field=field,
                fix="open a door: put '+' in its wall next to a walkable tile",
            )
            continue
        for obj in arena.objects.values():
            if not any(t in reach for t in obj.tiles):
                file, field = fields[obj.address]
                problems.add(
                    f'object "{obj.name}" cannot be reached from the spawn points',
                    file=file,
                    field=field,
                    fix="leave a floor tile next to it that connects to a door",
                )
