"""Reading and writing the few free-text fields of the forms (bonuses, modifiers, numbers).

No Textual here, so the parsing is tested on its own. Errors are `ValueError`s whose text is
shown under the field as it is. Numbers go through the guarded reader's `parse_number`
(content.guard): the same digit limits and ranges as in files, and the message says what is allowed.
"""

from __future__ import annotations

import difflib
import re
from fractions import Fraction

from horizon_tui.content.guard import current
from horizon_tui.content.guard import parse_number as guarded_number
from horizon_tui.content.models import ATTRIBUTES, STATS
from horizon_tui.errors import Problem

_ITEM = re.compile(r"^\s*([a-z_]+)\s*[:=]?\s*([+-]?\s*\d{1,40}(?:\.\d{1,40})?)\s*$")


def name_length() -> int:
    """The most characters a name field takes (files.name_length in data/limits.toml): a name
    longer than a file may hold can't be typed, so what a form saves opens again."""
    return current().name_length


def number(value: Fraction | int | float) -> str:
    """A number as a player writes it: 2, 1.5, 0.25 (no trailing zeros)."""
    return f"{float(value):g}"


# A field's label -> the range of data/limits.toml it is held to (as the same key in a file is).
FIELD_RANGES: dict[str, str] = {
    "radius": "radius", "length": "length", "multiplier": "multiplier", "range": "cells",
    "xp": "xp", "level": "level", "magnitude": "magnitude", "duration": "duration",
    **{name: "attribute" for name in ATTRIBUTES},
}


def _checked(text: str, what: str, range_name: str | None, whole: bool) -> Fraction | int:
    """content.guard.parse_number, with its Problem as the ValueError shown under the field."""
    value = guarded_number(text, what, range_name or FIELD_RANGES.get(what.lower()), whole=whole)
    if isinstance(value, Problem):
        raise ValueError(f"{what}: {value.message}")
    return value


def parse_number(text: str, what: str, range_name: str | None = None) -> Fraction:
    """A number typed in a field, held to the same limits as in a file (data/limits.toml):
    `range_name`, else the field's own range (FIELD_RANGES), else any number."""
    return Fraction(_checked(text, what, range_name, False))


def parse_optional_number(text: str, what: str, range_name: str | None = None) -> Fraction | None:
    return None if not text.strip() else parse_number(text, what, range_name)


def parse_optional_int(text: str, what: str, range_name: str | None = None) -> int | None:
    if not text.strip():
        return None
    return int(_checked(text, what, range_name, True))


def parse_whole(text: str, what: str, range_name: str | None = None, *, low: int | None = None,
                high: int | None = None) -> int:
    """A whole number typed in a field: the guarded parse (digits, the range of data/limits.toml),
    then the field's own bounds `low`…`high` where the form has them (a combatant's health), which
    the message names instead of the file range."""
    bounded = low is not None and high is not None
    try:
        value = int(_checked(text, what, range_name, True))
    except ValueError:
        if not bounded:
            raise
        raise ValueError(f"{what} is a whole number {low}…{high}, not {text.strip()[:40]!r}") from None
    if (low is not None and value < low) or (high is not None and value > high):
        bounds = f"{low}…{high}" if bounded else f"at least {low}" if low is not None else f"at most {high}"
        raise ValueError(f"{what} is {bounds}, not {value}")
    return value


def parse_bonuses(
    text: str, *, attributes: bool = True, stats: bool = True
) -> tuple[dict[str, int], dict[str, Fraction]]:
    """`perception +1, evasion 1.5` -> ({perception: 1}, {evasion: 3/2}).

    Attributes take whole points; stats take any amount. Unknown names get a "did you mean".
    """
    names = (ATTRIBUTES if attributes else ()) + (STATS if stats else ())
    attribute_points: dict[str, int] = {}
    stat_amounts: dict[str, Fraction] = {}
    for raw in re.split(r"[,;\n]", text):
        if not raw.strip():
            continue
        match = _ITEM.match(raw.lower())
        if not match:
            raise ValueError(f"{raw.strip()!r}: write a name and an amount, e.g. 'evasion +1.5'")
        name, amount_text = match.group(1), match.group(2).replace(" ", "")
        if name not in names:
            close = difflib.get_close_matches(name, names, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise ValueError(f"{name!r} is not {'an attribute or a stat' if attributes and stats else 'a stat' if stats else 'an attribute'}{hint}")
        amount = Fraction(_checked(amount_text, name, "bonus_points" if name in ATTRIBUTES else "stat_bonus", False))
        if name in ATTRIBUTES:
            if amount.denominator != 1:
                raise ValueError(f"{name}: attribute points are whole numbers")
            attribute_points[name] = attribute_points.get(name, 0) + int(amount)
        else:
            stat_amounts[name] = stat_amounts.get(name, Fraction(0)) + amount
    return attribute_points, stat_amounts


def format_bonuses(attribute_points: dict[str, int], stat_amounts: dict[str, Fraction]) -> str:
    parts = [f"{name} {'+' if v >= 0 else ''}{v}" for name, v in attribute_points.items()]
    parts += [f"{name} {'+' if v >= 0 else ''}{number(v)}" for name, v in stat_amounts.items()]
    return ", ".join(parts)
