"""R-9 attacks and damage: the normal attack, hit and critical chances, armor, the pipeline."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from horizon_tui.content.models import ATTRIBUTES, STATS, Armor, Weapon
from horizon_tui.content.ruleset import AttackRules, Ruleset
from horizon_tui.rules.formula import Formula, compile_formula
from horizon_tui.rules.numbers import clamp, whole_of_ratio

FORMULA_NAMES: frozenset[str] = frozenset(("weapon",) + STATS + ATTRIBUTES)


def attack_formula(text: str) -> Formula:
    """A normal-attack formula (the rules' default or a special feature's), compiled once."""
    return compile_formula(text, FORMULA_NAMES)


def normal_attack(
    formula: Formula,
    weapon_roll: int,
    stats: Mapping[str, Fraction],
    attributes: Mapping[str, int],
) -> Fraction:
    """R-9 [S]: weapon damage + strength×1.2 + evasion + accuracy×0.7 + spellpower×1.3
    (or the character's own formula), exactly."""
    values: dict[str, Fraction | int] = {"weapon": weapon_roll}
    values.update(stats)
    values.update(attributes)
    return formula.evaluate(values)


def hit_chance(accuracy: Fraction, evasion: Fraction, attack: AttackRules) -> Fraction:
    """R-9: clamp(70% + 2% × (accuracy − evasion), 10%, 95%)."""
    raw = attack.hit_base + attack.hit_per_point * (Fraction(accuracy) - Fraction(evasion))
    return clamp(raw, attack.hit_min, attack.hit_max)


def crit_chance(accuracy: Fraction, weapon: Weapon, attack: AttackRules) -> Fraction:
    """R-9: a normal attack crits only with a short blade; accuracy ÷ 2 percent, at most 40%.
    Returned as a probability (0–1)."""
    if not weapon.short_blade:
        return Fraction(0)
    percent = min(Fraction(accuracy) * attack.crit_per_accuracy, attack.crit_cap)
    return max(Fraction(0), percent) / 100


def armor_reduction(armor: Armor | None, rules: Ruleset) -> Fraction:
    """R-9: the share of damage (and of speed) an armor takes off."""
    if armor is None:
        return Fraction(0)
    return rules.armor_classes[armor.armor_class].reduction


def with_armor_speed(stats: dict[str, Fraction], reduction: Fraction) -> dict[str, Fraction]:
    """R-9 [S]: armor takes the same share off its wearer's speed as off the damage it takes
    (`armor_reduction`). Changes `stats` in place and returns it. Worked: speed 5.5 in class-8
    armor (15%) is 4.675, so 4 cells a turn (R-8)."""
    stats["speed"] *= 1 - reduction
    return stats


def armor_strength_required(armor: Armor, rules: Ruleset) -> Fraction:
    return rules.armor_classes[armor.armor_class].strength


def can_wear(armor: Armor, strength: Fraction, rules: Ruleset) -> bool:
    """R-9 [H]: armor whose strength requirement is not met can't be equipped."""
    return Fraction(strength) >= armor_strength_required(armor, rules)


def damage(
    base: Fraction,
    *,
    multiplier: Fraction = Fraction(1),
    critical: bool = False,
    armor: Fraction = Fraction(0),
    attack: AttackRules,
) -> int:
    """R-9 [H] order: normal attack damage → × ability multiplier → × critical → × (1 − armor)
    → × the pace knob `damage_scale` → round half up to a whole number, at least 1 for a hit."""
    # The product's numerator and denominator in whole numbers, rounded once (`whole_of_ratio`):
    # the same number as multiplying Fractions step by step, without a Fraction built (and
    # reduced) at each step: a battle's blows land here.
    factors = [base if isinstance(base, (int, Fraction)) else Fraction(base), multiplier, 1 - armor, attack.damage_scale]
    if critical:
        factors.append(attack.crit_multiplier)
    numerator, denominator = 1, 1
    for factor in factors:
        numerator *= factor.numerator
        denominator *= factor.denominator
    return max(attack.min_damage_on_hit, whole_of_ratio(numerator, denominator))
