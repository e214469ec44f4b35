"""The one guarded reader: every file Horizon reads, and every number typed in a form.

Before anything is converted or structured:

- a size limit per file (`files.file_bytes`, `files.save_bytes` of `data/limits.toml`);
- a nesting limit, checked with an explicit stack (never recursion);
- a digit limit on every number and a length limit on every text, so `int`, `Fraction` and
  `float` only ever see short inputs (`"1e999999999"` is refused, not computed);

and after structuring (`check_ranges`), every number of an attrs object is held to the range its
field names (`metadata={"limit": "xp"}`), from `[ranges]` in `data/limits.toml`. A field without
a name is held to `whole` or `number`; a text to `text_length`, a name to `name_length`.

Public: `read_document`, `read_json_object`, `scan`, `check_ranges`, `parse_decimal`,
`parse_number`, `limits`, `cap`, `LIMIT`.
"""

from __future__ import annotations

import contextlib
import copy
import difflib
import json
import math
import os
import re
import stat
import tomllib
import unicodedata
from fractions import Fraction
from pathlib import Path
from typing import Any

import attrs

from horizon_tui.content.data_folder import data_dir
from horizon_tui.content.key_lines import with_key_lines
from horizon_tui.errors import DataError, Problem

LIMITS_FILE = "limits.toml"
_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")
# A decimal number as text: digits, an optional point, an optional exponent; or a fraction a/b.
_DECIMAL = re.compile(r"[+-]?(?:(\d*)\.?(\d*))(?:[eE]([+-]?\d+))?")
_FRACTION = re.compile(r"([+-]?\d+)\s*/\s*(\d+)")


def LIMIT(name: str) -> dict[str, str]:  # noqa: N802 - reads like a mark beside the field
    """Field metadata naming the range (data/limits.toml `[ranges]`) its numbers are held to."""
    return {"limit": name}


NAME: dict[str, str] = {"limit": "name"}  # a name: `name_length`, no control characters
# A raw table structured later into a class whose own fields name their ranges (an encounter's
# [map]: width and height are field sides, the seed a seed): not held to `whole` here.
LATER: dict[str, str] = {"limit": "later"}


@attrs.frozen
class Range:
    low: Fraction
    high: Fraction
    name: str

    def allows(self, value: Fraction | int | float) -> bool:
        return self.low <= value <= self.high

    def describe(self) -> str:
        return f"{show(self.low)} to {show(self.high)} ({self.name} in {LIMITS_FILE})"


@attrs.frozen
class Limits:
    """`data/limits.toml`, read. Build with `limits()`; the fields are documented in that file."""

    file_bytes: int
    save_bytes: int
    nesting: int
    digits: int
    text_length: int
    name_length: int
    problems: int
    ranges: dict[str, Range]
    source: str = ""

    def range(self, name: str) -> Range:
        found = self.ranges.get(name)
        if found is None:
            raise KeyError(f"{self.source}: no range named {name!r} under [ranges]")
        return found


# Only for reading limits.toml itself (it can't be held to the limits it defines).
_BOOTSTRAP = Limits(65_536, 65_536, 8, 60, 10_000, 64, 50, {}, "(built in)")


def show(value: Fraction | int | float) -> str:
    """A bound or a value as people read it: 42, 0.5, 10^30, 1.5e+12."""
    if isinstance(value, float):
        return f"{value:g}"
    value = Fraction(value)
    if value.denominator == 1:
        n = int(value)
        if abs(n) >= 10**12:
            digits = len(str(abs(n))) - 1
            if abs(n) == 10**digits:
                return f"{'-' if n < 0 else ''}10^{digits}"
            return f"{float(n):.3g}"
        return str(n)
    return f"{float(value):g}"


# --- reading a file --------------------------------------------------------------------------


def read_limited(path: Path, max_bytes: int) -> bytes:
    """A plain file's bytes, at most `max_bytes` (DataError naming the limit if it is bigger).

    A FIFO or a device (/dev/zero, a pipe) would block or never end: plain files only."""
    try:  # a FIFO or a device (/dev/zero, a pipe) would block or never end: plain files only
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise DataError.one(path, "", "is not a plain file (a folder, a device or a pipe)")
    except FileNotFoundError:
        raise DataError.one(path, "", "no such file") from None
    except OSError as exc:
        raise DataError.one(path, "", f"can't be read: {exc.strerror or exc}") from None
    try:
        with open(path, "rb") as handle:
            raw = handle.read(max_bytes + 1)
    except FileNotFoundError:
        raise DataError.one(path, "", "no such file") from None
    except IsADirectoryError:
        raise DataError.one(path, "", "is a folder, not a file") from None
    except OSError as exc:
        raise DataError.one(path, "", f"can't be read: {exc.strerror or exc}") from None
    if len(raw) > max_bytes:
        raise DataError.one(path, "", f"is too big: more than {max_bytes:,} bytes (files.file_bytes/"
                            f"files.save_bytes in {LIMITS_FILE})")
    return raw


def _read_text(path: Path, max_bytes: int) -> str:
    raw = read_limited(path, max_bytes)
    try:
        return raw.decode("utf-8-sig")  # a byte-order mark (Windows Notepad's UTF-8) read past
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise DataError.one(path, "", f"is not UTF-8 text (byte {exc.start}); save it as UTF-8", line) from None


def _json_int(limits: Limits):
    def parse(text: str) -> int:
        if len(text.lstrip("-")) > limits.digits:
            raise _TooLong(text)
        return int(text)

    return parse


class _TooLong(ValueError):
    pass


def _json_constant(name: str):
    raise ValueError(f"{name} is not a number Horizon reads")


class _Twice(ValueError):
    pass


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object; a key written twice is refused (JSON would keep the last, silently; TOML
    refuses it too)."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        raise _Twice(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return data


def parse_text(text: str, path: Path | str, *, json_format: bool, limits: Limits | None = None) -> dict[str, Any]:
    """A document's text as a dict, scanned (`scan`); DataError naming the line otherwise."""
    limits = limits or current()
    text = text.removeprefix("\ufeff")
    try:
        if json_format:
            data = json.loads(text, parse_int=_json_int(limits), parse_constant=_json_constant,
                              object_pairs_hook=_json_object)
        else:
            data = tomllib.loads(text)
    except RecursionError:
        raise DataError.one(path, "", f"is nested too deeply: at most {limits.nesting} levels "
                            f"(files.nesting in {LIMITS_FILE})") from None
    except _TooLong as exc:
        raise DataError.one(path, "", f"a number has {len(str(exc))} digits; at most {limits.digits} "
                            f"(files.digits in {LIMITS_FILE})") from None
    except _Twice as exc:
        key = str(exc)
        raise DataError(locate_capped([Problem(str(path), key, "written twice in one object; keep one")],
                                      text, limits)) from None
    except json.JSONDecodeError as exc:
        raise DataError.one(path, "", f"can't be read: broken JSON: {exc.msg} (column {exc.colno})", exc.lineno) from None
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        match = _TOML_AT.search(message)
        line = int(match.group(1)) if match else None
        message = _TOML_AT.sub("", message).strip()
        if match:
            message += f" (column {match.group(2)})"
        raise DataError.one(path, "", f"can't be read: broken TOML: {message}", line) from None
    except ValueError as exc:  # tomllib: an integer over Python's 4300 digits; JSON: NaN, Infinity
        text_of = str(exc)
        if "digits" in text_of:
            text_of = f"a number has more than {limits.digits} digits (files.digits in {LIMITS_FILE})"
        raise DataError.one(path, "", text_of) from None
    if not isinstance(data, dict):
        raise DataError.one(path, "", "expected a table of keys at the top")
    problems = scan(data, str(path), limits)
    if problems:
        raise DataError(locate_capped(problems, text, limits))
    return data


def read_document(path: Path, *, save: bool = False, limits: Limits | None = None) -> tuple[dict[str, Any], str]:
    """A TOML or JSON file as a dict, and its text (for locating keys' lines); DataError else.

    `save`: a battle save or campaign, held to `files.save_bytes` instead of `files.file_bytes`."""
    limits = limits or current()
    path = Path(path)
    key = None
    if _once is not None:
        try:
            st = os.stat(path)
            key = (str(path), st.st_mtime_ns, st.st_size, save)
        except OSError:
            key = None
        if key in _once:
            data, text = _once[key]
            return copy.deepcopy(data), text
    text = _read_text(path, limits.save_bytes if save else limits.file_bytes)
    data = parse_text(text, path, json_format=path.suffix.lower() == ".json", limits=limits)
    if _once is not None and key is not None:
        _once[key] = (copy.deepcopy(data), text)
    return data, text


_once: dict[tuple, tuple[dict[str, Any], str]] | None = None


@contextlib.contextmanager
def reading_once():
    """Within it, a file read twice (validate reads it to tell its kind, then reads it as its
    kind) is parsed once; each reader still gets its own copy."""
    global _once
    outer = _once
    _once = {} if outer is None else outer
    try:
        yield
    finally:
        _once = outer


def read_json_object(path: Path, *, limits: Limits | None = None) -> dict[str, Any]:
    """A save (battle, campaign) as a JSON object, held to the save limits."""
    limits = limits or current()
    path = Path(path)
    text = _read_text(path, limits.save_bytes)
    return parse_text(text, path, json_format=True, limits=limits)


def decode_json_bytes(data: bytes, file: str, *, limits: Limits | None = None) -> dict[str, Any]:
    """Bytes already read (a campaign kept for undo) as a JSON object, with the same limits."""
    limits = limits or current()
    if len(data) > limits.save_bytes:
        raise DataError.one(file, "", f"is too big: more than {limits.save_bytes:,} bytes")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError.one(file, "", f"is not UTF-8 text (byte {exc.start})") from None
    return parse_text(text, file, json_format=True, limits=limits)


# --- the scan before structuring -------------------------------------------------------------


def _join(path: tuple[str, ...]) -> str:
    return ".".join(path)


def scan(data: Any, file: str, limits: Limits | None = None, prefix: tuple[str, ...] = ()) -> list[Problem]:
    """Every value nested too deep, every number too long or not finite, every text too long.

    An explicit stack, so a value nested a million deep costs a loop, not the recursion limit.
    Stops at `files.problems` problems."""
    limits = limits or current()
    if not isinstance(data, (dict, list)):
        data = {"": data} if not prefix else {prefix[-1]: data}
        prefix = prefix[:-1]
    problems: list[Problem] = []
    max_bits = int(limits.digits * 3.33) + 1
    stack: list[tuple[Any, tuple[str, ...], int]] = [(data, prefix, 0)]
    too_deep = f"is nested too deeply: at most {limits.nesting} levels (files.nesting in {LIMITS_FILE})"

    def leaf(value: Any, path: tuple[str, ...]) -> None:
        if isinstance(value, bool):
            return
        if isinstance(value, int):
            if value.bit_length() > max_bits:
                problems.append(Problem(file, _join(path), f"a number of about {int(value.bit_length() / 3.32)} "
                                        f"digits; at most {limits.digits} (files.digits in {LIMITS_FILE})"))
        elif isinstance(value, float):
            # a finite float has at most 309 digits: safe to convert; its field's range says more
            if not math.isfinite(value):
                problems.append(Problem(file, _join(path), f"{value} is not a number Horizon can use; "
                                        "write a finite number"))
        elif isinstance(value, str) and len(value) > limits.text_length:
            problems.append(Problem(file, _join(path), f"a text of {len(value):,} characters; at most "
                                    f"{limits.text_length:,} (files.text_length in {LIMITS_FILE})"))

    while stack and len(problems) < limits.problems:
        value, path, depth = stack.pop()
        if depth >= limits.nesting:
            problems.append(Problem(file, _join(path), too_deep))
            continue
        if isinstance(value, dict):
            items = value.items()
        else:
            items = enumerate(value)
        for key, item in items:
            if isinstance(item, (dict, list)):
                stack.append((item, path + (str(key),), depth + 1))
            elif isinstance(item, (int, float, str)):
                if isinstance(item, str) and len(item) <= limits.text_length:
                    continue
                if type(item) is int and -(10**9) < item < 10**9:
                    continue
                leaf(item, path + (str(key),))
            if isinstance(key, str) and len(key) > limits.name_length * 4:
                problems.append(Problem(file, _join(path), f"a key of {len(key):,} characters; at most "
                                        f"{limits.name_length * 4}"))
    if stack and len(problems) >= limits.problems:
        problems.append(Problem(file, "", f"more problems not listed (at most {limits.problems} per file)"))
    return problems


def cap(problems: list[Problem], limits: Limits | None = None) -> list[Problem]:
    """At most `files.problems` problems, and one line counting the rest."""
    limits = limits or current()
    if len(problems) <= limits.problems:
        return problems
    counted = 0
    if problems and _SUMMARY.fullmatch(problems[-1].message):  # capped already
        counted = int(_SUMMARY.fullmatch(problems[-1].message).group(1))
        problems = problems[:-1]
        if len(problems) <= limits.problems:
            return problems + [Problem(problems[-1].file, "", _summary(counted))]
    rest = len(problems) - limits.problems + counted
    last = problems[limits.problems]
    return problems[: limits.problems] + [Problem(last.file, "", _summary(rest))]


_SUMMARY = re.compile(r"and (\d+) more problems?")


def _summary(rest: int) -> str:
    return f"and {rest} more problem{'s' if rest != 1 else ''}"


def locate_capped(problems: list[Problem], text: str, limits: Limits | None = None) -> list[Problem]:
    return with_key_lines(cap(problems, limits), text)


# --- numbers written as text (files and forms) -----------------------------------------------


def parse_decimal(text: str, limits: Limits | None = None) -> Fraction:
    """`"1.5"`, `"-2"`, `"3e2"`, `"27/2"` as an exact Fraction; ValueError saying what is wrong.

    Never hands unbounded text to Fraction or Decimal: at most `files.digits` digits and an
    exponent of at most that size, so `"1e999999999"` is refused at once."""
    limits = limits or current()
    stripped = text.strip().replace("_", "")
    if len(stripped) > 3 * limits.digits + 4:
        raise ValueError(f"a number of {len(stripped):,} characters; at most {limits.digits} digits")
    fraction = _FRACTION.fullmatch(stripped)
    if fraction:
        top, bottom = fraction.groups()
        if len(top.lstrip("+-")) > limits.digits or len(bottom) > limits.digits:
            raise ValueError(f"at most {limits.digits} digits")
        if int(bottom) == 0:
            raise ValueError(f"{stripped!r} divides by zero")
        return Fraction(int(top), int(bottom))
    match = _DECIMAL.fullmatch(stripped)
    if not match or not (match.group(1) or match.group(2)):
        raise ValueError(f"{text.strip()[:40]!r} is not a number")
    whole, decimals, exponent = match.groups()
    if len(whole) + len(decimals) > limits.digits:
        raise ValueError(f"{len(whole) + len(decimals)} digits; at most {limits.digits}")
    power = int(exponent) if exponent else 0
    if abs(power) > limits.digits:
        raise ValueError(f"the exponent {power} is too large; at most {limits.digits}")
    sign = -1 if stripped.startswith("-") else 1
    mantissa = int((whole or "0") + decimals)
    return sign * Fraction(mantissa) * Fraction(10) ** (power - len(decimals))


def parse_number(
    text: str, key: str, range_name: str | None = None, *, whole: bool = False, file: str = "<form>",
    limits: Limits | None = None,
) -> Fraction | int | Problem:
    """A number typed in a form (or read as text) -> the value, or a Problem saying what is allowed.

    `range_name`: a range of data/limits.toml (`xp`, `multiplier`, …); default `whole`/`number`.
    `whole`: an int is wanted (returned as int)."""
    limits = limits or current()
    allowed = limits.range(range_name or ("whole" if whole else "number"))
    try:
        value = parse_decimal(text, limits)
    except ValueError as exc:
        return Problem(file, key, f"{exc}; allowed: {'a whole number' if whole else 'a number'} "
                       f"from {allowed.describe()}")
    if whole and value.denominator != 1:
        return Problem(file, key, f"{show(value)} is not a whole number; allowed: {allowed.describe()}")
    if not allowed.allows(value):
        return Problem(file, key, f"{show(value)} is out of range; allowed: {allowed.describe()}")
    return int(value) if whole else value


# --- ranges after structuring ----------------------------------------------------------------

_FILE_NAMES = {"armor_class": "class"}  # attribute name -> its key in files


def _check_text(value: str, kind: str | None, where: str, file: str, limits: Limits) -> Problem | None:
    if kind == "name":
        if len(value) > limits.name_length:
            return Problem(file, where, f"a name of {len(value)} characters; at most {limits.name_length} "
                           f"(files.name_length in {LIMITS_FILE})")
        bad = next((c for c in value if unicodedata.category(c) in ("Cc", "Cs")), None)
        if bad is not None:
            return Problem(file, where, f"a name can't hold the control character {bad!r}; "
                           "use letters, digits, spaces and punctuation")
    elif len(value) > limits.text_length:
        return Problem(file, where, f"a text of {len(value):,} characters; at most {limits.text_length:,}")
    return None


def _number_problem(value: Any, kind: str | None, where: str, file: str, limits: Limits) -> Problem | None:
    if kind is None or kind == "name":
        kind = "whole" if isinstance(value, int) else "number"
    allowed = limits.range(kind)
    if isinstance(value, float) and not math.isfinite(value):
        return Problem(file, where, f"{value} is not a finite number; allowed: {allowed.describe()}")
    if not allowed.allows(value):
        return Problem(file, where, f"{show(value)} is out of range; allowed: {allowed.describe()}")
    return None


def check_ranges(obj: Any, file: str, prefix: tuple[str, ...] = (), limits: Limits | None = None) -> list[Problem]:
    """Every number in a structured attrs object against its field's range; every text and name
    against its length. An explicit stack; stops at `files.problems` problems."""
    limits = limits or current()
    problems: list[Problem] = []
    stack: list[tuple[Any, tuple[str, ...], str | None]] = [(obj, prefix, None)]
    while stack and len(problems) < limits.problems:
        value, path, kind = stack.pop()
        if kind == LATER["limit"]:
            continue
        if attrs.has(type(value)):
            for field in attrs.fields(type(value)):
                name = _FILE_NAMES.get(field.name, field.name)
                stack.append((getattr(value, field.name), path + (name,), field.metadata.get("limit")))
        elif isinstance(value, bool) or value is None or isinstance(value, (bytes, type)):
            continue
        elif isinstance(value, (int, float, Fraction)):
            problem = _number_problem(value, kind, _join(path), file, limits)
            if problem:
                problems.append(problem)
        elif isinstance(value, str):
            problem = _check_text(value, kind, _join(path), file, limits)
            if problem:
                problems.append(problem)
        elif isinstance(value, dict):
            for key, item in value.items():
                stack.append((item, path + (str(getattr(key, "value", key)),), kind))
                if isinstance(key, str):
                    problem = _check_text(key, None, _join(path + (key,)), file, limits)
                    if problem:
                        problems.append(problem)
        elif isinstance(value, (list, tuple)):
            for index, item in enumerate(value):
                stack.append((item, path + (str(index),), kind))
    return problems


# --- the limits themselves -------------------------------------------------------------------


def _range_of(name: str, value: Any, file: str) -> Range | Problem:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
        return Problem(file, f"ranges.{name}", f"a range is [lowest, highest], two numbers, not {value!r}")
    try:
        low, high = (Fraction(v) for v in value)
    except (ValueError, OverflowError):
        return Problem(file, f"ranges.{name}", "the bounds must be finite numbers")
    if low > high:
        return Problem(file, f"ranges.{name}", f"the lowest ({show(low)}) is above the highest ({show(high)})")
    return Range(low, high, f"ranges.{name}")


_FILES_KEYS = ("file_bytes", "save_bytes", "nesting", "digits", "text_length", "name_length", "problems")
REQUIRED_RANGES = (
    "attribute", "bonus_points", "stat_bonus", "xp", "level", "multiplier", "radius", "length",
    "cells", "chance", "duration", "magnitude", "count", "cell", "field_side", "seed", "xp_cost", "xp_step",
    "slots", "rounds", "whole", "number",
)


def load_limits(path: Path) -> Limits:
    """`data/limits.toml` read (with small built-in bounds of its own); DataError with every problem."""
    text = _read_text(path, _BOOTSTRAP.file_bytes)
    data = parse_text(text, path, json_format=False, limits=_BOOTSTRAP)
    file = str(path)
    problems: list[Problem] = []
    for key in data:
        if key not in ("schema", "files", "ranges"):
            problems.append(Problem(file, key, "unknown key; expected schema, [files] and [ranges]"))
    files = data.get("files", {})
    ranges_data = data.get("ranges", {})
    if not isinstance(files, dict) or not isinstance(ranges_data, dict):
        raise DataError(locate_capped([Problem(file, "files" if not isinstance(files, dict) else "ranges",
                                               "expected a table")], text, _BOOTSTRAP))
    numbers: dict[str, int] = {}
    for key in _FILES_KEYS:
        value = files.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10**9:
            problems.append(Problem(file, f"files.{key}", f"a whole number from 1 to 10^9, not {value!r}"))
        else:
            numbers[key] = value
    for key in files:
        if key not in _FILES_KEYS:
            close = difflib.get_close_matches(key, _FILES_KEYS, n=1)
            problems.append(Problem(file, f"files.{key}", "unknown key", suggestion=close[0] if close else None))
    ranges: dict[str, Range] = {}
    for name, value in ranges_data.items():
        if name not in REQUIRED_RANGES:
            close = difflib.get_close_matches(name, REQUIRED_RANGES, n=1)
            problems.append(Problem(file, f"ranges.{name}", "not a range Horizon uses",
                                    suggestion=close[0] if close else None))
            continue
        found = _range_of(name, value, file)
        if isinstance(found, Problem):
            problems.append(found)
        else:
            ranges[name] = found
    for name in REQUIRED_RANGES:
        if name not in ranges_data:
            problems.append(Problem(file, f"ranges.{name}", "is required but missing"))
    if problems:
        raise DataError(locate_capped(problems, text, _BOOTSTRAP))
    return Limits(ranges=ranges, source=file, **numbers)


def limits_path(root: Path | None = None) -> Path:
    """The limits of a data folder; the shipped ones when that folder has none."""
    chosen = (root or data_dir()) / LIMITS_FILE
    if chosen.is_file():
        return chosen
    return _SHIPPED_LIMITS


_SHIPPED_LIMITS = Path(__file__).resolve().parent.parent.parent / "data" / LIMITS_FILE  # resolved once (data_folder)


_cache: dict[Path, Limits] = {}


def limits(root: Path | None = None) -> Limits:
    """The limits in force (data/limits.toml of the data folder), read once per process."""
    path = limits_path(root)
    found = _cache.get(path)
    if found is None:
        found = _cache[path] = load_limits(path)
    return found


def current() -> Limits:
    return limits()
