"""`horizon validate PATH…`: every problem in data files, characters and saves, one line each.

A file is recognised by where it lives (a catalogue folder) or by what it holds. Later parts of
Horizon (encounters, enemies, battle saves) add their checks to `VALIDATORS`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from horizon_tui.content.catalogue import Catalogue, default_catalogue, load_catalogue, load_ruleset
from horizon_tui.content.characters import load_character
from horizon_tui.content.files import read_document
from horizon_tui.errors import DataError, Problem

# (name, predicate(path, data), check(path, catalogue) -> problems)
Validator = tuple[str, Callable[[Path, dict], bool], Callable[[Path, Catalogue], list[Problem]]]
VALIDATORS: list[Validator] = []


def _check_character(path: Path, catalogue: Catalogue) -> list[Problem]:
    from horizon_tui.rules.validation import check_character

    from horizon_tui.content.files import locate

    problems = check_character(load_character(path, catalogue), catalogue, str(path))
    return locate(problems, path.read_text(encoding="utf-8")) if problems else problems


def _check_rules(path: Path, catalogue: Catalogue) -> list[Problem]:
    from horizon_tui.rules.validation import check_ruleset

    return check_ruleset(load_ruleset(path), str(path))


def _check_catalogue_dir(path: Path) -> list[Problem]:
    from horizon_tui.rules.validation import check_catalogue

    return check_catalogue(load_catalogue(path))


def _is_character(path: Path, data: dict) -> bool:
    return "attributes" in data and "weapon" in data


VALIDATORS.append(("rules", lambda p, d: p.name == "rules.toml", _check_rules))
VALIDATORS.append(("character", _is_character, _check_character))


def _register_later_validators() -> None:
    """Import the modules that add validators of their own (engine: encounters, enemies, saves)."""
    import importlib

    for module in ("horizon_tui.engine.validate", "horizon_tui.engine.sweep.policy"):
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.suffix.lower() in (".toml", ".json") and p.is_file()
                      and not any(part.startswith(".") for part in p.relative_to(path).parts))
    return [path]


def validate_paths(paths: list[Path]) -> tuple[list[Problem], int]:
    _register_later_validators()
    problems: list[Problem] = []
    checked = 0
    catalogue: Catalogue | None = None
    for root in paths:
        if not root.exists():
            problems.append(Problem(str(root), "", "no such file or folder"))
            continue
        catalogue_dir = root.is_dir() and (root / "rules.toml").exists()
        if catalogue_dir:
            try:
                problems += _check_catalogue_dir(root)
                catalogue = load_catalogue(root)
            except DataError as exc:
                problems += exc.problems
                continue
        catalogue_files = {"rules.toml", "weapons.toml", "armor.toml"}  # rules.toml too: no double report
        for path in _files(root):
            checked += 1
            if catalogue_dir and (path.name in catalogue_files or path.parent.name == "species"):
                continue  # checked with the catalogue above
            try:
                data, _ = read_document(path)
            except DataError as exc:
                problems += exc.problems
                continue
            try:
                cat = catalogue or default_catalogue()
                for name, matches, check in VALIDATORS:
                    if matches(path, data):
                        problems += check(path, cat)
                        break
                else:
                    problems.append(Problem(str(path), "", "not a file Horizon knows (character, rules, catalogue, encounter, enemy or save)"))
            except DataError as exc:
                problems += exc.problems
    return problems, checked
