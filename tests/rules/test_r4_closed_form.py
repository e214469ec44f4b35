"""R-4 in closed form: points buyable and the level from any XP up to 10^30, at once."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from horizon_tui.content.ruleset import Experience
from horizon_tui.rules.progression import affordable_points, level_from_xp, total_cost


def _one_at_a_time(xp: int, bought: int, experience: Experience) -> int:
    count = 0
    while xp >= experience.first_point_cost + experience.cost_step * (bought + count):
        xp -= experience.first_point_cost + experience.cost_step * (bought + count)
        count += 1
    return count


def test_r4_worked_numbers(rules):
    """R-4: the k-th point costs 10 + 5·(k−1); the first 10 points cost 325 XP in total."""
    e = rules.experience
    assert total_cost(10, e) == 325
    assert affordable_points(325, 0, e) == 10 and affordable_points(324, 0, e) == 9
    assert affordable_points(15, 1, e) == 1 and affordable_points(14, 1, e) == 0  # the 2nd point costs 15
    assert affordable_points(0, 0, e) == 0 and affordable_points(-5, 0, e) == 0
    # 42 points at creation, none bought: 325 XP buys 10 points -> level 2 + 10 // 10 = 3.
    assert level_from_xp(325, 42, rules) == 3 and level_from_xp(324, 42, rules) == 2


def test_r4_at_10_to_the_30_xp_is_instant(rules):
    """10^30 XP buys 632,455,532,033,674 points (cost 5n²/2 + 15n/2 ≤ 10^30); was counted one by one."""
    start = time.perf_counter()
    n = affordable_points(10**30, 0, rules.experience)
    assert time.perf_counter() - start < 0.01
    assert n == 632_455_532_033_674
    assert total_cost(n, rules.experience) <= 10**30 < total_cost(n + 1, rules.experience)
    assert level_from_xp(10**30, 42, rules) == 2 + n // 10


@settings(max_examples=200, deadline=200)
@given(xp=st.integers(0, 20_000), bought=st.integers(0, 400), first=st.integers(1, 30), step=st.integers(0, 12))
def test_r4_closed_form_equals_buying_one_point_at_a_time(xp, bought, first, step):
    e = Experience(first_point_cost=first, cost_step=step)
    assert affordable_points(xp, bought, e) == _one_at_a_time(xp, bought, e)
