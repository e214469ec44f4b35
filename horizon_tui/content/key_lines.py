"""Where a problem's key is written in a file's text: the line a message names (`file, line 12: key`)."""

from __future__ import annotations

import re

import attrs

from horizon_tui.errors import Problem


def with_key_lines(problems: list[Problem], text: str) -> list[Problem]:
    """Add the line where each problem's key (its last part) is written, when it can be found."""
    lines = text.splitlines()
    located = []
    for problem in problems:
        if problem.line is not None or not problem.key:
            located.append(problem)
            continue
        line = _find_key_line(lines, problem.key.split("."))
        located.append(attrs.evolve(problem, line=line))
    _HEADERS.clear()
    return located


def _key_pattern(name: str) -> re.Pattern[str]:
    escaped = re.escape(name)
    return re.compile(rf'^\s*(?:"?{escaped}"?\s*[=:]|\[+[^\]]*\b{escaped}\]+)|[{{,]\s*"?{escaped}"?\s*[=:]')


_HEADERS: dict[tuple[int, str, int], list[int]] = {}


def _headers(lines: list[str], name: str, start: int) -> list[int]:
    """The lines of `[[name]]` headers from `start` on, once per text (a file with thousands of
    problems under one list would otherwise scan it once per problem)."""
    key = (id(lines), name, start)
    found = _HEADERS.get(key)
    if found is None:
        header = re.compile(rf'^\s*\[\[[^\]]*\b{re.escape(name)}\s*\]\]')
        found = _HEADERS[key] = [n for n in range(start, len(lines)) if header.search(lines[n])]
    return found


def _find_in_order(lines: list[str], parts: list[str]) -> int | None:
    """Follow the path down the file: each key after its parent, `abilities.1` at the second
    `[[abilities]]` header. None when the text isn't laid out that way (inline arrays, JSON lists)."""
    start, found = 0, None
    for i, part in enumerate(parts):
        if part.isdigit():
            if i == 0:
                return None
            headers = _headers(lines, parts[i - 1], start)
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
