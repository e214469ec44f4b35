"""Rule checks on characters and the catalogue: everything a file can get wrong after it parses.

Each check returns `Problem`s (never raises) so `horizon validate` can list them all at once.
"""

from __future__ import annotations

import difflib
from collections import Counter
from pathlib import Path

from horizon_tui.content.catalogue import Catalogue, default_catalogue
from horizon_tui.content.files import locate, read_document
from horizon_tui.content.guard import check_ranges
from horizon_tui.content.models import (
    ATTRIBUTES,
    EFFECTS,
    STATS,
    Ability,
    AbilityKind,
    Character,
    Difficulty,
    Species,
    Target,
    Weapon,
)
from horizon_tui.content.ruleset import Ruleset
from horizon_tui.errors import DataError, Problem
from horizon_tui.rules.character import build
from horizon_tui.rules.combat import armor_strength_required, attack_formula
from horizon_tui.rules.dice import DiceError, parse_dice
from horizon_tui.rules.formula import FormulaError
from horizon_tui.rules.ranges import range_bounds
from horizon_tui.rules.species import over_budget_reason


def _unknown_names(names, known, file: str, key: str, what: str) -> list[Problem]:
    problems = []
    for name in names:
        if name not in known:
            close = difflib.get_close_matches(name, list(known), n=1)
            problems.append(Problem(file, f"{key}.{name}", f"unknown {what}", suggestion=close[0] if close else None))
    return problems


def check_weapon(weapon: Weapon, rules: Ruleset, file: str, key: str) -> list[Problem]:
    problems = []
    try:
        dice = parse_dice(weapon.damage)
        if dice.minimum < 0:
            problems.append(Problem(file, f"{key}.damage", f"{weapon.damage} can roll below 0 (lowest {dice.minimum})"))
    except DiceError as exc:
        problems.append(Problem(file, f"{key}.damage", str(exc)))
    low, high = range_bounds(weapon.kind, rules)
    if weapon.range is not None and not low <= weapon.range <= high:
        bounds = f"{low}" if low == high else f"{low}–{high}"
        problems.append(Problem(
            file, f"{key}.range",
            f"range {weapon.range} is outside the {weapon.kind.label} bounds of {bounds} cells (R-11)",
        ))
    return problems


def check_species(species: Species, rules: Ruleset, file: str, key: str, *, approved: bool = False) -> list[Problem]:
    problems = _unknown_names(species.bonuses.attributes, ATTRIBUTES, file, f"{key}bonuses.attributes", "attribute")
    problems += _unknown_names(species.bonuses.stats, STATS, file, f"{key}bonuses.stats", "stat")
    problems += _unknown_names(
        species.features.effect_immunities, EFFECTS, file, f"{key}features.effect_immunities", "effect"
    )
    if problems:
        return problems
    if species.features.attack_formula:
        try:
            attack_formula(species.features.attack_formula)
        except FormulaError as exc:
            problems.append(Problem(file, f"{key}features.attack_formula", str(exc)))
    reason = over_budget_reason(species, rules.species.bonus_budget)
    if reason and not approved:
        problems.append(Problem(
            file, f"{key}bonuses", f"over the species budget: {reason} (R-3); a GM may approve it with gm_approved = true",
        ))
    return problems


def check_ability(ability: Ability, file: str, key: str) -> list[Problem]:
    problems = []
    if ability.target is Target.area and not ability.radius:
        problems.append(Problem(file, f"{key}.radius", "an area ability needs a radius of at least 1"))
    if ability.target is Target.line and not ability.length:
        problems.append(Problem(file, f"{key}.length", "a line ability needs a length of at least 1"))
    if ability.kind is AbilityKind.companion and not ability.companion:
        problems.append(Problem(file, f"{key}.companion", "a companion ability names its companion"))
    if ability.multiplier is not None and ability.multiplier < 0:
        problems.append(Problem(file, f"{key}.multiplier", "a multiplier can't be negative"))
    if ability.range is not None and ability.range < 0:
        problems.append(Problem(file, f"{key}.range", "a range can't be negative"))
    for index, effect in enumerate(ability.effects):
        where = f"{key}.effects.{index}"
        if effect.effect not in EFFECTS:
            close = difflib.get_close_matches(effect.effect, EFFECTS, n=1)
            problems.append(Problem(file, f"{where}.effect", f"unknown effect {effect.effect!r}",
                                    suggestion=close[0] if close else None))
        if not 0 <= effect.chance <= 1:
            problems.append(Problem(file, f"{where}.chance", "a chance is between 0 and 1"))
        if effect.duration < 0:
            problems.append(Problem(file, f"{where}.duration", "a duration can't be negative"))
        if effect.effect == "buff" and effect.stat not in STATS:
            problems.append(Problem(file, f"{where}.stat", f"a buff names a stat, one of {', '.join(STATS)}"))
        if effect.effect == "disease" and effect.stat is not None and effect.stat not in ATTRIBUTES:
            problems.append(Problem(file, f"{where}.stat", f"a disease names an attribute, one of {', '.join(ATTRIBUTES)}"))
    problems += _unknown_names(ability.modifiers, STATS, file, f"{key}.modifiers", "stat")
    return problems


def loadout_problems(
    character: Character, rules: Ruleset, file: str = "<character>", *, level: int | None = None
) -> list[Problem]:
    """R-6: slotted abilities exist, fit the level's slots, and passives fit the charges.
    `level` is an enemy's or NPC's own (R-4); a character's comes from its points."""
    problems = []
    known = {a.name for a in character.abilities}
    for name in character.loadout:
        if name not in known:
            close = difflib.get_close_matches(name, list(known), n=1)
            problems.append(Problem(file, "loadout", f"{name!r} is not one of the character's abilities",
                                    suggestion=close[0] if close else None))
    duplicates = [n for n, c in Counter(character.loadout).items() if c > 1]
    for name in duplicates:
        problems.append(Problem(file, "loadout", f"{name!r} is slotted twice"))
    if problems:
        return problems
    level = level if level is not None else build(character, rules).level
    row = rules.level_row(level)
    slotted = effective_loadout(character)
    if len(slotted) > row.slots:
        fixed = sum(1 for a in slotted if a.is_fixed)
        problems.append(Problem(
            file, "loadout",
            f"{len(slotted)} abilities slotted ({fixed} of them non-replaceable passives) "
            f"but level {level} has {row.slots} slots (R-6)",
        ))
    reserved = Counter(a.difficulty for a in slotted if a.is_passive)
    for difficulty, count in reserved.items():
        available = row.charges.get(difficulty, 0)
        if count > available:
            problems.append(Problem(
                file, "loadout",
                f"{count} passives of difficulty {difficulty} each hold a charge, "
                f"but level {level} has {available} charges of {difficulty} (R-6)",
            ))
    return problems


def effective_loadout(character: Character) -> list[Ability]:
    """The slotted abilities: non-replaceable passives always, then the loadout's (R-6)."""
    fixed = [a for a in character.abilities if a.is_fixed]
    named = [a for name in character.loadout if (a := character.ability(name)) and not a.is_fixed]
    return fixed + named


def check_character(character: Character, catalogue: Catalogue, file: str = "<character>") -> list[Problem]:
    """A player character's file: the combatant checks, plus the 42 points of creation (R-4), and
    the limits a file is read with (a name's length, a number's range: content.guard), so what a
    form accepts can be opened again."""
    rules = catalogue.rules
    problems = check_ranges(character, file)
    if not character.name.strip():
        problems.append(Problem(file, "name", "a character needs a name"))
    if character.xp < 0:
        problems.append(Problem(file, "xp", "experience can't be negative"))
    invested = sum(character.attributes.values())
    if invested < rules.creation.starting_points:
        problems.append(Problem(
            file, "attributes",
            f"{invested} points invested; a character starts with {rules.creation.starting_points} (R-4)",
        ))
    return problems + check_combatant(character, catalogue, file)


def check_combatant(
    character: Character, catalogue: Catalogue, file: str, *, level: int | None = None
) -> list[Problem]:
    """What any combatant's file (character, enemy, NPC) can get wrong: attribute names and
    minimums (R-1), species (R-3), weapon (R-11), abilities (R-6), formula (R-9), armor (R-9),
    and the loadout at its level (its own, or the one its points give)."""
    rules = catalogue.rules
    problems = _unknown_names(character.attributes, ATTRIBUTES, file, "attributes", "attribute")
    problems += _unknown_names(character.bonus, ATTRIBUTES, file, "bonus", "attribute")
    for attribute in ATTRIBUTES:
        minimum = rules.creation.attribute_minimums.get(attribute, 0)
        value = character.attributes.get(attribute, 0)
        if value < minimum:
            problems.append(Problem(file, f"attributes.{attribute}", f"{value} is below the minimum of {minimum} (R-1)"))
    species_key = "" if character.species.id in catalogue.species else "species."
    problems += check_species(character.species, rules, file, species_key, approved=character.gm_approved)
    problems += check_weapon(character.weapon, rules, file, "weapon")
    names = Counter(a.name for a in character.abilities)
    for index, ability in enumerate(character.abilities):
        problems += check_ability(ability, file, f"abilities.{index}")
        if names[ability.name] > 1:
            problems.append(Problem(file, f"abilities.{index}.name", f"two abilities are called {ability.name!r}"))
    if character.attack_formula:
        try:
            attack_formula(character.attack_formula)
        except FormulaError as exc:
            problems.append(Problem(file, "attack_formula", str(exc)))
    if character.armor is not None and character.armor.armor_class not in rules.armor_classes:
        # checked before build(), which looks the class up
        problems.append(Problem(file, "armor.class", f"armor classes are 1–10, not {character.armor.armor_class}"))
    if problems:
        return problems  # the checks below compute stats and need sound inputs
    b = build(character, rules)
    if character.armor is not None:
        need = armor_strength_required(character.armor, rules)
        if b.stats["strength"] < need:
            problems.append(Problem(
                file, "armor",
                f"{character.armor.name} (class {character.armor.armor_class}) needs strength {float(need):g}; "
                f"{character.name} has {float(b.stats['strength']):.1f} (R-9)",
            ))
    problems += loadout_problems(character, rules, file, level=level)
    return problems


def check_catalogue(catalogue: Catalogue) -> list[Problem]:
    rules = catalogue.rules
    root = catalogue.root
    problems = check_ruleset(rules, str(root / "rules.toml") if root else "rules.toml")
    weapons_file = str(root / "weapons.toml") if root else "weapons.toml"
    for key, weapon in catalogue.weapons.items():
        problems += check_weapon(weapon, rules, weapons_file, key)
    armor_file = str(root / "armor.toml") if root else "armor.toml"
    for key, armor in catalogue.armor.items():
        if armor.armor_class not in rules.armor_classes:
            problems.append(Problem(armor_file, f"{key}.class", f"armor classes are 1–10, not {armor.armor_class}"))
    for key, species in catalogue.species.items():
        file = str(root / "species" / f"{key}.toml") if root else f"species/{key}.toml"
        problems += check_species(species, rules, file, "")
    return problems


def check_ruleset(rules: Ruleset, file: str) -> list[Problem]:
    """Sanity of the rules data a GM may edit: rising thresholds, no negative numbers."""
    problems = []
    if not rules.levels:
        return [Problem(file, "levels", "the level table is empty")]
    previous = None
    for index, row in enumerate(rules.levels):
        if previous is not None and row.level != previous + 1:
            problems.append(Problem(file, f"levels.{index}.level", f"levels must run 1, 2, 3… (got {row.level} after {previous})"))
        previous = row.level
        if row.slots < 0 or row.free_action_points < 0:
            problems.append(Problem(file, f"levels.{index}", "slots and free-action points can't be negative"))
        for difficulty, count in row.charges.items():
            if count < 0:
                problems.append(Problem(file, f"levels.{index}.charges.{difficulty}", "charges can't be negative"))
    missing = [d.value for d in Difficulty if d not in rules.difficulties]
    if missing:
        problems.append(Problem(file, "difficulties", f"missing difficulties: {', '.join(missing)}"))
        return problems
    ordered = [rules.difficulties[d] for d in Difficulty]
    for d, (low, high) in zip(list(Difficulty)[1:], zip(ordered, ordered[1:])):
        if high.threshold < low.threshold:
            problems.append(Problem(file, f"difficulties.{d}.threshold", "thresholds must rise with difficulty"))
        if high.multiplier < low.multiplier:
            problems.append(Problem(file, f"difficulties.{d}.multiplier", "multipliers must rise with difficulty"))
    for d, row in zip(Difficulty, ordered):
        if row.cooldown < 0:
            problems.append(Problem(file, f"difficulties.{d}.cooldown", "a cooldown can't be negative"))
    shares = rules.checks.failure_fizzle + rules.checks.failure_self + rules.checks.failure_random
    if shares != 1:
        problems.append(Problem(file, "checks", f"the failure outcomes must add up to 1 (they add up to {float(shares):g})"))
    for key, row in rules.armor_classes.items():
        if not 0 <= row.reduction < 1:
            problems.append(Problem(file, f"armor_classes.{key}.reduction", "a reduction is between 0 and 1"))
    try:
        attack_formula(rules.attack.formula)
    except FormulaError as exc:
        problems.append(Problem(file, "attack.formula", str(exc)))
    for key, value in (("attack.damage_scale", rules.attack.damage_scale),
                       ("derived_stats.health_scale", rules.derived_stats.health_scale)):
        if value <= 0:
            problems.append(Problem(file, key, f"a pace scale is a number above 0 (1 = the source's numbers), not {float(value):g}"))
    for key, least in (("min_move", 0), ("difficult_cost", 1), ("diagonal_cost", 1), ("round_cap", 1), ("max_size", 1)):
        value = getattr(rules.turns, key)
        if value < least:
            problems.append(Problem(file, f"turns.{key}", f"must be at least {least} (got {value})"))
    for key in ("initiative_die",):
        try:
            parse_dice(getattr(rules.turns, key))
        except DiceError as exc:
            problems.append(Problem(file, f"turns.{key}", str(exc)))
    return problems


def checked_catalogue() -> Catalogue:
    """The data folder's catalogue, checked as `horizon validate` checks it (`check_catalogue`: the
    rules, weapons, armor and species), for the commands that compute with it: a GM's
    `diagonal_cost = -1`, `damage = "x"` or armor `class = -1` is named with its file and line, not
    met as an internal error in the first turn."""

    catalogue = default_catalogue()
    problems = check_catalogue(catalogue)
    if problems:
        located = []
        for file in dict.fromkeys(p.file for p in problems):
            mine = [p for p in problems if p.file == file]
            located += locate(mine, read_document(Path(file))[1]) if Path(file).is_file() else mine
        raise DataError(located)
    return catalogue
