"""Encounter files -> battles ready to start; enemy and encounter validation; the shipped data."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.encounters import (
    AI_PROFILES, TARGETINGS, EnemyDef, list_encounters, load_enemies,
)
from horizon_tui.content.models import NEGATIVE_EFFECTS, POSITIVE_EFFECTS, Difficulty, WeaponKind
from horizon_tui.engine.battlefield import Terrain
from horizon_tui.engine.encounter import MIN_PARTY_START, EncounterSetup, load_encounter
from horizon_tui.tools.validate_encounters import check_enemy
from horizon_tui.errors import DataError
from horizon_tui.tools.validate import validate_paths

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture(scope="module")
def enemies(catalogue: Catalogue) -> dict[str, EnemyDef]:
    return load_enemies(catalogue)


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str], Path]:
    def write(text: str, name: str = "fight.toml") -> Path:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return write


def load(path: Path, catalogue: Catalogue, enemies: dict[str, EnemyDef]) -> EncounterSetup:
    return load_encounter(path, catalogue, enemies)


def refused(path: Path, catalogue: Catalogue, enemies: dict[str, EnemyDef]) -> list:
    with pytest.raises(DataError) as info:
        load_encounter(path, catalogue, enemies)
    problems = info.value.problems
    assert all(p.file == str(path) for p in problems), problems
    return problems


DRAWN = """
name = "Test Hall"
description = "A test."
difficulty = "hard"
notes = "Mud."

[map]
rows = '''
#######
#g..,g#
#.#~~.#
#@@..a#
#######
'''

[map.legend]
g = { enemy = "goblin" }
a = { enemy = "goblin_archer", name = "Sharp-Eye" }
"""


# --- drawn maps ----------------------------------------------------------------------------------


def test_a_drawn_map_loads_to_the_exact_grid(write, catalogue, enemies) -> None:
    setup = load(write(DRAWN), catalogue, enemies)
    assert setup.battlefield.to_rows() == [
        "#######",
        "#...,.#",
        "#.#,,.#",
        "#.....#",
        "#######",
    ]
    assert setup.battlefield.terrain_at((3, 2)) is Terrain.DIFFICULT
    assert [(d.id, xy, name) for d, xy, name in setup.enemies] == [
        ("goblin", (1, 1), "Goblin Cutthroat 1"),
        ("goblin", (5, 1), "Goblin Cutthroat 2"),
        ("goblin_archer", (5, 3), "Sharp-Eye"),
    ]
    # two drawn start cells, filled up to four free cells next to them
    assert setup.party_start[:2] == [(1, 3), (2, 3)]
    assert len(setup.party_start) == MIN_PARTY_START == len(set(setup.party_start))
    taken = {xy for _, xy, _ in setup.enemies}
    assert all(setup.battlefield.is_walkable(c) and c not in taken for c in setup.party_start)
    assert (setup.name, setup.difficulty, setup.notes, setup.id) == ("Test Hall", "hard", "Mud.", "fight")
    assert setup.xp == 20 + 20 + 20  # no stated total: the enemies' XP


def test_stated_xp_and_placements_from_the_enemy_list(write, catalogue, enemies) -> None:
    text = DRAWN.replace('notes = "Mud."', 'notes = "Mud."\nxp = 500\nparty_start = [[3, 3], [4, 3]]')
    text += '\n[[enemies]]\nenemy = "wolf"\nat = [1, 2]\n'
    setup = load(write(text), catalogue, enemies)
    assert setup.xp == 500
    assert ("wolf", (1, 2), "Grey Wolf") in [(d.id, xy, n) for d, xy, n in setup.enemies]
    assert setup.party_start == [(1, 3), (2, 3), (3, 3), (4, 3)]


# --- generated maps ------------------------------------------------------------------------------

GENERATED = """
name = "Caves"
difficulty = "normal"

[map]
generator = "caves"
width = 24
height = 20
seed = 8

[[enemies]]
enemy = "goblin"
count = 3

[[enemies]]
enemy = "wolf"
"""


def test_a_generated_map_places_party_and_enemies_in_opposite_corners(write, catalogue, enemies) -> None:
    setup = load(write(GENERATED), catalogue, enemies)
    bf = setup.battlefield
    assert (bf.width, bf.height) == (24, 20)
    cells = [xy for _, xy, _ in setup.enemies]
    assert len(cells) == 4 and len(setup.party_start) == 4
    assert len(set(cells) | set(setup.party_start)) == 8
    assert all(bf.terrain_at(c) is Terrain.FLOOR for c in cells + setup.party_start)
    px = sum(x for x, _ in setup.party_start) / 4
    ex = sum(x for x, _ in cells) / 4
    assert abs(px - ex) > bf.width / 3
    assert [n for _, _, n in setup.enemies] == ["Goblin Cutthroat 1", "Goblin Cutthroat 2", "Goblin Cutthroat 3", "Grey Wolf"]
    again = load(write(GENERATED, "again.toml"), catalogue, enemies)
    assert again.battlefield.terrain.tobytes() == bf.terrain.tobytes()
    assert [xy for _, xy, _ in again.enemies] == cells and again.party_start == setup.party_start


# --- refusals: the file, the key and the reason --------------------------------------------------


def test_unknown_enemy_id_with_a_suggestion(write, catalogue, enemies) -> None:
    path = write(GENERATED.replace('enemy = "wolf"', 'enemy = "wolff"'))
    [problem] = refused(path, catalogue, enemies)
    assert problem.key == "enemies.1.enemy" and "unknown enemy 'wolff'" in problem.message
    assert problem.suggestion == "wolf"
    path = write(DRAWN.replace('g = { enemy = "goblin" }', 'g = { enemy = "gobbo" }'), "legend.toml")
    assert [p.key for p in refused(path, catalogue, enemies)] == ["map.legend.g.enemy"] * 2


def test_two_units_on_one_cell(write, catalogue, enemies) -> None:
    path = write(DRAWN + '\n[[enemies]]\nenemy = "wolf"\nat = [1, 1]\n')
    [problem] = refused(path, catalogue, enemies)
    assert problem.key == "enemies.0.at" and "two units on one cell" in problem.message
    path = write(DRAWN.replace('notes = "Mud."', 'party_start = [[5, 3]]'), "party.toml")
    [problem] = refused(path, catalogue, enemies)
    assert problem.key == "party_start.0" and "two units on one cell" in problem.message


def test_a_unit_in_a_wall_or_off_the_map(write, catalogue, enemies) -> None:
    path = write(DRAWN + '\n[[enemies]]\nenemy = "wolf"\nat = [0, 0]\n\n[[enemies]]\nenemy = "wolf"\nat = [7, 2]\n')
    problems = refused(path, catalogue, enemies)
    assert [(p.key, "wall" in p.message, "off the 7×5 map" in p.message) for p in problems] == [
        ("enemies.0.at", True, False), ("enemies.1.at", False, True),
    ]
    assert problems[0].line is not None  # located in the file


def test_a_legend_enemy_on_a_wall_terrain(write, catalogue, enemies) -> None:
    path = write(DRAWN.replace('g = { enemy = "goblin" }', 'g = { enemy = "goblin", terrain = "wall" }'))
    [problem] = refused(path, catalogue, enemies)
    assert problem.key == "map.legend.g.terrain" and "wall" in problem.message


def test_maps_over_the_largest_battlefield(write, catalogue, enemies) -> None:
    rows = "\n".join(["." * 51] * 3)
    path = write(f'name = "Wide"\n[map]\nrows = """\n{rows}\n"""\n[[enemies]]\nenemy = "wolf"\nat = [1, 1]\n')
    [problem] = refused(path, catalogue, enemies)
    assert problem.key == "map.rows" and "51×3" in problem.message and "50×50" in problem.message
    path = write(GENERATED.replace("width = 24", "width = 60"), "generated.toml")
    [problem] = refused(path, catalogue, enemies)
    assert problem.key == "map.width" and "50×50" in problem.message


def test_the_largest_size_comes_from_the_rules(write, catalogue, enemies) -> None:
    import attrs

    smaller = catalogue.with_rules(attrs.evolve(catalogue.rules, turns=attrs.evolve(catalogue.rules.turns, max_size=20)))
    [problem] = refused(write(GENERATED), smaller, enemies)
    assert problem.key == "map.width" and "20×20" in problem.message


def test_ragged_rows_and_unknown_glyphs(write, catalogue, enemies) -> None:
    text = DRAWN.replace("#.#~~.#", "#.#~~.##").replace("#@@..a#", "#@@.X?#")
    problems = refused(write(text), catalogue, enemies)
    messages = sorted(p.message for p in problems)
    assert all(p.key == "map.rows" for p in problems)
    assert any("row 2 has 8 cells but row 0 has 7" in m for m in messages)
    assert any("unknown glyph 'X'" in m for m in messages) and any("unknown glyph '?'" in m for m in messages)


def test_bad_legend_and_generator_names(write, catalogue, enemies) -> None:
    text = DRAWN.replace('a = { enemy = "goblin_archer", name = "Sharp-Eye" }', 'a = "lava"\nb = { enemy = "wolf", nmae = "x" }')
    keys = sorted(p.key for p in refused(write(text), catalogue, enemies))
    assert keys == ["map.legend.a", "map.legend.b.nmae"]
    [problem] = refused(write(GENERATED.replace('"caves"', '"cave"'), "gen.toml"), catalogue, enemies)
    assert problem.key == "map.generator" and problem.suggestion == "caves"


def test_every_problem_at_once(write, catalogue, enemies) -> None:
    text = DRAWN.replace('difficulty = "hard"', 'difficulty = "brutal"')
    text += '\n[[enemies]]\nenemy = "troll"\nat = [2, 2]\n\n[[enemies]]\nenemy = "wolf"\nat = [1, 1]\n'
    keys = sorted(p.key for p in refused(write(text), catalogue, enemies))
    assert keys == ["difficulty", "enemies.0.at", "enemies.0.enemy", "enemies.1.at"]


def test_unknown_keys_and_missing_maps(write, catalogue, enemies) -> None:
    problems = refused(write('name = "X"\ndificulty = "easy"\n[map]\ngenerator = "open"\nwidth = 20\nheight = 20\n'), catalogue, enemies)
    assert problems[0].key == "dificulty" and problems[0].suggestion == "difficulty"
    keys = {p.key for p in refused(write('name = "X"\n[[enemies]]\nenemy = "wolf"\n', "nomap.toml"), catalogue, enemies)}
    assert keys == {"map"}


def test_too_few_free_cells_for_the_party(write, catalogue, enemies) -> None:
    text = 'name = "Closet"\n[map]\nrows = """\n###\n#g#\n#.#\n###\n"""\n[map.legend]\ng = { enemy = "wolf" }\n'
    [problem] = refused(write(text), catalogue, enemies)
    assert problem.key == "party_start" and "needs 4" in problem.message


def test_an_unknown_encounter_id(catalogue, enemies) -> None:
    with pytest.raises(DataError) as info:
        load_encounter("standrad", catalogue, enemies)
    assert info.value.problems[0].suggestion == "standard"


# --- the shipped data ----------------------------------------------------------------------------


def test_every_shipped_enemy_is_valid(catalogue, enemies) -> None:
    assert len(enemies) >= 12
    for enemy_id, enemy in enemies.items():
        assert check_enemy(enemy, catalogue, enemy_id, set(enemies)) == []
        assert enemy.description and enemy.glyph and enemy.xp > 0
        guide = 32 if enemy.level == 1 else 42 + 10 * (enemy.level - 2)
        assert abs(sum(enemy.character.attributes.values()) - guide) <= 5, enemy_id


def test_the_enemy_catalogue_covers_the_rules(enemies) -> None:
    """Levels 1–8, every weapon kind, every difficulty, every R-10 effect, every profile."""
    assert {e.level for e in enemies.values()} >= set(range(1, 9))
    assert {e.character.weapon.kind for e in enemies.values()} == set(WeaponKind)
    abilities = [a for e in enemies.values() for a in e.character.abilities]
    assert {a.difficulty for a in abilities} == set(Difficulty)
    effects = {fx.effect for a in abilities for fx in a.effects}
    assert set(NEGATIVE_EFFECTS) <= effects and set(POSITIVE_EFFECTS) <= effects
    assert {e.ai for e in enemies.values()} == set(AI_PROFILES)
    assert {e.targeting for e in enemies.values()} == set(TARGETINGS)


def test_every_shipped_encounter_loads(catalogue, enemies) -> None:
    setups = [load_encounter(p.stem, catalogue, enemies) for p in list_encounters()]
    assert len(setups) >= 8
    sizes = {(s.battlefield.width, s.battlefield.height) for s in setups}
    assert (12, 12) in sizes and (50, 50) in sizes
    for setup in setups:
        assert setup.name and setup.description and setup.difficulty in ("easy", "normal", "hard", "deadly")
        assert len(setup.party_start) >= MIN_PARTY_START and setup.xp > 0
        cells = [xy for _, xy, _ in setup.enemies] + setup.party_start
        assert len(cells) == len(set(cells))
        assert all(setup.battlefield.is_walkable(c) for c in cells)
    small = [s for s in setups if len(s.enemies) <= 3 and s.battlefield.width <= 16 and max(d.level for d, _, _ in s.enemies) <= 2]
    assert len(small) >= 3


def test_the_standard_encounter(catalogue, enemies) -> None:
    """The benchmarks' fight: 4 against 6 on 30×30."""
    setup = load_encounter("standard", catalogue, enemies)
    assert (setup.battlefield.width, setup.battlefield.height) == (30, 30)
    assert len(setup.enemies) == 6 and len(setup.party_start) == 4


# --- `horizon validate` --------------------------------------------------------------------------


def test_validate_passes_the_shipped_data() -> None:
    problems, checked = validate_paths([DATA])
    assert problems == []
    assert checked >= 12 + 8


def test_validate_reports_enemy_problems(tmp_path: Path) -> None:
    folder = tmp_path / "enemies"
    folder.mkdir()
    text = (DATA / "enemies" / "goblin.toml").read_text(encoding="utf-8")
    text = text.replace('ai = "skirmisher"', 'ai = "berserk"').replace('targeting = "weakest"', 'targeting = "weakst"')
    text = text.replace('loadout = ["Dirty Stab", "Ankle Cut"]', 'loadout = ["Dirty Stab", "Ankle Cut", "Gut Punch"]')
    text += '\n[[abilities]]\nname = "Gut Punch"\ndifficulty = "II"\nkind = "damage"\n'
    (folder / "bad_goblin.toml").write_text(text, encoding="utf-8")
    problems, _ = validate_paths([folder / "bad_goblin.toml"])
    by_key = {p.key: p for p in problems}
    assert by_key["ai"].suggestion is None and "unknown AI profile 'berserk'" in by_key["ai"].message
    assert by_key["targeting"].suggestion == "weakest" and by_key["targeting"].line == 8
    fixed = text.replace('ai = "berserk"', 'ai = "skirmisher"').replace('targeting = "weakst"', 'targeting = "weakest"')
    (folder / "bad_goblin.toml").write_text(fixed, encoding="utf-8")
    [problem] = validate_paths([folder / "bad_goblin.toml"])[0]
    assert problem.key == "loadout" and "level 1 has 2 slots" in problem.message


def test_validate_reports_encounter_problems(tmp_path: Path) -> None:
    folder = tmp_path / "encounters"
    folder.mkdir()
    (folder / "bad.toml").write_text(GENERATED.replace('"wolf"', '"wolff"'), encoding="utf-8")
    [problem] = validate_paths([folder / "bad.toml"])[0]
    assert problem.key == "enemies.1.enemy" and problem.suggestion == "wolf"


def test_an_enemy_file_may_set_derived_stats_outright(tmp_path, catalogue, enemies) -> None:
    """`set_stats` (a boss's fixed health): the enemy starts a battle at exactly that number, and
    a stat name or value that can't be is refused with the file, the key and a suggestion."""
    from horizon_tui.content.encounters import load_enemy
    from engine_kit import character, make_battle
    from horizon_tui.engine.battle import hp, stats

    boss = (DATA / "enemies" / "barrow_king.toml").read_text(encoding="utf-8")
    path = tmp_path / "barrow_boss.toml"
    path.write_text("set_stats = { health = 900, willpower = 12.5 }\n" + boss, encoding="utf-8")
    enemy = load_enemy(path, catalogue)
    battle = make_battle(party=[(character("Ann"), (0, 0))], enemies=[(enemy, (8, 4), "The King")],
                         enemy_defs=enemies)  # its skeleton companion
    king = battle["the-king"]
    assert (hp(king).hp, hp(king).max_hp) == (900, 900) and float(stats(king)["willpower"]) == 12.5

    path.write_text("set_stats = { helth = 900, speed = -1 }\n" + boss, encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_enemy(path, catalogue)
    problems = {p.key: p for p in info.value.problems}
    assert problems["set_stats.helth"].suggestion == "health" and problems["set_stats.helth"].file == str(path)
    assert "too low" in problems["set_stats.speed"].message
