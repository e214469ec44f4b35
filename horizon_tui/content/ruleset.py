"""The rules data in force (`data/rules.toml`): the level table and every [H] number of RULES.md.

Each field carries metadata: `rule` (the RULES.md id) and `house` (True for a house default the
source is silent on). `horizon rules` and the GM's rules editor read these marks.
"""

from __future__ import annotations

from fractions import Fraction

import attrs

from horizon_tui.content.guard import LIMIT
from horizon_tui.content.models import Difficulty, WeaponKind


def _field(rule: str, house: bool, limit: str | None = None, **kwargs):
    """`limit`: the range its numbers are held to (data/limits.toml, content.guard)."""
    metadata = {"rule": rule, "house": house} | (LIMIT(limit) if limit else {})
    return attrs.field(metadata=metadata, **kwargs)


def H(rule: str, **kwargs):  # noqa: N802 - reads like the RULES.md mark
    """A house default [H]."""
    return _field(rule, True, **kwargs)


def S(rule: str, **kwargs):  # noqa: N802
    """A number the source text states [S]."""
    return _field(rule, False, **kwargs)


@attrs.frozen
class LevelRow:
    level: int = attrs.field(metadata=LIMIT("level"))
    # held to ranges.slots: a billion slots typed in the rules editor hung the loadout screen
    slots: int = attrs.field(metadata=LIMIT("slots"))
    charges: dict[Difficulty, int] = attrs.field(metadata=LIMIT("slots"))
    free_action_points: int = attrs.field(metadata=LIMIT("slots"))


@attrs.frozen
class DifficultyRow:
    multiplier: Fraction
    cooldown: int
    threshold: Fraction  # difficulty-check threshold; 0 for I (no check)
    check_dropped_at: int


@attrs.frozen
class ArmorClassRow:
    reduction: Fraction  # fraction of damage and of speed taken off
    strength: Fraction  # derived strength required to wear it


@attrs.frozen
class RangeRow:
    """Ranges by weapon kind (R-11): the normal attack's bounds, abilities V and VI."""

    normal_min: int
    normal_max: int
    strong: int | None = None  # abilities of difficulty V and VI; None: the kind has no such range


@attrs.frozen
class Creation:
    starting_points: int = S("R-4", default=42)
    starting_level: int = S("R-4", default=2)
    minimums: dict[str, int] = H("R-1", factory=lambda: {
        "physical": 1, "agility": 1, "perception": 1, "cognition": 1, "faith": 1, "beauty": 0,
    })
    # RULES.md lets beauty stay at 0 (the default); the source text starts it at 1. A house
    # switch for the source's reading.
    beauty_from_one: bool = H("R-1", default=False)

    @property
    def attribute_minimums(self) -> dict[str, int]:
        """R-1's minimums in force: `minimums`, with beauty at least 1 when `beauty_from_one` is on."""
        if not self.beauty_from_one:
            return self.minimums
        return {**self.minimums, "beauty": max(1, self.minimums.get("beauty", 0))}


@attrs.frozen
class Experience:
    # Ranges in data/limits.toml: R-4's closed form needs a first cost and points per level of 1 or more.
    first_point_cost: int = S("R-4", default=10, limit="xp_cost")
    cost_step: int = S("R-4", default=5, limit="xp_step")
    points_per_level: int = S("R-4", default=10, limit="xp_cost")
    award_max: int = H("R-4", default=1_000_000)  # the most XP one award gives (or takes) per character


@attrs.frozen
class SpeciesRules:
    bonus_budget: Fraction = H("R-3", default=Fraction(3))
    reaction_ill_wisher: Fraction = H("R-3", default=Fraction(1, 4))
    reaction_indifferent: Fraction = H("R-3", default=Fraction(1, 2))
    reaction_admirer: Fraction = H("R-3", default=Fraction(1, 4))
    reaction_modifier: int = H("R-3", default=2)


@attrs.frozen
class CheckRules:
    failure_fizzle: Fraction = S("R-7", default=Fraction(3, 5))
    failure_self: Fraction = S("R-7", default=Fraction(1, 5))
    failure_random: Fraction = S("R-7", default=Fraction(1, 5))


@attrs.frozen
class TurnRules:
    initiative_die: str = H("R-8", default="1d6")
    min_move: int = H("R-8", default=1)
    difficult_cost: int = H("R-8", default=2)
    diagonal_cost: int = H("R-8", default=1)  # × a cell's cost when it is entered diagonally
    round_cap: int = H("R-14", default=100, limit="rounds")  # 10^9 made a stalemate run for months
    max_size: int = S("R-8", default=50, limit="field_side")  # a 10^9 side was a map no one could make


@attrs.frozen
class AttackRules:
    formula: str = S(
        "R-9", default="weapon + strength*1.2 + evasion + accuracy*0.7 + spellpower*1.3"
    )
    hit_base: Fraction = H("R-9", default=Fraction(7, 10))
    hit_per_point: Fraction = H("R-9", default=Fraction(1, 50))
    hit_min: Fraction = H("R-9", default=Fraction(1, 10))
    hit_max: Fraction = H("R-9", default=Fraction(19, 20))
    crit_per_accuracy: Fraction = S("R-9", default=Fraction(1, 2))  # percent per accuracy point
    crit_cap: Fraction = S("R-9", default=Fraction(40))  # percent
    crit_multiplier: Fraction = H("R-9", default=Fraction(2))
    min_damage_on_hit: int = H("R-9", default=1)
    # A pace knob: × every hit's damage, after armor and before rounding (R-9's order). 1 = the source.
    damage_scale: Fraction = H("R-9", default=Fraction(1))


@attrs.frozen
class DerivedStatRules:
    # A pace knob: × R-2's health (the attributes' part; flat and hand-set health as written). 1 = the source.
    health_scale: Fraction = H("R-2", default=Fraction(1))


@attrs.frozen
class RangeRules:
    kinds: dict[WeaponKind, RangeRow] = S("R-11")
    mage_non_damaging: int = S("R-11", default=50)
    bow_fled_hit_factor: Fraction = H("R-11", default=Fraction(1, 2))
    line_of_sight: bool = H("R-11", default=True)


@attrs.frozen
class DialogueRules:
    die: str = H("R-12", default="1d20")
    score_factor: Fraction = H("R-12", default=Fraction(2))
    accuracy_factor: Fraction = H("R-12", default=Fraction(1))
    willpower_divisor: Fraction = H("R-12", default=Fraction(2))
    modifier_min: int = H("R-12", default=-4)
    modifier_max: int = H("R-12", default=4)
    per_character_per_day: int = S("R-12", default=4)
    per_npc_per_day: int = S("R-12", default=1)
    # "character": each character may try each NPC per_npc_per_day times a day; "table": that many
    # checks on one NPC a day for the whole party together (a house switch for the GM)
    per_npc_scope: str = H("R-12", default="character", validator=attrs.validators.in_(("character", "table")))
    types: dict[str, list[str]] = S("R-12", factory=lambda: {
        "intimidation": ["physical"],
        "charm": ["beauty"],
        "trickery": ["agility", "accuracy"],
        "persuasion": ["cognition"],
    })


@attrs.frozen
class CampaignRules:
    """What one fight leaves for the next in a GM's campaign, until a rest. R-6 [S]
    starts each battle with full charges; a GM may let them (and cooldowns) carry instead."""

    carry_health: bool = H("R-9", default=True)  # health lost stays lost until a rest
    carry_effects: bool = H("R-10", default=True)  # effects with turns left go on in the next fight
    carry_charges: bool = H("R-6", default=False)  # [S] each battle starts with the level's charges
    carry_cooldowns: bool = H("R-6", default=False)


@attrs.frozen
class AbilityRules:
    # overrides of an ability's multiplier, range and critical rule are the GM's to approve. In
    # solo play (no GM) a player's own overrides count only if the house rules say so.
    player_overrides: bool = H("R-6", default=False)


@attrs.frozen
class StockFreeAction:
    """A solo-play free action (R-13): an effect with a stated chance."""

    name: str
    description: str
    effect: str
    chance: Fraction
    duration: int = 1
    magnitude: Fraction = Fraction(0)
    range: int = 0
    target: str = "enemy"
    contest_stat: str | None = None  # chance = own stat ÷ (own + the best opposing stat)
    contest_against: str | None = None


@attrs.frozen
class Ruleset:
    levels: list[LevelRow] = H("R-5")
    difficulties: dict[Difficulty, DifficultyRow] = H("R-5")
    armor_classes: dict[int, ArmorClassRow] = S("R-9")
    ranges: RangeRules = S("R-11")
    creation: Creation = attrs.field(factory=Creation)
    experience: Experience = attrs.field(factory=Experience)
    species: SpeciesRules = attrs.field(factory=SpeciesRules)
    checks: CheckRules = attrs.field(factory=CheckRules)
    turns: TurnRules = attrs.field(factory=TurnRules)
    attack: AttackRules = attrs.field(factory=AttackRules)
    derived_stats: DerivedStatRules = attrs.field(factory=DerivedStatRules)
    dialogue: DialogueRules = attrs.field(factory=DialogueRules)
    campaign: CampaignRules = attrs.field(factory=CampaignRules)
    abilities: AbilityRules = attrs.field(factory=AbilityRules)
    free_actions: list[StockFreeAction] = H("R-13", factory=list)
    schema: int = 1

    def level_row(self, level: int) -> LevelRow:
        """The row for `level`; levels past the table clamp to its last row (R-5: 8+)."""
        rows = self.levels
        if level <= rows[0].level:
            return rows[0]
        for row in reversed(rows):
            if row.level <= level:
                return row
        return rows[-1]

    def difficulty(self, difficulty: Difficulty) -> DifficultyRow:
        return self.difficulties[difficulty]
