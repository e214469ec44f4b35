"""An encounter file made ready to fight: its battlefield, enemies on their cells, party start cells.

The map is drawn (`map.rows` with `map.legend`) or generated (`map.generator`, `width`, `height`,
`seed`). Enemies stand where the legend draws them and where `[[enemies]]` puts them; those with
no `at` are spread over the corner opposite the party. Everything that can't form a battle is
refused before it starts, every problem at once, each with the file and the key.
"""

from __future__ import annotations

import difflib
import random
import textwrap
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

import attrs
import numpy as np

from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.convert import structure
from horizon_tui.content.encounters import (
    DIFFICULTY_LABELS, DrawnMap, EncounterFile, EnemyDef, GeneratedMap, Rating, encounter_path,
    read_encounter_file,
)
from horizon_tui.content.files import with_lines
from horizon_tui.engine import mapgen
from horizon_tui.engine.battlefield import DEFAULT_LEGEND, TERRAIN_BY_NAME, Battlefield, Pos, Terrain, as_cell
from horizon_tui.errors import DataError, Problem

PARTY_GLYPHS = ("@", "P")  # drawn party start cells (on floor)
MIN_PARTY_START = 4
_LEGEND_TABLE_KEYS = ("enemy", "terrain", "name")


@attrs.frozen
class EncounterSetup:
    id: str
    name: str
    description: str
    difficulty: str
    xp: int
    notes: str
    battlefield: Battlefield
    enemies: list[tuple[EnemyDef, tuple[int, int], str]]  # definition, cell, display name
    party_start: list[tuple[int, int]]
    source: str  # the file it came from
    rating: Rating | None = None  # `[rating]`: the party level and size a sweep recommends


@attrs.define
class _Unit:
    enemy: str
    at: Pos | None
    name: str | None
    key: str  # where in the file, for problems


def load_encounter(name_or_path: str | Path, catalogue: Catalogue, enemies: dict[str, EnemyDef], *,
                   text: str | None = None) -> EncounterSetup:
    """An encounter by id (from the catalogue's `encounters/`) or path. Raises DataError with
    every problem found: unknown enemies, units in walls, off the map or on one cell, maps over
    `Ruleset.turns.max_size`, ragged rows, unknown glyphs, too few party start cells.

    `text`: the encounter file's text as a battle save kept it (`name_or_path` then only names it)."""
    path = encounter_path(str(name_or_path), catalogue.root) if text is None else Path(str(name_or_path))
    encounter, text = read_encounter_file(path, text)
    file = str(path)
    problems: list[Problem] = []

    if encounter.difficulty not in DIFFICULTY_LABELS:
        close = difflib.get_close_matches(encounter.difficulty, DIFFICULTY_LABELS, n=1)
        problems.append(Problem(
            file, "difficulty", f"expected one of {', '.join(DIFFICULTY_LABELS)}, got {encounter.difficulty!r}",
            suggestion=close[0] if close else None,
        ))
    if encounter.xp is not None and encounter.xp < 0:
        problems.append(Problem(file, "xp", "an XP total can't be negative"))

    seed, battlefield, units, party = _build_map(encounter.map, file, catalogue.rules.turns.max_size, problems)
    units += _listed_units(encounter, file, problems)
    party += [(as_cell(cell), f"party_start.{i}") for i, cell in enumerate(encounter.party_start)]
    for unit in units:
        if unit.enemy not in enemies:
            close = difflib.get_close_matches(unit.enemy, list(enemies), n=1)
            problems.append(Problem(file, f"{unit.key}.enemy", f"unknown enemy {unit.enemy!r}",
                                    suggestion=close[0] if close else None))
    if not units and battlefield is not None:  # (a broken map may hide the enemies it draws)
        problems.append(Problem(file, "enemies", "an encounter needs at least one enemy"))

    party_cells = []
    if battlefield is not None:
        party_cells = _place(battlefield, units, party, random.Random(seed), file, problems)
    if problems:
        raise with_lines(DataError(problems), text)
    assert battlefield is not None
    placed = _named(units, enemies)
    xp = encounter.xp if encounter.xp is not None else sum(d.xp for d, _, _ in placed)
    return EncounterSetup(
        id=path.stem, name=encounter.name, description=encounter.description.strip(),
        difficulty=encounter.difficulty, xp=xp, notes=encounter.notes.strip(), battlefield=battlefield,
        enemies=placed, party_start=party_cells, source=file, rating=encounter.rating,
    )


def _listed_units(encounter: EncounterFile, file: str, problems: list[Problem]) -> list[_Unit]:
    """The `[[enemies]]` entries, one unit per enemy (a `count` makes several)."""
    units = []
    for index, placement in enumerate(encounter.enemies):
        key = f"enemies.{index}"
        if placement.count < 1:
            problems.append(Problem(file, f"{key}.count", "a count is at least 1"))
        elif placement.at is not None and placement.count > 1:
            problems.append(Problem(
                file, f"{key}.count", "several enemies can't stand on one cell: drop `at` or the count",
            ))
        else:
            units += [_Unit(placement.enemy, placement.at, placement.name, key) for _ in range(placement.count)]
    return units


def _place(
    battlefield: Battlefield, units: list[_Unit], party: list[tuple[Pos, str]], rng: random.Random, file: str,
    problems: list[Problem],
) -> list[Pos]:
    """Check the given cells, fill the party's start cells up to four, spread the enemies that
    have no cell over the far corner. Returns the party's start cells; sets each unit's `at`."""
    occupied: dict[Pos, str] = {}
    for unit in units:
        if unit.at is not None:
            where = f"{unit.key}.at" if unit.key.startswith("enemies") else unit.key
            _claim(battlefield, as_cell(unit.at), f"enemy {unit.enemy!r}", where, occupied, file, problems)
    given = [
        cell for cell, key in party
        if _claim(battlefield, cell, "a party start cell", key, occupied, file, problems)
    ]
    party_cells = _fill_party(battlefield, given, [as_cell(u.at) for u in units if u.at is not None], occupied, rng)
    if len(party_cells) < MIN_PARTY_START:
        problems.append(Problem(
            file, "party_start", f"only {len(party_cells)} free cells for the party; it needs {MIN_PARTY_START}",
        ))
    for cell in party_cells:
        occupied.setdefault(cell, "a party start cell")
    loose = [u for u in units if u.at is None]
    if loose:
        corner = mapgen.opposite(mapgen.nearest_corner(battlefield, party_cells)) if party_cells else "ne"
        cells = mapgen.spawn_cells(battlefield, len(loose), rng, corner, exclude=occupied)
        for unit, cell in zip(loose, cells):
            unit.at = cell
            occupied[cell] = f"enemy {unit.enemy!r}"
        for unit in loose[len(cells):]:
            problems.append(Problem(file, unit.key, f"no free cell left for enemy {unit.enemy!r}"))
    return party_cells


def _claim(
    battlefield: Battlefield, cell: Pos, what: str, key: str, occupied: dict[Pos, str], file: str,
    problems: list[Problem],
) -> bool:
    """Put a unit on a cell, or record why it can't stand there."""
    x, y = cell
    if not battlefield.in_bounds(cell):
        size = f"{battlefield.width}×{battlefield.height}"
        problems.append(Problem(file, key, f"[{x}, {y}] is off the {size} map"))
        return False
    if not battlefield.is_walkable(cell):
        problems.append(Problem(file, key, f"{what} at [{x}, {y}] stands in a wall"))
        return False
    if cell in occupied:
        problems.append(Problem(file, key, f"two units on one cell: {what} and {occupied[cell]} at [{x}, {y}]"))
        return False
    occupied[cell] = what
    return True


def _fill_party(
    battlefield: Battlefield, given: list[Pos], enemies: list[Pos], occupied: dict[Pos, str], rng: random.Random
) -> list[Pos]:
    """At least MIN_PARTY_START start cells: near the given ones, else in the corner farthest
    from the enemies placed so far (south-west when there are none)."""
    need = MIN_PARTY_START - len(given)
    if need <= 0:
        return list(given)
    if given:
        region: Any = given
    elif enemies:
        region = mapgen.opposite(mapgen.nearest_corner(battlefield, enemies))
    else:
        region = "sw"
    return list(given) + mapgen.spawn_cells(battlefield, need, rng, region, exclude=occupied)


def _named(units: list[_Unit], enemies: dict[str, EnemyDef]) -> list[tuple[EnemyDef, Pos, str]]:
    """Display names: the enemy's name, numbered when several share it ("Goblin 1", "Goblin 2")."""
    base = [u.name or enemies[u.enemy].character.name for u in units]
    repeated = Counter(name for u, name in zip(units, base) if not u.name)
    seen: Counter[str] = Counter()
    placed = []
    for unit, name in zip(units, base):
        if not unit.name and repeated[name] > 1:
            seen[name] += 1
            name = f"{name} {seen[name]}"
        assert unit.at is not None
        placed.append((enemies[unit.enemy], (int(unit.at[0]), int(unit.at[1])), name))
    return placed


# --- maps ----------------------------------------------------------------------------------------


def _build_map(
    data: dict[str, Any], file: str, max_size: int, problems: list[Problem]
) -> tuple[int, Battlefield | None, list[_Unit], list[tuple[Pos, str]]]:
    """The battlefield, the enemies and party cells its legend draws, and a seed for placements."""
    drawn, generated = "rows" in data, "generator" in data
    if drawn and generated:
        problems.append(Problem(file, "map", "either rows (a drawn map) or generator (a generated one), not both"))
        return 0, None, [], []
    if not drawn and not generated:
        problems.append(Problem(
            file, "map", "needs rows and a legend (a drawn map) or generator, width, height and seed",
        ))
        return 0, None, [], []
    if generated:
        try:
            spec = structure(data, GeneratedMap, file, ("map",))
        except DataError as exc:
            problems += exc.problems
            return 0, None, [], []
        return spec.seed, _generated(spec, file, max_size, problems), [], []
    try:
        spec = structure(data, DrawnMap, file, ("map",))
    except DataError as exc:
        problems += exc.problems
        return 0, None, [], []
    battlefield, units, party = _drawn(spec, file, max_size, problems)
    return zlib.crc32(spec.rows.encode()), battlefield, units, party


def _generated(spec: GeneratedMap, file: str, max_size: int, problems: list[Problem]) -> Battlefield | None:
    before = len(problems)
    if spec.generator not in mapgen.GENERATORS:
        close = difflib.get_close_matches(spec.generator, list(mapgen.GENERATORS), n=1)
        problems.append(Problem(
            file, "map.generator", f"unknown generator {spec.generator!r}; known: {', '.join(mapgen.GENERATORS)}",
            suggestion=close[0] if close else None,
        ))
    for key, size in (("width", spec.width), ("height", spec.height)):
        if size > max_size:
            problems.append(Problem(
                file, f"map.{key}", f"{size} cells is over the largest battlefield, {max_size}×{max_size} (R-8)",
            ))
        elif size < mapgen.MIN_SIZE:
            problems.append(Problem(
                file, f"map.{key}", f"a generated map is at least {mapgen.MIN_SIZE} cells a side, not {size}",
            ))
    if len(problems) > before:
        return None
    return mapgen.generate(spec.generator, spec.width, spec.height, spec.seed)


def _rows(text: str) -> list[str]:
    """The drawn rows: blank lines around them and a common indent dropped, line ends stripped."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return textwrap.dedent("\n".join(lines)).split("\n") if lines else []


def _drawn(
    spec: DrawnMap, file: str, max_size: int, problems: list[Problem]
) -> tuple[Battlefield | None, list[_Unit], list[tuple[Pos, str]]]:
    rows = _rows(spec.rows)
    if not rows:
        problems.append(Problem(file, "map.rows", "the map has no rows"))
        return None, [], []
    before = len(problems)
    width, height = len(rows[0]), len(rows)
    if width > max_size or height > max_size:
        problems.append(Problem(
            file, "map.rows",
            f"the map is {width}×{height} cells; the largest battlefield is {max_size}×{max_size} (R-8)",
        ))
    for y, row in enumerate(rows):
        if len(row) != width:
            problems.append(Problem(
                file, "map.rows", f"row {y} has {len(row)} cells but row 0 has {width}: rows must be the same length",
            ))

    # glyph -> (terrain, enemy id or None, own name or None); the file's legend over the defaults
    legend: dict[str, tuple[Terrain, str | None, str | None]] = {
        glyph: (TERRAIN_BY_NAME[name], None, None) for glyph, name in DEFAULT_LEGEND.items()
    }
    for glyph in PARTY_GLYPHS:
        legend[glyph] = (Terrain.FLOOR, None, None)
    legend_ok = True
    for glyph, entry in spec.legend.items():
        key = f"map.legend.{glyph}"
        parsed = None
        if len(glyph) != 1:
            problems.append(Problem(file, key, "a legend key is one character"))
        else:
            parsed = _legend_entry(entry, file, key, problems)
        if parsed is None:
            legend_ok = False
        else:
            legend[glyph] = parsed
    if not legend_ok:
        return None, [], []  # the grid can't be read without its legend

    terrain = np.zeros((height, width), dtype=np.int8)
    units: list[_Unit] = []
    party: list[tuple[Pos, str]] = []
    unknown: dict[str, Pos] = {}
    for y, row in enumerate(rows):
        for x, glyph in enumerate(row[:width]):
            entry = legend.get(glyph)
            if entry is None:
                unknown.setdefault(glyph, (x, y))
                continue
            terrain[y, x] = entry[0]
            if entry[1] is not None:
                units.append(_Unit(entry[1], (x, y), entry[2], f"map.legend.{glyph}"))
            elif glyph in PARTY_GLYPHS and glyph not in spec.legend:
                party.append(((x, y), "map.rows"))
    for glyph, (x, y) in unknown.items():
        problems.append(Problem(
            file, "map.rows", f"unknown glyph {glyph!r} (first at [{x}, {y}]); add it to [map.legend]",
        ))
    if len(problems) > before:
        return None, units, party
    return Battlefield(terrain), units, party


def _legend_entry(
    entry: Any, file: str, key: str, problems: list[Problem]
) -> tuple[Terrain, str | None, str | None] | None:
    """A legend value: a terrain name, or a table { enemy = "id", terrain = "floor", name = "..." }."""
    if isinstance(entry, str):
        terrain = _terrain(entry, file, key, problems)
        return None if terrain is None else (terrain, None, None)
    if not isinstance(entry, dict):
        problems.append(Problem(
            file, key, f"expected a terrain name or a table like {{ enemy = \"goblin\" }}, got {entry!r}",
        ))
        return None
    ok = True
    for extra in entry.keys() - set(_LEGEND_TABLE_KEYS):
        close = difflib.get_close_matches(extra, _LEGEND_TABLE_KEYS, n=1)
        problems.append(Problem(file, f"{key}.{extra}", "unknown key", suggestion=close[0] if close else None))
        ok = False
    enemy = entry.get("enemy")
    if not isinstance(enemy, str):
        problems.append(Problem(file, f"{key}.enemy", "a legend table names an enemy id"))
        ok = False
    name = entry.get("name")
    if name is not None and not isinstance(name, str):
        problems.append(Problem(file, f"{key}.name", f"expected text, got {name!r}"))
        ok = False
    terrain = _terrain(entry.get("terrain", "floor"), file, f"{key}.terrain", problems)
    if terrain is Terrain.WALL:
        problems.append(Problem(file, f"{key}.terrain", "an enemy can't stand in a wall"))
        ok = False
    if not ok or terrain is None:
        return None
    return terrain, enemy, name


def _terrain(name: Any, file: str, key: str, problems: list[Problem]) -> Terrain | None:
    if isinstance(name, str) and name in TERRAIN_BY_NAME:
        return TERRAIN_BY_NAME[name]
    close = difflib.get_close_matches(str(name), list(TERRAIN_BY_NAME), n=1)
    problems.append(Problem(
        file, key, f"unknown terrain {name!r}; known: {', '.join(TERRAIN_BY_NAME)}",
        suggestion=close[0] if close else None,
    ))
    return None


def with_start_cells(setup: EncounterSetup, count: int) -> EncounterSetup:
    """The set-up with start cells for a party of `count`: the encounter's own, then the free
    cells nearest them (a sweep's larger party, a run's or a GM's party of five on a map drawn
    for four). The same cells every time, so a saved battle replays on them. Fewer only when
    the map has no more room (`create_battle` then refuses the party)."""
    if len(setup.party_start) >= count:
        return setup
    taken = [xy for _, xy, _ in setup.enemies] + list(setup.party_start)
    rng = random.Random(zlib.crc32(setup.id.encode()))
    more = mapgen.spawn_cells(setup.battlefield, count - len(setup.party_start), rng, list(setup.party_start),
                              exclude=taken)
    return attrs.evolve(setup, party_start=list(setup.party_start) + more)
