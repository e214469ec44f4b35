"""Character files (INTERFACES.md): TOML or JSON, catalogue ids or inline tables.

Loading resolves ids against the catalogue; writing turns catalogue entries back into ids, so a
file round-trips to the same text a player wrote.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import attrs

from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.convert import converter, structure
from horizon_tui.content.files import read_document, with_lines
from horizon_tui.content.guard import parse_text
from horizon_tui.content.models import Ability, Armor, Character, Species, Weapon
from horizon_tui.errors import DataError, Problem

SCHEMA = 1  # written into every saved character; files without it are hand-written, schema 1


def _resolve(
    value: Any, key: str, entries: dict[str, Any], cls: type, file: str, problems: list[Problem]
) -> dict[str, Any] | None:
    """An id or an inline table -> the unstructured entry, recording a problem if neither."""
    if isinstance(value, str):
        if value in entries:
            return converter.unstructure(entries[value])
        close = difflib.get_close_matches(value, list(entries), n=1)
        problems.append(
            Problem(file, key, f"unknown {key} {value!r}", suggestion=close[0] if close else None)
        )
        return None
    if isinstance(value, dict):
        return value
    problems.append(Problem(file, key, f"expected a catalogue id or an inline table, got {value!r}"))
    return None


def character_from_dict(data: dict[str, Any], catalogue: Catalogue, file: str = "<character>") -> Character:
    data = dict(data)
    schema = data.pop("schema", SCHEMA)
    if not isinstance(schema, int) or schema > SCHEMA:
        raise DataError.one(file, "schema", f"written by a newer Horizon (schema {schema!r}; this one reads {SCHEMA})")
    problems: list[Problem] = []
    for key, entries, cls, required in (
        ("species", catalogue.species, Species, True),
        ("weapon", catalogue.weapons, Weapon, True),
        ("armor", catalogue.armor, Armor, False),
    ):
        if key not in data:
            if required:
                problems.append(Problem(file, key, "is required but missing"))
            continue
        resolved = _resolve(data[key], key, entries, cls, file, problems)
        if resolved is None:
            data.pop(key)
        else:
            data[key] = resolved
    if problems:
        raise DataError(problems)
    return structure(data, Character, file)


def load_character(path: Path, catalogue: Catalogue) -> Character:
    data, text = read_document(path)
    return _from_document(data, text, path, catalogue)


def character_from_text(text: str, path: Path, catalogue: Catalogue) -> Character:
    """A character file's text (one about to be written at `path`) read exactly as
    `load_character` reads the file: the guard's scan, then structuring and ranges."""
    data = parse_text(text, path, json_format=Path(path).suffix.lower() == ".json")
    return _from_document(data, text, path, catalogue)


def _from_document(data: dict[str, Any], text: str, path: Path, catalogue: Catalogue) -> Character:
    try:
        return character_from_dict(data, catalogue, str(path))
    except DataError as exc:
        raise with_lines(exc, text) from None


def _entry_or_id(entry: Any, entries: dict[str, Any]) -> Any:
    if entry is None:
        return None
    if entry.id and entries.get(entry.id) == entry:
        return entry.id
    data = converter.unstructure(entry)
    data.pop("id", None)
    return data


def _drop_defaults(data: Any, cls: type | None) -> Any:
    """Leave out keys at their default so files stay as short as a player would write them."""
    if cls is None or not attrs.has(cls) or not isinstance(data, dict):
        return data
    out = {}
    for field in attrs.fields(cls):
        name = "class" if field.name == "armor_class" else field.name
        if name not in data:
            continue
        value = data[name]
        default = field.default
        if isinstance(default, attrs.Factory):  # type: ignore[arg-type]
            default = default.factory()  # type: ignore[call-arg]
        if default is not attrs.NOTHING and converter.unstructure(default) == value:
            continue
        out[name] = value
    return out


def character_to_dict(character: Character, catalogue: Catalogue) -> dict[str, Any]:
    """The character as its file's keys (ids for catalogue entries), with the schema version."""
    data = converter.unstructure(character)
    data["species"] = _entry_or_id(character.species, catalogue.species)
    data["weapon"] = _entry_or_id(character.weapon, catalogue.weapons)
    if character.armor is None:
        data.pop("armor")
    else:
        data["armor"] = _entry_or_id(character.armor, catalogue.armor)

    data["abilities"] = [_drop_defaults(a, Ability) for a in data["abilities"]]
    out: dict[str, Any] = {"schema": SCHEMA}
    out.update(_drop_defaults(data, Character))
    out["name"] = character.name
    out.setdefault("attributes", dict(character.attributes))
    for key in ("species", "weapon"):
        out[key] = data[key]
    return out
