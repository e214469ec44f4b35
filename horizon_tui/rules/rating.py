"""R-4's guide for the catalogue, read backwards: the party level an encounter is built for.

R-4 [H]: "a level-L enemy has about 42 + 10·(L−2) attribute points (32 at level 1), so fights
against the same level are even". An even fight for a party of P pits P characters' points
against the enemies' points: the recommended level L solves P·(42 + 10·(L−2)) = the enemies'
attribute points in all, rounded half up, at least 1. Pure; the numbers come from the rules data
(creation.starting_points, creation.starting_level, experience.points_per_level).
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from horizon_tui.content.ruleset import Ruleset
from horizon_tui.rules.numbers import whole


def guide_points(level: int, rules: Ruleset) -> int:
    """R-4's guide: the attribute points of a level-`level` enemy (42 at level 2, 32 at 1)."""
    c, e = rules.creation, rules.experience
    return c.starting_points + e.points_per_level * (level - c.starting_level)


def recommended_level(enemy_points: Iterable[int], party_size: int, rules: Ruleset) -> int:
    """R-4: the party level at which `party_size` characters match the enemies' points.
    Three level-2 goblins (42 points each) against three characters: level 2; against two: 4
    (126 ÷ 2 = 63 points each, 2 + 21/10 = 4.1 → 4)."""
    if party_size < 1:
        raise ValueError("a party has at least one character")
    c, e = rules.creation, rules.experience
    each = Fraction(sum(enemy_points), party_size)
    level = c.starting_level + (each - c.starting_points) / e.points_per_level
    return max(1, whole(level))


def guide_xp(level: int, catalogue_xp: dict[int, list[int]], rules: Ruleset) -> int:
    """What defeating a level-`level` foe the data gives no XP (an NPC's default 0) is worth, as a
    suggestion: R-4's guide gives a level-L enemy about `rating.guide_points(L)` attribute points,
    so it is worth what the catalogue's enemies of the same guide points are worth (their median
    XP, `catalogue_xp`: level → XP values), scaled by the points' ratio squared from the nearest
    level the catalogue has when it has none of that level. 0 when the catalogue has no XP at all."""
    levels = {lvl: sorted(values) for lvl, values in catalogue_xp.items() if values}
    if not levels:
        return 0
    nearest = min(levels, key=lambda lvl: (abs(lvl - level), lvl))
    values = levels[nearest]
    median = values[len(values) // 2]
    ratio = Fraction(guide_points(level, rules), guide_points(nearest, rules))
    return max(0, round(median * ratio * ratio))
