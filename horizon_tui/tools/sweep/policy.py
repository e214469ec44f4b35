"""The sweep's house choices (`data/sweep.toml`): how a party is raised to a level and sized,
and the win rate `--rate` aims at.

Raising follows R-4 exactly — 10 points bought per level, the k-th costing 10 + 5·(k−1) XP,
bought one at a time through `rules.character.buy_point` — and only the choice of attribute for
each point is the policy's. A party of N takes its first N members; a larger one repeats them
in order ("Brakka", …, then "Brakka 2").
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path

import attrs

from horizon_tui.content.catalogue import data_dir
from horizon_tui.content.convert import structure
from horizon_tui.content.files import read_document, with_lines
from horizon_tui.content.models import ATTRIBUTES, Character
from horizon_tui.content.ruleset import Ruleset
from horizon_tui.errors import DataError, Problem
from horizon_tui.rules import progression
from horizon_tui.rules.character import build, buy_point

FILE_NAME = "sweep.toml"
POLICIES = ("proportional",)


@attrs.frozen
class RaiseRules:
    policy: str = "proportional"
    weights: dict[str, dict[str, int]] = attrs.field(factory=dict)  # character name -> attribute -> weight


@attrs.frozen
class SweepPolicy:
    target_win_rate: float = 0.75
    raising: RaiseRules = attrs.field(factory=RaiseRules)  # the file's [raise] table
    schema: int = 1


def _from_dict(data: dict, file: str) -> SweepPolicy:
    data = dict(data)
    raw_raise = data.pop("raise", {})
    if "raising" in data:  # the field's name in code; the file says [raise]
        raise DataError([Problem(file, "raising", "unknown key", suggestion="raise")])
    policy = structure(data, SweepPolicy, file)
    raise_rules = structure(raw_raise, RaiseRules, file, ("raise",))
    problems = []
    if not 0 < policy.target_win_rate < 1:
        problems.append(Problem(file, "target_win_rate", f"a win rate between 0 and 1 (exclusive), not {policy.target_win_rate:g}"))
    if raise_rules.policy not in POLICIES:
        close = difflib.get_close_matches(raise_rules.policy, POLICIES, n=1)
        problems.append(Problem(file, "raise.policy", f"unknown policy {raise_rules.policy!r}; known: {', '.join(POLICIES)}",
                                suggestion=close[0] if close else None))
    for name, weights in raise_rules.weights.items():
        for attribute, weight in weights.items():
            if attribute not in ATTRIBUTES:
                close = difflib.get_close_matches(attribute, ATTRIBUTES, n=1)
                problems.append(Problem(file, f"raise.weights.{name}.{attribute}",
                                        f"not an attribute ({', '.join(ATTRIBUTES)})", suggestion=close[0] if close else None))
            elif weight < 0:
                problems.append(Problem(file, f"raise.weights.{name}.{attribute}", "a weight can't be negative"))
        if weights and sum(weights.values()) <= 0:
            problems.append(Problem(file, f"raise.weights.{name}", "at least one weight above 0"))
    if problems:
        raise DataError(problems)
    return attrs.evolve(policy, raising=raise_rules)


def load_policy(path: Path | None = None) -> SweepPolicy:
    """The policy file (default: the data folder's sweep.toml; none there: the defaults above)."""
    if path is None:  # only the data folder's own file may be absent; a --policy named must be there
        path = data_dir() / FILE_NAME
        if not path.exists():
            return SweepPolicy()
    data, text = read_document(path)
    try:
        return _from_dict(data, str(path))
    except DataError as exc:
        raise with_lines(exc, text) from None


def _next_attribute(invested: dict[str, int], weights: dict[str, int]) -> str:
    """The attribute furthest below its share of the points (ties: R-1's order)."""
    total_weight = sum(weights.values())
    total = sum(invested.values()) + 1
    return max(ATTRIBUTES, key=lambda a: (Fraction(weights.get(a, 0) * total, total_weight) - invested.get(a, 0),
                                          -ATTRIBUTES.index(a)))


def raise_to_level(character: Character, level: int, rules: Ruleset, policy: SweepPolicy) -> Character:
    """The character at `level` (R-4), its XP as it was. A character above `level` is refused:
    a sweep raises, it doesn't take points back."""
    b = build(character, rules)
    if b.level > level:
        raise DataError([Problem(character.name, "level", f"{character.name} is level {b.level}: a sweep can't lower "
                                 f"a character to level {level}")])
    need = max(0, progression.points_for_level(level, rules) - b.points_bought)
    if need == 0:
        return character
    cost = progression.total_cost(b.points_bought + need, rules.experience) - progression.total_cost(
        b.points_bought, rules.experience)
    weights = policy.raising.weights.get(character.name) or {a: v for a, v in character.attributes.items() if v > 0}
    raised = attrs.evolve(character, xp=character.xp + cost)
    for _ in range(need):
        raised = buy_point(raised, _next_attribute(raised.attributes, weights), rules)
    assert build(raised, rules).level == level and raised.xp == character.xp
    return raised


def spend_xp(character: Character, rules: Ruleset, policy: SweepPolicy) -> Character:
    """The character with every point its XP buys now (R-4), each on the attribute the policy's
    spread asks for: how an AI-played character levels up between a run's fights."""
    weights = policy.raising.weights.get(character.name) or {a: v for a, v in character.attributes.items() if v > 0}
    while build(character, rules).next_point_cost <= character.xp:
        character = buy_point(character, _next_attribute(character.attributes, weights), rules)
    return character


def sized_party(characters: Sequence[Character], size: int) -> list[Character]:
    """The first `size` characters; past the party's own size they repeat, renamed "Name 2", …"""
    party = []
    for i in range(size):
        character = characters[i % len(characters)]
        copy = i // len(characters)
        party.append(character if copy == 0 else attrs.evolve(character, name=f"{character.name} {copy + 1}"))
    return party

