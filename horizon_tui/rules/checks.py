"""R-7 difficulty checks and R-12 dialogue checks."""

from __future__ import annotations

import enum
import random
from collections.abc import Mapping
from fractions import Fraction

import attrs

from horizon_tui.content.models import Difficulty
from horizon_tui.content.ruleset import CheckRules, DialogueRules, Ruleset, SpeciesRules
from horizon_tui.rules.dice import parse_dice
from horizon_tui.rules.odds import at_least_chance
from horizon_tui.rules.progression import needs_difficulty_check


def check_attack_value(attack_min: Fraction, attack_max: Fraction) -> Fraction:
    """The one "normal attack damage" a difficulty check weighs (R-7): the normal attack is a
    range (the weapon's roll), so the check takes the middle of it."""
    return (Fraction(attack_min) + Fraction(attack_max)) / 2


def difficulty_check_chance(
    normal_attack: Fraction, difficulty: Difficulty, level: int, rules: Ruleset
) -> Fraction:
    """R-7 [H]: min(1, normal attack damage ÷ threshold); 1 when no check is needed."""
    if not needs_difficulty_check(difficulty, level, rules):
        return Fraction(1)
    threshold = rules.difficulty(difficulty).threshold
    if threshold <= 0:
        return Fraction(1)
    return min(Fraction(1), max(Fraction(0), Fraction(normal_attack) / threshold))


class Failure(enum.Enum):
    """What a failed difficulty check does (R-7 [S]: 60% nothing, 20% on the user, 20% random)."""

    fizzle = "fizzle"
    self = "self"
    random = "random"


def contest_chance(own: Fraction, best_opposing: Fraction, fallback: Fraction) -> Fraction:
    """R-13 [H] stock free actions with a contest (hide: stealth against perception): own ÷ (own +
    the best opposing value); the action's stated chance when both are 0."""
    total = own + best_opposing
    return own / total if total > 0 else fallback


def roll_chance(chance: Fraction, rng: random.Random) -> bool:
    """One roll against a probability; exact for Fractions (no float comparison drift): one draw
    below the numerator out of the denominator, the chance taken as its two integers (no Fraction
    arithmetic: every chance a battle rolls comes here, through `engine.battle.check_roll`)."""
    numerator, denominator = chance.as_integer_ratio()
    if numerator >= denominator:
        return True
    if numerator <= 0:
        return False
    return rng.randrange(denominator) < numerator


def weighted_choice(rng: random.Random, weights: tuple[Fraction, ...]) -> int:
    """The index picked by one roll over exact weights (they need not add up to 1)."""
    pick = Fraction(rng.randrange(10**6), 10**6) * sum(weights)
    for index, weight in enumerate(weights):
        if pick < weight:
            return index
        pick -= weight
    return len(weights) - 1


def failure_outcome(rng: random.Random, checks: CheckRules) -> Failure:
    """R-7 [S]: what a failed difficulty check does, 60/20/20 by the rules data."""
    weights = (checks.failure_fizzle, checks.failure_self, checks.failure_random)
    return list(Failure)[weighted_choice(rng, weights)]


REACTIONS = ("ill-wisher", "indifferent", "admirer")


def settlement_reaction(rng: random.Random, species: SpeciesRules) -> tuple[str, int]:
    """R-3 [H]: an uncommon-species character entering a small settlement meets ill-wishers,
    indifference or admirers (25/50/25 by the rules data): −2, 0 or +2 on that day's dialogue
    checks there."""
    weights = (species.reaction_ill_wisher, species.reaction_indifferent, species.reaction_admirer)
    index = weighted_choice(rng, weights)
    return REACTIONS[index], (-species.reaction_modifier, 0, species.reaction_modifier)[index]


# --- R-12 dialogue -----------------------------------------------------------------------------


@attrs.frozen
class DialogueRoll:
    kind: str
    score_name: str
    score: Fraction
    modifier: int
    attacker_die: int
    attacker_total: Fraction
    defender_die: int
    defender_total: Fraction

    @property
    def success(self) -> bool:
        return self.attacker_total >= self.defender_total


def dialogue_score(
    kind: str, attributes: Mapping[str, int], stats: Mapping[str, Fraction], dialogue: DialogueRules
) -> tuple[str, Fraction]:
    """The character's score for a check type and its weight (R-12: accuracy counts 1×, else 2×).
    Trickery takes the better of agility (×2) and accuracy (×1)."""
    options = []
    for name in dialogue.types[kind]:
        if name in attributes:
            options.append((name, attributes[name] * dialogue.score_factor))
        else:
            factor = dialogue.accuracy_factor if name == "accuracy" else dialogue.score_factor
            options.append((name, Fraction(stats[name]) * factor))
    return max(options, key=lambda option: option[1])


def dialogue_defence(target_willpower: Fraction, dialogue: DialogueRules) -> Fraction:
    """R-12 [H]: what the target adds to its die, willpower ÷ 2 (`dialogue.willpower_divisor`)."""
    return Fraction(target_willpower) / dialogue.willpower_divisor


def dialogue_check(
    kind: str,
    attributes: Mapping[str, int],
    stats: Mapping[str, Fraction],
    target_willpower: Fraction,
    modifier: int,
    rng: random.Random,
    dialogue: DialogueRules,
) -> DialogueRoll:
    """R-12 [H]: 1d20 + 2×score + modifier (−4…+4) against 1d20 + willpower ÷ 2; ties succeed."""
    if kind not in dialogue.types:
        raise ValueError(f"unknown check type {kind!r}; expected one of {', '.join(dialogue.types)}")
    if not dialogue.modifier_min <= modifier <= dialogue.modifier_max:
        raise ValueError(f"the roleplay modifier must be {dialogue.modifier_min}…{dialogue.modifier_max}")
    name, score = dialogue_score(kind, attributes, stats, dialogue)
    die = parse_dice(dialogue.die)
    a, d = die.roll(rng), die.roll(rng)
    return DialogueRoll(
        kind, name, score, modifier,
        a, a + score + modifier,
        d, d + dialogue_defence(target_willpower, dialogue),
    )


def dialogue_success_chance(
    kind: str,
    attributes: Mapping[str, int],
    stats: Mapping[str, Fraction],
    target_willpower: Fraction,
    modifier: int,
    dialogue: DialogueRules,
) -> Fraction:
    """The exact odds of a dialogue check over the die's whole distribution (`rules.odds`: 3d6
    is not 16 equally likely faces), shown before rolling."""
    _, score = dialogue_score(kind, attributes, stats, dialogue)
    return at_least_chance(dialogue.die, score + modifier - dialogue_defence(target_willpower, dialogue))


def dialogue_limit_refusal(character: str, npc: str, done_today: int, on_npc_today: int,
                           dialogue: DialogueRules) -> str | None:
    """R-12 [S]: at most 4 checks per character per in-game day and 1 per NPC per day (per
    character, or for the whole table with the house switch `dialogue.per_npc_scope = "table"`).
    `done_today`: the character's checks today; `on_npc_today`: those that count against the NPC.
    None when the check may be made, else why not."""
    if done_today >= dialogue.per_character_per_day:
        return (f"{character} has made {done_today} checks today; the limit is "
                f"{dialogue.per_character_per_day} per day (R-12)")
    if on_npc_today >= dialogue.per_npc_per_day:
        if dialogue.per_npc_scope == "table":
            return (f"the party has already tried {npc} {on_npc_today} time{'s' if on_npc_today != 1 else ''} "
                    f"today; the limit is {dialogue.per_npc_per_day} per NPC per day for the whole table (R-12)")
        return (f"{character} has already tried {npc} today; the limit is "
                f"{dialogue.per_npc_per_day} per NPC per day (R-12)")
    return None
