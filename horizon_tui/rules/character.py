"""A character's numbers from its file and the rules: totals, stats, level, slots, the sheet."""

from __future__ import annotations

from fractions import Fraction

import attrs

from horizon_tui.content.models import Character, Difficulty
from horizon_tui.content.ruleset import Ruleset
from horizon_tui.rules import progression
from horizon_tui.rules.combat import armor_reduction, attack_formula, crit_chance, normal_attack, with_armor_speed
from horizon_tui.rules.dice import parse_dice
from horizon_tui.rules.numbers import one_decimal, percent, whole
from horizon_tui.rules.stats import add_points, derived_stats


@attrs.frozen
class Build:
    """Everything the rules derive from a character file. Recompute on any change."""

    character: Character
    attributes: dict[str, int]  # totals: invested + species + bonus
    stats: dict[str, Fraction]  # with flat bonuses and the armor's speed penalty
    invested: int
    points_bought: int
    level: int
    next_point_cost: int
    slots: int
    charges: dict[Difficulty, int]
    free_action_points: int
    attack_min: Fraction
    attack_max: Fraction
    crit_chance: Fraction  # 0–1, normal attack


def attack_formula_text(character: Character, rules: Ruleset) -> str:
    """A character's own special feature wins over its species', which wins over the rules'."""
    return character.attack_formula or character.species.features.attack_formula or rules.attack.formula


def flat_bonuses(character: Character) -> dict[str, Fraction]:
    """Flat stat bonuses outside battle: the species' and the always-on passives' (R-3, R-6)."""
    flat: dict[str, Fraction] = dict(character.species.bonuses.stats)
    for ability in character.abilities:
        if ability.is_fixed:
            for stat, amount in ability.modifiers.items():
                flat[stat] = flat.get(stat, Fraction(0)) + amount
    return flat


_builds: dict[tuple[int, int], tuple[Character, Ruleset, Build]] = {}


def build(character: Character, rules: Ruleset) -> Build:
    """The character's numbers. Memoised on the (frozen) character and rules objects: a
    simulation forms thousands of battles from the same party."""
    key = (id(character), id(rules))
    hit = _builds.get(key)
    if hit is not None and hit[0] is character and hit[1] is rules:
        return hit[2]
    result = _build(character, rules)
    if len(_builds) > 512:
        _builds.clear()
    _builds[key] = (character, rules, result)
    return result


def _build(character: Character, rules: Ruleset) -> Build:
    attributes = add_points(character.attributes, character.species.bonuses.attributes, character.bonus)
    stats = with_armor_speed(derived_stats(attributes, flat_bonuses(character), health_scale=rules.derived_stats.health_scale),
                             armor_reduction(character.armor, rules))
    invested = sum(character.attributes.values())
    bought = progression.points_bought(invested, rules)
    level = progression.level_for(bought, rules)
    formula = attack_formula(attack_formula_text(character, rules))
    dice = parse_dice(character.weapon.damage)
    return Build(
        character=character,
        attributes=attributes,
        stats=stats,
        invested=invested,
        points_bought=bought,
        level=level,
        next_point_cost=progression.point_cost(bought + 1, rules.experience),
        slots=progression.slots(level, rules),
        charges=progression.charges(level, rules),
        free_action_points=progression.free_action_points(level, rules),
        attack_min=normal_attack(formula, dice.minimum, stats, attributes),
        attack_max=normal_attack(formula, dice.maximum, stats, attributes),
        crit_chance=crit_chance(stats["accuracy"], character.weapon, rules.attack),
    )


def sheet(b: Build) -> dict:
    """The sheet as INTERFACES.md `horizon sheet --json`: stats to one decimal, health whole."""
    c = b.character
    stats = {name: one_decimal(value) for name, value in b.stats.items()}
    stats["health"] = whole(b.stats["health"])
    return {
        "name": c.name,
        "species": c.species.name,
        "level": b.level,
        "points_bought": b.points_bought,
        "xp": c.xp,
        "next_point_cost": b.next_point_cost,
        "attributes": dict(b.attributes),
        "stats": stats,
        "slots": b.slots,
        "charges": {d.value: n for d, n in b.charges.items()},
        "free_action_points": b.free_action_points,
        "normal_attack": {"min": one_decimal(b.attack_min), "max": one_decimal(b.attack_max)},
        "weapon": {"name": c.weapon.name, "kind": c.weapon.kind.value, "damage": c.weapon.damage},
        "armor": None if c.armor is None else {"name": c.armor.name, "class": c.armor.armor_class},
        "crit_chance": percent(b.crit_chance),
        "loadout": list(c.loadout),
        "abilities": [a.name for a in c.abilities],
    }


def buy_point(character: Character, attribute: str, rules: Ruleset) -> Character:
    """R-4: spend the next point's XP on one attribute. Raises ValueError if XP is short."""
    b = build(character, rules)
    if b.next_point_cost > character.xp:
        raise ValueError(f"the next point costs {b.next_point_cost} XP; {character.name} has {character.xp}")
    invested = dict(character.attributes)
    invested[attribute] = invested.get(attribute, 0) + 1
    return attrs.evolve(character, attributes=invested, xp=character.xp - b.next_point_cost)
