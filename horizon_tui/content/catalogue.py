"""The data catalogue: species, weapons, armor and the rules data, loaded from `data/`.

`data/` ships inside the package (wheel) as `horizon_tui/data`; in a source checkout it is the
repository's `data/`. `HORIZON_DATA` overrides both.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from horizon_tui.content.convert import structure
from horizon_tui.content.data_folder import data_dir
from horizon_tui.content.files import read_document, with_lines
from horizon_tui.content.models import Armor, Species, Weapon
from horizon_tui.content.ruleset import Ruleset
from horizon_tui.errors import DataError, Problem


@attrs.frozen
class Catalogue:
    rules: Ruleset
    species: dict[str, Species]
    weapons: dict[str, Weapon]
    armor: dict[str, Armor]
    root: Path | None = None

    def with_rules(self, rules: Ruleset) -> Catalogue:
        return attrs.evolve(self, rules=rules)


def load_ruleset(path: Path) -> Ruleset:
    data, text = read_document(path)
    try:
        return structure(data, Ruleset, str(path))
    except DataError as exc:
        raise with_lines(exc, text) from None


def load_keyed_file(path: Path, cls: type) -> dict[str, Any]:
    """A file of tables keyed by id (weapons.toml, armor.toml)."""
    data, text = read_document(path)
    items: dict[str, Any] = {}
    problems: list[Problem] = []
    for key, value in data.items():
        if not isinstance(value, dict):
            problems.append(Problem(str(path), key, "expected a table"))
            continue
        try:
            items[key] = attrs.evolve(structure(value, cls, str(path), (key,)), id=key)
        except DataError as exc:
            problems += with_lines(exc, text).problems
    if problems:
        raise DataError(problems)
    return items


_load_keyed = load_keyed_file


def load_species_file(path: Path) -> Species:
    data, text = read_document(path)
    try:
        return attrs.evolve(structure(data, Species, str(path)), id=path.stem)
    except DataError as exc:
        raise with_lines(exc, text) from None


def load_catalogue(root: Path | None = None) -> Catalogue:
    """Load every catalogue file, collecting the problems of all of them before raising."""
    root = root or data_dir()
    problems: list[Problem] = []
    loaded: dict[str, Any] = {}

    def attempt(name: str, load, *args):
        try:
            loaded[name] = load(*args)
        except DataError as exc:
            problems.extend(exc.problems)

    attempt("rules", load_ruleset, root / "rules.toml")
    attempt("weapons", _load_keyed, root / "weapons.toml", Weapon)
    attempt("armor", _load_keyed, root / "armor.toml", Armor)
    species: dict[str, Species] = {}
    for file in sorted((root / "species").glob("*.toml")):
        try:
            species[file.stem] = load_species_file(file)
        except DataError as exc:
            problems.extend(exc.problems)
    if problems:
        raise DataError(problems)
    return Catalogue(
        rules=loaded["rules"], species=species, weapons=loaded["weapons"],
        armor=loaded["armor"], root=root,
    )


_cache: dict[Path, Catalogue] = {}


def default_catalogue() -> Catalogue:
    """The shipped catalogue, loaded once per process."""
    root = data_dir()
    if root not in _cache:
        _cache[root] = load_catalogue(root)
    return _cache[root]
