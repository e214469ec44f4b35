"""R-3 species bonuses and their budget."""

from __future__ import annotations

from fractions import Fraction

from horizon_tui.content.models import Species
from horizon_tui.rules.stats import COEFFICIENTS, main_attribute


def stat_bonus_cost(stat: str, amount: Fraction) -> Fraction:
    """A flat stat bonus counts as the attribute points that would give it through the
    attribute giving most of that stat (R-3 [H]): +3 evasion = 2 agility points."""
    coefficient = COEFFICIENTS[stat][main_attribute(stat)]
    return abs(Fraction(amount)) / coefficient


def bonus_cost(species: Species) -> Fraction:
    """What a species' bonuses are worth in attribute points."""
    cost = sum((Fraction(abs(v)) for v in species.bonuses.attributes.values()), Fraction(0))
    for stat, amount in species.bonuses.stats.items():
        cost += stat_bonus_cost(stat, amount)
    return cost


def over_budget_reason(species: Species, budget: Fraction) -> str | None:
    """Why a species is over the bonus budget, or None when it fits."""
    cost = bonus_cost(species)
    if cost <= budget:
        return None
    parts = [f"{name} {value:+d}" for name, value in species.bonuses.attributes.items()]
    parts += [
        f"{stat} {float(amount):+g} (= {float(stat_bonus_cost(stat, amount)):g} points)"
        for stat, amount in species.bonuses.stats.items()
    ]
    return (
        f"bonuses are worth {float(cost):g} attribute points ({', '.join(parts)}); "
        f"the budget is {float(budget):g}"
    )
