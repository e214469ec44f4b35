"""AI behaviour profiles (`data/ai.toml`): each a short, prioritised list of rules.

The file is one table per profile; an enemy file's `ai` names one. A rule says what to do
(`do`), optionally when (`when` + `value`), and with what parameters. Every number here is a
house default [H]: RULES.md is silent on how enemies think, so a GM tunes them in the file.
The engine (`engine.ai`) plays the rules; this module only reads and checks them.
"""

from __future__ import annotations

import difflib
from fractions import Fraction
from pathlib import Path
from typing import Any

import attrs

from horizon_tui.content.catalogue import data_dir
from horizon_tui.content.convert import structure
from horizon_tui.content.files import read_document, with_lines
from horizon_tui.content.guard import LIMIT
from horizon_tui.content.models import Difficulty
from horizon_tui.errors import DataError, Problem

FILE_NAME = "ai.toml"

# What a rule can do, and what the engine makes of it (shown in errors and docs).
ACTIONS: dict[str, str] = {
    "flee": "walk to the nearest edge of the battlefield and step off it (R-8: fled)",
    "heal_ally": "heal the most hurt ally (below `value` of its health with `when = \"ally_health_below\"`)",
    "cleanse_ally": "end a negative effect on an ally",
    "buff_ally": "put a buff on the ally nearest the enemy that lacks one",
    "keep_range": "step away from enemies nearer than `min` cells, keeping line of sight to the target",
    "use_best_ability": "use the ability worth most now, among those whose check passes with `min_chance`",
    "attack": "a normal attack on the target, if it is in reach",
    "approach": "walk toward the target until `stop_at` cells away (default: the weapon's reach)",
    "withdraw": "walk away from the enemies with the movement left",
    "hunt": "no enemy in sight: go where the side last saw one, else cross the field",
}
MOVES = frozenset({"flee", "keep_range", "approach", "withdraw", "hunt"})
USES_ABILITIES = frozenset({"heal_ally", "cleanse_ally", "buff_ally", "use_best_ability"})

# Conditions a rule may hold under; health ones compare a share of health (0–1).
CONDITIONS: dict[str, str] = {
    "health_below": "its own health is below `value` of its maximum",
    "ally_health_below": "an ally's health is below `value` of its maximum",
    "target_health_above": "the target's health is above `value` of its maximum",
    "target_health_below": "the target's health is below `value` of its maximum",
    "enemy_within": "an enemy it sees is at most `value` cells away",
    "alone": "no ally of its side is left in the battle",
    "with_allies": "at least one ally of its side is still in the battle",
}
SHARE_CONDITIONS = frozenset({"health_below", "ally_health_below", "target_health_above", "target_health_below"})


@attrs.frozen
class Condition:
    when: str
    value: Fraction | None = None


@attrs.frozen
class Rule:
    do: str
    when: str | None = None
    value: Fraction | None = None
    # keep_range: the fewest cells to keep between it and any enemy it sees
    min: int | None = attrs.field(default=None, metadata=LIMIT("cells"))
    # approach: how many cells from the target to stop
    stop_at: int | None = attrs.field(default=None, metadata=LIMIT("cells"))
    min_chance: Fraction = Fraction(0)  # abilities: skip those whose difficulty check is less likely
    save_strong_for: Condition | None = None  # use_best_ability: strong abilities only on such targets
    strong_from: Difficulty = Difficulty.V  # ... and "strong" means this difficulty and above
    after_attack: bool = False  # a move that runs only once the turn's action is spent
    chance: Fraction = Fraction(1)  # tried with this chance (the battle's random source)

    @property
    def condition(self) -> Condition | None:
        return None if self.when is None else Condition(self.when, self.value)


@attrs.frozen
class Profile:
    rules: list[Rule]
    description: str = ""


@attrs.frozen
class AiProfiles:
    profiles: dict[str, Profile]
    source: str = ""

    def __contains__(self, name: object) -> bool:
        return name in self.profiles

    def __getitem__(self, name: str) -> Profile:
        return self.profiles[name]

    def names(self) -> list[str]:
        return list(self.profiles)


def _choice(value: str, known, file: str, key: str, what: str) -> list[Problem]:
    if value in known:
        return []
    close = difflib.get_close_matches(value, list(known), n=1)
    return [Problem(file, key, f"unknown {what} {value!r}; known: {', '.join(known)}",
                    suggestion=close[0] if close else None)]


def _check_condition(condition: Condition, file: str, key: str) -> list[Problem]:
    """`key` is where `when` is written; `value` sits beside it."""
    base = key.rsplit(".", 1)[0] if "." in key else ""
    value_key = f"{base}.value" if base else "value"
    problems = _choice(condition.when, CONDITIONS, file, key, "condition")
    if problems:
        return problems
    value = condition.value
    if condition.when in ("alone", "with_allies"):
        if value is not None:
            problems.append(Problem(file, value_key, f"`{condition.when}` takes no value"))
    elif value is None:
        problems.append(Problem(file, value_key, f"`{condition.when}` needs a value"))
    elif condition.when in SHARE_CONDITIONS and not 0 < value <= 1:
        problems.append(Problem(file, value_key, f"a share of health between 0 and 1, e.g. 0.4, not {float(value):g}"))
    elif condition.when == "enemy_within" and (value < 0 or value.denominator != 1):
        problems.append(Problem(file, value_key, f"a whole number of cells, not {float(value):g}"))
    return problems


def check_rule(rule: Rule, file: str, key: str) -> list[Problem]:
    """What a rule can get wrong after it parses: unknown names, parameters that don't fit."""
    problems = _choice(rule.do, ACTIONS, file, f"{key}.do", "rule")
    if problems:
        return problems
    if rule.when is not None:
        problems += _check_condition(Condition(rule.when, rule.value), file, f"{key}.when")
    elif rule.value is not None:
        problems.append(Problem(file, f"{key}.value", "a value needs a `when` to compare with"))
    for name, allowed in (("min", {"keep_range"}), ("stop_at", {"approach"}),
                          ("save_strong_for", {"use_best_ability"})):
        if getattr(rule, name) is not None and rule.do not in allowed:
            problems.append(Problem(file, f"{key}.{name}", f"only for {', '.join(sorted(allowed))}, not {rule.do}"))
    if rule.do == "keep_range" and rule.min is None:
        problems.append(Problem(file, f"{key}.min", "keep_range needs `min`, the cells to keep from the enemy"))
    for name in ("min", "stop_at"):
        value = getattr(rule, name)
        if value is not None and value < 0:
            problems.append(Problem(file, f"{key}.{name}", f"cells can't be negative, not {value}"))
    if rule.min_chance and rule.do not in USES_ABILITIES:
        problems.append(Problem(file, f"{key}.min_chance", f"only for rules that use abilities, not {rule.do}"))
    if not 0 <= rule.min_chance <= 1:
        problems.append(Problem(file, f"{key}.min_chance", "a chance between 0 and 1"))
    if not 0 < rule.chance <= 1:
        problems.append(Problem(file, f"{key}.chance", "a chance above 0, at most 1"))
    if rule.after_attack and rule.do not in MOVES:
        problems.append(Problem(file, f"{key}.after_attack", f"only moves can follow the action, not {rule.do}"))
    if rule.save_strong_for is not None:
        problems += _check_condition(rule.save_strong_for, file, f"{key}.save_strong_for.when")
    return problems


def _profile_from_dict(name: str, table: dict[str, Any], file: str) -> Profile:
    """One profile, each rule structured on its own so that every bad rule is reported."""
    table = dict(table)
    rules_data = table.pop("rules", None)
    problems: list[Problem] = []
    description = ""
    try:
        description = structure(table, _ProfileHead, file, (name,)).description
    except DataError as exc:
        problems += exc.problems
    rules: list[Rule] = []
    if rules_data is None:
        problems.append(Problem(file, name, f"a profile needs its rules: add [[{name}.rules]] tables"))
    elif not isinstance(rules_data, list):
        problems.append(Problem(file, f"{name}.rules", f"expected a list of rules ([[{name}.rules]] tables)"))
    else:
        if not rules_data:
            problems.append(Problem(file, f"{name}.rules", "a profile needs at least one rule"))
        for index, item in enumerate(rules_data):
            key = f"{name}.rules.{index}"
            try:
                rule = structure(item, Rule, file, (name, "rules", str(index)))
            except DataError as exc:
                problems += exc.problems
                continue
            problems += check_rule(rule, file, key)
            rules.append(rule)
    if problems:
        raise DataError(problems)
    return Profile(rules, description)


@attrs.frozen
class _ProfileHead:
    description: str = ""


def profiles_from_dict(data: dict[str, Any], file: str) -> AiProfiles:
    """Every profile of a document, or DataError with every problem (keys without lines)."""
    problems: list[Problem] = []
    profiles: dict[str, Profile] = {}
    for name, table in data.items():
        if not isinstance(table, dict):
            problems.append(Problem(file, name, "expected a table: a profile with its [[rules]]"))
            continue
        try:
            profiles[name] = _profile_from_dict(name, table, file)
        except DataError as exc:
            problems += exc.problems
    if not data:
        problems.append(Problem(file, "", "no profiles: expected tables like [brute] with [[brute.rules]]"))
    if problems:
        raise DataError(problems)
    return AiProfiles(profiles, file)


def load_ai_profiles(path: Path) -> AiProfiles:
    data, text = read_document(path)
    try:
        return profiles_from_dict(data, str(path))
    except DataError as exc:
        raise with_lines(exc, text) from None


_cache: dict[tuple[Path, int], AiProfiles] = {}


def cached_ai_profiles(path: Path) -> AiProfiles:
    """`load_ai_profiles` once per file version (the simulator forms thousands of battles)."""
    try:
        stamp = path.stat().st_mtime_ns
    except OSError:
        stamp = -1
    key = (path, stamp)
    found = _cache.get(key)
    if found is None:
        found = _cache[key] = load_ai_profiles(path)
    return found


def profiles_path(root: Path | None) -> Path:
    """The profiles of a catalogue folder (`data/ai.toml`); the shipped ones without a folder."""
    return (root or data_dir()) / FILE_NAME
