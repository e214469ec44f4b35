"""Generated battlefields: connected, reproducible from their seed, different across seeds."""

from __future__ import annotations

import random

import numpy as np
import pytest

from horizon_tui.engine.battlefield import UNREACHABLE, Battlefield, Terrain
from horizon_tui.engine.mapgen import GENERATORS, MIN_SIZE, REGIONS, generate, spawn_cells

SIZES = [(12, 12), (20, 35), (30, 30), (50, 50)]


def connected(bf: Battlefield) -> bool:
    walkable = np.argwhere(bf.walkable)
    y, x = walkable[0]
    reach = bf.distance_map([(int(x), int(y))], difficult_cost=1)
    return bool((reach[bf.walkable] < UNREACHABLE).all())


@pytest.mark.parametrize("generator", sorted(GENERATORS))
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_generated_maps_are_connected_and_reproducible(generator: str, size: tuple[int, int]) -> None:
    width, height = size
    for seed in (1, 2, 99):
        bf = generate(generator, width, height, seed)
        assert (bf.width, bf.height) == (width, height)
        assert bf.walkable.mean() >= 0.3, "enough room to fight"
        assert connected(bf), f"{generator} {size} seed {seed} has a pocket"
        edge = [(x, 0) for x in range(width)] + [(x, height - 1) for x in range(width)]
        edge += [(0, y) for y in range(height)] + [(width - 1, y) for y in range(height)]
        assert any(bf.is_walkable(c) for c in edge), "a way off the battlefield (R-8 fleeing)"
        again = generate(generator, width, height, seed)
        assert again.terrain.tobytes() == bf.terrain.tobytes()
    assert generate(generator, width, height, 1).terrain.tobytes() != generate(generator, width, height, 2).terrain.tobytes()


@pytest.mark.parametrize("generator", sorted(GENERATORS))
def test_generators_mix_the_terrains(generator: str) -> None:
    kinds = set()
    for seed in range(4):
        kinds |= set(np.unique(generate(generator, 30, 30, seed).terrain).tolist())
    assert kinds == {int(t) for t in Terrain}


def test_generate_refuses_unknown_generators_and_tiny_maps() -> None:
    with pytest.raises(ValueError, match="unknown map generator 'maze'"):
        generate("maze", 20, 20, 1)
    with pytest.raises(ValueError, match=f"at least {MIN_SIZE}"):
        generate("caves", MIN_SIZE - 1, 20, 1)


def test_spawn_cells_are_free_floor_in_the_region() -> None:
    bf = generate("open", 30, 30, 5)
    party = spawn_cells(bf, 4, random.Random(1), "sw")
    assert len(set(party)) == 4
    assert all(bf.terrain_at(c) is Terrain.FLOOR for c in party)
    assert all(x < 15 and y >= 15 for x, y in party)
    enemies = spawn_cells(bf, 6, random.Random(1), "ne", exclude=party)
    assert len(set(enemies)) == 6 and not set(enemies) & set(party)
    assert all(x >= 15 and y < 15 for x, y in enemies)
    assert spawn_cells(bf, 6, random.Random(1), "ne", exclude=party) == enemies  # seeded


def test_spawn_cells_cluster_round_given_cells_and_stay_reachable() -> None:
    bf = Battlefield.from_rows([
        "......#.....",
        "......#.....",
        "......#.....",
        "............",
    ])
    cells = spawn_cells(bf, 3, random.Random(0), [(8, 1)], exclude=[(8, 1)])
    assert (8, 1) not in cells and all(max(abs(x - 8), abs(y - 1)) <= 1 for x, y in cells)
    # more than the map holds: every free cell, no more
    everything = spawn_cells(bf, 100, random.Random(0), "center")
    assert len(everything) == int(bf.walkable.sum())


def test_spawn_cells_know_their_regions() -> None:
    bf = generate("open", 20, 20, 1)
    for region in REGIONS:
        assert len(spawn_cells(bf, 2, random.Random(0), region)) == 2
    with pytest.raises(ValueError, match="unknown region"):
        spawn_cells(bf, 2, random.Random(0), "middle")


def test_many_seeds_and_sizes_stay_connected() -> None:
    rng = random.Random(2024)
    for _ in range(45):
        generator = rng.choice(sorted(GENERATORS))
        width, height = rng.randint(MIN_SIZE, 50), rng.randint(MIN_SIZE, 50)
        seed = rng.randrange(10**6)
        assert connected(generate(generator, width, height, seed)), (generator, width, height, seed)
