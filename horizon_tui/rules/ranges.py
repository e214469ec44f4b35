"""R-11 weapon ranges: cells between attacker and target (0 = adjacent)."""

from __future__ import annotations

from horizon_tui.content.models import Ability, Difficulty, Target, Weapon, WeaponKind
from horizon_tui.content.ruleset import Ruleset

MAGE_KINDS = frozenset({WeaponKind.staff, WeaponKind.wand, WeaponKind.spell})
MELEE_KINDS = frozenset({WeaponKind.one_handed, WeaponKind.two_handed, WeaponKind.polearm})
STRONG = frozenset({Difficulty.V, Difficulty.VI})


def distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Cells between two positions: Chebyshev distance − 1, so adjacent (diagonals too) is 0."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) - 1


def weapon_range(weapon: Weapon, rules: Ruleset) -> int:
    """A weapon's normal-attack range: its own within its kind's bounds, else the kind's lowest."""
    row = rules.ranges.kinds[weapon.kind]
    return weapon.range if weapon.range is not None else row.normal_min


def range_bounds(kind: WeaponKind, rules: Ruleset) -> tuple[int, int]:
    row = rules.ranges.kinds[kind]
    return row.normal_min, row.normal_max


def ability_range(ability: Ability, weapon: Weapon, rules: Ruleset, *, target_seen: bool = True) -> int:
    """R-11: an ability's reach. A GM override wins; V and VI use the kind's strong range;
    a mage's non-damaging single-target ability reaches 50 cells if the target was seen once."""
    if ability.range is not None:
        return ability.range
    if (
        weapon.kind in MAGE_KINDS
        and not ability.deals_damage
        and ability.target in (Target.ally, Target.enemy)
        and target_seen
    ):
        return rules.ranges.mage_non_damaging
    row = rules.ranges.kinds[weapon.kind]
    if ability.difficulty in STRONG and row.strong is not None:
        return row.strong
    return weapon_range(weapon, rules)


def melee_reach(weapon: Weapon, rules: Ruleset) -> int | None:
    """R-9/R-11: how far a melee weapon strikes as melee — its own normal reach, or its kind's
    strong (V–VI) reach when longer; None for a weapon that is not melee (R-9: melee is the
    weapon's kind — one-handed, two-handed, polearm — not the distance)."""
    if weapon.kind not in MELEE_KINDS:
        return None
    strong = rules.ranges.kinds[weapon.kind].strong
    return max(weapon_range(weapon, rules), strong if strong is not None else 0)


def is_melee(weapon: Weapon, cells: int, rules: Ruleset) -> bool:
    """R-9: a blow `cells` away (0 = adjacent) is melee when the weapon is a melee kind and the
    target is within its melee reach. Worked: a spear (polearm: 1, strong 2) at 2 cells is melee;
    a longsword (one-handed: 0, strong 1) at 2 cells, or any bow, is not."""
    reach = melee_reach(weapon, rules)
    return reach is not None and cells <= reach


def in_range(attacker: tuple[int, int], target: tuple[int, int], reach: int) -> bool:
    return distance(attacker, target) <= reach


def can_hit_fled(ability: Ability, weapon: Weapon) -> bool:
    """R-11: a bow's difficulty-VI ability can hit a target that fled the battlefield."""
    return weapon.kind is WeaponKind.bow and ability.difficulty is Difficulty.VI
