"""The tile grid: which tiles can be walked on, and the shortest walk between tiles (A*).

Tiles are ``(x, y)`` tuples outside this module; inside, a tile is the flat index
``y * width + x`` so the search works on plain integers and precomputed neighbour lists.
Moves are the four orthogonal steps of cost 1, as in the original implementation.
"""

from __future__ import annotations

import heapq
from collections import OrderedDict, deque
from collections.abc import Iterable, Sequence

Tile = tuple[int, int]

_CACHE_SIZE = 4096


class Grid:
    """A rectangle of tiles, each walkable or blocked, with a memoising A* path-finder."""

    def __init__(self, width: int, height: int, walkable: Sequence[bool]) -> None:
        if width < 1 or height < 1 or len(walkable) != width * height:
            raise ValueError("walkable must hold width * height flags")
        self.width = width
        self.height = height
        self._walkable = bytes(1 if w else 0 for w in walkable)
        n = width * height
        self._xs = [i % width for i in range(n)]
        self._ys = [i // width for i in range(n)]
        self._neighbours: list[tuple[int, ...]] = [() for _ in range(n)]
        for i in range(n):
            if not self._walkable[i]:
                continue
            x, y = self._xs[i], self._ys[i]
            steps = []
            if y > 0:
                steps.append(i - width)
            if x > 0:
                steps.append(i - 1)
            if x < width - 1:
                steps.append(i + 1)
            if y < height - 1:
                steps.append(i + width)
            self._neighbours[i] = tuple(j for j in steps if self._walkable[j])
        # Packing (f, h, tile) into one int makes heap comparisons cheap; each field gets
        # enough bits for the largest value it can hold on this grid.
        self._tile_bits = max(n.bit_length(), 1)
        self._h_bits = (width + height).bit_length()
        self._cache: OrderedDict[tuple[int, frozenset[int]], tuple[int, ...] | None] = OrderedDict()

    # -- tiles -------------------------------------------------------------------------------

    def __contains__(self, tile: object) -> bool:
        if not (isinstance(tile, tuple) and len(tile) == 2):
            return False
        x, y = tile
        return isinstance(x, int) and isinstance(y, int) and self.in_bounds((x, y))

    def in_bounds(self, tile: Tile) -> bool:
        x, y = tile
        return 0 <= x < self.width and 0 <= y < self.height

    def index(self, tile: Tile) -> int:
        return tile[1] * self.width + tile[0]

    def tile(self, index: int) -> Tile:
        return (self._xs[index], self._ys[index])

    def is_walkable(self, tile: Tile) -> bool:
        return self.in_bounds(tile) and bool(self._walkable[self.index(tile)])

    def neighbours(self, tile: Tile) -> list[Tile]:
        """The walkable tiles one step away."""
        if not self.is_walkable(tile):
            return []
        return [self.tile(j) for j in self._neighbours[self.index(tile)]]

    @property
    def walkable_count(self) -> int:
        return sum(self._walkable)

    def component(self, start: Tile) -> set[Tile]:
        """Every tile reachable from ``start`` (empty if ``start`` is blocked)."""
        return {self.tile(i) for i in self._flood(self.index(start))}

    def _flood(self, start: int) -> set[int]:
        if not self._walkable[start]:
            return set()
        seen = {start}
        queue = deque([start])
        neighbours = self._neighbours
        while queue:
            for j in neighbours[queue.popleft()]:
                if j not in seen:
                    seen.add(j)
                    queue.append(j)
        return seen

    # -- paths -------------------------------------------------------------------------------

    def path(self, start: Tile, goal: Tile) -> list[Tile] | None:
        """Shortest walk from ``start`` to ``goal``: the tiles after ``start`` up to and
        including ``goal``; ``[]`` when they are the same tile; ``None`` when unreachable."""
        return self.path_to_any(start, (goal,))

    def path_to_any(self, start: Tile, goals: Iterable[Tile]) -> list[Tile] | None:
        """Shortest walk from ``start`` to the nearest of ``goals`` (same conventions as
        :meth:`path`)."""
        if not self.is_walkable(start):
            return None
        targets = frozenset(self.index(g) for g in goals if self.is_walkable(g))
        if not targets:
            return None
        begin = self.index(start)
        if begin in targets:
            return []
        key = (begin, targets)
        cache = self._cache
        if key in cache:
            cache.move_to_end(key)
            found = cache[key]
        else:
            found = self._search(begin, targets)
            cache[key] = found
            if len(cache) > _CACHE_SIZE:
                cache.popitem(last=False)
        if found is None:
            return None
        xs, ys = self._xs, self._ys
        return [(xs[i], ys[i]) for i in found]

    def _search(self, start: int, goals: frozenset[int]) -> tuple[int, ...] | None:
        xs, ys = self._xs, self._ys
        # Manhattan distance to the goals' bounding box never overestimates the distance to
        # the nearest goal, so A* stays exact for one goal and for many.
        gx0 = min(xs[g] for g in goals)
        gx1 = max(xs[g] for g in goals)
        gy0 = min(ys[g] for g in goals)
        gy1 = max(ys[g] for g in goals)
        tile_bits, h_bits = self._tile_bits, self._h_bits
        tile_mask = (1 << tile_bits) - 1
        neighbours = self._neighbours
        n = len(xs)
        cost = [n] * n
        came = [-1] * n
        closed = bytearray(n)
        cost[start] = 0
        heap_push, heap_pop = heapq.heappush, heapq.heappop
        x, y = xs[start], ys[start]
        dx = gx0 - x if x < gx0 else (x - gx1 if x > gx1 else 0)
        dy = gy0 - y if y < gy0 else (y - gy1 if y > gy1 else 0)
        rest = dx + dy
        heap = [((rest << h_bits | rest) << tile_bits) | start]
        while heap:
            current = heap_pop(heap) & tile_mask
            if closed[current]:
                continue
            if current in goals:
                walk = []
                while current != start:
                    walk.append(current)
                    current = came[current]
                walk.reverse()
                return tuple(walk)
            closed[current] = 1
            step_cost = cost[current] + 1
            for j in neighbours[current]:
                if step_cost < cost[j]:
                    cost[j] = step_cost
                    came[j] = current
                    x, y = xs[j], ys[j]
                    dx = gx0 - x if x < gx0 else (x - gx1 if x > gx1 else 0)
                    dy = gy0 - y if y < gy0 else (y - gy1 if y > gy1 else 0)
                    rest = dx + dy
                    # Ties on f go to the tile nearer the goal, which keeps the search narrow
                    # in open rooms and streets.
                    heap_push(heap, (((step_cost + rest) << h_bits | rest) << tile_bits) | j)
        return None

    def clear_cache(self) -> None:
        self._cache.clear()
