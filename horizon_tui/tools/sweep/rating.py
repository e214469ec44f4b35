"""An encounter's `[rating]`: read it, and write it into the file's own text.

Writing edits the text — the `[rating]` table's lines are replaced or a table is added at the
end — so the file's comments, layout and other keys stay as they were. The result is parsed back
before it is written: if anything but the rating would change, nothing is written.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path

import attrs

from horizon_tui.content.convert import structure
from horizon_tui.content.encounters import EncounterFile, Rating, encounter_path, read_encounter_file
from horizon_tui.errors import DataError, Problem
from horizon_tui.storage.atomic import atomic_write

TABLE = "rating"
_HEADER = re.compile(r"^\s*\[\s*rating\s*\]\s*(#.*)?$")
_ANY_HEADER = re.compile(r"^\s*\[")
_KEY = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")


def read_rating(encounter: str | Path, root: Path | None = None) -> Rating | None:
    """The encounter's `[rating]`, or None when it has none. Raises DataError for a bad file."""
    encounter_file, _ = read_encounter_file(encounter_path(str(encounter), root))
    return encounter_file.rating


def _toml_value(value: int | float) -> str:
    return repr(value)  # Python's repr of an int or a float is TOML's too, and reads back exact


def rating_lines(rating: Rating) -> dict[str, str]:
    return {f.name: f"{f.name} = {_toml_value(getattr(rating, f.name))}" for f in attrs.fields(Rating)}


def with_rating(text: str, rating: Rating, file: str = "encounter") -> str:
    """The TOML text with `[rating]` set to `rating`: keys in an existing table are replaced in
    place (comments beside them kept), missing ones added to it; without one, a table is added
    at the end. Raises DataError if the text can't take it (e.g. `rating` set another way)."""
    wanted = rating_lines(rating)
    lines = text.splitlines(keepends=True)
    start = _find_table(lines)
    if start is None:
        body = "".join(line + "\n" for line in wanted.values())
        joined = text if not text or text.endswith("\n") else text + "\n"
        result = joined + "\n# What `horizon sweep --rate` measured: the party level and size for the target win rate.\n"
        result += f"[{TABLE}]\n" + body
    else:
        end = start + 1
        while end < len(lines) and not _ANY_HEADER.match(lines[end]):
            end += 1
        block = lines[start + 1:end]
        seen = set()
        for i, line in enumerate(block):
            key = _KEY.match(line)
            if key and key.group(1) in wanted:
                seen.add(key.group(1))
                comment = _trailing_comment(line)
                block[i] = wanted[key.group(1)] + (f"  {comment}" if comment else "") + "\n"
        # new keys after the table's last key line, before blank lines and comments that lead on
        last = max((i for i, line in enumerate(block) if _KEY.match(line)), default=-1)
        missing = [wanted[name] + "\n" for name in wanted if name not in seen]
        block[last + 1:last + 1] = missing
        result = "".join(lines[:start + 1] + block + lines[end:])
    _check(text, result, rating, file)
    return result


def _find_table(lines: list[str]) -> int | None:
    """The line of the `[rating]` header, outside multi-line strings."""
    in_string: str | None = None
    for i, line in enumerate(lines):
        if in_string is None and _HEADER.match(line):
            return i
        for quote in ('"""', "'''"):
            count = line.count(quote)
            if in_string in (None, quote) and count % 2 == 1:
                in_string = quote if in_string is None else None
    return None


def _trailing_comment(line: str) -> str:
    """A `# …` after a key's value (the values written here are numbers: no `#` inside them)."""
    value = line.split("=", 1)[1]
    return value[value.index("#"):].strip() if "#" in value else ""


def _check(before: str, after: str, rating: Rating, file: str) -> None:
    try:
        old, new = tomllib.loads(before), tomllib.loads(after)
    except tomllib.TOMLDecodeError as exc:
        raise DataError([Problem(file, TABLE, f"the file can't take a [{TABLE}] table as written: {exc}")]) from None
    old.pop(TABLE, None)
    got = new.pop(TABLE, None)
    if old != new or got != attrs.asdict(rating):
        raise DataError([Problem(
            file, TABLE, f"can't write [{TABLE}] into this file's text without changing something else; "
            f"write `rating` as a [{TABLE}] table of its own",
        )])


def write_rating(encounter: str | Path, rating: Rating, root: Path | None = None) -> Path:
    """Put `rating` into the encounter's file (TOML: its text edited; JSON: the `rating` key).
    Atomic: the file is whole before and after. Returns the file's path."""
    # through a symbolic link into the file it names (else the link would become a rated copy)
    path = encounter_path(str(encounter), root).resolve()
    mode = path.stat().st_mode & 0o777
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        data = json.loads(text)
        data[TABLE] = attrs.asdict(rating)
        new_text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    else:
        new_text = with_rating(text, rating, str(path))
        data = tomllib.loads(new_text)
    structure(data, EncounterFile, str(path))  # still an encounter, before anything is written
    try:
        atomic_write(path, new_text.encode("utf-8"))
        os.chmod(path, mode)  # the temporary file it replaced the old one with was private (0600)
    except OSError as exc:
        raise DataError([Problem(str(path), TABLE, f"can't write the rating into the file: {exc.strerror or exc}")]) from None
    return path
