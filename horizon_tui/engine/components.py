"""Components of a combatant entity: small mutable slotted classes, one store per type in the
battle's `engine.battle.World`.

Components are mutable for speed (a write changes a field instead of building a new object), so
nothing but the writer functions of engine.battle may change one: a system calls a writer, and
records the event beside it, so nothing changes behind the log's back. tests/engine/test_writers.py
scans the source for any other write.
"""

from __future__ import annotations

import enum
from collections.abc import KeysView, Mapping
from fractions import Fraction

from dataclasses import dataclass, field

from horizon_tui.content.models import Armor, Character, Difficulty, Weapon
from horizon_tui.rules.dice import DiceExpr
from horizon_tui.rules.formula import Formula


class Presence(enum.Enum):
    active = "active"
    unconscious = "unconscious"  # a player character at 0 health
    dead = "dead"
    fled = "fled"  # left the battlefield's edge


@dataclass(slots=True)
class Identity:
    id: str
    name: str
    kind: str  # character | enemy | companion
    base_team: str  # party | enemies
    glyph: str
    level: int
    xp_value: int = 0  # what defeating it is worth
    owner: str | None = None  # a companion's owner
    ally: bool = False  # an allied NPC fighting with the party: no share of the XP


@dataclass(slots=True)
class Team:
    name: str  # the side it fights for now (domination switches it, R-10)


@dataclass(slots=True)
class Position:
    x: int
    y: int

    @property
    def xy(self) -> tuple[int, int]:
        return (self.x, self.y)


@dataclass(slots=True)
class Gear:
    """What a combatant fights with; fixed for the battle."""

    character: Character
    weapon: Weapon
    armor: Armor | None
    weapon_dice: DiceExpr
    formula: Formula  # the normal-attack formula in force
    crit_immune: bool
    immunities: frozenset[str]
    sight_radius: int
    terrain_costs: dict[str, int]


@dataclass(slots=True)
class Vitals:
    """Attribute totals at the start of battle; current ones subtract disease (R-10)."""

    attributes: dict[str, int]


@dataclass(slots=True)
class Stats:
    """Current derived stats (R-2), recomputed whenever attributes or modifiers change."""

    values: Mapping[str, Fraction]  # shared and read-only (engine.battle.refresh_stats)

    def __getitem__(self, name: str) -> Fraction:
        return self.values[name]


@dataclass(slots=True)
class Health:
    hp: int
    max_hp: int


@dataclass(slots=True)
class TempHealth:
    """Temporary health a GM granted (gm tracker, `overrides.GrantTempHealth`): lost before health,
    never healed back; absent on most combatants."""

    points: int


@dataclass(slots=True)
class Loadout:
    """Slotted abilities (R-6) and which replaceable passives are switched on."""

    slotted: tuple[str, ...]
    active_passives: frozenset[str] = frozenset()


@dataclass(slots=True)
class Charges:
    pools: dict[Difficulty, int]


@dataclass(slots=True)
class Cooldowns:
    ready_at: dict[str, int]  # ability name -> the user's own-turn number from which it's ready


@dataclass(frozen=True, slots=True)
class ActiveEffect:
    """One effect on a combatant (R-10; the duration model is `engine.effects`'s docstring)."""

    effect: str
    turns_left: int  # own turns it still covers, the one in progress included once covered
    magnitude: Fraction
    source: str | None = None
    stat: str | None = None
    gradual: bool = False
    applied: int = 0  # disease: attribute points taken so far
    from_turn: int = 1  # the holder's first own turn it covers (its own-turn count + 1 when applied)


@dataclass(slots=True)
class Effects:
    active: tuple[ActiveEffect, ...] = ()

    def has(self, name: str) -> bool:
        for e in self.active:  # a loop, not any(...): asked thousands of times a battle, mostly of ()
            if e.effect == name:
                return True
        return False

    def get(self, name: str) -> ActiveEffect | None:
        for e in self.active:
            if e.effect == name:
                return e
        return None


@dataclass(slots=True)
class Memory:
    """Combatants this one has seen at least once this battle (R-11's 50-cell mage range), and
    where it saw each last: written in place by `battle.remember`."""

    last_known: dict[str, tuple[int, int]] = field(default_factory=dict)
    last_attacker: str | None = None
    origin: tuple[int, int] | None = None  # where it started: an AI with nothing seen crosses the field

    @property
    def seen(self) -> KeysView[str]:
        """Those it has seen at least once (R-11): everyone it knows a last place for."""
        return self.last_known.keys()


@dataclass(slots=True)
class FreeActions:
    points: int


@dataclass(slots=True)
class Controller:
    kind: str  # player | ai | gm
    profile: str = "brute"
    targeting: str = "nearest"
    flee_below: float | None = None


@dataclass(slots=True)
class TurnState:
    own_turns: int = 0  # how many turns it has started this battle
    movement_left: int = 0
    acted: bool = False


@dataclass(slots=True)
class StatBonus:
    """What a GM's hand-set numbers (an NPC's health, say) add to its derived stats (R-2): the
    difference at the start of battle, so later changes (disease, buffs) still move them."""

    flat: dict[str, Fraction]


@dataclass(slots=True)
class Tally:
    """Per-combatant numbers for the end-of-battle summary."""

    damage_dealt: int = 0
    damage_taken: int = 0
    by_ability: dict[str, int] = field(default_factory=dict)
    effects_applied: int = 0


@dataclass(slots=True)
class AttackCache:
    """Derived, not state: normal-attack damage by weapon roll (R-9), dropped whenever the
    combatant's stats are recomputed."""

    by_roll: dict[int, Fraction] = field(default_factory=dict)
    typical: Fraction | None = None  # the value a difficulty check weighs
    check_chances: dict[Difficulty, Fraction] = field(default_factory=dict)


# Every component type: each has a store in every battle's World from the start.
COMPONENTS: tuple[type, ...] = (
    Identity, Team, Position, Gear, Vitals, Stats, Health, TempHealth, Loadout, Charges, Cooldowns, Effects, Memory,
    FreeActions, Controller, TurnState, StatBonus, Tally, AttackCache, Presence,
)
