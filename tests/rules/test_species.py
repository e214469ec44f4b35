"""R-3 species bonuses and their budget."""

from __future__ import annotations

from fractions import Fraction

import pytest

from horizon_tui.content.models import Bonuses, Species
from horizon_tui.rules.character import build
from horizon_tui.rules.species import bonus_cost, over_budget_reason, stat_bonus_cost
from horizon_tui.rules.validation import check_character

F = Fraction


def _species(attributes=None, stats=None) -> Species:
    return Species(name="Moth-kin", bonuses=Bonuses(attributes or {}, {k: F(v) for k, v in (stats or {}).items()}))


@pytest.mark.parametrize(
    ("stat", "amount", "points"),
    [("evasion", 3, 2), ("health", 40, 1), ("willpower", 5, 1), ("stealth", "0.5", 1),
     ("speed", "0.8", 2), ("charisma", 2, 1), ("spellpower", "2.5", 1)],
)
def test_r3_flat_stat_bonus_costs_points_of_the_main_attribute(stat, amount, points):
    """R-3 [H]: +3 evasion = 2 agility points; +40 health = 1 physical point; …"""
    assert stat_bonus_cost(stat, F(amount)) == points


def test_r3_budget_is_3_points(rules):
    assert rules.species.bonus_budget == 3


def test_r3_bonuses_within_budget_pass(rules):
    """R-3: agility +1 and +3 evasion are worth 3 points: exactly the budget."""
    species = _species({"agility": 1}, {"evasion": 3})
    assert bonus_cost(species) == 3
    assert over_budget_reason(species, rules.species.bonus_budget) is None


def test_r3_over_budget_is_refused_with_the_reason(rules):
    """R-3: perception +2 and +3 evasion are worth 4 > 3; the reason names the cost and the budget."""
    species = _species({"perception": 2}, {"evasion": 3})
    assert bonus_cost(species) == 4
    reason = over_budget_reason(species, rules.species.bonus_budget)
    assert reason is not None
    assert "4 attribute points" in reason and "evasion +3 (= 2 points)" in reason and "budget is 3" in reason


def test_r3_over_budget_custom_species_refused_unless_gm_approved(make_character, catalogue):
    """R-3: a custom species over budget is a problem on the character, unless gm_approved = true."""
    custom = {"name": "Moth-kin", "universe": "own", "bonuses": {"attributes": {"perception": 3}, "stats": {"evasion": 3}}}
    refused = check_character(make_character(species=custom), catalogue, "moth.toml")
    assert [(p.file, p.key) for p in refused] == [("moth.toml", "species.bonuses")]
    assert "5 attribute points" in refused[0].message and "gm_approved" in refused[0].message
    assert check_character(make_character(species=custom, gm_approved=True), catalogue, "moth.toml") == []


def test_r3_custom_species_bonuses_apply(make_character, rules):
    """R-3: a custom species' attribute and stat bonuses reach the derived stats."""
    custom = {"name": "Moth-kin", "bonuses": {"attributes": {"perception": 1}, "stats": {"evasion": 1.5}}}
    b = build(make_character(species=custom), rules)
    assert b.attributes["perception"] == 11
    # 19.1 + 0.3 (one perception) + 1.5 flat
    assert b.stats["evasion"] == F("20.9")


def test_r3_every_shipped_species_is_within_budget(catalogue):
    """R-3: the catalogue's species all fit the budget of 3 points."""
    budget = catalogue.rules.species.bonus_budget
    for key, species in catalogue.species.items():
        assert bonus_cost(species) <= budget, key
        assert over_budget_reason(species, budget) is None, key


def test_r3_catalogue_has_12_species_with_2_non_humanoid(catalogue):
    """R-3: any humanoid or not-so-humanoid species: at least 12 ship, at least 2 of them non-humanoid."""
    assert len(catalogue.species) >= 12
    assert sum(1 for s in catalogue.species.values() if not s.humanoid) >= 2
    assert "human" in catalogue.species
    assert bonus_cost(catalogue.species["human"]) == 0
