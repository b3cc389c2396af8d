"""The grid and A*: shortest, walls respected, unreachable; every Smallville arena reachable."""

from __future__ import annotations

import random
from collections import deque
from pathlib import Path

import pytest

from simulacra.world import Grid, load_world

SMALLVILLE = Path(__file__).resolve().parent.parent / "worlds" / "smallville"


def grid_from(drawing: str) -> Grid:
    rows = drawing.strip().split("\n")
    return Grid(len(rows[0]), len(rows), [ch != "#" for row in rows for ch in row])


def bfs_distance(grid: Grid, start, goal) -> int | None:
    seen = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if here == goal:
            return seen[here]
        for step in grid.neighbours(here):
            if step not in seen:
                seen[step] = seen[here] + 1
                queue.append(step)
    return None


MAZE = """
.......
.#####.
.#...#.
.#.#.#.
...#...
"""


def test_path_goes_round_walls_by_the_shortest_way():
    grid = grid_from(MAZE)
    path = grid.path((2, 4), (4, 4))
    # The wall at (3, 3)-(3, 4) sends the walk up and over: 6 steps, not 2.
    assert path is not None and len(path) == bfs_distance(grid, (2, 4), (4, 4)) == 6
    assert path[-1] == (4, 4) and (2, 4) not in path
    here = (2, 4)
    for step in path:
        assert abs(step[0] - here[0]) + abs(step[1] - here[1]) == 1
        assert grid.is_walkable(step)
        here = step


def test_path_edge_cases():
    grid = grid_from(MAZE)
    assert grid.path((0, 0), (0, 0)) == []
    assert grid.path((0, 0), (1, 0)) == [(1, 0)]
    assert grid.path((0, 0), (1, 1)) is None  # a wall
    assert grid.path((1, 1), (0, 0)) is None
    assert grid.path((0, 0), (50, 50)) is None


def test_unreachable_pocket():
    grid = grid_from(
        """
..#..
..#..
..#..
"""
    )
    assert grid.path((0, 0), (4, 2)) is None
    assert grid.component((0, 0)) == {(x, y) for x in (0, 1) for y in range(3)}


def test_path_to_any_picks_the_nearest_goal():
    grid = grid_from(MAZE)
    path = grid.path_to_any((0, 0), [(6, 4), (2, 0)])
    assert path == [(1, 0), (2, 0)]


def test_astar_matches_bfs_on_random_mazes():
    rng = random.Random(3)
    for _ in range(20):
        w, h = rng.randint(5, 25), rng.randint(5, 25)
        walkable = [rng.random() > 0.3 for _ in range(w * h)]
        grid = Grid(w, h, walkable)
        tiles = [(x, y) for y in range(h) for x in range(w) if walkable[y * w + x]]
        for _ in range(20):
            a, b = rng.choice(tiles), rng.choice(tiles)
            path = grid.path(a, b)
            expected = bfs_distance(grid, a, b)
            assert (None if path is None else len(path)) == expected


def test_cached_paths_are_copies():
    grid = grid_from(MAZE)
    first = grid.path((0, 0), (6, 0))
    first.clear()
    assert len(grid.path((0, 0), (6, 0))) == 6


@pytest.fixture(scope="module")
def smallville():
    return load_world(SMALLVILLE)


def test_every_arena_is_reachable_from_every_spawn_point(smallville):
    assert len(smallville.spawns) >= 25
    for name, spawn in smallville.spawns.items():
        reach = smallville.grid.component(spawn)
        for arena in smallville.arenas:
            assert any(t in reach for t in arena.tiles), f"{arena.address} from {name}"
            for obj in arena.objects.values():
                assert any(t in reach for t in obj.tiles), f"{obj.address} from {name}"


def test_world_paths_to_places(smallville):
    start = smallville.spawn_of("Isabella Rodriguez")
    path = smallville.path_to(start, "Hobbs Cafe: cafe: coffee machine")
    assert path and path[-1] in smallville.tiles_of("Hobbs Cafe: cafe: coffee machine")
    assert smallville.place_at(path[-1]).object == "coffee machine"
    # A taken destination tile is avoided when the place has others.
    taken = smallville.tiles_of("Hobbs Cafe: cafe: cafe tables")[:1]
    other = smallville.path_to(start, "Hobbs Cafe: cafe: cafe tables", avoid=taken)
    assert other and other[-1] not in taken
    assert smallville.path_to(path[-1], "Hobbs Cafe: cafe: coffee machine") == []
