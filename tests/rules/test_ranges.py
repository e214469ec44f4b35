"""R-11 weapon ranges: distance counts the cells between (0 = adjacent), ranges per kind."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from horizon_tui.content.models import Ability, AbilityKind, Difficulty, Target, Weapon, WeaponKind
from horizon_tui.rules.ranges import ability_range, can_hit_fled, distance, in_range, weapon_range

NEIGHBOURS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def _ability(difficulty="I", kind="damage", target="enemy", **kwargs) -> Ability:
    return Ability(
        name="test", difficulty=Difficulty(difficulty), kind=AbilityKind(kind), target=Target(target), **kwargs
    )


@pytest.mark.parametrize("step", NEIGHBOURS)
def test_r11_adjacent_including_diagonal_is_distance_0(step):
    """R-11: 0 = adjacent, diagonals included."""
    assert distance((5, 5), (5 + step[0], 5 + step[1])) == 0


def test_r11_distance_counts_cells_between():
    """R-11: (0,0) to (3,1) has 2 cells between; (0,0) to (49,49) on the largest field has 48."""
    assert distance((0, 0), (3, 1)) == 2
    assert distance((0, 0), (49, 49)) == 48
    assert distance((10, 2), (2, 10)) == 7


@settings(max_examples=100, deadline=None)
@given(
    r=st.integers(0, 50),
    x=st.integers(0, 49), y=st.integers(0, 49),
    dx=st.integers(-51, 51), dy=st.integers(-51, 51),
)
def test_r11_range_r_reaches_chebyshev_r_plus_1(r, x, y, dx, dy):
    """R-11: range r reaches every cell whose Chebyshev distance max(|dx|, |dy|) is at most r + 1."""
    if (dx, dy) == (0, 0):
        return
    assert in_range((x, y), (x + dx, y + dy), r) == (max(abs(dx), abs(dy)) <= r + 1)


@pytest.mark.parametrize(
    ("weapon_id", "reach"),
    [("dagger", 0), ("greatsword", 0), ("spear", 1), ("javelin", 10), ("quarterstaff", 10),
     ("runestaff", 15), ("willow_wand", 12), ("ember_bolt", 12), ("light_crossbow", 25), ("longbow", 45)],
)
def test_r11_normal_attack_range_per_weapon(weapon_id, reach, catalogue, rules):
    """R-11: melee 0, polearm 1, thrown 10, mage 10–15, crossbow 20–35, bow 30–50, per weapon."""
    assert weapon_range(catalogue.weapons[weapon_id], rules) == reach


def test_r11_weapon_without_own_range_uses_its_kinds_lowest(rules):
    """R-11: an inline staff that names no range reaches the kind's lowest, 10."""
    staff = Weapon(name="Stick", kind=WeaponKind.staff, damage="1d4")
    assert weapon_range(staff, rules) == 10


@pytest.mark.parametrize(
    ("weapon_id", "normal", "strong"),
    [("longsword", 0, 1), ("maul", 0, 1), ("halberd", 1, 2), ("javelin", 10, 15),
     ("runestaff", 15, 20), ("crystal_wand", 10, 20), ("frost_shard", 14, 20), ("heavy_crossbow", 35, 45)],
)
def test_r11_abilities_v_and_vi_use_the_strong_range(weapon_id, normal, strong, catalogue, rules):
    """R-11: damage abilities I–IV reach as far as the normal attack; V and VI use the kind's strong range."""
    weapon = catalogue.weapons[weapon_id]
    for difficulty in ("I", "II", "III", "IV"):
        assert ability_range(_ability(difficulty), weapon, rules) == normal
    for difficulty in ("V", "VI"):
        assert ability_range(_ability(difficulty), weapon, rules) == strong


def test_r11_bow_has_no_strong_range(catalogue, rules):
    """R-11: bows have "—" for V and VI: they keep the bow's own range."""
    longbow = catalogue.weapons["longbow"]
    assert ability_range(_ability("VI"), longbow, rules) == 45


@pytest.mark.parametrize("weapon_id", ["quarterstaff", "willow_wand", "ember_bolt"])
def test_r11_mage_non_damaging_ability_reaches_50_if_target_seen(weapon_id, catalogue, rules):
    """R-11: a mage's non-damaging single-target ability reaches 50 once the target was seen."""
    weapon = catalogue.weapons[weapon_id]
    for target in ("enemy", "ally"):
        effect = _ability("II", kind="effect", target=target)
        assert ability_range(effect, weapon, rules, target_seen=True) == 50
        assert ability_range(effect, weapon, rules, target_seen=False) == weapon_range(weapon, rules)


def test_r11_mage_50_excludes_damage_area_and_non_mages(catalogue, rules):
    """R-11: not for damaging abilities, not for mass/area ones, not for non-mage weapons."""
    staff, bow = catalogue.weapons["quarterstaff"], catalogue.weapons["longbow"]
    assert ability_range(_ability("II"), staff, rules) == 10
    assert ability_range(_ability("II", kind="effect", target="area", radius=2), staff, rules) == 10
    assert ability_range(_ability("V", kind="effect", target="area", radius=2), staff, rules) == 20
    assert ability_range(_ability("II", kind="effect"), bow, rules) == 45


def test_r11_gm_override_wins(catalogue, rules):
    """R-11 / R-6: an ability's GM-approved range overrides everything."""
    dagger, staff = catalogue.weapons["dagger"], catalogue.weapons["quarterstaff"]
    assert ability_range(_ability("VI", range=7), dagger, rules) == 7
    assert ability_range(_ability("II", kind="effect", range=3), staff, rules) == 3


def test_r11_only_a_bows_vi_ability_can_hit_a_fled_target(catalogue, rules):
    """R-11: difficulty-VI bow abilities can hit a target that fled; nothing else can."""
    bow, crossbow = catalogue.weapons["longbow"], catalogue.weapons["heavy_crossbow"]
    assert can_hit_fled(_ability("VI"), bow)
    assert not can_hit_fled(_ability("V"), bow)
    assert not can_hit_fled(_ability("VI"), crossbow)
    assert rules.ranges.bow_fled_hit_factor == 0.5
