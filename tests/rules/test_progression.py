"""R-4 experience, level and attribute points; R-5 the level table."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from horizon_tui.content.models import ATTRIBUTES, Difficulty
from horizon_tui.rules import progression
from horizon_tui.rules.character import build, buy_point

LEVEL_8_ROW = {"slots": 10, "charges": {"II": 6, "III": 5, "IV": 4, "V": 3, "VI": 2}, "fap": 6}

# R-5 as printed in RULES.md: level -> (slots, II, III, IV, V, VI, free-action points)
LEVEL_TABLE = {
    1: (2, 2, 1, 1, 1, 1, 1),
    2: (3, 3, 2, 1, 1, 1, 2),
    3: (4, 3, 2, 2, 1, 1, 3),
    4: (5, 4, 3, 2, 1, 1, 4),
    5: (6, 4, 3, 2, 2, 1, 5),
    6: (7, 5, 4, 3, 2, 1, 6),
    7: (8, 5, 4, 3, 2, 2, 6),
    8: (10, 6, 5, 4, 3, 2, 6),
}


def _row(level, rules):
    charges = progression.charges(level, rules)
    return (
        progression.slots(level, rules),
        *(charges[Difficulty(d)] for d in ("II", "III", "IV", "V", "VI")),
        progression.free_action_points(level, rules),
    )


def test_r4_point_costs_are_10_15_20(rules):
    """R-4: the k-th point bought costs 10 + 5(k−1): 10, 15, 20, …"""
    costs = [progression.point_cost(k, rules.experience) for k in range(1, 6)]
    assert costs == [10, 15, 20, 25, 30]
    with pytest.raises(ValueError):
        progression.point_cost(0, rules.experience)


def test_r4_first_ten_points_cost_325_xp(rules):
    """R-4: the first 10 points cost 325 XP in total."""
    assert progression.total_cost(10, rules.experience) == 325
    assert progression.affordable_points(325, 0, rules.experience) == 10
    assert progression.affordable_points(324, 0, rules.experience) == 9
    # from point 11 on: 60 XP buys point 11 (60) and no more
    assert progression.affordable_points(60 + 64, 10, rules.experience) == 1


@settings(max_examples=80, deadline=None)
@given(n=st.integers(0, 2000))
def test_r4_xp_total_for_n_points_is_5n2_over_2_plus_15n_over_2(n, rules):
    """R-4: the XP total for n points equals 5n²/2 + 15n/2 (and the sum of the single costs)."""
    expected = Fraction(5 * n * n, 2) + Fraction(15 * n, 2)
    assert progression.total_cost(n, rules.experience) == expected
    if n <= 200:
        assert sum(progression.point_cost(k, rules.experience) for k in range(1, n + 1)) == expected


@pytest.mark.parametrize(("bought", "level"), [(0, 2), (9, 2), (10, 3), (19, 3), (20, 4), (75, 9), (180, 20)])
def test_r4_level_is_2_plus_floor_bought_over_10(bought, level, rules):
    """R-4: level = 2 + floor(points bought / 10), no cap."""
    assert progression.level_for(bought, rules) == level


def test_r4_character_with_52_invested_points_is_level_3(make_character, rules):
    """R-4: 42 creation points + 10 bought -> level 3; the next (11th) point costs 60 XP."""
    attributes = {"physical": 15, "agility": 15, "perception": 10, "cognition": 6, "faith": 5, "beauty": 1}
    b = build(make_character(attributes=attributes), rules)
    assert (b.invested, b.points_bought, b.level, b.next_point_cost) == (52, 10, 3, 60)
    assert b.slots == 4


def test_r4_buying_ten_points_with_325_xp_reaches_level_3(make_character, rules):
    """R-4: 325 XP buys exactly 10 points, which raise the level from 2 to 3."""
    character = make_character(xp=325)
    for i in range(10):
        character = buy_point(character, ATTRIBUTES[i % 5], rules)
    b = build(character, rules)
    assert (character.xp, b.points_bought, b.level) == (0, 10, 3)
    with pytest.raises(ValueError, match="60 XP"):
        buy_point(character, "physical", rules)


@settings(max_examples=50, deadline=None)
@given(bonus=st.fixed_dictionaries({name: st.integers(0, 200) for name in ATTRIBUTES}))
def test_r4_level_never_changes_with_bonus_points(bonus, make_character, rules):
    """R-4: points from items, quests and GM awards add to attributes but never to the level."""
    plain = build(make_character(), rules)
    boosted = build(make_character(bonus=bonus), rules)
    assert boosted.level == plain.level == 2
    assert boosted.points_bought == plain.points_bought == 0
    assert boosted.next_point_cost == plain.next_point_cost == 10
    assert boosted.slots == plain.slots
    assert sum(boosted.attributes.values()) == sum(plain.attributes.values()) + sum(bonus.values())


def test_r4_species_bonus_points_never_raise_the_level(make_character, rules):
    """R-4: species points (orc: physical +2) count in attributes, not in points bought."""
    b = build(make_character(species="orc"), rules)
    assert b.attributes["physical"] == 12
    assert (b.points_bought, b.level) == (0, 2)


def test_r5_level_table_matches_rules_md(rules):
    """R-5 [H]: the shipped table is RULES.md's, row by row."""
    for level, row in LEVEL_TABLE.items():
        assert _row(level, rules) == row, level


@pytest.mark.parametrize("level", [8, 9, 20, 1000])
def test_r5_levels_past_8_clamp_to_the_level_8_row(level, rules):
    """R-5: level 9, 20, … use the 8+ row: 10 slots, charges II6 III5 IV4 V3 VI2, FAP 6."""
    assert progression.slots(level, rules) == 10
    assert {d.value: n for d, n in progression.charges(level, rules).items()} == LEVEL_8_ROW["charges"]
    assert progression.free_action_points(level, rules) == 6


def test_r5_level_2_sheet_row(make_character, rules):
    """R-5: the example (level 2) has 3 slots, charges II3 III2 IV1 V1 VI1, 2 free-action points."""
    b = build(make_character(), rules)
    assert (b.slots, b.free_action_points) == (3, 2)
    assert {d.value: n for d, n in b.charges.items()} == {"II": 3, "III": 2, "IV": 1, "V": 1, "VI": 1}


def test_r5_difficulty_table_matches_rules_md(rules):
    """R-5: multipliers 1, 1.5, 2, 2.75, 3.5, 5; cooldowns 0,1,2,3,4,6; thresholds —,100,150,220,300,400;
    check dropped at levels 1..6."""
    table = {
        "I": ("1.0", 0, 0, 1), "II": ("1.5", 1, 100, 2), "III": ("2.0", 2, 150, 3),
        "IV": ("2.75", 3, 220, 4), "V": ("3.5", 4, 300, 5), "VI": ("5.0", 6, 400, 6),
    }
    for name, (multiplier, cooldown, threshold, dropped) in table.items():
        row = rules.difficulty(Difficulty(name))
        assert (row.multiplier, row.cooldown, row.threshold, row.check_dropped_at) == (
            Fraction(multiplier), cooldown, threshold, dropped,
        ), name


def test_r4_points_for_a_level_read_level_for_backwards(rules):
    """R-4: level = 2 + floor(points bought / 10), so level 3 needs 10 points and level 8 needs 60;
    levels up to 2 need none."""
    from horizon_tui.rules.progression import level_for, points_for_level

    assert [points_for_level(level, rules) for level in (1, 2, 3, 8)] == [0, 0, 10, 60]
    assert all(level_for(points_for_level(level, rules), rules) == level for level in range(2, 30))


def test_r4_progress_to_the_next_level(rules):
    """R-4: 13 points bought are level 3 and 3 of the 10 points that make level 4."""
    from horizon_tui.rules.progression import progress_to_next_level

    assert progress_to_next_level(13, rules) == (3, 10)
    assert progress_to_next_level(0, rules) == (0, 10)


def test_r4_slots_and_charges_stop_at_level_8_and_free_actions_at_level_6_however_long_the_table(rules):
    """R-4: a GM's table that goes on growing (levels 7 and 9 with more of everything) still gives
    level 12 what level 8 has (10 slots, 6/5/4/3/2 charges), and level 7 what level 6 has in free-
    action points (6, not the 7 its row says)."""
    import attrs

    from horizon_tui.content.ruleset import LevelRow

    by_level = {row.level: row for row in rules.levels}
    seven = attrs.evolve(by_level[7], free_action_points=7)
    nine = LevelRow(9, 12, {d: n + 1 for d, n in by_level[8].charges.items()}, 9)
    longer = attrs.evolve(rules, levels=[*[r for r in rules.levels if r.level < 7], seven, by_level[8], nine])
    assert progression.slots(9, rules) == progression.slots(12, longer) == 10
    assert progression.charges(12, longer) == {Difficulty.II: 6, Difficulty.III: 5, Difficulty.IV: 4,
                                               Difficulty.V: 3, Difficulty.VI: 2}
    assert progression.free_action_points(7, longer) == progression.free_action_points(12, longer) == 6
    assert progression.free_action_points(5, longer) == 5  # below 6: one a level, as the table says
