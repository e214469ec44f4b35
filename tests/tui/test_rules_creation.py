"""rules/creation.py: the rule helpers the creation and ability screens show (R-1, R-3, R-4, R-7, R-9).

Kept with the player app's tests because they were written for its screens; they are pure."""

from __future__ import annotations

from fractions import Fraction

import attrs
import pytest

from horizon_tui.content.models import Ability, AbilityKind, Bonuses, Character, Difficulty, Species
from horizon_tui.rules.character import build
from horizon_tui.rules.creation import (
    ability_preview, adjust_creation_point, armor_refusal, points_left, species_budget, starting_attributes,
)

WORKED = {"physical": 10, "agility": 10, "perception": 10, "cognition": 6, "faith": 5, "beauty": 1}


def worked_character(catalogue, **changes) -> Character:
    human = catalogue.species["human"]
    return attrs.evolve(Character(name="Iriel", species=human, weapon=catalogue.weapons["dagger"],
                                  attributes=dict(WORKED)), **changes)


def test_creation_starts_at_the_minimums(catalogue):
    rules = catalogue.rules
    start = starting_attributes(rules)
    assert start == {"physical": 1, "agility": 1, "perception": 1, "cognition": 1, "faith": 1, "beauty": 0}
    assert points_left(start, rules) == 37


def test_points_move_one_at_a_time_within_the_rules(catalogue):
    rules = catalogue.rules
    start = starting_attributes(rules)
    assert adjust_creation_point(start, "agility", 1, rules)["agility"] == 2
    with pytest.raises(ValueError, match="minimum of 1"):
        adjust_creation_point(start, "agility", -1, rules)
    with pytest.raises(ValueError, match="all 42 points"):
        adjust_creation_point(WORKED, "beauty", 1, rules)
    assert adjust_creation_point(WORKED, "beauty", -1, rules)["beauty"] == 0


def test_species_budget_says_why_it_is_over(catalogue):
    rules = catalogue.rules
    fits = Species(name="Moth-kin", bonuses=Bonuses({"perception": 1}, {"evasion": Fraction(3)}))
    assert species_budget(fits, rules).cost == 3 and species_budget(fits, rules).fits
    over = Species(name="Giant", bonuses=Bonuses({"physical": 4}))
    budget = species_budget(over, rules)
    assert not budget.fits and "worth 4 attribute points" in budget.reason and "budget is 3" in budget.reason


def test_armor_refusal_names_the_strength_needed(catalogue):
    rules = catalogue.rules
    plate = catalogue.armor["full_plate"] if "full_plate" in catalogue.armor else min(
        catalogue.armor.values(), key=lambda a: a.armor_class)
    reason = armor_refusal(plate, Fraction(41, 2), rules, "Iriel")
    assert reason and "needs strength 30" in reason and "Iriel has 20.5" in reason
    assert armor_refusal(catalogue.armor["leather"], Fraction(41, 2), rules) is None


def test_ability_preview_worked_example(catalogue):
    """Normal attack 90.6–97.6 (RULES.md R-2/INTERFACES worked example) × 1.5 for II."""
    character = worked_character(catalogue)
    b = build(character, catalogue.rules)
    lash = Ability(name="Lash", difficulty=Difficulty.II, kind=AbilityKind.damage)
    p = ability_preview(lash, b, catalogue.rules)
    assert (p.damage_min, p.damage_max) == (136, 146)  # 135.9… and 146.4 rounded half up
    assert not p.check_needed and p.check_chance == 1
    assert (p.cooldown, p.charges, p.range) == (1, 3, 0)

    nova = Ability(name="Nova", difficulty=Difficulty.IV, kind=AbilityKind.effect)
    p = ability_preview(nova, b, catalogue.rules)
    assert p.damage_min is None
    assert p.check_needed and p.check_chance == (b.attack_min + b.attack_max) / 2 / 220  # 94.05 / 220
    assert p.charges == 1 and p.cooldown == 3

    override = attrs.evolve(lash, multiplier=Fraction(2))
    assert ability_preview(override, b, catalogue.rules).damage_min == 181  # 90.6… × 2
