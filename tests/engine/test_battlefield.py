"""The battlefield grid (RULES.md R-8): terrain, movement costs, paths, sight (R-11)."""

from __future__ import annotations


import numpy as np
import pytest
import tcod.constants
import tcod.los
import tcod.map

from horizon_tui.engine.battlefield import UNREACHABLE, Battlefield, Terrain

DIFFICULT = 2  # Ruleset.turns.difficult_cost in the shipped rules


def field(*rows: str) -> Battlefield:
    return Battlefield.from_rows(list(rows))


def test_from_rows_reads_the_default_legend() -> None:
    bf = field("#.,", '~".')
    assert (bf.width, bf.height) == (3, 2)
    assert bf.terrain.tolist() == [[1, 0, 2], [2, 2, 0]]
    assert bf.terrain_at((0, 0)) is Terrain.WALL
    assert bf.terrain_at((2, 0)) is Terrain.DIFFICULT
    assert bf.to_rows() == ["#.,", ",,."]


def test_from_rows_takes_an_extra_legend() -> None:
    bf = Battlefield.from_rows(["T.", ".m"], {"T": "wall", "m": "difficult"})
    assert bf.terrain.tolist() == [[1, 0], [0, 2]]


@pytest.mark.parametrize("rows, message", [(["..", "..."], "row 1"), ([".X"], "unknown glyph 'X'")])
def test_from_rows_refuses_bad_rows(rows: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Battlefield.from_rows(rows)


def test_terrain_is_read_only() -> None:
    bf = field("...")
    with pytest.raises(ValueError):
        bf.terrain[0, 0] = 1


def test_cells_bounds_edges_and_neighbours() -> None:
    bf = field("....", ".#..", "....")
    assert bf.in_bounds((3, 2)) and not bf.in_bounds((4, 0)) and not bf.in_bounds((-1, 0))
    assert not bf.is_walkable((1, 1)) and bf.is_walkable((2, 1)) and not bf.is_walkable((9, 9))
    assert bf.is_edge((0, 1)) and bf.is_edge((3, 2)) and not bf.is_edge((1, 1))
    assert sorted(bf.neighbours((0, 0))) == [(0, 1), (1, 0), (1, 1)]
    assert len(bf.neighbours((1, 1))) == 8
    assert bf.walkable.tolist() == bf.transparent.tolist()


def test_step_cost_floor_difficult_wall_and_species_override() -> None:
    bf = field(".,#")
    assert bf.step_cost((0, 0), DIFFICULT) == 1
    assert bf.step_cost((1, 0), DIFFICULT) == 2
    assert bf.step_cost((2, 0), DIFFICULT) == 0  # impassable
    assert bf.step_cost((1, 0), DIFFICULT, {"difficult": 1}) == 1  # e.g. a wolf (R-3 feature)
    assert bf.step_cost((1, 0), 3) == 3  # the number comes from the rules


def test_cost_array_blocks_units_without_touching_the_base() -> None:
    bf = field("...", "...")
    cost = bf.cost_array([(1, 1), (7, 7)], DIFFICULT)
    assert cost.tolist() == [[1, 1, 1], [1, 0, 1]]
    assert bf.cost_array([], DIFFICULT).tolist() == [[1, 1, 1], [1, 1, 1]]


# --- paths -------------------------------------------------------------------------------------


def steps_are_adjacent(start, path) -> bool:
    cells = [start, *path]
    return all(max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1 for a, b in zip(cells, cells[1:]))


def test_path_excludes_start_includes_goal_and_diagonals_cost_one() -> None:
    bf = field(*["....."] * 5)
    path = bf.path((0, 0), (4, 4), difficult_cost=DIFFICULT)
    assert path == [(1, 1), (2, 2), (3, 3), (4, 4)]
    assert bf.path_cost(path, DIFFICULT) == 4
    assert bf.path((2, 2), (2, 2), difficult_cost=DIFFICULT) == []


def test_path_goes_round_walls() -> None:
    bf = field(
        ".....",
        "####.",
        ".....",
    )
    path = bf.path((0, 0), (0, 2), difficult_cost=DIFFICULT)
    assert path[-1] == (0, 2) and steps_are_adjacent((0, 0), path)
    assert all(bf.is_walkable(c) for c in path)
    assert (4, 1) in path
    assert bf.path_cost(path, DIFFICULT) == 8


def test_no_path_into_a_wall_off_the_map_or_a_closed_room() -> None:
    bf = field(
        "..#..",
        "..#..",
        "..#..",
    )
    assert bf.path((0, 0), (4, 0), difficult_cost=DIFFICULT) == []
    assert bf.path((0, 0), (2, 1), difficult_cost=DIFFICULT) == []
    assert bf.path((0, 0), (9, 0), difficult_cost=DIFFICULT) == []


def test_path_takes_a_cheaper_detour_round_difficult_ground() -> None:
    bf = field(
        ".......",
        ".,,,,,.",
        ".,,,,,.",
        ".,,,,,.",
        ".......",
    )
    path = bf.path((0, 2), (6, 2), difficult_cost=DIFFICULT)
    # straight through: 5 difficult cells × 2 + 1 = 11; round the edge: 8
    assert bf.path_cost(path, DIFFICULT) == 8
    assert sum(bf.terrain_at(c) is Terrain.DIFFICULT for c in path) < 5


def test_path_crosses_difficult_ground_when_that_is_cheaper() -> None:
    bf = field(
        "...,...",
        "...,...",
        "...,...",
        "...,...",
        "...,...",
    )
    path = bf.path((0, 2), (6, 2), difficult_cost=DIFFICULT)
    assert bf.path_cost(path, DIFFICULT) == 7  # six steps, one of them into difficult ground
    assert sum(bf.terrain_at(c) is Terrain.DIFFICULT for c in path) == 1


def test_species_terrain_cost_changes_the_path() -> None:
    bf = field(
        ".......",
        ".,,,,,.",
        ".,,,,,.",
        ".,,,,,.",
        ".......",
    )
    path = bf.path((0, 2), (6, 2), difficult_cost=DIFFICULT, terrain_costs={"difficult": 1})
    assert len(path) == 6 and bf.path_cost(path, DIFFICULT, {"difficult": 1}) == 6


def test_path_steps_round_blocked_cells_but_may_end_on_one() -> None:
    bf = field(
        ".....",
        ".....",
        ".....",
    )
    blocked = [(1, 0), (1, 1), (3, 2), (4, 1)]
    path = bf.path((0, 1), (4, 1), blocked, difficult_cost=DIFFICULT)
    assert path[-1] == (4, 1)  # the goal is a unit's cell: the caller drops the last step
    assert not set(path[:-1]) & set(blocked)
    assert steps_are_adjacent((0, 1), path)
    # the start may be a blocked cell too (the mover's own)
    own = bf.path((0, 1), (2, 1), [(0, 1)], difficult_cost=DIFFICULT)
    assert own[-1] == (2, 1) and bf.path_cost(own, DIFFICULT) == 2


def test_path_is_empty_when_units_close_the_way() -> None:
    bf = field(
        "#.#",
        "#.#",
        "#.#",
    )
    assert bf.path((1, 0), (1, 2), [(1, 1)], difficult_cost=DIFFICULT) == []
    assert bf.path((1, 0), (1, 2), difficult_cost=DIFFICULT) == [(1, 1), (1, 2)]


def test_path_blocking_leaves_no_trace() -> None:
    bf = field(*["....."] * 3)
    before = bf.path((0, 1), (4, 1), difficult_cost=DIFFICULT)
    bf.path((0, 1), (4, 1), [(2, 0), (2, 1), (2, 2)], difficult_cost=DIFFICULT)
    assert bf.path((0, 1), (4, 1), difficult_cost=DIFFICULT) == before


def test_path_max_cost() -> None:
    bf = field(".,,,.")
    assert len(bf.path((0, 0), (4, 0), difficult_cost=DIFFICULT, max_cost=7)) == 4
    assert bf.path((0, 0), (4, 0), difficult_cost=DIFFICULT, max_cost=6) == []
    assert bf.path((0, 0), (4, 0), difficult_cost=DIFFICULT, max_cost=3) == []


def test_affordable_cuts_a_path_to_a_movement_budget() -> None:
    bf = field("..,,..")
    path = bf.path((0, 0), (5, 0), difficult_cost=DIFFICULT)
    assert bf.affordable(path, 3, DIFFICULT) == [(1, 0), (2, 0)]
    assert bf.affordable(path, 2, DIFFICULT) == [(1, 0)]
    assert bf.affordable(path, 99, DIFFICULT) == path


def random_fields(seed: int, count: int = 150):
    """`count` random maps (a quarter walls, some difficult ground, 6 to 39 cells a side), each
    with two distinct free cells: (rng, battlefield, free cells, start, goal)."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        h, w = rng.integers(6, 40, size=2)
        terrain = np.where(rng.random((h, w)) < 0.25, 1, 0).astype(np.int8)
        terrain[(terrain == 0) & (rng.random((h, w)) < 0.3)] = 2
        free = [(int(x), int(y)) for y, x in np.argwhere(terrain != 1)]
        if len(free) < 2:
            continue
        start, goal = (free[i] for i in rng.choice(len(free), 2, replace=False))
        yield rng, Battlefield(terrain), free, start, goal


def test_paths_are_cheapest_on_random_maps() -> None:
    """The path's cost equals the Dijkstra distance: never a costlier route (R-8)."""
    checked = 0
    for rng, bf, free, start, goal in random_fields(12):
        blocked = [free[i] for i in rng.choice(len(free), min(5, len(free)), replace=False)]
        blocked = [c for c in blocked if c not in (start, goal)]
        path = bf.path(start, goal, blocked, difficult_cost=DIFFICULT)
        best = bf.distance_map([start], blocked, difficult_cost=DIFFICULT)[goal[1], goal[0]]
        if best == UNREACHABLE:
            assert path == []
            continue
        checked += 1
        assert path[-1] == goal and steps_are_adjacent(start, path)
        assert not set(path) & set(blocked)
        assert bf.path_cost(path, DIFFICULT) == best
        assert bf.path(start, goal, blocked, difficult_cost=DIFFICULT, first=3) == path[:3]  # a turn's walk
    assert checked > 50


def test_downhill_is_a_cheapest_terrain_path_on_random_maps() -> None:
    """`downhill` (the kept map an AI crossing the field walks down) agrees with A* on cost,
    with difficult ground and species costs too; no path out of a closed room."""
    checked = 0
    for _rng, bf, _free, start, goal in random_fields(7):
        for costs in (None, {"difficult": 1}):
            walk = bf.downhill(start, goal, difficult_cost=DIFFICULT, terrain_costs=costs)
            best = bf.path(start, goal, difficult_cost=DIFFICULT, terrain_costs=costs)
            assert bool(walk) == bool(best)
            if walk:
                checked += 1
                assert walk[-1] == goal and steps_are_adjacent(start, walk)
                assert bf.path_cost(walk, DIFFICULT, costs) == bf.path_cost(best, DIFFICULT, costs)
                assert bf.downhill(start, goal, difficult_cost=DIFFICULT, terrain_costs=costs, first=2) == walk[:2]
    assert checked > 100


@pytest.mark.parametrize("diagonal", [2, 3])
def test_dearer_diagonals_paths_and_distance_maps_agree_on_random_maps(diagonal: int) -> None:
    """R-8's diagonal cost as data: with diagonal steps dearer, `path` (A*), both distance maps
    (one source and several, whole and cut to a turn's reach) and `downhill` all price a walk
    the same way as `step_costs` does, and the path is the cheapest."""
    checked = 0
    costs = {"difficult_cost": DIFFICULT, "diagonal_cost": diagonal}
    for rng, bf, free, start, goal in random_fields(8 + diagonal, count=60):
        blocked = [free[i] for i in rng.choice(len(free), min(4, len(free)), replace=False)]
        blocked = [c for c in blocked if c not in (start, goal)]
        path = bf.path(start, goal, blocked, **costs)
        best = bf.distance_map([start], blocked, **costs)[goal[1], goal[0]]
        general = bf.distance_map([start, start], blocked, **costs)[goal[1], goal[0]]
        assert best == general
        if best == UNREACHABLE:
            assert path == []
            continue
        checked += 1
        assert steps_are_adjacent(start, path)
        assert bf.path_cost(path, start=start, **costs) == best
        within = bf.distance_map([start], blocked, within=int(best), **costs)[goal[1], goal[0]]
        assert within == best
        walk = bf.downhill(start, goal, **costs)
        terrain_only = bf.path(start, goal, **costs)
        assert bf.path_cost(walk, start=start, **costs) == bf.path_cost(terrain_only, start=start, **costs)
    assert checked > 30


def test_step_costs_price_a_diagonal_step_by_the_rules_diagonal_cost() -> None:
    bf = Battlefield.from_rows(["...", ".,.", "..."])
    walk = [(1, 1), (2, 1), (2, 2)]  # diagonal into difficult ground, straight, straight
    assert bf.step_costs(walk, 2, start=(0, 0)) == [2, 1, 1]
    assert bf.step_costs(walk, 2, start=(0, 0), diagonal_cost=2) == [4, 1, 1]
    assert bf.path_cost(walk, 2, start=(0, 0), diagonal_cost=3) == 8
    assert bf.affordable(walk, 5, 2, start=(0, 0), diagonal_cost=2) == [(1, 1), (2, 1)]
    assert bf.affordable(walk, 4, 2, start=(0, 0), diagonal_cost=2) == [(1, 1)]
    with pytest.raises(ValueError, match="starts from"):
        bf.path_cost(walk, 2, diagonal_cost=2)
    # open ground: three steps east and three south cost 3 with cheap diagonals, 6 with dear ones
    open_field = Battlefield.from_rows(["....", "....", "....", "...."])
    assert open_field.distance_map([(0, 0)], difficult_cost=2)[3, 3] == 3
    assert open_field.distance_map([(0, 0)], difficult_cost=2, diagonal_cost=2)[3, 3] == 6


# --- distance maps -----------------------------------------------------------------------------


def test_distance_map_counts_movement_from_the_goals() -> None:
    bf = field(
        "..,.",
        ".#..",
        "....",
    )
    d = bf.distance_map([(0, 0)], difficult_cost=DIFFICULT)
    assert d[0, 0] == 0 and d[0, 1] == 1 and d[0, 2] == 3  # entering difficult ground costs 2
    assert d[1, 1] == UNREACHABLE  # a wall
    assert d[1, 2] == 2  # [2, 1]: (1, 0), then a diagonal step
    assert d[2, 3] == 3  # [3, 2]: (1, 0), (2, 1), (3, 2)


def test_distance_map_with_blocked_cells_and_several_goals() -> None:
    bf = field("#.#", "#.#", "#.#", "...")
    d = bf.distance_map([(1, 0)], [(1, 1)], difficult_cost=DIFFICULT)
    assert d[3, 1] == UNREACHABLE
    d = bf.distance_map([(1, 0), (0, 3)], difficult_cost=DIFFICULT)
    assert d[2, 1] == 1 and d[1, 1] == 1 and d[3, 2] == 2


@pytest.mark.parametrize("diagonal", [1, 2])
def test_edge_distance_map_is_the_distance_map_from_every_walkable_edge_cell(diagonal: int) -> None:
    """R-10 fear's map (`edge_distance_map`, the edge cells set at once) against `distance_map`
    given those cells one by one as goals: equal on random maps with blocked cells, walls on the
    edge included (a wall is no way off)."""
    costs = {"difficult_cost": DIFFICULT, "diagonal_cost": diagonal}
    compared = 0
    for rng, bf, free, _, _ in random_fields(9, count=40):
        blocked = [free[i] for i in rng.choice(len(free), min(5, len(free)), replace=False)]
        edges = [(x, y) for y in range(bf.height) for x in range(bf.width) if bf.is_edge((x, y)) and bf.is_walkable((x, y))]
        expected = bf.distance_map(edges, blocked, **costs)
        assert np.array_equal(bf.edge_distance_map(blocked, **costs), expected)
        compared += int((expected < UNREACHABLE).sum())
    assert compared > 1000


# A species' own terrain costs (R-3) the fear searches are tried with: none, difficult ground
# costing 1, floor costing more than difficult ground (so the cheapest walk avoids open ground),
# steps as dear as the searches' ring of buckets takes (21 × a diagonal cost up to 3) and dearer
# (where they read the whole map).
SPECIES_COSTS = [None, {"difficult": 1}, {"floor": 3, "difficult": 2}, {"difficult": 21}, {"difficult": 70}]


def fear_fields(seed: int, count: int):
    """Random maps for R-10 fear's searches, hostile to a search that cuts corners: from open
    ground (ties between edge cells everywhere) to nearly half walls, difficult ground, walled rooms, the cell
    asked about anywhere (on the edge, in the middle, walled in), and cells blocked by other
    units, a third of them on the edge (a blocked edge cell still seeds `edge_distance_map`),
    sometimes on the cells asked about: (rng, battlefield, free cells, blocked, start, end)."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        h, w = rng.integers(3, 34, size=2)
        terrain = np.where(rng.random((h, w)) < rng.choice([0.0, 0.05, 0.15, 0.33, 0.45]), 1, 0).astype(np.int8)
        terrain[(terrain == 0) & (rng.random((h, w)) < rng.choice([0.0, 0.2, 0.5]))] = 2
        room: list[tuple[int, int]] = []
        if min(h, w) >= 5 and rng.random() < 0.3:  # a walled room, cut off from every edge
            x0, y0 = int(rng.integers(1, w - 3)), int(rng.integers(1, h - 3))
            x1, y1 = int(rng.integers(x0 + 2, w - 1)), int(rng.integers(y0 + 2, h - 1))
            terrain[y0:y1 + 1, [x0, x1]] = terrain[[y0, y1], x0:x1 + 1] = 1
            room = [(int(x) + x0 + 1, int(y) + y0 + 1) for y, x in np.argwhere(terrain[y0 + 1:y1, x0 + 1:x1] != 1)]
        free = [(int(x), int(y)) for y, x in np.argwhere(terrain != 1)]
        if len(free) < 2:
            continue
        bf = Battlefield(terrain)
        start, end = (free[i] for i in rng.choice(len(free), 2, replace=False))
        if room and rng.random() < 0.5:  # one of them in the room
            inside = room[int(rng.integers(0, len(room)))]
            start, end = (inside, end) if inside != end and rng.random() < 0.5 else (start, inside)
            if start == end:
                continue
        rim = [c for c in free if bf.is_edge(c)]
        blocked = [free[i] for i in rng.choice(len(free), min(int(rng.integers(0, 12)), len(free)), replace=False)]
        blocked += [rim[i] for i in rng.choice(len(rim), min(int(rng.integers(0, 6)), len(rim)), replace=False)]
        yield rng, bf, free, blocked, start, end


@pytest.mark.parametrize("diagonal", [1, 2, 3])
def test_edge_distances_at_read_the_whole_edge_distance_map(diagonal: int) -> None:
    """R-10 fear's check reads the edge map at a move's two ends (`edge_distances_at`, one
    search walking out of each cell): the whole map's values on random maps (`fear_fields`),
    with a species' own costs, cells cut off from every edge included (`UNREACHABLE`), and cells
    whose nearest seed is a blocked edge cell; never under the cell's `steps_to_border`.
    Worked: on open 7x7 ground (3, 3) is 3 steps from the edge and (2, 3) 2; below the one way
    out, (1, 0), the difficult cell (1, 1) is 2 from the edge (the walk from the edge enters it,
    at 2), not the 1 its step out costs, and (2, 1) is one diagonal step (1, 2 or 3) or 2 + 1
    through the difficult cell."""
    costs = {"difficult_cost": DIFFICULT, "diagonal_cost": diagonal}
    assert field(*["......."] * 7).edge_distances_at([(3, 3), (2, 3)], **costs) == [3, 2]
    assert [field(*["......."] * 7).steps_to_border(c) for c in [(3, 3), (2, 3), (6, 1)]] == [3, 2, 0]
    assert field("#.###", "#,..#", "#####").edge_distances_at([(1, 1), (2, 1)], **costs) == [2, min(diagonal, 3)]
    assert field("...", "...").edge_distances_at([(5, 0), (-1, 1)], **costs) == [UNREACHABLE, UNREACHABLE]
    # no diagonal steps (libtcod's 0), as no rules allow: the whole map's answer all the same
    assert field(*["....."] * 5).edge_distances_at([(2, 2), (1, 1)], difficult_cost=DIFFICULT, diagonal_cost=0) == [2, 1]
    compared = cut_off = by_blocked_seed = 0
    for rng, bf, _, blocked, start, end in fear_fields(32, count=300):
        species = {"terrain_costs": SPECIES_COSTS[int(rng.integers(0, len(SPECIES_COSTS)))], **costs}
        far = bf.edge_distance_map(blocked, **species)
        expected = [int(far[start[1], start[0]]), int(far[end[1], end[0]])]
        assert bf.edge_distances_at([start, end], blocked, **species) == expected
        assert bf.edge_distances_at([end], blocked, **species) == expected[1:]
        assert all(bf.steps_to_border(c) <= v for c, v in zip((start, end), expected))  # its floor
        compared += sum(v < UNREACHABLE for v in expected)
        cut_off += sum(v == UNREACHABLE for v in expected)
        free_rim = [(x, y) for y in range(bf.height) for x in range(bf.width)
                    if bf.is_edge((x, y)) and bf.is_walkable((x, y)) and (x, y) not in blocked]
        unseeded = bf.distance_map(free_rim, blocked, **species)
        by_blocked_seed += sum(int(unseeded[y, x]) != v for (x, y), v in zip((start, end), expected))
    assert compared > 400 and cut_off > 30 and by_blocked_seed > 20


@pytest.mark.parametrize("diagonal", [1, 2, 3])
def test_nearest_edge_is_the_whole_maps_choice(diagonal: int) -> None:
    """R-10 fear's flight goal (`nearest_edge`, an A* from the unit) against the whole map's
    distance map read at every free edge cell, cheapest then lowest (y, x): the same cell on
    random maps (`fear_fields`) with a species' own costs and blocked and taken cells (taken:
    others' cells, allies' too, never the goal, though an ally's may be walked through), from
    anywhere (on the edge, in the middle, walled in), ties between edge cells included. Worked:
    on open 5x5 ground from (1, 2) the edge cells (0, 1), (0, 2) and (0, 3) cost 1 with diagonal
    steps at 1, and the lowest row wins, (0, 1); at 2 or 3 only (0, 2) does."""
    costs = {"difficult_cost": DIFFICULT, "diagonal_cost": diagonal}
    assert field(*["....."] * 5).nearest_edge((1, 2), [], set(), **costs) == ((0, 1) if diagonal == 1 else (0, 2))
    assert field(*["....."] * 5).nearest_edge((7, 2), [], set(), **costs) is None
    assert field(*["....."] * 5).nearest_edge((1, 1), [], set(), difficult_cost=DIFFICULT, diagonal_cost=0) == (1, 0)
    found = tied = through_taken = 0
    for rng, bf, free, blocked, start, _ in fear_fields(31, count=300):
        species = {"terrain_costs": SPECIES_COSTS[int(rng.integers(0, len(SPECIES_COSTS)))], **costs}
        blocked = [c for c in blocked if c != start]
        rim = [c for c in free if bf.is_edge(c) and c != start]
        allies = [free[i] for i in rng.choice(len(free), min(int(rng.integers(0, 8)), len(free)), replace=False)]
        allies += [rim[i] for i in rng.choice(len(rim), min(int(rng.integers(0, 10)), len(rim)), replace=False)]
        taken = {c for c in [*blocked, *allies] if c != start}
        dist = bf.distance_map([start], blocked, **species)
        edges = sorted((int(dist[y, x]), y, x) for y in range(bf.height) for x in range(bf.width)
                       if bf.is_edge((x, y)) and bf.is_walkable((x, y)) and dist[y, x] < UNREACHABLE
                       and (x, y) not in taken)
        expected = None if not edges else (edges[0][2], edges[0][1])
        assert bf.nearest_edge(start, blocked, taken, **species) == expected
        found += expected is not None
        tied += len(edges) > 1 and edges[0][0] == edges[1][0]
        through_taken += expected is not None and expected != bf.nearest_edge(start, blocked, set(), **species)
    assert 200 < found < 290 and tied > 25 and through_taken > 12


def test_single_goal_distance_matches_the_general_dijkstra() -> None:
    rng = np.random.default_rng(3)
    for _ in range(40):
        h, w = rng.integers(4, 35, size=2)
        terrain = rng.choice(np.array([0, 0, 0, 1, 2], dtype=np.int8), size=(h, w))
        bf = Battlefield(terrain)
        source = (int(rng.integers(w)), int(rng.integers(h)))
        blocked = [(int(rng.integers(w)), int(rng.integers(h))) for _ in range(4)]
        single = bf.distance_map([source], blocked, difficult_cost=3)
        # the same source given twice takes the general (multi-goal) route
        general = bf.distance_map([source, source], blocked, difficult_cost=3)
        assert (single == general).all()


# --- sight -------------------------------------------------------------------------------------


def test_line_of_sight_is_blocked_by_walls_only() -> None:
    bf = field(
        ".....",
        "..#..",
        ".,,,.",
    )
    assert not bf.line_of_sight((0, 1), (4, 1))
    assert bf.line_of_sight((0, 0), (4, 0))
    assert bf.line_of_sight((0, 2), (4, 2))  # difficult ground doesn't block sight
    assert bf.line_of_sight((1, 1), (2, 0))  # adjacent: nothing in between
    assert bf.line_of_sight((3, 3), (3, 3))


def test_line_of_sight_is_symmetric_and_cached() -> None:
    rng = np.random.default_rng(5)
    terrain = np.where(rng.random((20, 20)) < 0.2, 1, 0).astype(np.int8)
    bf = Battlefield(terrain)
    for _ in range(200):
        a = (int(rng.integers(20)), int(rng.integers(20)))
        b = (int(rng.integers(20)), int(rng.integers(20)))
        assert bf.line_of_sight(a, b) == bf.line_of_sight(b, a)
    assert bf._los  # answers are kept


def test_fov_sees_round_open_ground_not_behind_walls() -> None:
    bf = field(
        ".......",
        "...#...",
        ".......",
    )
    seen = bf.fov((0, 1))
    assert seen.shape == (3, 7)
    assert seen[1, 0] and seen[1, 3]  # itself, and the wall (walls are lit)
    assert not seen[1, 5] and not seen[1, 6]  # the shadow behind the wall
    assert seen[0, 6] and seen[2, 6]
    assert bf.fov((0, 1)) is seen  # cached
    with pytest.raises(ValueError):
        seen[0, 0] = False


def test_fov_is_libtcods_symmetric_shadowcast_from_any_cell_in_any_order() -> None:
    """R-11 sight: the battlefield's own libtcod map (`_shadowcast`, kept between calls) sees what
    `tcod.map.compute_fov` sees, on random fields, from cells asked in any order (each view
    computed afresh: the kept map holds no trace of the last one)."""
    rng = np.random.default_rng(11)
    for _ in range(6):
        h, w = rng.integers(3, 41, size=2)
        terrain = np.where(rng.random((h, w)) < rng.uniform(0.05, 0.4), Terrain.WALL, Terrain.FLOOR)
        field = Battlefield(terrain)
        for _ in range(40):
            x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
            expected = tcod.map.compute_fov(field.transparent, (y, x), 0, True, tcod.constants.FOV_SYMMETRIC_SHADOWCAST)
            assert np.array_equal(field.fov((x, y)), expected)


def test_line_of_sight_is_libtcods_bresenham_line_through_open_cells() -> None:
    """R-11: a clear line is one whose cells strictly between the ends (tcod.los.bresenham's thin
    line, drawn from the lesser end) are all transparent, on random fields, in both directions."""
    rng = np.random.default_rng(5)
    for _ in range(4):
        h, w = rng.integers(2, 31, size=2)
        terrain = np.where(rng.random((h, w)) < 0.25, Terrain.WALL, Terrain.FLOOR)
        field = Battlefield(terrain)
        for _ in range(300):
            a = (int(rng.integers(0, w)), int(rng.integers(0, h)))
            b = (int(rng.integers(0, w)), int(rng.integers(0, h)))
            start, end = min(a, b), max(a, b)
            line = tcod.los.bresenham(start, end)[1:-1]
            expected = bool(field.transparent[line[:, 1], line[:, 0]].all()) if len(line) else True
            assert field.line_of_sight(a, b) is expected and field.line_of_sight(b, a) is expected


def test_fov_radius_counts_cells_like_moves() -> None:
    bf = field(*["." * 11] * 11)
    seen = bf.fov((5, 5), 3)
    assert seen[5, 8] and seen[8, 8] and seen[2, 2]  # 3 cells away, diagonals included
    assert not seen[5, 9] and not seen[9, 9]
    assert seen.sum() == 49
    assert bf.fov((5, 5), None)[5, 10]  # None (no sight radius in the data) = unlimited


@pytest.mark.parametrize("diagonal", [1, 2])
def test_moves_within_is_the_cut_distance_map_and_walks_back_as_hillclimb(diagonal: int) -> None:
    """The AI's move this turn (`moves_within`, `walk_back`): the full distance map cut to the
    square of the turn's reach, and the walk down from any cell in it is tcod's hillclimb."""
    import tcod.path

    costs = {"difficult_cost": DIFFICULT, "diagonal_cost": diagonal}
    for rng, bf, free, start, _ in random_fields(10, count=40):
        blocked = [free[i] for i in rng.choice(len(free), min(5, len(free)), replace=False)]
        limit = int(rng.integers(0, 6))
        x0, y0, window = bf.moves_within(start, blocked, limit, **costs)
        whole = bf.distance_map([start], blocked, **costs)
        h, w = window.shape
        cut = whole[y0:y0 + h, x0:x0 + w].copy()
        cut[cut > limit] = UNREACHABLE
        assert (window == cut).all()
        outside = np.ones(whole.shape, dtype=bool)
        outside[y0:y0 + h, x0:x0 + w] = False
        assert (whole[outside] > limit).all()
        for y, x in np.argwhere(window < UNREACHABLE).tolist():  # cells as whole numbers, as the engine gives them
            back = tcod.path.hillclimb2d(window, (y, x), True, True).tolist()
            walk = [(bx + x0, by + y0) for by, bx in reversed(back[:-1])]
            assert bf.walk_back(x0, y0, window, (x + x0, y + y0)) == walk


def test_a_cell_from_outside_is_two_python_whole_numbers() -> None:
    """`as_cell` (a cell from a file, a save, a sent action): numpy's whole numbers come back as
    Python ints (the compiled battle core takes no other), anything else is refused in words."""
    from horizon_tui.engine.battlefield import as_cell

    cell = as_cell(np.array([3, 4]))
    assert cell == (3, 4) and all(type(v) is int for v in cell)
    assert as_cell([1, 2]) == (1, 2)
    for bad in ([1.5, 2], ["1", 2], [1, 2, 3]):
        with pytest.raises(ValueError, match="two whole numbers"):
            as_cell(bad)


def test_questions_about_one_cell_take_any_pair() -> None:
    """A form's or a file's cell reaches `in_bounds` / `is_walkable` / `is_edge` as whatever pair
    it is (a list, numpy's numbers), compiled or not: an answer, never a TypeError."""
    bf = field("...", ".#.", "...")
    assert bf.in_bounds([1, 1]) and bf.in_bounds(np.array([2, 2])) and not bf.in_bounds((3, 0))
    assert not bf.is_walkable(np.array([1, 1])) and bf.is_walkable([0, 0]) and not bf.is_walkable((1.0, 5.0))
    assert bf.is_edge([0, 1]) and not bf.is_edge(np.array([1, 1]))
    assert bf.neighbours(np.array([0, 0])) == [(1, 0), (0, 1), (1, 1)]


def test_a_battlefield_pickles_as_its_terrain() -> None:
    """The sweep's and the simulator's workers get their fights pickled: a battlefield goes as its
    terrain (compiled or not), its caches (tcod handles among them) left behind for the worker."""
    import pickle

    bf = field("..#", ",..")
    bf.path((0, 0), (2, 1), difficult_cost=DIFFICULT)  # fills the A* cache with a tcod handle
    copy = pickle.loads(pickle.dumps(bf))
    assert copy is not bf and copy.to_rows() == bf.to_rows() and not copy.terrain.flags.writeable
    assert copy.path((0, 0), (2, 1), difficult_cost=DIFFICULT) == bf.path((0, 0), (2, 1), difficult_cost=DIFFICULT)
