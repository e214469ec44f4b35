"""Rule helpers the player app's creation, equipment and ability screens ask for.

Pure functions over the catalogue data: the screens show what these return and never compute a
rule themselves (R-1, R-3, R-4, R-6, R-7, R-9).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import attrs

from horizon_tui.content.models import ATTRIBUTES, Ability, Armor, Character, Difficulty, Species
from horizon_tui.content.ruleset import Ruleset
from horizon_tui.rules.character import Build
from horizon_tui.rules.checks import check_attack_value, difficulty_check_chance
from horizon_tui.rules.combat import armor_strength_required, can_wear, damage
from horizon_tui.rules.numbers import whole
from horizon_tui.rules.progression import needs_difficulty_check
from horizon_tui.rules.ranges import ability_range
from horizon_tui.rules.species import bonus_cost, over_budget_reason

# --- the 42 points of creation --------------------------------------------------------


def starting_attributes(rules: Ruleset) -> dict[str, int]:
    """A fresh character: every attribute at its minimum (R-1); the rest of the points are free."""
    return {name: rules.creation.attribute_minimums.get(name, 0) for name in ATTRIBUTES}


def points_left(attributes: Mapping[str, int], rules: Ruleset) -> int:
    """Creation points not yet placed: 42 minus everything invested (R-4 [H]: minimums included)."""
    return rules.creation.starting_points - sum(attributes.values())


def raise_refusal(attributes: Mapping[str, int], attribute: str, rules: Ruleset) -> str | None:
    """Why one more creation point can't go into `attribute`, or None when it can."""
    if points_left(attributes, rules) <= 0:
        return f"all {rules.creation.starting_points} points are placed; lower another attribute first"
    return None


def lower_refusal(attributes: Mapping[str, int], attribute: str, rules: Ruleset) -> str | None:
    """Why `attribute` can't give a point back, or None when it can (R-1 minimums)."""
    minimum = rules.creation.attribute_minimums.get(attribute, 0)
    if attributes.get(attribute, 0) <= minimum:
        return f"{attribute} can't go below its minimum of {minimum} (R-1)"
    return None


def adjust_creation_point(
    attributes: Mapping[str, int], attribute: str, delta: int, rules: Ruleset
) -> dict[str, int]:
    """One point in (+1) or out (−1) of an attribute during creation; ValueError with the reason."""
    if attribute not in ATTRIBUTES:
        raise ValueError(f"unknown attribute {attribute!r}")
    if delta not in (1, -1):
        raise ValueError("creation points move one at a time")
    reason = raise_refusal(attributes, attribute, rules) if delta > 0 else lower_refusal(attributes, attribute, rules)
    if reason:
        raise ValueError(reason)
    changed = dict(attributes)
    changed[attribute] = changed.get(attribute, 0) + delta
    return changed


# --- species budget -------------------------------------------------------------------------


@attrs.frozen
class SpeciesBudget:
    cost: Fraction  # what the bonuses are worth in attribute points
    budget: Fraction
    reason: str | None  # why it is over budget, None when it fits

    @property
    def fits(self) -> bool:
        return self.reason is None


def species_budget(species: Species, rules: Ruleset) -> SpeciesBudget:
    budget = rules.species.bonus_budget
    return SpeciesBudget(bonus_cost(species), budget, over_budget_reason(species, budget))


# --- armor ----------------------------------------------------------------------------------


def armor_refusal(armor: Armor, strength: Fraction, rules: Ruleset, who: str = "the character") -> str | None:
    """Why `armor` can't be worn at this derived strength (R-9 [H]), or None when it can."""
    if armor.armor_class not in rules.armor_classes:
        return f"armor classes are 1–10, not {armor.armor_class}"
    if can_wear(armor, strength, rules):
        return None
    need = armor_strength_required(armor, rules)
    return (
        f"{armor.name} (class {armor.armor_class}) needs strength {float(need):g}; "
        f"{who} has {float(strength):.1f} (R-9)"
    )


# --- what an ability does at the character's level -------------------------------------


@attrs.frozen
class AbilityPreview:
    multiplier: Fraction
    damage_min: int | None  # whole damage before armor (R-9 order); None for non-damaging kinds
    damage_max: int | None
    check_needed: bool
    check_chance: Fraction  # 0–1; 1 when no check is needed
    check_basis: Fraction  # the normal attack the chance is computed from (R-7's check_attack_value)
    cooldown: int
    charges: int | None  # charges of its difficulty per battle at this level; None: unlimited (I)
    range: int  # cells (0 = adjacent), R-11
    heal: tuple[int, int] | None = None  # health a heal effect restores at once, lowest–highest


def ability_multiplier(ability: Ability, rules: Ruleset) -> Fraction:
    """A GM-approved override wins over the difficulty's multiplier (R-6)."""
    if ability.multiplier is not None:
        return ability.multiplier
    return rules.difficulty(ability.difficulty).multiplier


def solo_ability(ability: Ability, rules: Ruleset) -> Ability:
    """R-6 [H]: an ability as solo play uses it. Its overrides of the multiplier, range and critical
    rule need the GM, so without one they count only if the house rules allow player overrides
    (`[abilities] player_overrides`); otherwise the difficulty's multiplier, the weapon's range and
    the weapon's critical rule apply."""
    if rules.abilities.player_overrides or (ability.multiplier is None and ability.range is None
                                            and not ability.crit):
        return ability
    return attrs.evolve(ability, multiplier=None, range=None, crit=False)


def solo_character(character: Character, rules: Ruleset) -> Character:
    """The character as solo play fights it: every ability through `solo_ability` (R-6)."""
    abilities = [solo_ability(a, rules) for a in character.abilities]
    if all(new is old for new, old in zip(abilities, character.abilities, strict=True)):
        return character
    return attrs.evolve(character, abilities=abilities)


def heal_range(ability: Ability, b: Build, rules: Ruleset) -> tuple[int, int] | None:
    """R-10 heal: what the ability's heal effect restores at once — its magnitude, or with none the
    normal attack × the ability's multiplier, whole (as `engine.attacks` lands it); None without one."""
    spec = next((e for e in ability.effects if e.effect == "heal"), None)
    if spec is None:
        return None
    if spec.magnitude > 0:
        return whole(spec.magnitude), whole(spec.magnitude)
    multiplier = ability_multiplier(ability, rules)
    return whole(b.attack_min * multiplier), whole(b.attack_max * multiplier)


def ability_preview(ability: Ability, b: Build, rules: Ruleset) -> AbilityPreview:
    """Damage as a range (normal attack min–max × multiplier, rounded as R-9 does), the R-7 check
    chance at the current level (taken at the middle of the normal attack, as in battle), the
    cooldown and the charge pool of the ability's difficulty, and what a heal restores (R-10)."""
    multiplier = ability_multiplier(ability, rules)
    low = high = None
    if ability.deals_damage:
        low = damage(b.attack_min, multiplier=multiplier, attack=rules.attack)
        high = damage(b.attack_max, multiplier=multiplier, attack=rules.attack)
    charges = None if ability.difficulty is Difficulty.I else b.charges.get(ability.difficulty, 0)
    return AbilityPreview(
        multiplier=multiplier,
        damage_min=low,
        damage_max=high,
        check_needed=needs_difficulty_check(ability.difficulty, b.level, rules),
        check_chance=difficulty_check_chance(check_attack_value(b.attack_min, b.attack_max), ability.difficulty, b.level, rules),
        check_basis=check_attack_value(b.attack_min, b.attack_max),
        cooldown=rules.difficulty(ability.difficulty).cooldown,
        charges=charges,
        range=ability_range(ability, b.character.weapon, rules),
        heal=heal_range(ability, b, rules),
    )
