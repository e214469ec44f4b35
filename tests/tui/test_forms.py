"""Parsing the free-text fields of the forms."""

from __future__ import annotations

from fractions import Fraction

import pytest

from horizon_tui.ui.dialogs.effect import parse_chance
from horizon_tui.play.forms import format_bonuses, parse_bonuses, parse_optional_int, parse_optional_number


def test_bonuses_split_attributes_and_stats():
    assert parse_bonuses("perception +1, evasion 1.5; stealth: 0.5") == (
        {"perception": 1}, {"evasion": Fraction(3, 2), "stealth": Fraction(1, 2)})
    assert parse_bonuses("") == ({}, {})


def test_bonuses_explain_mistakes():
    with pytest.raises(ValueError, match="did you mean 'evasion'"):
        parse_bonuses("evasoin +1")
    with pytest.raises(ValueError, match="whole numbers"):
        parse_bonuses("agility 0.5")
    with pytest.raises(ValueError, match="e.g."):
        parse_bonuses("agility")
    with pytest.raises(ValueError, match="not a stat"):
        parse_bonuses("agility +1", attributes=False)


def test_bonuses_round_trip():
    attributes, stats = parse_bonuses("agility +1, evasion +1.5")
    assert parse_bonuses(format_bonuses(attributes, stats)) == (attributes, stats)


def test_optional_numbers():
    assert parse_optional_number(" ", "multiplier") is None
    assert parse_optional_number("2.75", "multiplier") == Fraction(11, 4)
    assert parse_optional_int("12", "range") == 12
    with pytest.raises(ValueError, match="range"):
        parse_optional_int("far", "range")


def test_chance_is_a_percentage_from_1_to_100_with_or_without_the_sign():
    """By hand: "1" read as 100% (a fraction) but "2" as 2%."""
    assert parse_chance("50%") == parse_chance("50") == parse_chance(" 50 % ") == Fraction(1, 2)
    assert parse_chance("25") == Fraction(1, 4)
    assert parse_chance("1") == Fraction(1, 100) and parse_chance("2") == Fraction(2, 100)
    assert parse_chance("100") == 1 and parse_chance("12.5") == Fraction(1, 8)
    for outside in ("0.5", "0", "101", "-5"):
        with pytest.raises(ValueError, match="percentage from 1 to 100"):
            parse_chance(outside)
