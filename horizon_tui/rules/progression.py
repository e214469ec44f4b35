"""R-4 experience and level; R-5 the level table lookups."""

from __future__ import annotations

import math

from horizon_tui.content.models import Difficulty
from horizon_tui.content.ruleset import Experience, Ruleset


def point_cost(k: int, experience: Experience) -> int:
    """XP cost of the k-th point bought after creation (k = 1, 2, …): 10, 15, 20, … (R-4)."""
    if k < 1:
        raise ValueError("points are counted from 1")
    return experience.first_point_cost + experience.cost_step * (k - 1)


def total_cost(points: int, experience: Experience) -> int:
    """XP for the first `points` points: an arithmetic series (5n²/2 + 15n/2 with the defaults)."""
    first, step = experience.first_point_cost, experience.cost_step
    return points * first + step * points * (points - 1) // 2


def points_bought(invested_total: int, rules: Ruleset) -> int:
    """Points bought with XP = invested beyond the creation points (bonus points never count)."""
    return max(0, invested_total - rules.creation.starting_points)


def level_for(points: int, rules: Ruleset) -> int:
    """Level = 2 + floor(points bought / 10) (R-4); no cap."""
    return rules.creation.starting_level + points // rules.experience.points_per_level


def points_for_level(level: int, rules: Ruleset) -> int:
    """The fewest points bought that reach `level` (R-4, level_for read backwards): 0 up to level 2,
    10 for level 3, 60 for level 8."""
    return max(0, (level - rules.creation.starting_level) * rules.experience.points_per_level)


def progress_to_next_level(points: int, rules: Ruleset) -> tuple[int, int]:
    """Points bought since the last level and the points a level takes (R-4): 13 bought → (3, 10),
    3 of the 10 that make level 4."""
    per_level = rules.experience.points_per_level
    return max(0, points) % per_level, per_level


def affordable_points(xp: int, already_bought: int, experience: Experience) -> int:
    """How many more points `xp` buys, from point `already_bought + 1` on (R-4), in constant time.

    Points a+1 … a+n cost n·first + step·(n·(2a + n − 1))/2 together (an arithmetic series), so
    the most points is the largest n with step·n² + (2·first + 2·step·a − step)·n ≤ 2·xp: the
    positive root, taken with `math.isqrt` (exact for any size of XP), then nudged to the
    integer. With the defaults, 325 XP buys 10 points from none bought (10 + 15 + … + 55)."""
    if xp <= 0:
        return 0
    first, step, a = experience.first_point_cost, experience.cost_step, max(0, already_bought)
    if first + step * a <= 0:
        raise ValueError("the first point must cost at least 1 XP (R-4)")
    if step == 0:
        return xp // (first + step * a)
    b = 2 * first + 2 * step * a - step
    n = max(0, (math.isqrt(b * b + 8 * step * xp) - b) // (2 * step))

    def cost(count: int) -> int:
        return count * first + step * (count * (2 * a + count - 1)) // 2

    while n > 0 and cost(n) > xp:
        n -= 1
    while cost(n + 1) <= xp:
        n += 1
    return n


def level_from_xp(xp: int, invested_total: int, rules: Ruleset) -> int:
    """The level a character reaches by spending all its `xp` on points (R-4), in constant time."""
    bought = points_bought(invested_total, rules)
    return level_for(bought + affordable_points(xp, bought, rules.experience), rules)


# R-4 [S]: slots and charges stop growing at level 8 (then only equipment adds to them);
# free-action points stop at level 6 (and equipment never adds to them). However far a ruleset's
# level table goes (a GM's rules may go on past 8), the rows past these levels are not read.
SLOTS_AND_CHARGES_STOP_AT = 8
FREE_ACTIONS_STOP_AT = 6


def slots(level: int, rules: Ruleset) -> int:
    """Ability slots at `level` (R-5's table), no more than at level 8 (R-4)."""
    return rules.level_row(min(level, SLOTS_AND_CHARGES_STOP_AT)).slots


def charges(level: int, rules: Ruleset) -> dict[Difficulty, int]:
    """Charges per difficulty per battle (R-5), no more than at level 8 (R-4); difficulty I (the
    normal attack) is unlimited."""
    return dict(rules.level_row(min(level, SLOTS_AND_CHARGES_STOP_AT)).charges)


def free_action_points(level: int, rules: Ruleset) -> int:
    """Free-action points per battle (R-5): one more a level up to level 6, then no more (R-4)."""
    return rules.level_row(min(level, FREE_ACTIONS_STOP_AT)).free_action_points


def needs_difficulty_check(difficulty: Difficulty, level: int, rules: Ruleset) -> bool:
    """R-7: a check until the level reaches the difficulty's "check dropped at level"."""
    return level < rules.difficulty(difficulty).check_dropped_at
