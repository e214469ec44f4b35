"""The battlefield grid (R-8): floor, wall and difficult ground, with sight and paths through tcod.

Arrays are numpy, indexed [y, x] like tcod consoles; positions everywhere else are (x, y) tuples.
The terrain never changes during a battle, so the base movement costs, fields of view and lines of
sight are computed once and cached on the battlefield: a battle asks the same questions thousands
of times (the simulator's target is 50 battles per second).
"""

from __future__ import annotations

import enum
import operator
from collections.abc import Container, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import tcod.constants
import tcod.los
import tcod.map
import tcod.path
from tcod.cffi import ffi as _ffi
from tcod.cffi import lib as _lib

from horizon_tui.rules.turns import step_cost

Pos = tuple[int, int]
# A cell as the questions about one cell take it from outside the battle core (a file, a form, a
# GM's command): any pair, checked by the question itself. Compiled, a `Pos` must be a tuple of
# Python ints exactly (mypyc checks), which the battle core's own cells are.
AnyCell = Sequence[Any]


def as_cell(value: Sequence[Any]) -> Pos:
    """A cell from any pair (a list read from JSON or TOML, a tuple): (x, y)."""
    if len(value) != 2:
        raise ValueError(f"a cell is two whole numbers (x, y), not {list(value)!r}")
    try:
        return (operator.index(value[0]), operator.index(value[1]))  # numpy's whole numbers too, as ints
    except TypeError:
        raise ValueError(f"a cell is two whole numbers (x, y), not {list(value)!r}") from None


class Terrain(enum.IntEnum):
    FLOOR = 0
    WALL = 1  # blocks movement and sight
    DIFFICULT = 2  # costs `Ruleset.turns.difficult_cost` to enter


TERRAIN_BY_NAME: dict[str, Terrain] = {
    "floor": Terrain.FLOOR,
    "wall": Terrain.WALL,
    "difficult": Terrain.DIFFICULT,
}
DEFAULT_LEGEND: dict[str, str] = {"#": "wall", ".": "floor", ",": "difficult", "~": "difficult", '"': "difficult"}
GLYPHS: dict[Terrain, str] = {Terrain.FLOOR: ".", Terrain.WALL: "#", Terrain.DIFFICULT: ","}

UNREACHABLE = int(np.iinfo(np.int32).max)  # distance_map's value for cells no path reaches
_NEIGHBOURS = ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1))
_CACHE_LIMIT = 8192  # FOV / line-of-sight entries kept before a cache starts over
_TOWARD_LIMIT = 256  # goals whose cost-to-reach maps `downhill` keeps (10 KB each on 50x50)
_FAR = np.iinfo(np.int32).max  # unreached, as tcod.path.maxarray fills
# R-10 fear's searches (`Battlefield.nearest_edge`, `edge_distances_at`) queue cells in a ring of
# buckets as long as the dearest step + 2, at most this + 2; a dearer step (a GM's rules or a
# species pricing a cell above it), or a diagonal one costing less than 1 (which R-8's validation
# refuses), has them read the whole map's distance map instead.
_RING_LIMIT = 64
# libtcod's A* estimates the rest of a path by Euclidean distance, which overestimates when a
# diagonal step costs 1 (R-8's default `diagonal_cost`) and would make paths sub-optimal. Scaling
# every cost by a bit more than sqrt(2) makes the estimate a lower bound again (and consistent),
# so the path is cheapest.
_ASTAR_SCALE = np.float32(1.4143)


def _astar_steps(astar: tcod.path.AStar, start: Pos, goal: Pos, first: int | None, cell: Any) -> list[Pos]:
    """`astar.get_path`, reading only the first `first` steps: it walks the whole path from
    Python (~0.4 µs a step), and an AI crossing a 50x50 map needs 5 of its 40-odd steps. `cell`
    is an `int[2]` libtcod writes each step into (kept with the A*: made once)."""
    path_c = astar._path_c  # noqa: SLF001 - tcod's handle, as get_path uses it
    if not _lib.TCOD_path_compute(path_c, start[0], start[1], goal[0], goal[1]):
        return []
    size = _lib.TCOD_path_size(path_c)
    if first is not None and first < size:
        size = first
    x, y = cell, cell + 1
    get = _lib.TCOD_path_get
    steps = []
    for index in range(size):
        get(path_c, index, x, y)
        steps.append((cell[0], cell[1]))
    return steps


def _narray(array: np.ndarray) -> Any:
    """The struct libtcod's distance searches read an int32 [y, x] array through (what
    `tcod.path.dijkstra2d` and `hillclimb2d` build on every call); it points into `array`, which
    must outlive it."""
    return _ffi.new("struct NArray*", {
        "type": tcod.path._INT_TYPES[np.int32], "ndim": 2,  # noqa: SLF001 - as tcod.path._export_dict
        "data": _ffi.cast("void*", array.ctypes.data),
        "shape": array.shape, "strides": array.strides,
    })


def _neighbour_steps(wide: int, diagonal_cost: int) -> tuple[list[int], list[int]]:
    """The 8 neighbours of a cell in the fear searches' framed flat layout (rows `wide` cells
    long, `Battlefield._search_tables`) as index offsets, and what each step's cost is multiplied
    by: `diagonal_cost` for the diagonal ones (R-8). Up and left last: the searches queue cells
    in buckets taken last in, first out, so of equally promising steps those come first."""
    d = diagonal_cost  # _NEIGHBOURS backwards: (1, 1), (0, 1), (-1, 1), (1, 0), (-1, 0), (1, -1), ...
    return [wide + 1, wide, wide - 1, 1, -1, 1 - wide, -wide, -1 - wide], [d, 1, d, 1, 1, d, 1, d]


def _search_buffers(shape: tuple[int, int]) -> tuple:
    """A distance and a cost array of one shape (int32, C order) with the structs libtcod's
    `dijkstra2d_basic` reads them through (what `tcod.path.dijkstra2d` builds on every call)."""
    dist, cost = np.empty(shape, dtype=np.int32), np.empty(shape, dtype=np.int32)
    steps = np.empty((shape[0] * shape[1], 2), dtype=np.intc)  # the longest walk down: every cell once
    return dist, cost, _narray(dist), _narray(cost), steps, _ffi.from_buffer("int*", steps)


def _cost_key(difficult_cost: int, terrain_costs: Mapping[str, int] | None, diagonal_cost: int = 1) -> tuple:
    key = (difficult_cost,) if diagonal_cost == 1 else (difficult_cost, ("diagonal", diagonal_cost))
    if not terrain_costs:
        return key
    return (*key, *sorted(terrain_costs.items()))


class Battlefield:
    """A grid of at most `Ruleset.turns.max_size` cells a side (the encounter loader checks).

    A plain class, compiled with mypyc with the rest of the battle core (the Makefile's COMPILED
    list); it pickles as its terrain alone (`__reduce__`): its caches hold tcod handles that don't
    pickle, and whoever unpickles it builds its own."""

    terrain: np.ndarray
    _w: int  # the terrain's shape as Python ints: the compiled questions compare and index with them natively
    _h: int
    _open: bytes  # `walkable` row after row, 1 where a unit may stand: one cell read without numpy
    _fov_map: tuple | None  # `_shadowcast`'s libtcod map, made on the first field of view
    _line: Any  # `_clear_line`'s buffer for a line's cells, made on the first line
    _transparent: np.ndarray
    _edge: np.ndarray
    _base_costs: dict[tuple, np.ndarray]
    _rows: dict[tuple, list[list[int]]]
    _fov: dict[tuple[Pos, int], np.ndarray]
    _fov_bytes: dict[tuple[Pos, int], bytes]
    _fov_flat: dict[tuple[Pos, int], bytes]
    _los: dict[tuple[Pos, Pos], bool]
    _dijkstras: dict[tuple, tuple[np.ndarray, tcod.path.Dijkstra]]
    _windows: dict[tuple[int, int], tuple]
    _astars: dict[tuple, tuple]
    _toward: dict[tuple, tuple]
    _flat_costs: dict[tuple, tuple[list[int], int]]
    _border_steps: list[int] | None
    _edge_flat: list[bool]

    def __init__(self, terrain: npt.ArrayLike) -> None:
        self.terrain = np.ascontiguousarray(terrain, dtype=np.int8)
        self._base_costs, self._rows, self._fov, self._fov_bytes, self._fov_flat = {}, {}, {}, {}, {}
        self._los, self._dijkstras, self._windows, self._astars, self._toward = {}, {}, {}, {}, {}
        self._flat_costs, self._border_steps, self._edge_flat = {}, None, []
        if self.terrain.ndim != 2 or 0 in self.terrain.shape:
            raise ValueError("a battlefield is a non-empty 2-D grid")
        self.terrain.flags.writeable = False  # static: the caches below depend on it
        self._h, self._w = int(self.terrain.shape[0]), int(self.terrain.shape[1])
        self._transparent = self.terrain != Terrain.WALL
        self._open = self._transparent.tobytes()
        self._fov_map = None
        self._line = None
        self._transparent.flags.writeable = False
        ring = np.ones(self.terrain.shape, dtype=bool)  # the outer ring (`is_edge`) ...
        ring[1:-1, 1:-1] = False
        self._edge = ring & self._transparent  # ... where one can stand
        self._edge.flags.writeable = False

    def __reduce__(self) -> tuple[type[Battlefield], tuple[np.ndarray]]:
        return (Battlefield, (self.terrain,))

    def __repr__(self) -> str:
        return f"Battlefield({self.width}x{self.height})"

    # --- building and showing ------------------------------------------------------------------

    @classmethod
    def from_rows(cls, rows: Iterable[str], legend: Mapping[str, str] | None = None) -> Battlefield:
        """A map drawn as text, one string per row; `legend` maps a glyph to a terrain name
        (added to the default legend). Raises ValueError on ragged rows or unknown glyphs."""
        glyphs = {**DEFAULT_LEGEND, **(legend or {})}
        rows = list(rows)
        if not rows or not rows[0]:
            raise ValueError("a drawn map needs at least one row of cells")
        width = len(rows[0])
        terrain = np.zeros((len(rows), width), dtype=np.int8)
        for y, row in enumerate(rows):
            if len(row) != width:
                raise ValueError(f"row {y} has {len(row)} cells, the first row has {width}")
            for x, glyph in enumerate(row):
                if glyph not in glyphs:
                    raise ValueError(f"unknown glyph {glyph!r} at [{x}, {y}]")
                terrain[y, x] = TERRAIN_BY_NAME[glyphs[glyph]]
        return cls(terrain)

    def to_rows(self) -> list[str]:
        """The map as text with the default glyphs ('#' wall, '.' floor, ',' difficult)."""
        table = np.array([GLYPHS[t] for t in Terrain])
        return ["".join(row) for row in table[self.terrain]]

    @property
    def width(self) -> int:
        return self._w

    @property
    def height(self) -> int:
        return self._h

    @property
    def transparent(self) -> np.ndarray:
        """bool [y, x]: sight passes (everything but walls). Read-only."""
        return self._transparent

    @property
    def walkable(self) -> np.ndarray:
        """bool [y, x]: a unit may stand here (everything but walls). Read-only."""
        return self._transparent

    # --- cells ---------------------------------------------------------------------------------

    def in_bounds(self, pos: AnyCell) -> bool:
        x, y = pos
        return bool(0 <= x < self._w and 0 <= y < self._h)

    def terrain_at(self, pos: AnyCell) -> Terrain:
        return Terrain(int(self.terrain[pos[1], pos[0]]))

    def is_walkable(self, pos: AnyCell) -> bool:
        x, y = pos
        return bool(0 <= x < self._w and 0 <= y < self._h and self._open[y * self._w + x])

    def is_edge(self, pos: AnyCell) -> bool:
        """On the outer ring: a unit here may leave the battlefield, which is fleeing (R-8)."""
        x, y = pos
        return bool(x == 0 or y == 0 or x == self._w - 1 or y == self._h - 1)

    def steps_to_border(self, pos: Pos) -> int:
        """Steps (Chebyshev) from a cell on the map to the nearest border cell: no walk to an edge
        cell costs less (R-8: every step costs at least 1 and moves at most one row and column),
        a floor under `edge_distances_at`. Read from the searches' table (`_search_tables`)."""
        x, y = pos
        wide = self._w + 2
        return self._search_tables()[0][(y + 1) * wide + x + 1]

    def neighbours(self, pos: AnyCell) -> list[Pos]:
        """The up to 8 cells around `pos` that are on the map (walls included)."""
        x, y = as_cell(pos)
        w, h = self._w, self._h
        return [(x + dx, y + dy) for dx, dy in _NEIGHBOURS if 0 <= x + dx < w and 0 <= y + dy < h]

    def cells(self, terrain: Terrain) -> list[Pos]:
        """Every cell of one terrain, in row order."""
        ys, xs = np.nonzero(self.terrain == terrain)
        return list(zip(xs.tolist(), ys.tolist()))

    # --- movement (R-8) ------------------------------------------------------------------------

    def base_cost(self, difficult_cost: int, terrain_costs: Mapping[str, int] | None = None) -> np.ndarray:
        """int32 [y, x] cost to enter each cell, 0 = impassable (walls); cached, read-only.

        `terrain_costs` is a species' override by terrain name (R-3), e.g. {"difficult": 1}."""
        key = _cost_key(difficult_cost, terrain_costs)
        cost = self._base_costs.get(key)
        if cost is None:
            by_terrain = {Terrain.FLOOR: 1, Terrain.WALL: 0, Terrain.DIFFICULT: difficult_cost}
            for name, value in (terrain_costs or {}).items():
                terrain = TERRAIN_BY_NAME.get(name)
                if terrain is not None and terrain is not Terrain.WALL:
                    by_terrain[terrain] = value
            table = np.array([0 if t is Terrain.WALL else max(1, by_terrain[t]) for t in Terrain], dtype=np.int32)
            cost = table[self.terrain]
            cost.flags.writeable = False
            self._base_costs[key] = cost
        return cost

    def _cost_rows(self, difficult_cost: int, terrain_costs: Mapping[str, int] | None) -> list[list[int]]:
        """`base_cost` as Python lists of rows: a path's steps are priced one cell at a time, and
        indexing a numpy array from Python costs several times a list's."""
        key = _cost_key(difficult_cost, terrain_costs)
        rows = self._rows.get(key)
        if rows is None:
            rows = self._rows[key] = self.base_cost(difficult_cost, terrain_costs).tolist()
        return rows

    def step_cost(self, pos: Pos, difficult_cost: int, terrain_costs: Mapping[str, int] | None = None) -> int:
        """Movement points to ENTER `pos` by a straight step (R-8; a diagonal one costs this ×
        `diagonal_cost`, see `step_costs`); 0 = can't."""
        return int(self.base_cost(difficult_cost, terrain_costs)[pos[1], pos[0]])

    def cost_array(
        self, blocked: Iterable[Pos], difficult_cost: int, terrain_costs: Mapping[str, int] | None = None
    ) -> np.ndarray:
        """A fresh int32 [y, x] cost array with `blocked` cells (units) made impassable (0)."""
        cost = self.base_cost(difficult_cost, terrain_costs).copy()
        w, h = self._w, self._h
        for x, y in blocked:
            if 0 <= x < w and 0 <= y < h:
                cost[y, x] = 0
        return cost

    def path(
        self,
        start: Pos,
        goal: Pos,
        blocked: Iterable[Pos] = (),
        *,
        difficult_cost: int,
        terrain_costs: Mapping[str, int] | None = None,
        diagonal_cost: int = 1,
        max_cost: int | None = None,
        first: int | None = None,
    ) -> list[Pos]:
        """The cheapest path from `start` to `goal`: the cells stepped into, `goal` included,
        `start` not. [] when there is none, when `goal` is a wall or off the map, or when it
        costs more than `max_cost`. `goal` may be in `blocked` (a unit's cell): to walk up to a
        unit, drop the last step. `start` may be in `blocked` (the mover's own cell). With
        `first`, only that many steps from the start (a turn's walk along a long path).

        The search reuses one cost array per cost table, blocking cells for the call only: one
        battlefield must not be searched from two threads at once (a battle runs on one)."""
        if start == goal or not self.is_walkable(goal) or not self.in_bounds(start):
            return []
        if max_cost is not None and max(abs(goal[0] - start[0]), abs(goal[1] - start[1])) > max_cost:
            return []  # every step costs at least 1
        if diagonal_cost != 1:
            steps = self._exact_path(start, goal, blocked, difficult_cost, terrain_costs, diagonal_cost, first)
        else:
            astar, cells, pristine, size, cell = self._astar(difficult_cost, terrain_costs)
            w, h = self._w, self._h
            gx, gy = goal
            touched = False
            for x, y in blocked:  # a unit's cell is still a destination: the goal is never blocked
                if 0 <= x < w and 0 <= y < h and (x != gx or y != gy):
                    cells[y * w + x] = 0.0
                    touched = True
            try:
                steps = _astar_steps(astar, start, goal, first, cell)
            finally:
                if touched:
                    _ffi.memmove(cells, pristine, size)  # every cell back from the untouched copy, at once
        if max_cost is not None and steps and self.path_cost(
                steps, difficult_cost, terrain_costs, start=start, diagonal_cost=diagonal_cost) > max_cost:
            return []
        return steps

    def _exact_path(
        self, start: Pos, goal: Pos, blocked: Iterable[Pos], difficult_cost: int,
        terrain_costs: Mapping[str, int] | None, diagonal_cost: int, first: int | None,
    ) -> list[Pos]:
        """`path` when diagonal steps cost more than straight ones. libtcod's A* stops when it
        first reaches the goal, which is the cheapest way only while every way into a cell costs
        the same; tcod's Pathfinder finishes its search and keeps each cell's way in."""
        cost = self.cost_array([xy for xy in blocked if xy != goal], difficult_cost, terrain_costs)
        finder = tcod.path.Pathfinder(tcod.path.SimpleGraph(cost=cost, cardinal=1, diagonal=diagonal_cost))
        finder.add_root((start[1], start[0]))
        walk = finder.path_to((goal[1], goal[0]))[1:]  # [y, x] rows, the start first
        if first is not None:
            walk = walk[:first]
        return [(x, y) for y, x in walk.tolist()]

    def downhill(
        self, start: Pos, goal: Pos, *, difficult_cost: int, terrain_costs: Mapping[str, int] | None = None,
        diagonal_cost: int = 1, first: int | None = None,
    ) -> list[Pos]:
        """A cheapest path from `start` to `goal` over the terrain alone (no units), as `path`
        gives it: goal included, start not, [] when there is none; with `first`, only that many
        steps. Read off a map of every cell's cost to reach `goal`, kept per goal: for the same
        far goals asked again and again (an AI crossing the field), a walk down the map instead
        of an A* search each time. A prefix of it with no blocked cell is a cheapest path to its
        end with those cells blocked too: blocking only removes ways.

        Only when a diagonal step costs what a straight one does: the kept map prices each step
        by the cell it leaves, toward the goal, so with dearer diagonals it is `path` instead."""
        if diagonal_cost != 1:
            return self.path(start, goal, difficult_cost=difficult_cost, terrain_costs=terrain_costs,
                             diagonal_cost=diagonal_cost, first=first)
        if start == goal or not self.is_walkable(goal) or not self.in_bounds(start):
            return []
        toward, c_toward = self._toward_map(goal, difficult_cost, terrain_costs)
        if toward[start[1], start[0]] == _FAR:
            return []
        # tcod.path.hillclimb2d(toward, (y, x), True, True), straight into libtcod: the wrapper
        # wraps the array and climbs twice (once to size its answer) on every call.
        _, _, _, _, steps, c_steps = self._whole_map_buffers()
        length = _lib.hillclimb2d_basic(c_toward, start[1], start[0], True, True, c_steps)
        if length < 0:  # pragma: no cover - libtcod's own error
            raise RuntimeError("libtcod's hillclimb2d failed")
        end = length if first is None else min(length, first + 1)
        return [(x, y) for y, x in steps[1:end].tolist()]

    def _whole_map_buffers(self) -> tuple:
        """`_search_buffers` of the map's own shape, kept."""
        shape = (self._h, self._w)
        buffers = self._windows.get(shape)
        if buffers is None:
            buffers = self._windows[shape] = _search_buffers(shape)
        return buffers

    def _toward_map(self, goal: Pos, difficult_cost: int, terrain_costs: Mapping[str, int] | None) -> tuple[Any, Any]:
        """T[y, x] = the cost of the cheapest walk from (x, y) to `goal` plus the cost of entering
        (x, y) itself, with the struct libtcod reads it through. libtcod's Dijkstra adds the cost of
        the cell entered, walking out from the goal; seeding the goal with its own cost makes that
        sum exactly T, and the cheapest next step from any cell is then its lowest neighbour on T
        (what hillclimb2d follows)."""
        key = (goal, _cost_key(difficult_cost, terrain_costs))
        found = self._toward.get(key)
        if found is None:
            if len(self._toward) >= _TOWARD_LIMIT:
                self._toward.clear()
            cost = self.base_cost(difficult_cost, terrain_costs)
            toward = np.full(self.terrain.shape, _FAR, dtype=np.int32)
            toward[goal[1], goal[0]] = cost[goal[1], goal[0]]
            tcod.path.dijkstra2d(toward, cost, 1, 1, out=toward)
            toward.flags.writeable = False
            found = self._toward[key] = (toward, _narray(toward))
        return found

    def _astar(self, difficult_cost: int, terrain_costs: Mapping[str, int] | None) -> tuple[Any, Any, Any, int, Any]:
        """A reusable A* over a scaled copy of the base costs, with a pointer to the costs it
        reads (float32, row after row), a pointer to an untouched copy and their size in bytes:
        `path` blocks cells through the pointer for one search (a write in C, where a numpy
        index costs a microsecond) and copies them all back in one `memmove`; and the `int[2]`
        its steps are read through."""
        key = _cost_key(difficult_cost, terrain_costs)
        found = self._astars.get(key)
        if found is None:
            work = np.ascontiguousarray(self.base_cost(difficult_cost, terrain_costs).astype(np.float32) * _ASTAR_SCALE)
            pristine = work.copy()
            astar = tcod.path.AStar(work.T, diagonal=1.0)  # indexed [x, y]: a view of `work`, which it keeps alive
            found = self._astars[key] = (astar, _ffi.cast("float *", work.ctypes.data),
                                         _ffi.cast("float *", pristine.ctypes.data), work.nbytes, _ffi.new("int[2]"),
                                         work, pristine)
        return found[0], found[1], found[2], found[3], found[4]

    def distance_map(
        self,
        goals: Iterable[Pos],
        blocked: Iterable[Pos] = (),
        *,
        difficult_cost: int,
        terrain_costs: Mapping[str, int] | None = None,
        diagonal_cost: int = 1,
        within: int | None = None,
    ) -> np.ndarray:
        """int32 [y, x]: the movement cost of the cheapest walk from the nearest goal to each
        cell (entering the cell counts, as in `path`; from a unit's own cell this is how far it
        can go). Cells no walk reaches (walls, blocked, cut off) hold `UNREACHABLE`. Goals may
        be blocked cells (units): walks start from them all the same.

        `within`: only costs up to this many movement points are wanted (a unit's move this
        turn); cells costing more read `UNREACHABLE`. Every step costs at least 1, so such walks
        never leave the square of that radius around the goal: the search is cut to it, which
        changes no cost inside the limit."""
        goals = [(x, y) for x, y in goals if self.in_bounds((x, y))]
        if within is not None and len(goals) == 1:
            return self._within(goals[0], blocked, difficult_cost, terrain_costs, diagonal_cost, max(0, within))
        if len(goals) == 1:
            single = self._single_source(goals[0], blocked, difficult_cost, terrain_costs, diagonal_cost)
            if single is not None:
                return single
        seeds = np.zeros(self.terrain.shape, dtype=bool)
        for x, y in goals:
            seeds[y, x] = True
        return self._from_seeds(seeds, blocked, difficult_cost, terrain_costs, diagonal_cost)

    def edge_distance_map(
        self, blocked: Iterable[Pos] = (), *, difficult_cost: int, terrain_costs: Mapping[str, int] | None = None,
        diagonal_cost: int = 1,
    ) -> np.ndarray:
        """`distance_map` from every walkable edge cell (`is_edge`) at once: how far each cell is
        from the nearest edge one can step off from. The same numbers as `distance_map` given
        those cells as goals, without a Python loop over them."""
        return self._from_seeds(self._edge, blocked, difficult_cost, terrain_costs, diagonal_cost)

    def _from_seeds(
        self, seeds: np.ndarray, blocked: Iterable[Pos], difficult_cost: int,
        terrain_costs: Mapping[str, int] | None, diagonal_cost: int,
    ) -> np.ndarray:
        """The cheapest walk's cost from the nearest of the `seeds` cells (bool [y, x]) to every
        cell; `UNREACHABLE` where none reaches."""
        cost = self.cost_array(blocked, difficult_cost, terrain_costs)
        distance = np.full(self.terrain.shape, UNREACHABLE, dtype=np.int32)
        distance[seeds] = 0
        tcod.path.dijkstra2d(distance, cost, 1, diagonal_cost, out=distance)
        return distance

    def edge_distances_at(
        self, cells: Sequence[Pos], blocked: Iterable[Pos] = (), *, difficult_cost: int,
        terrain_costs: Mapping[str, int] | None = None, diagonal_cost: int = 1,
    ) -> list[int]:
        """`edge_distance_map(blocked)` read at `cells` (R-10 fear asks it of a move's two ends;
        `UNREACHABLE` for a cell off the map), each found by one search *from* the cell.

        A walk from an edge cell to the cell paying for the cells it enters costs what the same
        walk backwards costs paying for the cells it leaves; so the search walks out of the cell
        (`_search_to_edge` with no `taken`), each step priced by the cell it leaves (×
        `diagonal_cost` if diagonal), through cells one can enter (not walls, not `blocked`), and
        the first edge cell it settles, blocked or not (every walkable edge cell is a seed of
        `edge_distance_map`), is the answer. On open ground it walks straight out instead of
        searching the map. Steps dearer than `_RING_LIMIT` (or diagonal ones under 1) read the
        whole map instead."""
        w, h = self._w, self._h
        blocked = list(blocked)
        cost, dearest = self._blocked_costs(blocked, difficult_cost, terrain_costs, None)
        if not 1 <= dearest * diagonal_cost <= _RING_LIMIT:
            far = self.edge_distance_map(blocked, difficult_cost=difficult_cost, terrain_costs=terrain_costs,
                                         diagonal_cost=diagonal_cost)
            return [int(far[y, x]) if 0 <= x < w and 0 <= y < h else UNREACHABLE for x, y in cells]
        edge = self._search_tables()[1]
        found: list[int] = []
        for x, y in cells:
            at = (y + 1) * (w + 2) + x + 1
            if not (0 <= x < w and 0 <= y < h) or (cost[at] == 0 and not edge[at]):
                found.append(UNREACHABLE)  # off the map, a wall or a blocked cell: no walk enters it
            else:
                found.append(self._search_to_edge(at, cost, dearest, diagonal_cost, None)[0])
        return found

    def nearest_edge(
        self, source: Pos, blocked: Iterable[Pos], taken: Container[Pos], *, difficult_cost: int,
        terrain_costs: Mapping[str, int] | None = None, diagonal_cost: int = 1,
    ) -> Pos | None:
        """Of the walkable edge cells (`edge`) not in `taken` that a walk from `source` reaches
        (`blocked` impassable), the cheapest to reach, then the lowest (y, x): where a unit
        fleeing the battlefield heads (R-10 fear, R-8). None when there is none.

        The same cell as reading `distance_map([source], blocked)` over every edge cell, searched
        in less (`_search_to_edge`). Steps dearer than `_RING_LIMIT` (or diagonal ones under 1)
        read the whole map's distance map instead."""
        w, h = self._w, self._h
        sx, sy = source
        if not (0 <= sx < w and 0 <= sy < h):
            return None
        blocked = list(blocked)
        cost, dearest = self._blocked_costs(blocked, difficult_cost, terrain_costs, source)
        if not 1 <= dearest * diagonal_cost <= _RING_LIMIT:
            whole = self.distance_map([source], blocked, difficult_cost=difficult_cost, terrain_costs=terrain_costs,
                                      diagonal_cost=diagonal_cost)
            ends = [(int(whole[y, x]), y, x) for y, x in np.argwhere(self._edge & (whole < UNREACHABLE)).tolist()
                    if (x, y) not in taken]
            return (min(ends)[2], min(ends)[1]) if ends else None
        goal = self._search_to_edge((sy + 1) * (w + 2) + sx + 1, cost, dearest, diagonal_cost, taken)[1]
        return None if goal < 0 else (goal % (w + 2) - 1, goal // (w + 2) - 1)

    def _search_to_edge(
        self, start: int, cost: list[int], dearest: int, diagonal_cost: int, taken: Container[Pos] | None,
    ) -> tuple[int, int]:
        """R-10 fear's searches, from the cell `start` (its index in `_search_tables`; `cost` and
        `dearest` are `_blocked_costs`'): (cost, index) of the cheapest edge cell, then the lowest
        in (y, x); (`UNREACHABLE`, -1) when none is reached.

        With `taken` (`nearest_edge`), a walk from the cell: each step priced by the cell it
        enters, never a blocked one, to an edge cell not in `taken`. Without (`edge_distances_at`),
        a walk *out* of it: each step priced by the cell it leaves, to any edge cell, blocked too,
        and the first found answers (the cost is all that is asked).

        An A* guided by each cell's steps to the border (no walk to an edge costs less), cells
        queued in a ring of buckets by cost + steps (a step raises that by at most its own cost
        + 1, as the steps fall by at most 1, so every cell waiting is within the ring), each
        taken last in, first out. It settles cells until none left could reach an edge as cheaply
        as the cheapest found (the estimate is exact on an edge cell); once one is found, a cell
        whose every walk within that cost ends lower in (y, x) is not walked on from. The steps up
        and to the left come last into a bucket, first out (`_neighbour_steps`): on open ground
        the first edge cell found is the one that wins."""
        border, edge = self._search_tables()
        wide = self._w + 2
        leaving = taken is None
        offsets, factors = _neighbour_steps(wide, diagonal_cost)
        dist: list[int] = [UNREACHABLE] * len(cost)
        dist[start] = 0
        ring = dearest * diagonal_cost + 2
        buckets: list[list[int]] = [[] for _ in range(ring)]
        here, waiting = border[start], 1
        buckets[here % ring].append(start)
        best, goal, goal_x, goal_y = UNREACHABLE, -1, 0, 0
        while waiting and here <= best:
            bucket = buckets[here % ring]
            while bucket:
                at = bucket.pop()
                waiting -= 1
                g = here - border[at]
                if g != dist[at]:
                    continue  # a costlier entry for a cell settled cheaper
                x, y = at % wide, at // wide
                if goal >= 0:
                    # A walk on from here costing at most `best` ends within `best - g` steps: on
                    # no edge cell lower in (y, x) than that square's corner. Past the goal found?
                    corner_y, corner_x = y - (best - g), x - (best - g)
                    if goal_y < corner_y or (goal_y == corner_y and goal_x <= corner_x):
                        continue
                if edge[at] and (taken is None or (x - 1, y - 1) not in taken):
                    if taken is None:
                        return g, at
                    if goal < 0 or at < goal:  # every edge cell settled from here on costs `best`
                        best, goal, goal_x, goal_y = g, at, x, y
                    continue  # a walk on from an edge cell reaches the next no cheaper
                leave = cost[at]
                for k in range(8):
                    to = at + offsets[k]
                    step = cost[to]
                    if step != 0 or (leaving and edge[to]):  # walking out, a blocked edge cell ends it
                        reach = g + (leave if leaving else step) * factors[k]
                        if reach < dist[to]:
                            dist[to] = reach
                            buckets[(reach + border[to]) % ring].append(to)
                            waiting += 1
            here += 1
        return best, goal

    def _search_tables(self) -> tuple[list[int], list[bool]]:
        """The A* searches' tables over the map framed by one cell of nowhere (flat: index
        (y + 1) * (width + 2) + x + 1, so a cell's 8 neighbours are fixed offsets and need no
        bounds check): each cell's steps to the border (`steps_to_border`), the estimate
        `_search_to_edge` is guided by, and `_edge` (the frame is no edge)."""
        if self._border_steps is None:
            h, w = self._h, self._w
            ys, xs = np.indices((h, w))
            steps = np.zeros((h + 2, w + 2), dtype=np.int32)
            steps[1:-1, 1:-1] = np.minimum(np.minimum(xs, ys), np.minimum(w - 1 - xs, h - 1 - ys))
            edge = np.zeros((h + 2, w + 2), dtype=bool)
            edge[1:-1, 1:-1] = self._edge
            self._border_steps, self._edge_flat = steps.ravel().tolist(), edge.ravel().tolist()
        return self._border_steps, self._edge_flat

    def _blocked_costs(
        self, blocked: Iterable[Pos], difficult_cost: int, terrain_costs: Mapping[str, int] | None,
        source: Pos | None,
    ) -> tuple[list[int], int]:
        """`cost_array` as a fresh flat list laid out as `_search_tables` (the frame costs 0):
        `base_cost`, 0 = impassable, with the `blocked` cells (other than `source`) made 0; and
        the dearest cell's cost."""
        key = _cost_key(difficult_cost, terrain_costs)
        found = self._flat_costs.get(key)
        if found is None:
            framed = np.zeros((self._h + 2, self._w + 2), dtype=np.int32)
            framed[1:-1, 1:-1] = self.base_cost(difficult_cost, terrain_costs)
            found = self._flat_costs[key] = (framed.ravel().tolist(), int(framed.max()))
        flat, dearest = found
        cost = list(flat)
        w, h = self._w, self._h
        for x, y in blocked:
            if 0 <= x < w and 0 <= y < h and (x, y) != source:
                cost[(y + 1) * (w + 2) + x + 1] = 0
        return cost, dearest

    def _within(
        self, source: Pos, blocked: Iterable[Pos], difficult_cost: int, terrain_costs: Mapping[str, int] | None,
        diagonal_cost: int, limit: int,
    ) -> np.ndarray:
        x0, y0, window = self.moves_within(source, blocked, limit, difficult_cost=difficult_cost,
                                           terrain_costs=terrain_costs, diagonal_cost=diagonal_cost)
        distance = np.full(self.terrain.shape, UNREACHABLE, dtype=np.int32)
        distance[y0:y0 + window.shape[0], x0:x0 + window.shape[1]] = window
        return distance

    def moves_within(
        self, source: Pos, blocked: Iterable[Pos], limit: int, *, difficult_cost: int,
        terrain_costs: Mapping[str, int] | None = None, diagonal_cost: int = 1,
    ) -> tuple[int, int, np.ndarray]:
        """`distance_map([source], blocked, within=limit)` cut to the square of radius `limit`
        around `source`, the only cells such a walk can reach (every step costs at least 1):
        (x0, y0, window) with window[y - y0, x - x0] the cost to (x, y), `UNREACHABLE` beyond the
        limit. A unit's move this turn asks this (the AI weighing where to step): the search runs
        in buffers kept per window size and handed to libtcod as they are, without tcod's
        per-call wrapping of the arrays (most of the time of a search this small). As with
        `path`, one battlefield must not be searched from two threads at once."""
        x, y = source
        h, w = self._h, self._w
        limit = max(0, limit)
        x0, x1, y0, y1 = max(0, x - limit), min(w, x + limit + 1), max(0, y - limit), min(h, y + limit + 1)
        dist = self._search_window(x0, x1, y0, y1, blocked, source, difficult_cost, terrain_costs, diagonal_cost)
        window = dist.copy()
        window[window > limit] = UNREACHABLE
        return x0, y0, window

    def _search_window(
        self, x0: int, x1: int, y0: int, y1: int, blocked: Iterable[Pos], source: Pos, difficult_cost: int,
        terrain_costs: Mapping[str, int] | None, diagonal_cost: int,
    ) -> np.ndarray:
        """libtcod's Dijkstra over the window [y0:y1, x0:x1] of the base costs, `blocked` cells
        impassable, walks starting from `source` (never blocked): the window's distance buffer,
        kept per window size and handed to libtcod as it is (copy what must outlive the next
        search)."""
        shape = (y1 - y0, x1 - x0)
        buffers = self._windows.get(shape)
        if buffers is None:
            buffers = self._windows[shape] = _search_buffers(shape)
        dist, cost, c_dist, c_cost, _, _ = buffers
        cost[...] = self.base_cost(difficult_cost, terrain_costs)[y0:y1, x0:x1]
        for bx, by in blocked:
            if x0 <= bx < x1 and y0 <= by < y1 and (bx, by) != source:
                cost[by - y0, bx - x0] = 0
        dist.fill(UNREACHABLE)
        dist[source[1] - y0, source[0] - x0] = 0
        if _lib.dijkstra2d_basic(c_dist, c_cost, 1, diagonal_cost) < 0:  # pragma: no cover - libtcod's own error
            raise RuntimeError("libtcod's dijkstra2d failed")
        return dist

    def walk_back(self, x0: int, y0: int, window: np.ndarray, cell: Pos) -> list[Pos]:
        """The walk `moves_within`'s window gives to `cell`: from the cell, each lowest neighbour
        (`tcod.path.hillclimb2d`, diagonals too) down to the window's 0, as the cells stepped into
        from the first step to `cell`. Through the window's kept buffers, as `moves_within`."""
        buffers = self._windows.get(window.shape)
        if buffers is None:
            buffers = self._windows[window.shape] = _search_buffers(window.shape)
        dist, _, c_dist, _, steps, c_steps = buffers
        dist[...] = window
        length = _lib.hillclimb2d_basic(c_dist, cell[1] - y0, cell[0] - x0, True, True, c_steps)
        if length < 0:  # pragma: no cover - libtcod's own error
            raise RuntimeError("libtcod's hillclimb2d failed")
        back = steps[:length - 1].tolist()  # from the cell, without the window's 0 (where it stands)
        return [(x + x0, y + y0) for y, x in reversed(back)]

    def _single_source(
        self, source: Pos, blocked: Iterable[Pos], difficult_cost: int, terrain_costs: Mapping[str, int] | None,
        diagonal_cost: int = 1,
    ) -> np.ndarray | None:
        """`distance_map` from one cell with libtcod's classic Dijkstra, a few times faster than
        `dijkstra2d` on these small maps. Reads its distance table through cffi; None if this
        tcod doesn't expose it (the caller falls back)."""
        key = _cost_key(difficult_cost, terrain_costs, diagonal_cost)
        found = self._dijkstras.get(key)
        if found is None:
            work = self.base_cost(difficult_cost, terrain_costs).copy()
            dijkstra = tcod.path.Dijkstra(work.T, diagonal=float(diagonal_cost))  # indexed [x, y]
            found = self._dijkstras[key] = (work, dijkstra)
        work, dijkstra = found
        w, h = self._w, self._h
        changed: list[tuple[int, int, int]] = []
        try:
            for x, y in blocked:
                if 0 <= x < w and 0 <= y < h and (x, y) != source:
                    changed.append((y, x, int(work[y, x])))
                    work[y, x] = 0
            dijkstra.set_goal(source[0], source[1])
            try:
                table = dijkstra._path_c.distances  # unsigned int[w * h], hundredths, row y then x
                raw = np.frombuffer(_ffi.buffer(table, w * h * 4), dtype=np.uint32).reshape(h, w)
            except (AttributeError, TypeError):  # pragma: no cover - a tcod without the field
                return None
            distance = np.where(raw == 0xFFFFFFFF, UNREACHABLE, raw // 100).astype(np.int32)
        finally:
            for y, x, value in reversed(changed):
                work[y, x] = value
        return distance

    def step_costs(
        self, path: Iterable[Pos], difficult_cost: int, terrain_costs: Mapping[str, int] | None = None, *,
        start: Pos | None = None, diagonal_cost: int = 1,
    ) -> list[int]:
        """What each step of `path` costs (R-8): entering its cell, × `diagonal_cost` for a
        diagonal step (which needs the `start` the path leaves from)."""
        rows = self._cost_rows(difficult_cost, terrain_costs)
        if diagonal_cost == 1:
            return [rows[y][x] for x, y in path]
        cost = self.base_cost(difficult_cost, terrain_costs)
        if start is None:
            raise ValueError("pricing diagonal steps needs the cell the path starts from")
        costs, (px, py) = [], start
        for x, y in path:
            costs.append(step_cost(int(cost[y, x]), x != px and y != py, diagonal_cost))
            px, py = x, y
        return costs

    def path_cost(
        self, path: Iterable[Pos], difficult_cost: int, terrain_costs: Mapping[str, int] | None = None, *,
        start: Pos | None = None, diagonal_cost: int = 1,
    ) -> int:
        """The movement points a path costs (`step_costs` summed)."""
        return sum(self.step_costs(path, difficult_cost, terrain_costs, start=start, diagonal_cost=diagonal_cost))

    def affordable(
        self, path: Iterable[Pos], budget: int, difficult_cost: int,
        terrain_costs: Mapping[str, int] | None = None, *, start: Pos | None = None, diagonal_cost: int = 1,
    ) -> list[Pos]:
        """The longest start of `path` whose cost fits in `budget` movement points (R-8)."""
        path = list(path)
        spent = 0
        steps: list[Pos] = []
        for xy, step in zip(path, self.step_costs(path, difficult_cost, terrain_costs, start=start,
                                                  diagonal_cost=diagonal_cost)):
            spent += step
            if spent > budget:
                break
            steps.append(xy)
        return steps

    # --- sight (R-11: ranged attacks need line of sight) --------------------------------------

    def fov(self, origin: Pos, radius: int | None = 0) -> np.ndarray:
        """bool [y, x]: cells seen from `origin` (symmetric shadowcasting, walls lit). A `radius`
        (a species' sight radius, R-3) cuts sight at that many cells, counted like moves and
        ranges (Chebyshev distance); 0 or None = unlimited. Cached; the array is read-only."""
        radius = radius or 0
        key = (origin, radius)
        seen = self._fov.get(key)
        if seen is None:
            if len(self._fov) >= _CACHE_LIMIT:
                self._fov.clear()
            if radius:
                full = self.fov(origin)
                x, y = origin
                y0, y1, x0, x1 = max(0, y - radius), y + radius + 1, max(0, x - radius), x + radius + 1
                seen = np.zeros_like(full)
                seen[y0:y1, x0:x1] = full[y0:y1, x0:x1]
            else:
                seen = self._shadowcast(origin)
            seen.flags.writeable = False
            self._fov[key] = seen
        return seen

    def _shadowcast(self, origin: Pos) -> np.ndarray:
        """What `tcod.map.compute_fov(transparent, origin, 0, True, FOV_SYMMETRIC_SHADOWCAST)`
        gives (a new bool [y, x] array), computed on one libtcod map kept by the battlefield with
        its transparency set once: the wrapper builds and fills a map on every call, a quarter
        of a field of view's cost. libtcod clears the map's last view as it computes."""
        if self._fov_map is None:
            cells = np.zeros(self.terrain.shape, dtype=[("transparent", bool), ("walkable", bool), ("fov", bool)])
            cells["transparent"] = self._transparent
            data = _ffi.from_buffer("struct TCOD_MapCell*", cells)
            self._fov_map = (cells, data, _ffi.new("struct TCOD_Map*", (self._w, self._h, self._w * self._h, data)))
        cells, _, handle = self._fov_map
        _lib.TCOD_map_compute_fov(handle, origin[0], origin[1], 0, True, tcod.constants.FOV_SYMMETRIC_SHADOWCAST)
        return np.ascontiguousarray(cells["fov"])

    def fov_bytes(self, origin: Pos, radius: int | None = 0) -> bytes:
        """`fov` as bytes, row after row: cell (x, y) is seen when `[y * width + x]` is 1. Reading
        one cell is a few times cheaper than indexing the array (sight is asked after every move)."""
        key = (origin, radius or 0)
        seen = self._fov_bytes.get(key)
        if seen is None:
            if len(self._fov_bytes) >= _CACHE_LIMIT:
                self._fov_bytes.clear()
            seen = self._fov_bytes[key] = self.fov(origin, radius).tobytes()
        return seen

    def fov_flat(self, origin: Pos, radius: int | None = 0) -> bytes:
        """`fov_bytes` and one byte more, never seen: cell (x, y) is `[y * width + x]`, and
        `[width * height]` stands for "not on the map" (`battle.ActiveCells`). Cached."""
        key = (origin, radius or 0)
        seen = self._fov_flat.get(key)
        if seen is None:
            if len(self._fov_flat) >= _CACHE_LIMIT:
                self._fov_flat.clear()
            seen = self._fov_flat[key] = self.fov_bytes(origin, radius) + b"\x00"
        return seen

    def line_of_sight(self, a: Pos, b: Pos) -> bool:
        """Every cell strictly between `a` and `b` on a Bresenham line lets sight through.
        Symmetric: the line is always drawn from the lesser end. Cached."""
        key = (a, b) if a <= b else (b, a)
        clear = self._los.get(key)
        if clear is None:
            if len(self._los) >= _CACHE_LIMIT:
                self._los.clear()
            clear = self._clear_line(key[0], key[1])
            self._los[key] = clear
        return clear

    def _clear_line(self, a: Pos, b: Pos) -> bool:
        """`tcod.los.bresenham(a, b)`'s cells strictly between its ends are all transparent: the
        line drawn by libtcod into a buffer the battlefield keeps, read cell by cell (the wrapper
        makes a numpy array of it, which is then indexed: most of a line's cost)."""
        if self._line is None:
            self._line = _ffi.new("int[]", 2 * (max(self._w, self._h) + 1))
        line = self._line
        length = _lib.bresenham(a[0], a[1], b[0], b[1], max(self._w, self._h) + 1, line)
        w, open_cells = self._w, self._open  # walls are the only cells sight doesn't pass
        for i in range(1, length - 1):
            if not open_cells[line[2 * i + 1] * w + line[2 * i]]:
                return False
        return True
