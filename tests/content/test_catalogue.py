"""The shipped catalogue (data/): weapons, armor, species and rules data load and fit the rules."""

from __future__ import annotations

from collections import Counter

from horizon_tui.content.catalogue import load_catalogue
from horizon_tui.content.models import WeaponKind
from horizon_tui.rules.ranges import range_bounds, weapon_range
from horizon_tui.rules.validation import check_catalogue, check_weapon


def test_catalogue_loads_and_validates_clean(data_dir):
    """The shipped data has no problems at all."""
    catalogue = load_catalogue(data_dir)
    assert check_catalogue(catalogue) == []


def test_r9_r11_every_weapon_kind_has_at_least_two_weapons(catalogue):
    kinds = Counter(weapon.kind for weapon in catalogue.weapons.values())
    for kind in WeaponKind:
        assert kinds[kind] >= 2, kind


def test_r9_dagger_and_knife_are_short_blades(catalogue):
    """R-9: only short blades (knives, daggers) crit with a normal attack."""
    weapons = catalogue.weapons
    assert weapons["dagger"].short_blade and weapons["knife"].short_blade
    for key in ("longsword", "scimitar", "greatsword", "spear"):
        assert not weapons[key].short_blade, key
    for key, weapon in weapons.items():
        if weapon.short_blade:
            assert weapon.kind is WeaponKind.one_handed, key


def test_r11_every_weapon_range_within_its_kinds_bounds(catalogue, rules):
    """R-11: thrown 10, mage 10–15, crossbow 20–35, bow 30–50; each weapon's reach within its kind's."""
    ranged = 0
    for key, weapon in catalogue.weapons.items():
        low, high = range_bounds(weapon.kind, rules)
        assert low <= weapon_range(weapon, rules) <= high, key
        if weapon.range is not None:
            assert low <= weapon.range <= high, key
        ranged += low >= 10
        assert check_weapon(weapon, rules, "weapons.toml", key) == [], key
    assert ranged >= 10


def test_r11_range_bounds_match_rules_md(rules):
    expected = {
        "one_handed": (0, 0, 1), "two_handed": (0, 0, 1), "polearm": (1, 1, 2), "thrown": (10, 10, 15),
        "staff": (10, 15, 20), "wand": (10, 15, 20), "spell": (10, 15, 20), "crossbow": (20, 35, 45),
        "bow": (30, 50, None),
    }
    got = {kind.value: (row.normal_min, row.normal_max, row.strong) for kind, row in rules.ranges.kinds.items()}
    assert got == expected
    assert rules.ranges.mage_non_damaging == 50


def test_r9_armor_covers_classes_1_to_10(catalogue):
    assert {armor.armor_class for armor in catalogue.armor.values()} == set(range(1, 11))


def test_catalogue_ids_are_the_keys(catalogue):
    """Entries remember their id, so a saved character writes `weapon = "dagger"`, not a table."""
    for table in (catalogue.weapons, catalogue.armor, catalogue.species):
        for key, entry in table.items():
            assert entry.id == key


def test_r3_shipped_species_have_name_universe_and_description(catalogue):
    for key, species in catalogue.species.items():
        assert species.name and species.universe and species.description, key
