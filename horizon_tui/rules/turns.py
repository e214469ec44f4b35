"""R-8 turns: the order of play and how far a combatant moves (with R-10's slow)."""

from __future__ import annotations

from fractions import Fraction


def movement_cells(speed: Fraction, min_move: int, slow_percent: Fraction | None = None) -> int:
    """R-8 [H]: floor(speed) cells a turn, at least `min_move`; R-10 slow takes its magnitude in
    percent off the speed first (never below 0). Armor's speed penalty is already in `speed`."""
    if slow_percent is not None:
        speed *= max(Fraction(0), 1 - Fraction(slow_percent) / 100)
    return max(min_move, int(speed))


def step_cost(cell_cost: int, diagonal: bool, diagonal_cost: int) -> int:
    """R-8 [H]: a step costs what its cell costs to enter (1, difficult ground 2, or a species'
    own), × `diagonal_cost` when it is diagonal. The battlefield's path searches (libtcod) price
    steps the same way, given the same two numbers."""
    return cell_cost * diagonal_cost if diagonal else cell_cost


def initiative_key(total: Fraction, agility: int, coin: float) -> tuple:
    """R-8 [H]: sort key of one combatant's initiative roll: higher total first, ties to higher
    agility, then to a seeded coin (lower first)."""
    return (-total, -agility, coin)
