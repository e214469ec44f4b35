"""Generated battlefields: rooms and corridors, caves, and open ground, from a seed.

Every generator draws only from `random.Random(seed)` / `np.random.default_rng(seed)`, so the
same name, size and seed give the same map byte for byte. Every walkable cell is connected to
every other (pockets are joined by a carved tunnel or filled), and each map has openings on its
outer ring so a combatant can flee off the edge (R-8).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterable

import numpy as np

from horizon_tui.engine.battlefield import UNREACHABLE, Battlefield, Pos, Terrain

MIN_SIZE = 12

FLOOR, WALL, DIFFICULT = int(Terrain.FLOOR), int(Terrain.WALL), int(Terrain.DIFFICULT)


def generate(generator: str, width: int, height: int, seed: int) -> Battlefield:
    """A battlefield from a generator's name (`GENERATORS`), its size and a seed.
    Raises ValueError for an unknown generator or a side under `MIN_SIZE`."""
    make = GENERATORS.get(generator)
    if make is None:
        raise ValueError(f"unknown map generator {generator!r}; known: {', '.join(GENERATORS)}")
    if width < MIN_SIZE or height < MIN_SIZE:
        raise ValueError(f"a generated map is at least {MIN_SIZE}×{MIN_SIZE} cells, not {width}×{height}")
    grid = make(width, height, seed)
    return Battlefield(grid)


# --- rooms and corridors -------------------------------------------------------------------------


def _rooms(width: int, height: int, seed: int) -> np.ndarray:
    """Binary space partition: rooms in the leaves, each pair of siblings joined by a corridor."""
    rng = random.Random(seed)
    grid = np.full((height, width), WALL, dtype=np.int8)
    leaf = max(6, min(width, height) // 6)  # smallest partition side
    rooms: list[tuple[int, int, int, int]] = []  # x0, y0, x1, y1 (inclusive) of each room's floor

    def split(x0: int, y0: int, x1: int, y1: int) -> tuple[int, int]:
        """Partition the area (inclusive bounds), carve rooms, return a floor cell inside."""
        w, h = x1 - x0 + 1, y1 - y0 + 1
        can_v = w >= 2 * leaf
        can_h = h >= 2 * leaf
        if can_v or can_h:
            vertical = can_v if not (can_v and can_h) else (w > h if abs(w - h) > 2 else rng.random() < 0.5)
            if vertical:
                cut = rng.randint(x0 + leaf, x1 - leaf + 1)
                a = split(x0, y0, cut - 1, y1)
                b = split(cut, y0, x1, y1)
            else:
                cut = rng.randint(y0 + leaf, y1 - leaf + 1)
                a = split(x0, y0, x1, cut - 1)
                b = split(x0, cut, x1, y1)
            _carve_corridor(grid, a, b, rng)
            return a if rng.random() < 0.5 else b
        # a leaf: a room with a 1-cell margin inside the partition
        rw = rng.randint(max(3, (w - 2) // 2), max(3, w - 2))
        rh = rng.randint(max(3, (h - 2) // 2), max(3, h - 2))
        rx = rng.randint(x0 + 1, max(x0 + 1, x1 - rw))
        ry = rng.randint(y0 + 1, max(y0 + 1, y1 - rh))
        rx1, ry1 = min(rx + rw - 1, x1 - 1), min(ry + rh - 1, y1 - 1)
        grid[ry:ry1 + 1, rx:rx1 + 1] = FLOOR
        rooms.append((rx, ry, rx1, ry1))
        return rng.randint(rx, rx1), rng.randint(ry, ry1)

    split(0, 0, width - 1, height - 1)
    # Rubble: a patch of difficult ground in some rooms; a pillar in some big ones.
    for rx, ry, rx1, ry1 in rooms:
        if rng.random() < 0.45:
            cx, cy = rng.randint(rx, rx1), rng.randint(ry, ry1)
            _blob(grid, cx, cy, rng.randint(3, 3 + (rx1 - rx) * (ry1 - ry) // 4), DIFFICULT, rng,
                  only_on=FLOOR, box=(rx, ry, rx1, ry1))
        if (rx1 - rx) >= 5 and (ry1 - ry) >= 5 and rng.random() < 0.5:
            grid[rng.randint(ry + 2, ry1 - 2), rng.randint(rx + 2, rx1 - 2)] = WALL
    _open_exits(grid, rng)
    _connect(grid, rng)
    return grid


def _carve_corridor(grid: np.ndarray, a: Pos, b: Pos, rng: random.Random) -> None:
    """An L-shaped corridor between two cells; walls become floor, other ground stays."""
    (ax, ay), (bx, by) = a, b
    if rng.random() < 0.5:
        _carve_line(grid, ax, ay, bx, ay)
        _carve_line(grid, bx, ay, bx, by)
    else:
        _carve_line(grid, ax, ay, ax, by)
        _carve_line(grid, ax, by, bx, by)


def _carve_line(grid: np.ndarray, x0: int, y0: int, x1: int, y1: int) -> None:
    xs = slice(min(x0, x1), max(x0, x1) + 1)
    ys = slice(min(y0, y1), max(y0, y1) + 1)
    part = grid[ys, xs]
    part[part == WALL] = FLOOR


# --- caves ---------------------------------------------------------------------------------------


def _caves(width: int, height: int, seed: int) -> np.ndarray:
    """Cellular automaton: noise smoothed into caverns; pools of shallow water as difficult ground."""
    # numpy takes no negative seed; a negative one keeps a map of its own (not its positive twin's)
    rng = np.random.default_rng(seed if seed >= 0 else [-seed, 1])
    wall_share = 0.45
    for _ in range(8):  # a degenerate cave (almost all rock) is redrawn, still from the same rng
        grid = np.where(rng.random((height, width)) < wall_share, WALL, FLOOR).astype(np.int8)
        _border(grid)
        for step in range(5):
            walls = _wall_neighbours(grid)
            rock = (walls >= 5) | (walls <= 1) if step < 3 else walls >= 5
            grid = np.where(rock, WALL, FLOOR).astype(np.int8)
            _border(grid)
        if (grid != WALL).mean() >= 0.35:
            break
        wall_share -= 0.04
    # Shallow pools: a second, sparser automaton over the floor.
    water = rng.random((height, width)) < 0.5
    for _ in range(3):
        padded = np.pad(water, 1).astype(np.int8)
        near = _neighbour_sum(padded, height, width)
        water = near >= 5
    grid[(grid == FLOOR) & water] = DIFFICULT
    py_rng = random.Random(int(rng.integers(2**31)))
    _open_exits(grid, py_rng)
    _connect(grid, py_rng)
    return grid


def _wall_neighbours(grid: np.ndarray) -> np.ndarray:
    """How many of each cell's 8 neighbours are walls (off the map counts as wall)."""
    h, w = grid.shape
    padded = np.pad(grid == WALL, 1, constant_values=True).astype(np.int8)
    return _neighbour_sum(padded, h, w)


def _neighbour_sum(padded: np.ndarray, h: int, w: int) -> np.ndarray:
    """Each cell's 8 neighbours added up, from the grid padded by one cell all round."""
    total = np.zeros((h, w), dtype=padded.dtype)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dx or dy:
                total = total + padded[1 + dy:1 + dy + h, 1 + dx:1 + dx + w]
    return total


def _border(grid: np.ndarray) -> None:
    grid[0, :] = grid[-1, :] = WALL
    grid[:, 0] = grid[:, -1] = WALL


# --- open ground ---------------------------------------------------------------------------------


def _open(width: int, height: int, seed: int) -> np.ndarray:
    """A field: scattered boulders and broken walls, patches of brush or mud (difficult)."""
    rng = random.Random(seed)
    grid = np.full((height, width), FLOOR, dtype=np.int8)
    area = width * height
    inner = (2, 2, width - 3, height - 3)  # keep the outer ring and corners clear for spawns
    for _ in range(max(2, area // 45)):  # boulders and thickets
        _blob(grid, rng.randint(inner[0], inner[2]), rng.randint(inner[1], inner[3]),
              rng.randint(1, 5), WALL, rng, box=inner)
    for _ in range(max(1, area // 150)):  # ruined wall segments
        x, y = rng.randint(inner[0], inner[2]), rng.randint(inner[1], inner[3])
        length = rng.randint(3, max(3, min(width, height) // 4))
        dx, dy = (1, 0) if rng.random() < 0.5 else (0, 1)
        for i in range(length):
            cx, cy = x + dx * i, y + dy * i
            if inner[0] <= cx <= inner[2] and inner[1] <= cy <= inner[3] and rng.random() < 0.85:
                grid[cy, cx] = WALL
    for _ in range(max(2, area // 70)):  # brush, mud
        _blob(grid, rng.randint(0, width - 1), rng.randint(0, height - 1),
              rng.randint(4, 14), DIFFICULT, rng, only_on=FLOOR)
    _connect(grid, rng)
    return grid


def _blob(
    grid: np.ndarray, x: int, y: int, size: int, value: int, rng: random.Random,
    only_on: int | None = None, box: tuple[int, int, int, int] | None = None,
) -> None:
    """A random walk of `size` steps painting `value`, kept inside `box` (inclusive)."""
    h, w = grid.shape
    x0, y0, x1, y1 = box or (0, 0, w - 1, h - 1)
    for _ in range(size):
        if x0 <= x <= x1 and y0 <= y <= y1 and (only_on is None or grid[y, x] == only_on):
            grid[y, x] = value
        x = min(x1, max(x0, x + rng.choice((-1, 0, 1))))
        y = min(y1, max(y0, y + rng.choice((-1, 0, 1))))


# --- connectivity and exits ----------------------------------------------------------------------


def _components(walkable: np.ndarray) -> list[list[Pos]]:
    """Walkable cells grouped by 4-connectivity (so also connected for 8-way movement)."""
    h, w = walkable.shape
    seen = np.zeros_like(walkable, dtype=bool)
    groups: list[list[Pos]] = []
    for y0, x0 in np.argwhere(walkable).tolist():
        if seen[y0, x0]:
            continue
        seen[y0, x0] = True
        group = [(x0, y0)]
        queue = deque(group)
        while queue:
            x, y = queue.popleft()
            for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if 0 <= nx < w and 0 <= ny < h and walkable[ny, nx] and not seen[ny, nx]:
                    seen[ny, nx] = True
                    group.append((nx, ny))
                    queue.append((nx, ny))
        groups.append(group)
    return groups


def _connect(grid: np.ndarray, rng: random.Random, min_pocket: int = 6) -> None:
    """Join every region to the largest: tiny pockets are filled with rock, bigger ones get a
    tunnel carved to the nearest cell of the main region."""
    while True:
        groups = _components(grid != WALL)
        if len(groups) <= 1:
            return
        groups.sort(key=len, reverse=True)
        main = np.array(groups[0])
        for group in groups[1:]:
            if len(group) < min_pocket:
                for x, y in group:
                    grid[y, x] = WALL
                continue
            cells = np.array(group)
            # nearest pair by Chebyshev distance (ties: first found, deterministic)
            d = np.abs(cells[:, None, :] - main[None, :, :]).max(axis=2)
            i, j = np.unravel_index(int(d.argmin()), d.shape)
            _carve_corridor(grid, tuple(cells[i].tolist()), tuple(main[j].tolist()), rng)
        # tunnels may have merged or split nothing else; count again until one region is left


def _open_exits(grid: np.ndarray, rng: random.Random) -> None:
    """A gap on each side of the outer ring, tunnelled inward to the first open cell, so a
    combatant can leave the battlefield (R-8: fleeing)."""
    for side in ("n", "s", "w", "e"):
        # North and south tunnel down a column; west and east along a row: the same walk on
        # the transposed grid (a view: writes land in `grid`).
        view = grid if side in "ns" else grid.T
        length, across = view.shape
        col = rng.randint(2, across - 3)
        row, step = (0, 1) if side in "nw" else (length - 1, -1)
        while 0 <= row < length and view[row, col] == WALL:
            view[row, col] = FLOOR
            row += step
            if 0 <= row < length and view[row, col] != WALL:
                break


GENERATORS: dict[str, Callable[[int, int, int], np.ndarray]] = {
    "rooms": _rooms,
    "caves": _caves,
    "open": _open,
}


# --- placements ----------------------------------------------------------------------------------

CORNERS = ("nw", "ne", "sw", "se")
_PENALTY = 3
REGIONS = ("nw", "n", "ne", "w", "center", "e", "sw", "s", "se")


def region_anchor(battlefield: Battlefield, region: str) -> Pos:
    """The cell a named region is centred on: a corner, a side's middle or the centre."""
    w, h = battlefield.width, battlefield.height
    x = {"w": 1, "e": w - 2}.get(region[-1:], w // 2) if region != "center" else w // 2
    y = {"n": 1, "s": h - 2}.get(region[:1], h // 2) if region != "center" else h // 2
    return x, y


def opposite(region: str) -> str:
    flip = {"n": "s", "s": "n", "e": "w", "w": "e"}
    if region == "center":
        return "center"
    return "".join(flip[c] for c in region)


def nearest_corner(battlefield: Battlefield, cells: Iterable[Pos]) -> str:
    """The corner closest to the middle of `cells`."""
    cells = list(cells)
    mx = sum(x for x, _ in cells) / len(cells)
    my = sum(y for _, y in cells) / len(cells)
    return ("n" if my < battlefield.height / 2 else "s") + ("w" if mx < battlefield.width / 2 else "e")


def spawn_cells(
    battlefield: Battlefield,
    count: int,
    rng: random.Random,
    region: str | Pos | Iterable[Pos],
    exclude: Iterable[Pos] = (),
) -> list[Pos]:
    """Up to `count` free floor cells clustered around a region: a name from `REGIONS`, a cell,
    or several cells (e.g. the start cells already given). Cells are taken nearest first by
    walking distance (so a group never lands across a wall), ties broken by `rng`; difficult
    ground and edge cells are taken only when plain floor is a few steps further. Fewer than `count` only when the
    map is full."""
    taken = set(exclude)
    if isinstance(region, str):
        if region not in REGIONS:
            raise ValueError(f"unknown region {region!r}; known: {', '.join(REGIONS)}")
        anchors = [region_anchor(battlefield, region)]
    elif region and isinstance(region, tuple) and isinstance(region[0], int):
        anchors = [region]  # type: ignore[list-item]
    else:
        anchors = list(region)  # type: ignore[arg-type]
    free = battlefield.walkable.copy()
    for x, y in taken:
        if battlefield.in_bounds((x, y)):
            free[y, x] = False
    if not free.any() or count <= 0:
        return []
    # Start from the free cells nearest the anchors (as the crow flies) and spread by walking.
    ys, xs = np.nonzero(free)
    crow = np.full(len(xs), np.iinfo(np.int32).max)
    for ax, ay in anchors:
        crow = np.minimum(crow, np.maximum(np.abs(xs - ax), np.abs(ys - ay)))
    nearest = crow == crow.min()
    seeds = list(zip(xs[nearest].tolist(), ys[nearest].tolist()))
    distance = battlefield.distance_map(seeds, difficult_cost=1)
    terrain = battlefield.terrain
    candidates = [
        # difficult ground and the outer ring (one step from fleeing) count as a few steps
        # further: plain floor nearby is preferred
        (int(distance[y, x]) + (0 if terrain[y, x] == FLOOR else _PENALTY)
         + (_PENALTY if battlefield.is_edge((x, y)) else 0), rng.random(), (x, y))
        for x, y in zip(xs.tolist(), ys.tolist())
        if distance[y, x] < UNREACHABLE
    ]
    candidates.sort()
    return [cell for *_, cell in candidates[:count]]
