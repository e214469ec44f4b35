"""Catalogue and character definitions as frozen attrs classes.

These are plain data: the TOML/JSON loader (`content.loader`) builds them with cattrs, the pure
rules (`horizon_tui.rules`) compute with them. Numbers that must be exact (coefficients,
multipliers, flat bonuses) are `Fraction`s, built from their decimal text.
"""

from __future__ import annotations

import enum
from fractions import Fraction

import attrs

from horizon_tui.content.guard import LIMIT, NAME

ATTRIBUTES: tuple[str, ...] = ("physical", "agility", "perception", "cognition", "faith", "beauty")
STATS: tuple[str, ...] = (
    "health", "strength", "evasion", "accuracy", "speed",
    "initiative", "stealth", "willpower", "spellpower", "charisma",
)
NEGATIVE_EFFECTS: tuple[str, ...] = (
    "bleeding", "poison", "disease", "stun", "blindness", "slow", "fear", "domination", "knockdown",
)
POSITIVE_EFFECTS: tuple[str, ...] = ("heal", "regeneration", "buff", "cleanse")
EFFECTS: tuple[str, ...] = NEGATIVE_EFFECTS + POSITIVE_EFFECTS


class Difficulty(enum.Enum):
    """Ability difficulty I–VI (R-5); I is the normal attack."""

    # Members are compared by identity, so identity can hash them: Enum's own `__hash__` is a
    # Python function, and the battle engine looks these up in dicts and sets ~10^5 times a second.
    __hash__ = object.__hash__

    I = "I"  # noqa: E741 - the roman numeral of R-5, the name players and data use
    II = "II"
    III = "III"
    IV = "IV"
    V = "V"
    VI = "VI"

    @property
    def rank(self) -> int:
        return _RANKS[self.value]

    def __str__(self) -> str:
        return self.value


_RANKS = {"I": 1, "II": 2, "III": 3, "IV": 4, "V": 5, "VI": 6}


class WeaponKind(enum.Enum):
    # Members are compared by identity, so identity can hash them: Enum's own `__hash__` is a
    # Python function, and the battle engine looks these up in dicts and sets ~10^5 times a second.
    __hash__ = object.__hash__

    one_handed = "one_handed"
    two_handed = "two_handed"
    polearm = "polearm"
    thrown = "thrown"
    staff = "staff"
    wand = "wand"
    spell = "spell"
    crossbow = "crossbow"
    bow = "bow"

    @property
    def label(self) -> str:
        return self.value.replace("_", "-")


class AbilityKind(enum.Enum):
    # Members are compared by identity, so identity can hash them: Enum's own `__hash__` is a
    # Python function, and the battle engine looks these up in dicts and sets ~10^5 times a second.
    __hash__ = object.__hash__

    damage = "damage"
    effect = "effect"
    passive = "passive"
    companion = "companion"


class Target(enum.Enum):
    # Members are compared by identity, so identity can hash them: Enum's own `__hash__` is a
    # Python function, and the battle engine looks these up in dicts and sets ~10^5 times a second.
    __hash__ = object.__hash__

    self = "self"
    ally = "ally"
    enemy = "enemy"
    area = "area"
    line = "line"


class PastMemory(enum.Enum):
    all = "all"
    part = "part"
    none = "none"


class KinSettlement(enum.Enum):
    unknown = "unknown"
    yes = "yes"
    no = "no"


# --- catalogue ---------------------------------------------------------------------------------


@attrs.frozen
class Bonuses:
    """Flat bonuses: attribute points and/or derived-stat amounts (R-3)."""

    attributes: dict[str, int] = attrs.field(factory=dict, metadata=LIMIT("bonus_points"))
    stats: dict[str, Fraction] = attrs.field(factory=dict, metadata=LIMIT("stat_bonus"))


@attrs.frozen
class SpeciesFeatures:
    """Special features a species may carry in data (R-3)."""

    attack_formula: str | None = None  # replaces the normal-attack formula
    crit_immune: bool = False
    effect_immunities: list[str] = attrs.field(factory=list)
    sight_radius: int | None = attrs.field(default=None, metadata=LIMIT("cells"))
    terrain_costs: dict[str, int] = attrs.field(factory=dict, metadata=LIMIT("cells"))  # e.g. {difficult = 1}


@attrs.frozen
class Species:
    name: str = attrs.field(metadata=NAME)
    id: str = ""
    universe: str = "own"
    description: str = ""
    humanoid: bool = True
    common: bool = False  # uncommon species roll settlement reactions
    bonuses: Bonuses = attrs.field(factory=Bonuses)
    features: SpeciesFeatures = attrs.field(factory=SpeciesFeatures)


@attrs.frozen
class Weapon:
    name: str = attrs.field(metadata=NAME)
    kind: WeaponKind = attrs.field()
    damage: str = attrs.field()  # dice expression, rolled per attack
    id: str = ""
    short_blade: bool = False  # knives and daggers: may crit with a normal attack
    range: int | None = attrs.field(default=None, metadata=LIMIT("cells"))  # normal-attack range
    description: str = ""


@attrs.frozen
class Armor:
    name: str = attrs.field(metadata=NAME)
    armor_class: int  # 10 (lightest) … 1 (heaviest); `class` in files
    id: str = ""
    description: str = ""


# --- abilities ---------------------------------------------------------------------------------


@attrs.frozen
class EffectSpec:
    """One effect an ability applies (R-10), with its chance, duration and magnitude."""

    effect: str
    chance: Fraction = attrs.field(default=Fraction(1), metadata=LIMIT("chance"))
    duration: int = attrs.field(default=1, metadata=LIMIT("duration"))
    magnitude: Fraction = attrs.field(default=Fraction(0), metadata=LIMIT("magnitude"))
    stat: str | None = None  # buff: the derived stat; disease: the attribute (None = all)
    gradual: bool = False  # disease: lose the points over the duration instead of at once


@attrs.frozen
class Ability:
    name: str = attrs.field(metadata=NAME)
    difficulty: Difficulty = attrs.field()
    kind: AbilityKind = attrs.field()
    description: str = ""
    replaceable: bool = True  # passives and companions
    target: Target = Target.enemy
    radius: int | None = attrs.field(default=None, metadata=LIMIT("radius"))  # area only
    length: int | None = attrs.field(default=None, metadata=LIMIT("length"))  # line only
    # GM-approved override of the difficulty's multiplier
    multiplier: Fraction | None = attrs.field(default=None, metadata=LIMIT("multiplier"))
    range: int | None = attrs.field(default=None, metadata=LIMIT("cells"))  # GM-approved, over the weapon's range
    crit: bool = False
    effects: list[EffectSpec] = attrs.field(factory=list)
    modifiers: dict[str, Fraction] = attrs.field(factory=dict, metadata=LIMIT("stat_bonus"))  # passives
    companion: str | None = None  # an enemy-catalogue id

    @property
    def is_passive(self) -> bool:
        return self.kind in (AbilityKind.passive, AbilityKind.companion)

    @property
    def is_fixed(self) -> bool:
        """A non-replaceable passive: always on, reserves a slot and a charge (R-6)."""
        return self.is_passive and not self.replaceable

    @property
    def deals_damage(self) -> bool:
        return self.kind is AbilityKind.damage


# --- characters --------------------------------------------------------------------------------


@attrs.frozen
class Background:
    origin: str = ""
    memory: PastMemory = PastMemory.part
    arrived: str = ""
    kin_settlement: KinSettlement = KinSettlement.unknown
    gm_note: str = ""


def _zero_attributes() -> dict[str, int]:
    return {name: 0 for name in ATTRIBUTES}


@attrs.frozen
class Character:
    """A character as written in its file (INTERFACES.md "Character file").

    `attributes` are points invested (the 42 of creation plus those bought with XP);
    `bonus` are points from anything else and never raise the level (R-4).
    """

    name: str = attrs.field(metadata=NAME)
    species: Species = attrs.field()
    weapon: Weapon = attrs.field()
    attributes: dict[str, int] = attrs.field(factory=_zero_attributes, metadata=LIMIT("attribute"))
    xp: int = attrs.field(default=0, metadata=LIMIT("xp"))
    armor: Armor | None = None
    abilities: list[Ability] = attrs.field(factory=list)
    loadout: list[str] = attrs.field(factory=list, metadata=NAME)
    bonus: dict[str, int] = attrs.field(factory=dict, metadata=LIMIT("bonus_points"))
    background: Background = attrs.field(factory=Background)
    gm_approved: bool = False  # the GM approved an over-budget custom species
    attack_formula: str | None = None  # a character's own special feature
    notes: str = ""

    def ability(self, name: str) -> Ability | None:
        for ability in self.abilities:
            if ability.name == name:
                return ability
        return None
