"""What many battles add up to: a win rate with its 95 % interval, median rounds, deaths."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

import attrs

from horizon_tui.tools.sweep.work import Played

Z95 = 1.959963984540054  # the normal quantile for a two-sided 95 % interval


def wilson_interval(wins: int, runs: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion: unlike p ± z·√(p(1−p)/n) it stays inside
    [0, 1] and is honest at 0 or n wins out of a few hundred. (0, 1) for no runs."""
    if runs <= 0:
        return 0.0, 1.0
    p = wins / runs
    z2 = z * z
    centre = (p + z2 / (2 * runs)) / (1 + z2 / runs)
    half = z * math.sqrt(p * (1 - p) / runs + z2 / (4 * runs * runs)) / (1 + z2 / runs)
    return max(0.0, centre - half), min(1.0, centre + half)


@attrs.frozen
class WinEstimate:
    """The party's odds in an encounter, from `runs` battles played by the AI."""

    wins: int
    runs: int  # battles played (fewer than asked if the run was stopped)
    win_rate: float
    ci_low: float  # the 95 % Wilson interval of the win rate
    ci_high: float
    rounds_p50: float  # median battle length in rounds
    deaths: float = 0.0  # party characters down at the end, mean per battle
    draws: int = 0  # battles that reached the round cap

    def as_dict(self) -> dict[str, float | int]:
        return {
            "runs": self.runs, "wins": self.wins, "win_rate": round(self.win_rate, 4),
            "ci_low": round(self.ci_low, 4), "ci_high": round(self.ci_high, 4),
            "rounds_p50": self.rounds_p50, "deaths": round(self.deaths, 3), "draws": self.draws,
        }


def estimate_from(played: Sequence[Played]) -> WinEstimate:
    runs = len(played)
    wins = sum(1 for winner, _, _ in played if winner == "party")
    low, high = wilson_interval(wins, runs)
    return WinEstimate(
        wins=wins, runs=runs, win_rate=wins / runs if runs else 0.0, ci_low=low, ci_high=high,
        rounds_p50=float(statistics.median(r for _, r, _ in played)) if runs else 0.0,
        deaths=sum(d for _, _, d in played) / runs if runs else 0.0,
        draws=sum(1 for winner, _, _ in played if winner == "draw"),
    )
