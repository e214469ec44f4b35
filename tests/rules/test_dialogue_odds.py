"""R-12 dialogue odds computed exactly over any dice expression the rules allow (rules.odds)."""

from __future__ import annotations

import itertools
from fractions import Fraction

import attrs
import pytest

from horizon_tui.content.ruleset import DialogueRules
from horizon_tui.rules.checks import dialogue_success_chance
from horizon_tui.rules.dice import DiceError
from horizon_tui.rules.numbers import percent
from horizon_tui.rules.odds import at_least_chance, chance_of, distribution


def brute(faces: int, dice: int, edge) -> Fraction:
    """Every pair of rolls, counted one by one: the check on the closed forms below."""
    totals = [sum(r) for r in itertools.product(range(1, faces + 1), repeat=dice)]
    wins = sum(1 for a in totals for d in totals if a + edge >= d)
    return Fraction(wins, len(totals) ** 2)


def test_r12_even_contest_with_1d20_is_21_in_40():
    """R-12: 1d20 vs 1d20, ties succeed: (20·21/2) / 400 = 210/400 = 21/40."""
    assert at_least_chance("1d20", 0) == Fraction(21, 40)


def test_r12_even_contest_with_2d10_is_1067_in_2000():
    """R-12 with die = "2d10": ties happen 670 times in 10 000 (Σ ways² = 2·285 + 100), so
    P = (1 + 670/10000) / 2 = 1067/2000 — not the 11/20 of 19 equally likely faces."""
    assert at_least_chance("2d10", 0) == Fraction(1067, 2000) == brute(10, 2, 0)


def test_r12_even_contest_with_3d6_is_4249_in_7776():
    """R-12 with die = "3d6": ties 4332 in 46 656, P = (46656 + 4332) / 93312 = 4249/7776."""
    assert at_least_chance("3d6", 0) == Fraction(4249, 7776) == brute(6, 3, 0)


def test_an_edge_of_five_with_3d6_is_the_issues_90_percent_not_78():
    """The issue's case: an edge of 5 read as 16 equal faces showed 78.5 %; 3d6's bell gives 90.3 %."""
    exact = at_least_chance("3d6", 5)
    assert exact == brute(6, 3, 5) == Fraction(42155, 46656)
    flat = Fraction(sum(1 for a in range(3, 19) for d in range(3, 19) if a + 5 >= d), 16 ** 2)
    assert percent(flat) == 78.5 and percent(exact) == 90.4  # the issue sampled 90.3 %


def test_half_edges_round_down_to_the_die_faces():
    """willpower ÷ 2 can be a half: 1d20 + 0 ≥ 1d20 + 0.5 wins only on strictly higher rolls (190/400)."""
    assert at_least_chance("1d20", Fraction(-1, 2)) == Fraction(190, 400)


def test_keep_highest_constants_and_products_are_exact():
    dist = dict(distribution("4d6kh3"))
    assert sum(dist.values()) == 6 ** 4 and dist[18] == 21 and dist[3] == 1
    assert distribution("2*(1d4)+1") == ((3, 1), (5, 1), (7, 1), (9, 1))
    assert chance_of("1d6-1", lambda t: t == 0) == Fraction(1, 6)


def test_the_rules_check_uses_the_whole_distribution():
    """checks.dialogue_success_chance goes through rules.odds: the 3d6 house die is a bell."""
    d = attrs.evolve(DialogueRules(), die="3d6")
    chance = dialogue_success_chance("intimidation", {"physical": 2}, {}, Fraction(2), 0, d)
    # 2×2 = 4 against willpower 2 ÷ 2 = 1: an edge of 3
    assert chance == at_least_chance("3d6", 3)


def test_bad_or_huge_expressions_are_refused_with_a_reason():
    with pytest.raises(DiceError, match="bad dice"):
        distribution("1d")
    with pytest.raises(DiceError, match="too many"):
        distribution("100d1000")
