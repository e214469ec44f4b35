"""R-4's guide read backwards: the party level an encounter is built for (rules.rating)."""

from __future__ import annotations

import pytest

from horizon_tui.rules.rating import guide_points, recommended_level


def test_r4_guide_points_are_42_at_level_2_and_32_at_level_1(catalogue):
    assert guide_points(2, catalogue.rules) == 42 and guide_points(1, catalogue.rules) == 32
    assert guide_points(5, catalogue.rules) == 72


def test_r4_three_goblins_are_even_for_three_level_2_characters_and_level_4_for_two(catalogue):
    rules = catalogue.rules
    assert recommended_level([42, 42, 42], 3, rules) == 2
    assert recommended_level([42, 42, 42], 2, rules) == 4  # 63 each: 2 + 21/10 = 4.1
    assert recommended_level([32], 4, rules) == 1  # never below level 1
    assert recommended_level([45, 40], 1, rules) == 6  # 85: 2 + 43/10 = 6.3, half up → 6
    assert recommended_level([47], 1, rules) == 3  # 2 + 5/10 = 2.5, half up → 3
    with pytest.raises(ValueError):
        recommended_level([42], 0, rules)
