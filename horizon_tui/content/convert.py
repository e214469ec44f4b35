"""The one cattrs converter for data files and saves, and its error translation.

`forbid_extra_keys` makes a misspelt key an error; `problems_from` turns cattrs' exception groups
into `Problem`s with a dotted key and a "did you mean" for unknown keys.
"""

from __future__ import annotations

import difflib
import enum
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any

import attrs
import cattrs
from cattrs.errors import (
    ClassValidationError,
    ForbiddenExtraKeysError,
    IterableValidationError,
)
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from horizon_tui.content.models import Armor
from horizon_tui.errors import Problem


def _to_fraction(value: Any, _type: Any = None) -> Fraction:
    """Exact numbers from their decimal text: 0.1 is 1/10, not the nearest binary float."""
    if isinstance(value, bool):
        raise TypeError(f"expected a number, got {value!r}")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        return Fraction(Decimal(repr(value)))
    if isinstance(value, str):
        try:
            return Fraction(Decimal(value.strip()))
        except Exception:
            raise ValueError(f"expected a number, got {value!r}") from None
    raise TypeError(f"expected a number, got {type(value).__name__} {value!r}")


def fraction_to_plain(value: Fraction) -> int | float:
    """Fractions go out as ints when whole, else as the shortest float (0.1 stays 0.1)."""
    if value.denominator == 1:
        return int(value)
    return float(value)


def _strict_int(value: Any, _type: Any = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
            return int(value)
        raise TypeError(f"expected a whole number, got {value!r}")
    return value


def _strict_str(value: Any, _type: Any = None) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {value!r}")
    return value


def _strict_bool(value: Any, _type: Any = None) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {value!r}")
    return value


def _structure_enum(value: Any, cls: type[enum.Enum]) -> enum.Enum:
    try:
        return cls(value)
    except ValueError:
        choices = ", ".join(repr(m.value) for m in cls)
        raise ValueError(f"expected one of {choices}, got {value!r}") from None


def make_converter() -> cattrs.Converter:
    conv = cattrs.Converter(forbid_extra_keys=True, detailed_validation=True)
    conv.register_structure_hook(Fraction, _to_fraction)
    conv.register_unstructure_hook(Fraction, fraction_to_plain)
    conv.register_structure_hook(int, _strict_int)
    conv.register_structure_hook(str, _strict_str)
    conv.register_structure_hook(bool, _strict_bool)
    conv.register_structure_hook_func(
        lambda t: isinstance(t, type) and issubclass(t, enum.Enum), _structure_enum
    )
    # Armor's class is `class` in files, a keyword in Python.
    conv.register_structure_hook(
        Armor,
        make_dict_structure_fn(
            Armor, conv, _cattrs_forbid_extra_keys=True, armor_class=override(rename="class")
        ),
    )
    conv.register_unstructure_hook(
        Armor, make_dict_unstructure_fn(Armor, conv, armor_class=override(rename="class"))
    )
    return conv


converter = make_converter()


def field_names(cls: type) -> list[str]:
    if cls is Armor:
        return ["name", "class", "id", "description"]
    if attrs.has(cls):
        return [f.name for f in attrs.fields(cls)]
    return []


_FILE_NAMES = {"armor_class": "class"}  # attribute name -> its key in files


def _message(exc: BaseException) -> str:
    if isinstance(exc, KeyError):
        return "is required but missing"
    text = str(exc)
    if isinstance(exc, TypeError) and "expected" not in text:
        return f"has the wrong type ({text})"
    return text


def problems_from(exc: BaseException, file: str, path: tuple[str, ...] = ()) -> list[Problem]:
    """Flatten a cattrs error into one Problem per wrong key."""
    problems: list[Problem] = []
    dotted = ".".join(path)
    if isinstance(exc, ForbiddenExtraKeysError):
        known = field_names(exc.cl)
        for key in sorted(exc.extra_fields):
            close = difflib.get_close_matches(key, known, n=1)
            problems.append(
                Problem(file, ".".join(path + (key,)), "unknown key", suggestion=close[0] if close else None)
            )
    elif isinstance(exc, ClassValidationError):
        with_notes, without = exc.group_exceptions()
        for sub, note in with_notes:
            name = _FILE_NAMES.get(str(note.name), str(note.name))
            if isinstance(sub, KeyError) and sub.args and sub.args[0] == name:
                problems.append(Problem(file, ".".join(path + (name,)), "is required but missing"))
                continue
            problems += problems_from(sub, file, path + (name,))
        for sub in without:
            problems += problems_from(sub, file, path)
    elif isinstance(exc, IterableValidationError):
        with_notes, without = exc.group_exceptions()
        for sub, note in with_notes:
            problems += problems_from(sub, file, path + (str(note.index),))
        for sub in without:
            problems += problems_from(sub, file, path)
    elif isinstance(exc, KeyError) and exc.args:
        problems.append(Problem(file, ".".join(path + (str(exc.args[0]),)), "is required but missing"))
    else:
        problems.append(Problem(file, dotted, _message(exc)))
    return problems


def structure(data: Any, cls: type, file: str, key_prefix: tuple[str, ...] = ()) -> Any:
    """Structure `data` into `cls`, raising DataError with every problem found."""
    from horizon_tui.errors import DataError

    try:
        return converter.structure(data, cls)
    except (cattrs.BaseValidationError, ForbiddenExtraKeysError, ValueError, TypeError, KeyError) as exc:
        raise DataError(problems_from(exc, file, key_prefix)) from None
