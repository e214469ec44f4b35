"""A run's house numbers (`data/runs.toml`): how many encounters a depth offers, how fast the
depths get harder, what a rest gives back, how deep a run goes, and the paces a run may pick.

The depth curve is in units of the sweep's ratings (`horizon sweep --rate`): an encounter rated
at party level L and size S needs S·L "member-levels" to win three battles in four; a party's
strength is the sum of its standing members' levels. Depth d aims at encounters whose rated
strength is `first_ratio + ratio_step·(d−1)` times the party's. `horizon run --simulate` measures
where runs end on that curve (README, "Runs").
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import attrs

from horizon_tui.content.catalogue import data_dir
from horizon_tui.content.convert import structure
from horizon_tui.content.files import read_document, with_lines
from horizon_tui.errors import DataError, Problem

FILE_NAME = "runs.toml"


@attrs.frozen
class Pace:
    """R-2's `health_scale` and R-9's `damage_scale` for a run's fights (data/rules.toml's knobs)."""

    name: str
    health_scale: Fraction = Fraction(1)
    damage_scale: Fraction = Fraction(1)
    description: str = ""


@attrs.frozen
class RunRules:
    offers: int = 3  # encounters a depth offers (2 or 3)
    first_ratio: float = 0.5  # depth 1's rated strength ÷ the party's
    ratio_step: float = 0.15  # added per depth
    max_depth: int = 12  # a run that wins this depth's fight is won
    rest_health: float = 0.3  # a rest gives back this share of each member's maximum health
    rest_turns: int = 10  # turns a rest lasts: effects and cooldowns count them down
    estimate_runs: int = 100  # battles played for each offer's win chance
    ranked_pace: str = "source"  # the pace the hall of fame ranks; other paces are listed apart
    paces: tuple[Pace, ...] = (
        Pace("source", description="the source's numbers: health and damage as written"),
        Pace("brisk", Fraction(1, 2), Fraction(3, 2), "half health, one and a half times the damage"),
    )

    def pace(self, name: str) -> Pace:
        for pace in self.paces:
            if pace.name == name:
                return pace
        raise ValueError(f"unknown pace {name!r}; known: {', '.join(p.name for p in self.paces)}")

    def ratio(self, depth: int) -> float:
        """The rated strength depth `depth` aims at, as a multiple of the party's."""
        return self.first_ratio + self.ratio_step * (depth - 1)


def _checked(rules: RunRules, file: str) -> RunRules:
    problems = []
    if not 2 <= rules.offers <= 3:
        problems.append(Problem(file, "offers", f"2 or 3 encounters a depth, not {rules.offers}"))
    if rules.first_ratio <= 0:
        problems.append(Problem(file, "first_ratio", "a ratio above 0"))
    if rules.ratio_step < 0:
        problems.append(Problem(file, "ratio_step", "0 or more (deeper is never easier)"))
    if not 1 <= rules.max_depth <= 1000:
        problems.append(Problem(file, "max_depth", f"1 to 1000, not {rules.max_depth}"))
    if not 0 <= rules.rest_health <= 1:
        problems.append(Problem(file, "rest_health", f"a share from 0 to 1, not {rules.rest_health:g}"))
    if not 0 <= rules.rest_turns <= 1000:
        problems.append(Problem(file, "rest_turns", f"0 to 1000 turns, not {rules.rest_turns}"))
    if not 1 <= rules.estimate_runs <= 10_000:
        problems.append(Problem(file, "estimate_runs", f"1 to 10,000 battles, not {rules.estimate_runs}"))
    names = [p.name for p in rules.paces]
    if not names:
        problems.append(Problem(file, "paces", "at least one pace"))
    for i, pace in enumerate(rules.paces):
        if names.count(pace.name) > 1:
            problems.append(Problem(file, f"paces.{i}.name", f"{pace.name!r} is named twice"))
        for knob in ("health_scale", "damage_scale"):
            if getattr(pace, knob) <= 0:
                problems.append(Problem(file, f"paces.{i}.{knob}", "above 0 (as in rules.toml)"))
    if names and rules.ranked_pace not in names:
        problems.append(Problem(file, "ranked_pace", f"one of the paces: {', '.join(names)}"))
    if problems:
        raise DataError(problems)
    return rules


def load_run_rules(path: Path | None = None) -> RunRules:
    """The data folder's runs.toml (absent: the defaults above). DataError naming file, line and key."""
    if path is None:
        path = data_dir() / FILE_NAME
        if not path.exists():
            return RunRules()
    data, text = read_document(path)
    try:
        return _checked(structure(data, RunRules, str(path)), str(path))
    except DataError as exc:
        raise with_lines(exc, text) from None
