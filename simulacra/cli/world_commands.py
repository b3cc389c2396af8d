"""`simulacra world check | show | objects`: look at a world folder before running it."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from simulacra.cli.app import cli
from simulacra.cli.console import console
from simulacra.errors import UserError
from simulacra.text import printable


@cli.group()
def world() -> None:
    """Check, draw and list the places of a world folder (worlds/NAME)."""


world_folder = click.argument("folder", type=click.Path(path_type=Path))


def plain(*objects, **kwargs) -> None:
    """Names and states from world files, printed as they are: never read as markup."""
    console.print(*objects, markup=False, **kwargs)


@world.command()
@world_folder
def check(folder: Path) -> None:
    """Validate every file of a world and print a summary; each problem is one line."""
    from simulacra.world import TileKind, WorldError, load_world

    try:
        loaded = load_world(folder)
    except WorldError as e:
        # Every problem, one line each, not just the first that `main` would print.
        for line in e.lines():
            print(f"error: {printable(line)}", file=sys.stderr)
        sys.exit(2)
    kinds = loaded.tiles.kind
    walkable = sum(1 for k in kinds if k.walkable)
    doors = sum(1 for k in kinds if k == TileKind.DOOR)
    capped = sum(1 for a in loaded.arenas if a.capacity)
    scenario = loaded.scenario
    residents = len(loaded.residents)
    taking_part = (
        f" ({len(loaded.personas)} of {residents} residents take part)"
        if len(loaded.personas) != residents
        else ""
    )
    plain(f"{loaded.name}: ok  ({folder})")
    plain(f"map        {loaded.width} x {loaded.height} tiles, {walkable} walkable, {doors} doors")
    plain(
        f"places     {len(loaded.sectors)} sectors, {len(loaded.arenas)} arenas"
        f" ({capped} with a capacity), {len(loaded.objects)} objects"
    )
    plain(f"residents  {len(loaded.personas)} personas{taking_part}")
    plain(f"scenario   starts {scenario.start:%A %Y-%m-%d %H:%M}, {scenario.step_seconds} s steps")
    plain("checked    every arena and object reachable from every spawn point")


@world.command()
@world_folder
@click.option("--sector", help="Draw one sector with its own characters and legend.")
@click.option("--no-residents", is_flag=True, help="Leave out the residents' spawn points.")
def show(folder: Path, sector: str | None, no_residents: bool) -> None:
    """Draw the map in the terminal, residents at their spawn points."""
    from simulacra.world import draw, legend, load_world

    loaded = load_world(folder)
    if sector is not None:
        sector = loaded.resolve(sector, kind="sector")
    positions = {} if no_residents else {p.name: loaded.spawn_of(p.name) for p in loaded.personas}
    plain(draw(loaded, positions, sector=sector), end="")
    for line in legend(loaded, sector):
        plain(line)
    if positions:
        plain(
            "residents  "
            + ", ".join(f"{name[0]} {name} {x},{y}" for name, (x, y) in positions.items())
        )


@world.command()
@world_folder
@click.option("--arena", help='Only this arena ("Sector: Arena", or a phrase naming it).')
def objects(folder: Path, arena: str | None) -> None:
    """List object addresses and their default states (names for `simulacra set`)."""
    from simulacra.world import load_world

    loaded = load_world(folder)
    chosen = loaded.arenas
    if arena is not None:
        address = loaded.resolve(arena, kind="arena")
        chosen = [a for a in loaded.arenas if a.address == address]
    rows = [(o.address, o.default_state) for a in chosen for o in a.objects.values()]
    if not rows:
        raise UserError(f"no objects in {arena!r}")
    width = max(len(address) for address, _ in rows)
    for address, state in rows:
        plain(f"{address:<{width}}  {state}")
