"""The one cattrs converter for data files and saves, and its error translation.

`forbid_extra_keys` makes a misspelt key an error; `problems_from` turns cattrs' exception groups
into `Problem`s with a dotted key and a "did you mean" for unknown keys.
"""

from __future__ import annotations

import difflib
import enum
import re
import typing
from decimal import Decimal
from fractions import Fraction
from typing import Any

import attrs
import cattrs
from cattrs.cols import (
    homogenous_tuple_structure_factory,
    is_mapping,
    is_sequence,
    list_structure_factory,
    mapping_structure_factory,
)
from cattrs.errors import (
    ClassValidationError,
    ForbiddenExtraKeysError,
    IterableValidationError,
)
from cattrs.gen import make_dict_structure_fn, make_dict_unstructure_fn, override

from horizon_tui.content.guard import cap, check_ranges, parse_decimal, scan
from horizon_tui.content.models import Armor
from horizon_tui.errors import DataError, Problem


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
        try:  # never Fraction(Decimal(text)) on unbounded text: "1e999999999" would never finish
            return parse_decimal(value)
        except ValueError as exc:
            raise ValueError(f"expected a number, got {_short(value)} ({exc})") from None
    raise TypeError(f"expected a number, got {type(value).__name__} {_short(value)}")


def _short(value: Any) -> str:
    """A value as shown in a problem: long texts and lists are cut, not printed whole."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def fraction_to_plain(value: Fraction) -> int | float:
    """Fractions go out as ints when whole, else as the shortest float (0.1 stays 0.1)."""
    if value.denominator == 1:
        return int(value)
    return float(value)


def _strict_int(value: Any, _type: Any = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, str) and len(value) <= 60 and re.fullmatch(r"-?\d{1,40}", value.strip()):
            return int(value)
        raise TypeError(f"expected a whole number, got {_short(value)}")
    return value


def _strict_str(value: Any, _type: Any = None) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {type(value).__name__}")
    return value


def _strict_bool(value: Any, _type: Any = None) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {_short(value)}")
    return value


def _structure_enum(value: Any, cls: type[enum.Enum]) -> enum.Enum:
    try:
        return cls(value)
    except (ValueError, TypeError):
        choices = ", ".join(repr(m.value) for m in cls)
        raise ValueError(f"expected one of {choices}, got {_short(value)}") from None


def _strict_containers(conv: cattrs.Converter) -> None:
    """A list where a list belongs, a table where a table belongs: `loadout = "xxxx"` is one
    problem ("expected a list"), not one per character of the text."""
    def sequence_factory(type_: Any, converter: cattrs.Converter):
        origin = typing.get_origin(type_)
        args = typing.get_args(type_)
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            base = converter.gen_structure_hetero_tuple(type_)
            count = len(args)
        elif origin is tuple:
            base = homogenous_tuple_structure_factory(type_, converter)
            count = None
        else:
            base = list_structure_factory(type_, converter)
            count = None

        def hook(value: Any, _type: Any = None):
            if not isinstance(value, (list, tuple)):
                raise TypeError(f"expected a list, got {type(value).__name__} {_short(value)}")
            if count is not None and len(value) != count:
                raise ValueError(f"expected a list of {count}, got {len(value)} items")
            return base(value, _type)

        return hook

    def mapping_factory(type_: Any, converter: cattrs.Converter):
        base = mapping_structure_factory(type_, converter)

        def hook(value: Any, _type: Any = None):
            if not isinstance(value, dict):
                raise TypeError(f"expected a table, got {type(value).__name__} {_short(value)}")
            return base(value, _type)

        return hook

    def attrs_factory(type_: Any, converter: cattrs.Converter):
        base = converter.gen_structure_attrs_fromdict(type_)
        return _table_only(base)

    conv.register_structure_hook_factory(is_sequence, sequence_factory)
    conv.register_structure_hook_factory(is_mapping, mapping_factory)
    conv.register_structure_hook_factory(attrs.has, attrs_factory)


def _table_only(base):
    """A hook for an attrs class that refuses anything but a table, with one problem."""

    def hook(value: Any, _type: Any = None):
        if not isinstance(value, dict):
            raise TypeError(f"expected a table, got {type(value).__name__} {_short(value)}")
        return base(value, _type)

    return hook


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
    _strict_containers(conv)
    # Armor's class is `class` in files, a keyword in Python.
    conv.register_structure_hook(
        Armor,
        _table_only(make_dict_structure_fn(
            Armor, conv, _cattrs_forbid_extra_keys=True, armor_class=override(rename="class")
        )),
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
    """Structure `data` into `cls`, raising DataError with every problem found.

    The guarded reader's checks come first and last (content.guard): nothing too deep, too long
    or too large reaches cattrs, and every number of the result is within its documented range."""
    problems = scan(data, file, prefix=key_prefix)
    if problems:
        raise DataError(problems)
    try:
        result = converter.structure(data, cls)
    except (cattrs.BaseValidationError, ForbiddenExtraKeysError, ValueError, TypeError, KeyError) as exc:
        raise DataError(cap(problems_from(exc, file, key_prefix))) from None
    except RecursionError:
        raise DataError.one(file, ".".join(key_prefix), "is nested too deeply") from None
    problems = check_ranges(result, file, key_prefix)
    if problems:
        raise DataError(problems)
    return result
