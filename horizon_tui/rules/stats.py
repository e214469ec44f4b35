"""R-1 attributes and R-2 derived stats, computed exactly."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from horizon_tui.content.models import ATTRIBUTES, STATS
from horizon_tui.rules.numbers import round_half_up

F = Fraction

# R-2 [S]: each derived stat is the sum over attributes of value × coefficient (base 0).
COEFFICIENTS: dict[str, dict[str, Fraction]] = {
    "health": {"physical": F(40), "agility": F(10), "perception": F(8), "cognition": F(5), "faith": F(15), "beauty": F(5)},
    "strength": {"physical": F(2), "faith": F("0.1")},
    "evasion": {"agility": F("1.5"), "perception": F("0.3"), "cognition": F("0.1"), "faith": F("0.1")},
    "accuracy": {"agility": F("0.2"), "perception": F("1.5"), "cognition": F("0.5")},
    "speed": {"physical": F("0.1"), "agility": F("0.4"), "faith": F("0.1")},
    "initiative": {"agility": F("0.2"), "perception": F("0.8"), "cognition": F("0.2"), "faith": F("0.1")},
    "stealth": {"agility": F("0.5"), "perception": F("0.5"), "cognition": F("0.2")},
    "willpower": {"physical": F("0.5"), "agility": F("0.5"), "cognition": F("0.2"), "faith": F(5)},
    "spellpower": {"physical": F("0.2"), "cognition": F("2.5"), "faith": F("1.5")},
    "charisma": {"cognition": F("0.3"), "beauty": F(2)},
}


def add_points(*parts: Mapping[str, int]) -> dict[str, int]:
    """Attribute totals: invested + species + bonus (R-1)."""
    totals = {name: 0 for name in ATTRIBUTES}
    for part in parts:
        for name, value in part.items():
            totals[name] = totals.get(name, 0) + value
    return totals


# The coefficients in tenths: every one is a multiple of 0.1, so stats are exact integer sums
# divided by 10 once (fast, and still exact).
_TENTHS: tuple[tuple[str, tuple[tuple[str, int], ...]], ...] = tuple(
    (stat, tuple((a, int(c * 10)) for a, c in COEFFICIENTS[stat].items())) for stat in STATS
)
assert all(c * 10 == int(c * 10) for row in COEFFICIENTS.values() for c in row.values())


def derived_stats(
    attributes: Mapping[str, int], flat: Mapping[str, Fraction] | None = None, *, health_scale: Fraction = Fraction(1)
) -> dict[str, Fraction]:
    """R-2: every derived stat from attribute totals, plus flat bonuses (species, passives).
    `health_scale` (rules.toml `derived_stats.health_scale`, [H]) multiplies the attributes' health."""
    get = attributes.get
    stats = {
        stat: Fraction(sum(get(a, 0) * c for a, c in row), 10) for stat, row in _TENTHS
    }
    if health_scale != 1:  # still a whole number, rounded half up
        stats["health"] = round_half_up(stats["health"] * health_scale)
    for stat, amount in (flat or {}).items():
        stats[stat] = stats.get(stat, Fraction(0)) + Fraction(amount)
    return stats


def main_attribute(stat: str) -> str:
    """The attribute that gives most of a stat (R-3 budget, the creation screen's highlight)."""
    coefficients = COEFFICIENTS[stat]
    return max(coefficients, key=lambda name: coefficients[name])


def drivers(attribute: str) -> dict[str, Fraction]:
    """The stats an attribute feeds, with their coefficients."""
    return {stat: c[attribute] for stat, c in COEFFICIENTS.items() if attribute in c}
