"""Reading TOML and JSON documents with errors that name the file and the line."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import attrs

from horizon_tui.errors import DataError, Problem

_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def read_document(path: Path) -> tuple[dict[str, Any], str]:
    """A TOML or JSON file as a dict, and its text (for locating keys' lines)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError.one(path, "", "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError.one(path, "", f"can't be read: {exc}") from None
    if path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DataError.one(path, "", f"broken JSON: {exc.msg} (column {exc.colno})", exc.lineno) from None
    else:
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            message = str(exc)
            match = _TOML_AT.search(message)
            line = int(match.group(1)) if match else None
            message = _TOML_AT.sub("", message).strip()
            if match:
                message += f" (column {match.group(2)})"
            raise DataError.one(path, "", f"broken TOML: {message}", line) from None
    if not isinstance(data, dict):
        raise DataError.one(path, "", "expected a table of keys at the top")
    return data, text


def locate(problems: list[Problem], text: str) -> list[Problem]:
    """Add the line where each problem's key (its last part) is written, when it can be found."""
    lines = text.splitlines()
    located = []
    for problem in problems:
        if problem.line is not None or not problem.key:
            located.append(problem)
            continue
        line = _find_key_line(lines, problem.key.split("."))
        located.append(attrs.evolve(problem, line=line))
    return located


def _key_pattern(name: str) -> re.Pattern[str]:
    escaped = re.escape(name)
    return re.compile(rf'^\s*(?:"?{escaped}"?\s*[=:]|\[+[^\]]*\b{escaped}\]+)|[{{,]\s*"?{escaped}"?\s*[=:]')


def _find_in_order(lines: list[str], parts: list[str]) -> int | None:
    """Follow the path down the file: each key after its parent, `abilities.1` at the second
    `[[abilities]]` header. None when the text isn't laid out that way (inline arrays, JSON lists)."""
    start, found = 0, None
    for i, part in enumerate(parts):
        if part.isdigit():
            if i == 0:
                return None
            header = re.compile(rf'^\s*\[\[[^\]]*\b{re.escape(parts[i - 1])}\s*\]\]')
            headers = [n for n in range(start, len(lines)) if header.search(lines[n])]
            if int(part) >= len(headers):
                return None
            start = found = headers[int(part)]
            continue
        pattern = _key_pattern(part)
        match = next((n for n in range(start, len(lines)) if pattern.search(lines[n])), None)
        if match is None:
            return None
        start = found = match
    return None if found is None else found + 1


def _find_key_line(lines: list[str], parts: list[str]) -> int | None:
    in_order = _find_in_order(lines, parts)
    if in_order is not None:
        return in_order
    # Else the last textual key of the path (skip list indices), as `key =`, `"key":` or `[...key]`.
    names = [p for p in parts if not p.isdigit()]
    for name in reversed(names):
        pattern = _key_pattern(name)
        for number, line in enumerate(lines, start=1):
            if pattern.search(line):
                return number
    return None


def with_lines(exc: DataError, text: str) -> DataError:
    return DataError(locate(exc.problems, text))
