"""Exact numbers and the one display rounding (R-2: half up, one decimal)."""

from __future__ import annotations

import math
from fractions import Fraction


def round_half_up(value: Fraction | int, places: int = 0) -> Fraction:
    """Round half away from zero: 90.55 -> 90.6 at one place, 2.5 -> 3 at none."""
    value = Fraction(value)
    scale = 10**places
    magnitude = Fraction(math.floor(abs(value) * scale + Fraction(1, 2)), scale)
    return magnitude if value >= 0 else -magnitude


def one_decimal(value: Fraction | int) -> float:
    """A stat as shown and as written to JSON: one decimal place, half up."""
    return float(round_half_up(value, 1))


def whole(value: Fraction | int) -> int:
    """Health and damage: a whole number, half up."""
    value = Fraction(value)
    return whole_of_ratio(value.numerator, value.denominator)


def whole_of_ratio(numerator: int, denominator: int) -> int:
    """`whole(numerator / denominator)` on the two integers (`denominator` > 0, as a Fraction's):
    half away from zero, without building a Fraction (R-9's damage rounds its product this way)."""
    magnitude = (2 * abs(numerator) + denominator) // (2 * denominator)  # floor(|value| + 1/2)
    return magnitude if numerator >= 0 else -magnitude


def percent(value: Fraction) -> float:
    """A chance (0–1) as a percentage with one decimal."""
    return one_decimal(value * 100)


def percent_text(value: Fraction | float) -> str:
    """A chance as every screen and log shows it: one decimal, half up ("52.5%", "100%")."""
    return f"{percent(Fraction(value)):g}%"


def clamp(value: Fraction, low: Fraction, high: Fraction) -> Fraction:
    return max(low, min(high, value))
