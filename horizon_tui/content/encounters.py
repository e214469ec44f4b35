"""Enemies (`data/enemies/*.toml`) and encounters (`data/encounters/*.toml`).

An enemy is a character with a level of its own (R-4: enemies may be level 1), an XP value
(R-14) and a behaviour profile for its AI. An encounter is a map (drawn as text with a legend,
or generated from a seed) with enemy placements and the party's start cells.
"""

from __future__ import annotations

import difflib
from fractions import Fraction
from pathlib import Path
from typing import Any

import attrs

from horizon_tui.content.catalogue import Catalogue, data_dir
from horizon_tui.content.characters import character_from_dict
from horizon_tui.content.convert import structure
from horizon_tui.content.files import read_document, with_lines
from horizon_tui.content.guard import LATER, LIMIT, NAME, parse_text
from horizon_tui.content.models import STATS, Character
from horizon_tui.errors import DataError, Problem


AI_PROFILES: tuple[str, ...] = ("brute", "archer", "caster", "skirmisher", "support", "coward")
TARGETINGS: tuple[str, ...] = ("nearest", "weakest", "dangerous", "last_attacker")
DIFFICULTY_LABELS: tuple[str, ...] = ("easy", "normal", "hard", "deadly")


@attrs.frozen
class EnemyDef:
    id: str
    character: Character  # attributes, species, weapon, armor, abilities, loadout
    level: int
    xp: int
    ai: str = "brute"  # a behaviour profile (engine.ai), one of AI_PROFILES
    targeting: str = "nearest"  # one of TARGETINGS
    glyph: str = ""
    flee_below: float | None = None  # coward: health share below which it flees
    description: str = ""
    # Derived stats set by hand (a GM's NPC: its health): what they are at the start of battle.
    hand_set: dict[str, Fraction] = attrs.field(factory=dict)


@attrs.frozen
class EnemyFile:
    """The keys of an enemy file beyond the character's."""

    level: int = attrs.field(metadata=LIMIT("level"))
    xp: int = attrs.field(metadata=LIMIT("xp"))
    ai: str = "brute"
    targeting: str = "nearest"
    glyph: str = ""
    flee_below: float | None = attrs.field(default=None, metadata=LIMIT("chance"))
    description: str = ""  # for people: what it is, how it fights
    # Derived stats set outright (R-2's numbers overridden at the start of battle), e.g. a boss's
    # `set_stats = { health = 900 }`; disease and buffs still move them (EnemyDef.hand_set).
    set_stats: dict[str, float] = attrs.field(factory=dict)


ENEMY_KEYS = tuple(f.name for f in attrs.fields(EnemyFile))


@attrs.frozen
class Placement:
    enemy: str = attrs.field(metadata=NAME)  # an enemy id
    # [x, y]; omitted: a free cell in the enemies' corner
    at: tuple[int, int] | None = attrs.field(default=None, metadata=LIMIT("cell"))
    name: str | None = attrs.field(default=None, metadata=NAME)  # a name of its own, e.g. "Grukk the Tall"
    count: int = attrs.field(default=1, metadata=LIMIT("count"))  # several of the same enemy (only without `at`)


@attrs.frozen
class GeneratedMap:
    generator: str  # "rooms" | "caves" | "open"
    width: int = attrs.field(metadata=LIMIT("field_side"))
    height: int = attrs.field(metadata=LIMIT("field_side"))
    seed: int = attrs.field(default=0, metadata=LIMIT("seed"))


@attrs.frozen
class DrawnMap:
    rows: str  # one text line per row of cells
    legend: dict[str, Any] = attrs.field(factory=dict)  # glyph -> terrain name or {enemy = id}


@attrs.frozen
class Rating:
    """`[rating]`, written by `horizon sweep --rate`: the party level and size at which the
    party's AI wins `target_win_rate` of battles (measured over `runs` battles from `seed`)."""

    party_level: int = attrs.field(metadata=LIMIT("level"))
    party_size: int = attrs.field(metadata=LIMIT("count"))
    target_win_rate: float = attrs.field(metadata=LIMIT("chance"))
    measured_win_rate: float = attrs.field(metadata=LIMIT("chance"))
    runs: int = attrs.field(metadata=LIMIT("whole"))
    seed: int = attrs.field(metadata=LIMIT("seed"))


@attrs.frozen
class EncounterFile:
    name: str = attrs.field(metadata=NAME)
    description: str = ""
    difficulty: str = "normal"  # a label for people: easy, normal, hard, deadly
    xp: int | None = attrs.field(default=None, metadata=LIMIT("xp"))  # stated total; else the enemies' sum
    # a DrawnMap or a GeneratedMap, by keys; its numbers are checked as that (engine.encounter)
    map: dict[str, Any] = attrs.field(factory=dict, metadata=LATER)
    enemies: list[Placement] = attrs.field(factory=list)
    party_start: list[tuple[int, int]] = attrs.field(factory=list, metadata=LIMIT("cell"))
    notes: str = ""  # weather, terrain, anything that changes the fight
    rating: Rating | None = None  # what a sweep measured (tools.sweep.rating)


def _enemy_from_dict(data: dict[str, Any], catalogue: Catalogue, file: str, enemy_id: str) -> EnemyDef:
    data = dict(data)
    extra = {key: data.pop(key) for key in ENEMY_KEYS if key in data}
    problems: list[Problem] = []
    meta = None
    try:
        meta = structure(extra, EnemyFile, file)
    except DataError as exc:
        problems += exc.problems
    character = None
    try:
        character = character_from_dict(data, catalogue, file)
    except DataError as exc:
        problems += exc.problems
    for stat, value in (meta.set_stats if meta is not None else {}).items():
        if stat not in STATS:
            close = difflib.get_close_matches(stat, STATS, n=1)
            problems.append(Problem(file, f"set_stats.{stat}", f"not a derived stat ({', '.join(STATS)})",
                                    suggestion=close[0] if close else None))
        elif value < 0 or (stat == "health" and value < 1):
            problems.append(Problem(file, f"set_stats.{stat}", f"{value:g} is too low (health at least 1, others 0)"))
    if problems:
        raise DataError(problems)
    assert meta is not None and character is not None
    return EnemyDef(
        id=enemy_id, character=character, level=meta.level, xp=meta.xp, ai=meta.ai,
        targeting=meta.targeting, glyph=meta.glyph or character.name[:1].lower(),
        flee_below=meta.flee_below, description=meta.description,
        hand_set={stat: Fraction(str(value)) for stat, value in meta.set_stats.items()},
    )


def load_enemy(path: Path, catalogue: Catalogue) -> EnemyDef:
    data, text = read_document(path)
    try:
        return _enemy_from_dict(data, catalogue, str(path), path.stem)
    except DataError as exc:
        raise with_lines(exc, text) from None


def load_enemies(catalogue: Catalogue, root: Path | None = None) -> dict[str, EnemyDef]:
    root = root or catalogue.root or data_dir()
    enemies: dict[str, EnemyDef] = {}
    problems: list[Problem] = []
    for file in sorted((root / "enemies").glob("*.toml")):
        try:
            enemies[file.stem] = load_enemy(file, catalogue)
        except DataError as exc:
            problems += exc.problems
    if problems:
        raise DataError(problems)
    return enemies


def read_encounter_file(path: Path, text: str | None = None) -> tuple[EncounterFile, str]:
    """The encounter file's keys, and its text (to locate later problems' lines). `text`: the
    file's text kept elsewhere (a battle save's copy of its set-up), read as the file would be."""
    if text is None:
        data, text = read_document(path)
    else:
        data = parse_text(text, path, json_format=Path(path).suffix.lower() == ".json")
    try:
        return structure(data, EncounterFile, str(path)), text
    except DataError as exc:
        raise with_lines(exc, text) from None


def encounter_path(name_or_path: str, root: Path | None = None) -> Path:
    """ENCOUNTER on the command line: an id from data/encounters/ or a path."""
    candidate = Path(name_or_path)
    if candidate.suffix in (".toml", ".json") or candidate.exists():
        return candidate
    folder = (root or data_dir()) / "encounters"
    path = folder / f"{name_or_path}.toml"
    if not path.exists():
        known = sorted(p.stem for p in folder.glob("*.toml"))
        close = difflib.get_close_matches(name_or_path, known, n=1)
        raise DataError.one(
            name_or_path, "encounter", f"no such encounter; known: {', '.join(known)}",
            suggestion=close[0] if close else None,
        )
    return path


def list_encounters(root: Path | None = None) -> list[Path]:
    return sorted(((root or data_dir()) / "encounters").glob("*.toml"))
