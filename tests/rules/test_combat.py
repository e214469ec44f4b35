"""R-9 attacks and damage: normal attack, hit chance, critical chance, armor, the damage pipeline."""

from __future__ import annotations

from fractions import Fraction

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from horizon_tui.content.models import Armor, Difficulty, Weapon, WeaponKind
from horizon_tui.rules.character import attack_formula_text, build, sheet
from horizon_tui.rules.combat import (
    with_armor_speed,
    armor_reduction,
    attack_formula,
    can_wear,
    crit_chance,
    damage,
    hit_chance,
    normal_attack,
)
from horizon_tui.rules.numbers import round_half_up
from horizon_tui.rules.stats import derived_stats

F = Fraction

# RULES.md R-9: class -> (damage and speed reduction in %, strength needed)
ARMOR_TABLE = {
    10: (5, 2), 9: (10, 3), 8: (15, 4), 7: (20, 6), 6: (25, 8),
    5: (30, 10), 4: (35, 13), 3: (40, 16), 2: (45, 20), 1: (55, 30),
}


def _armor(armor_class: int) -> Armor:
    return Armor(name=f"class {armor_class}", armor_class=armor_class)


def test_r9_normal_attack_of_the_worked_example(rules, example_attributes):
    """R-9: weapon 1 + 20.5×1.2 + 19.1 + 20×0.7 + 24.5×1.3 = 90.55 (exactly); a d8's 8 gives 97.55."""
    formula = attack_formula(rules.attack.formula)
    stats = derived_stats(example_attributes)
    assert normal_attack(formula, 1, stats, example_attributes) == F("90.55")
    assert normal_attack(formula, 8, stats, example_attributes) == F("97.55")


def test_r9_sheet_normal_attack_range_is_the_weapon_roll_through_the_formula(make_character, rules):
    """R-9 / INTERFACES: the dagger (1d8) example's normal attack runs 90.55 … 97.55."""
    b = build(make_character(), rules)
    assert (b.attack_min, b.attack_max) == (F("90.55"), F("97.55"))


def test_r9_species_feature_replaces_the_attack_formula(make_character, rules):
    """R-9/R-3: a species' own formula (Awakened Tree: strength×1.5, evasion×0.5) replaces the rules'."""
    character = make_character(species="treant")
    assert attack_formula_text(character, rules) == character.species.features.attack_formula
    b = build(character, rules)
    s = b.stats
    expected = 1 + s["strength"] * F("1.5") + s["evasion"] * F("0.5") + s["accuracy"] * F("0.7") + s["spellpower"] * F("1.3")
    assert b.attack_min == expected
    assert b.attack_min != build(make_character(), rules).attack_min


@pytest.mark.parametrize(
    ("accuracy", "evasion", "chance"),
    [
        (F(20), F("19.1"), F("0.718")),  # the worked example against itself
        (F(10), F(10), F("0.70")),
        (F(10), F(20), F("0.50")),
        (F("12.5"), F(0), F("0.95")),  # exactly at the top clamp
        (F(100), F(0), F("0.95")),  # clamped above
        (F(0), F(30), F("0.10")),  # exactly at the bottom clamp
        (F(0), F(100), F("0.10")),  # clamped below
    ],
)
def test_r9_hit_chance_is_clamped_70_plus_2_per_point(accuracy, evasion, chance, rules):
    """R-9: hit chance = clamp(0.70 + 0.02 × (accuracy − evasion), 0.10, 0.95); acc 20 eva 19.1 -> 0.718."""
    assert hit_chance(accuracy, evasion, rules.attack) == chance


@pytest.mark.parametrize(("accuracy", "chance"), [(20, F(1, 10)), (79, F("0.395")), (80, F(2, 5)), (100, F(2, 5)), (0, 0)])
def test_r9_crit_chance_short_blade_is_half_accuracy_percent_capped_at_40(accuracy, chance, catalogue, rules):
    """R-9: a dagger crits at accuracy ÷ 2 percent, at most 40%: accuracy 20 -> 10%, 100 -> 40%."""
    assert crit_chance(F(accuracy), catalogue.weapons["dagger"], rules.attack) == chance


@pytest.mark.parametrize("weapon_id", ["longsword", "greatsword", "spear", "longbow", "quarterstaff"])
def test_r9_crit_chance_is_zero_for_a_non_short_blade(weapon_id, catalogue, rules):
    """R-9: with a normal attack only short blades can crit."""
    assert crit_chance(F(100), catalogue.weapons[weapon_id], rules.attack) == 0


def test_r9_crit_chance_on_the_sheet_is_a_percentage(make_character, rules):
    """R-9: the example's dagger at accuracy 20 shows crit_chance 10.0; a longsword 0."""
    assert sheet(build(make_character(), rules))["crit_chance"] == 10.0
    assert sheet(build(make_character(weapon="longsword"), rules))["crit_chance"] == 0.0


def test_r9_armor_table_matches_rules_md(rules):
    """R-9: class 10 … 1 gives −5 … −55% and needs strength 2 … 30."""
    assert set(rules.armor_classes) == set(range(1, 11))
    for armor_class, (percent, strength) in ARMOR_TABLE.items():
        row = rules.armor_classes[armor_class]
        assert (row.reduction, row.strength) == (F(percent, 100), F(strength)), armor_class


def test_r9_armor_class_8_reduces_100_damage_to_85(rules):
    """R-9: class 8 takes 15% off: 100 damage -> 85."""
    reduction = armor_reduction(_armor(8), rules)
    assert reduction == F(15, 100)
    assert damage(F(100), armor=reduction, attack=rules.attack) == 85
    assert armor_reduction(None, rules) == 0


def test_r9_armor_slows_the_wearer_by_the_same_share(make_character, rules):
    """R-9: armor reduces the wearer's speed too: leather (class 9, −10%) takes 5.5 to 4.95."""
    b = build(make_character(armor="leather"), rules)
    assert b.stats["speed"] == F("4.95")


def test_r9_armor_speed_is_one_function_for_the_sheet_and_the_battle(make_character, rules, catalogue):
    """R-9: class 8 (−15%) takes speed 5.5 to 4.675; the sheet (`rules.character.build`) and a
    battle's stats (`engine.battle.recompute_stats`) both go through `with_armor_speed`."""
    from horizon_tui.content.encounters import EnemyDef
    from horizon_tui.engine.battle import stats
    from horizon_tui.engine.forming import PartyMember, create_battle
    from horizon_tui.engine.battlefield import Battlefield
    from horizon_tui.engine.encounter import EncounterSetup

    assert with_armor_speed({"speed": F("5.5")}, armor_reduction(_armor(8), rules)) == {"speed": F("4.675")}
    hero = make_character(armor="leather")
    foe = EnemyDef("foe", make_character(), 1, 0, "brute", "nearest", "f")
    setup = EncounterSetup(id="t", name="T", description="", difficulty="normal", xp=0, notes="",
                           battlefield=Battlefield.from_rows(["....."]), enemies=[(foe, (4, 0), "Foe")],
                           party_start=[(0, 0)], source="<test>")
    battle = create_battle(setup, [PartyMember(hero, "ai")], 1, catalogue, {"foe": foe})
    assert stats(battle.by_id[next(iter(battle.by_id))])["speed"] == build(hero, rules).stats["speed"] == F("4.95")


def test_r9_damage_pipeline_order(rules):
    """R-9 [H]: 90.55 × 2.0 (III) × crit 2 × (1 − 0.15) = 307.87 -> 308, rounded only at the end
    (rounding the base first would give 91 × 2 × 2 × 0.85 = 309.4 -> 309)."""
    multiplier = rules.difficulty(Difficulty.III).multiplier
    got = damage(F("90.55"), multiplier=multiplier, critical=True, armor=F(15, 100), attack=rules.attack)
    assert got == 308


def test_r9_damage_rounds_half_up(rules):
    """R-9: round half up to a whole number: 2.5 -> 3, 3.5 -> 4."""
    assert damage(F(5, 2), attack=rules.attack) == 3
    assert damage(F(7, 2), attack=rules.attack) == 4
    assert damage(F("97.55"), attack=rules.attack) == 98


fractions = st.fractions(min_value=-50, max_value=500, max_denominator=400)


@settings(max_examples=400, deadline=None)
@given(base=fractions, multiplier=fractions, armor=st.fractions(min_value=0, max_value=1, max_denominator=100),
       critical=st.booleans(), scale=st.fractions(min_value=0, max_value=5, max_denominator=20),
       crit_multiplier=st.fractions(min_value=1, max_value=4, max_denominator=10))
def test_r9_damage_is_the_fraction_pipeline_rounded_half_up_once(rules, base, multiplier, armor, critical, scale,
                                                                crit_multiplier):
    """R-9 [H]: `damage` works on the product's whole numerator and denominator; it is the
    number the Fractions give step by step, rounded half up once at the end (`round_half_up`),
    at least the rules' minimum for a hit, whatever the signs and denominators."""
    attack = attrs.evolve(rules.attack, damage_scale=scale, crit_multiplier=crit_multiplier)
    amount = base * multiplier * (crit_multiplier if critical else 1) * (1 - armor) * scale
    expected = max(attack.min_damage_on_hit, int(round_half_up(amount)))
    assert damage(base, multiplier=multiplier, critical=critical, armor=armor, attack=attack) == expected
    assert damage(int(base), attack=attack) == max(attack.min_damage_on_hit, int(round_half_up(int(base) * scale)))


def test_r9_a_hit_deals_at_least_1(rules):
    """R-9 [H]: at least 1 for a hit, even when armor would round it to 0."""
    assert damage(F(1, 10), armor=F(55, 100), attack=rules.attack) == 1
    assert damage(F(0), attack=rules.attack) == 1


@pytest.mark.parametrize("armor_class", sorted(ARMOR_TABLE))
def test_r9_can_wear_needs_the_tables_strength(armor_class, rules):
    """R-9 [H]: armor whose strength requirement (derived strength) is not met can't be worn."""
    need = F(ARMOR_TABLE[armor_class][1])
    armor = _armor(armor_class)
    assert can_wear(armor, need, rules)
    assert can_wear(armor, need + 100, rules)
    assert not can_wear(armor, need - F(1, 10), rules)


def test_r9_example_character_can_wear_up_to_class_2(make_character, rules):
    """R-9: strength 20.5 wears class 2 (needs 20) but not class 1 (needs 30)."""
    strength = build(make_character(), rules).stats["strength"]
    assert can_wear(_armor(2), strength, rules)
    assert not can_wear(_armor(1), strength, rules)


def test_r9_an_inline_short_blade_can_crit(rules):
    """R-9: an inline short blade (any kind) can crit; the same blade without the flag can't."""
    knife = Weapon(name="Bone knife", kind=WeaponKind.one_handed, damage="1d4", short_blade=True)
    plain = Weapon(name="Bone club", kind=WeaponKind.one_handed, damage="1d4")
    assert crit_chance(F(30), knife, rules.attack) == F(15, 100)
    assert crit_chance(F(30), plain, rules.attack) == 0
