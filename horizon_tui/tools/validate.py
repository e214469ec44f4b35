"""`horizon validate PATH…`: every problem in data files, characters and saves, one line each.

A file is recognised by where it lives (a catalogue folder, `enemies/`, `encounters/`, `species/`),
by its name (`rules.toml`, `limits.toml`, `ai.toml`, `weapons.toml`, `armor.toml`,
`authorized_keys`) or by what it holds (a battle save's or campaign's `kind`, a character's keys).
Every kind is read by exactly the reader the apps use (content.guard underneath), so what
`validate` passes the apps open, and what they refuse `validate` reports. The engine adds its
kinds (enemies, encounters, AI profiles) are tools.validate_encounters's checks, registered here.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from horizon_tui.content.ai_profiles import FILE_NAME as AI_FILE
from horizon_tui.content.catalogue import (
    Catalogue,
    default_catalogue,
    load_catalogue,
    load_keyed_file,
    load_ruleset,
    load_species_file,
)
from horizon_tui.content.characters import load_character
from horizon_tui.content.encounters import load_enemies
from horizon_tui.content.files import locate, read_document
from horizon_tui.content.guard import load_limits, reading_once
from horizon_tui.content.models import Armor, Weapon
from horizon_tui.content.run_rules import load_run_rules
from horizon_tui.errors import DataError, Problem
from horizon_tui.rules.validation import check_catalogue, check_character, check_ruleset, check_species, check_weapon
from horizon_tui.tools import validate_encounters as engine_validate
from horizon_tui.tools.sweep.policy import load_policy
from horizon_tui.tools.validate_encounters import companion_problems

# (name, predicate(path, data), check(path, catalogue) -> problems)
Validator = tuple[str, Callable[[Path, dict], bool], Callable[[Path, Catalogue], list[Problem]]]
VALIDATORS: list[Validator] = []
ACCOUNT_FILE = "authorized_keys"  # the SSH host's account files (storage.accounts.KEYS_FILE)
KINDS = "character, rules, limits, catalogue, encounter, enemy, AI profiles, battle save, campaign or account"


def _check_character(path: Path, catalogue: Catalogue) -> list[Problem]:
    character = load_character(path, catalogue)
    problems = check_character(character, catalogue, str(path))
    enemies = catalogue.root / "enemies" if catalogue.root is not None else None
    if enemies is not None and enemies.is_dir():  # the enemies a battle would call companions from
        problems += companion_problems(character, {p.stem for p in enemies.glob("*.toml")}, str(path))
    return locate(problems, read_document(path)[1]) if problems else problems


def _check_rules(path: Path, catalogue: Catalogue) -> list[Problem]:
    return check_ruleset(load_ruleset(path), str(path))


def _check_limits(path: Path, catalogue: Catalogue) -> list[Problem]:
    load_limits(path)  # DataError: reported by validate_paths
    return []


def _check_keyed(path: Path, catalogue: Catalogue) -> list[Problem]:
    """weapons.toml or armor.toml on its own."""
    if path.stem == "weapons":
        weapons = load_keyed_file(path, Weapon)
        return [p for key, w in weapons.items() for p in check_weapon(w, catalogue.rules, str(path), key)]
    armor = load_keyed_file(path, Armor)
    return [Problem(str(path), f"{key}.class", f"armor classes are 1–10, not {a.armor_class}")
            for key, a in armor.items() if a.armor_class not in catalogue.rules.armor_classes]


def _check_species(path: Path, catalogue: Catalogue) -> list[Problem]:
    return check_species(load_species_file(path), catalogue.rules, str(path), "")


def _check_battle_save(path: Path, catalogue: Catalogue) -> list[Problem]:
    """A battle save is read as Resume reads it: replayed to the point it was saved at."""
    from horizon_tui.engine.persist import load_session  # the engine (tcod, NumPy) only for a battle save

    try:
        enemies = load_enemies(catalogue)
    except DataError as exc:
        return [Problem(str(path), "", f"can't be checked: the enemy catalogue has problems ({exc.problems[0]})")]
    load_session(path, catalogue, enemies)
    return []


def _check_campaign(path: Path, catalogue: Catalogue) -> list[Problem]:
    from horizon_tui.campaign.campaign_files import read_campaign  # SQLAlchemy only for a campaign

    read_campaign(path, catalogue)
    return []


def _check_account(path: Path, catalogue: Catalogue) -> list[Problem]:
    from horizon_tui.storage.accounts import check_keys_file  # asyncssh only for an account file

    return check_keys_file(path)


def _check_sweep(path: Path, catalogue: Catalogue) -> list[Problem]:
    load_policy(path)
    return []


def _check_run_rules(path: Path, catalogue: Catalogue) -> list[Problem]:
    load_run_rules(path)
    return []


def _is_character(path: Path, data: dict) -> bool:
    return "attributes" in data and "weapon" in data


def _kind_is(kind: str) -> Callable[[Path, dict], bool]:
    return lambda p, d: d.get("kind") == kind


VALIDATORS.append(("battle save", _kind_is("horizon-battle"), _check_battle_save))
VALIDATORS.append(("campaign", _kind_is("horizon-campaign"), _check_campaign))
VALIDATORS.append(("rules", lambda p, d: p.name == "rules.toml", _check_rules))
VALIDATORS.append(("limits", lambda p, d: p.name == "limits.toml", _check_limits))
VALIDATORS.append(("catalogue", lambda p, d: p.name in ("weapons.toml", "armor.toml"), _check_keyed))
VALIDATORS.append(("species", lambda p, d: p.parent.name == "species", _check_species))
VALIDATORS.append(("sweep policy", lambda p, d: p.name == "sweep.toml", _check_sweep))
VALIDATORS.append(("run rules", lambda p, d: p.name == "runs.toml", _check_run_rules))
VALIDATORS.append(("character", _is_character, _check_character))


def _engine(name: str) -> Callable[[Path, Catalogue], list[Problem]]:
    """An engine check (tools.validate_encounters) by its name."""
    def check(path: Path, catalogue: Catalogue) -> list[Problem]:
        return getattr(engine_validate, name)(path, catalogue)

    return check


# Ahead of the character validator: an enemy file also has `attributes` and `weapon`.
VALIDATORS.insert(0, ("enemy", lambda p, d: p.parent.name == "enemies", _engine("check_enemy_file")))
VALIDATORS.insert(1, ("encounter", lambda p, d: p.parent.name == "encounters", _engine("check_encounter_file")))
VALIDATORS.insert(2, ("ai profiles", lambda p, d: p.name == AI_FILE, _engine("check_ai_file")))


MAX_FILES = 10_000  # files one `horizon validate` reads in a folder; a data folder holds a few hundred


def _wanted(name: str) -> bool:
    return Path(name).suffix.lower() in (".toml", ".json") or name == ACCOUNT_FILE


def _files(path: Path, problems: list[Problem]) -> list[Path]:
    """The files to check under `path`: hidden folders and files left out, symbolic links to
    folders not followed, a folder that can't be read reported (not a crash), and at most
    MAX_FILES (`horizon validate /` is refused in a line, not walked for an hour)."""
    if not path.is_dir():
        return [path]
    found: list[Path] = []

    def unreadable(error: OSError) -> None:
        problems.append(Problem(str(error.filename or path), "", f"can't be read: {error.strerror or error}"))

    for folder, dirs, files in os.walk(path, onerror=unreadable):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.startswith(".") or not _wanted(name):
                continue
            if len(found) == MAX_FILES:
                problems.append(Problem(str(path), "", f"more than {MAX_FILES:,} data files: checked the first "
                                        f"{MAX_FILES:,}; point validate at a data folder or a save"))
                return found
            found.append(Path(folder) / name)
    return found


def check_file(path: Path, catalogue: Catalogue | None = None) -> list[Problem]:
    """Every problem of one file of any kind Horizon reads; never raises DataError."""
    if path.name == ACCOUNT_FILE:
        return _check_account(path, catalogue or default_catalogue())
    try:
        data, _ = read_document(path, save=path.suffix.lower() == ".json")
    except DataError as exc:
        return exc.problems
    try:
        cat = catalogue or default_catalogue()
        for _name, matches, check in VALIDATORS:
            if matches(path, data):
                return check(path, cat)
        return [Problem(str(path), "", f"not a file Horizon knows ({KINDS})")]
    except DataError as exc:
        return exc.problems


def validate_paths(paths: list[Path]) -> tuple[list[Problem], int]:
    with reading_once():
        return _validate_paths(paths)


def _validate_paths(paths: list[Path]) -> tuple[list[Problem], int]:
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
                catalogue = load_catalogue(root)
                problems += check_catalogue(catalogue)
            except DataError as exc:
                problems += exc.problems
                continue
        catalogue_files = {"rules.toml", "weapons.toml", "armor.toml"}  # rules.toml too: no double report
        for path in _files(root, problems):
            checked += 1
            if catalogue_dir and path.parent == root and path.name in catalogue_files:
                continue  # checked with the catalogue above
            if catalogue_dir and path.parent == root / "species":
                continue
            problems += check_file(path, catalogue)
    return problems, checked
