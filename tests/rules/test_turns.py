"""R-8 turns: movement and initiative order as pure functions (with R-10's slow)."""

from __future__ import annotations

from fractions import Fraction

from horizon_tui.rules.turns import initiative_key, movement_cells, step_cost


def test_r8_movement_is_floor_of_speed_at_least_the_minimum():
    assert movement_cells(Fraction("6.2"), 1) == 6
    assert movement_cells(Fraction("0.4"), 1) == 1  # at least 1 cell


def test_r10_slow_takes_its_percent_off_the_speed_first():
    # speed 6.2, slow 50: 3.1 -> 3 cells; slow 120 leaves nothing, the minimum stands
    assert movement_cells(Fraction("6.2"), 1, Fraction(50)) == 3
    assert movement_cells(Fraction("6.2"), 1, Fraction(120)) == 1


def test_r8_initiative_higher_total_then_higher_agility_then_the_coin():
    rolls = {"a": (Fraction(14), 5, 0.9), "b": (Fraction(15), 1, 0.5), "c": (Fraction(14), 7, 0.2),
             "d": (Fraction(14), 5, 0.1)}
    assert sorted(rolls, key=lambda k: initiative_key(*rolls[k])) == ["b", "c", "d", "a"]


def test_r8_a_step_costs_its_cell_times_the_diagonal_cost_when_diagonal():
    assert step_cost(1, False, 2) == 1
    assert step_cost(2, False, 2) == 2  # difficult ground, straight
    assert step_cost(2, True, 1) == 2  # default: a diagonal costs like a straight step
    assert step_cost(2, True, 3) == 6
