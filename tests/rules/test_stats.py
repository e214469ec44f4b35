"""R-1 attributes and R-2 derived stats: the worked example, exact arithmetic, linearity."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from horizon_tui.content.models import ATTRIBUTES, STATS
from horizon_tui.rules.character import build, sheet
from horizon_tui.rules.numbers import one_decimal, round_half_up, whole
from horizon_tui.rules.stats import COEFFICIENTS, add_points, derived_stats, main_attribute

F = Fraction

# R-2: physical 10, agility 10, perception 10, cognition 6, faith 5, beauty 1.
WORKED = {
    "health": F(690), "strength": F("20.5"), "evasion": F("19.1"), "accuracy": F(20),
    "speed": F("5.5"), "initiative": F("11.7"), "stealth": F("11.2"), "willpower": F("36.2"),
    "spellpower": F("24.5"), "charisma": F("3.8"),
}

attribute_values = st.fixed_dictionaries({name: st.integers(0, 500) for name in ATTRIBUTES})


def test_r1_minimums_are_one_except_beauty_zero(rules):
    """R-1: every attribute's minimum is 1; beauty's is 0 [H]."""
    assert rules.creation.minimums == {
        "physical": 1, "agility": 1, "perception": 1, "cognition": 1, "faith": 1, "beauty": 0,
    }


def test_r1_attribute_value_is_invested_plus_bonus_points(make_character, rules):
    """R-1: value = invested + bonus (species, items, GM awards); elf gives agility +1, perception +1."""
    character = make_character(species="elf", bonus={"faith": 2})
    totals = build(character, rules).attributes
    assert totals == {
        "physical": 10, "agility": 11, "perception": 11, "cognition": 6, "faith": 7, "beauty": 1,
    }


def test_r2_worked_example_exactly(example_attributes):
    """R-2 worked example: health 690, strength 20.5, evasion 19.1, accuracy 20, speed 5.5,
    initiative 11.7, stealth 11.2, willpower 36.2, spellpower 24.5, charisma 3.8 — as exact Fractions."""
    assert derived_stats(example_attributes) == WORKED


def test_r2_worked_example_on_the_sheet(make_character, rules):
    """R-2: the sheet shows stats to one decimal and health whole."""
    shown = sheet(build(make_character(), rules))["stats"]
    assert shown == {
        "health": 690, "strength": 20.5, "evasion": 19.1, "accuracy": 20.0, "speed": 5.5,
        "initiative": 11.7, "stealth": 11.2, "willpower": 36.2, "spellpower": 24.5, "charisma": 3.8,
    }
    assert isinstance(shown["health"], int)


def test_r2_coefficients_match_the_rules_table():
    """R-2: the coefficient table as printed in RULES.md, row by row."""
    table = {
        "health": (40, 10, 8, 5, 15, 5),
        "strength": (2, 0, 0, 0, "0.1", 0),
        "evasion": (0, "1.5", "0.3", "0.1", "0.1", 0),
        "accuracy": (0, "0.2", "1.5", "0.5", 0, 0),
        "speed": ("0.1", "0.4", 0, 0, "0.1", 0),
        "initiative": (0, "0.2", "0.8", "0.2", "0.1", 0),
        "stealth": (0, "0.5", "0.5", "0.2", 0, 0),
        "willpower": ("0.5", "0.5", 0, "0.2", 5, 0),
        "spellpower": ("0.2", 0, 0, "2.5", "1.5", 0),
        "charisma": (0, 0, 0, "0.3", 0, 2),
    }
    for stat, row in table.items():
        got = tuple(COEFFICIENTS[stat].get(name, F(0)) for name in ATTRIBUTES)
        assert got == tuple(F(v) for v in row), stat


def test_r2_rounds_half_up_not_to_even():
    """R-2: 90.55 shows as 90.6 (binary floats and banker's rounding would both give 90.5)."""
    assert one_decimal(F("90.55")) == 90.6
    assert one_decimal(F("90.45")) == 90.5
    assert one_decimal(F("0.25")) == 0.3
    assert whole(F(5, 2)) == 3
    assert whole(F(7, 2)) == 4
    assert whole(F(-5, 2)) == -3 and whole(F(-7, 3)) == -2 and whole(0) == 0  # half away from zero
    assert round_half_up(F("-2.5")) == -3


def test_r2_no_binary_float_drift():
    """R-2: computed exactly; faith 3 gives strength exactly 0.3 (3 × 0.1 in floats is 0.30000000000000004)."""
    stats = derived_stats({"faith": 3})
    assert stats["strength"] == F(3, 10)
    assert stats["speed"] == F(3, 10)


def test_r2_flat_bonuses_add_to_the_stat():
    """R-2/R-3: species and items may add flat amounts to derived stats."""
    stats = derived_stats({"agility": 10}, {"evasion": F("1.5")})
    assert stats["evasion"] == F(15) + F("1.5")


@settings(max_examples=60, deadline=None)
@given(a=attribute_values, b=attribute_values)
def test_r2_derived_stats_are_linear(a, b):
    """R-2 (base 0): stats(a + b) = stats(a) + stats(b), and stats(0) = 0."""
    together = derived_stats(add_points(a, b))
    sa, sb = derived_stats(a), derived_stats(b)
    assert together == {stat: sa[stat] + sb[stat] for stat in STATS}
    assert set(derived_stats({}).values()) == {F(0)}


@settings(max_examples=60, deadline=None)
@given(base=attribute_values, attribute=st.sampled_from(ATTRIBUTES), extra=st.integers(1, 50))
def test_r2_derived_stats_are_monotone_in_each_attribute(base, attribute, extra):
    """R-2: raising one attribute by n raises each stat by n × its coefficient, never lowers any."""
    before = derived_stats(base)
    raised = dict(base)
    raised[attribute] += extra
    after = derived_stats(raised)
    for stat in STATS:
        assert after[stat] - before[stat] == extra * COEFFICIENTS[stat].get(attribute, 0)
        assert after[stat] >= before[stat]


def test_r3_main_attribute_gives_most_of_a_stat():
    """R-3 budget helper: the attribute giving most of a stat (evasion: agility; willpower: faith)."""
    assert main_attribute("evasion") == "agility"
    assert main_attribute("willpower") == "faith"
    assert main_attribute("health") == "physical"
    assert main_attribute("spellpower") == "cognition"
