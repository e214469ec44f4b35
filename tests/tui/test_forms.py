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


def test_chance_reads_fractions_and_percentages():
    assert parse_chance("0.5") == Fraction(1, 2)
    assert parse_chance("50%") == Fraction(1, 2)
    assert parse_chance("25") == Fraction(1, 4)
