"""R-4 experience and level; R-5 the level table lookups."""

from __future__ import annotations

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


def affordable_points(xp: int, already_bought: int, experience: Experience) -> int:
    """How many more points `xp` buys, one at a time, from point `already_bought + 1` on."""
    count = 0
    while True:
        cost = point_cost(already_bought + count + 1, experience)
        if cost > xp:
            return count
        xp -= cost
        count += 1


def slots(level: int, rules: Ruleset) -> int:
    return rules.level_row(level).slots


def charges(level: int, rules: Ruleset) -> dict[Difficulty, int]:
    """Charges per difficulty per battle (R-5); difficulty I (the normal attack) is unlimited."""
    return dict(rules.level_row(level).charges)


def free_action_points(level: int, rules: Ruleset) -> int:
    return rules.level_row(level).free_action_points


def needs_difficulty_check(difficulty: Difficulty, level: int, rules: Ruleset) -> bool:
    """R-7: a check until the level reaches the difficulty's "check dropped at level"."""
    return level < rules.difficulty(difficulty).check_dropped_at
