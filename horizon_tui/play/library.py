"""The player's saved characters and the data folder's encounters, as the screens see them.

No Textual here: the screens ask this module for lists and saves and never touch files
themselves, so it is tested without a terminal. Characters live in `SAVES/characters/<slug>.toml`
and are written through `storage.atomic.save_character` (atomic, three backups, never over a file
that can't be read).
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Any

import attrs

from horizon_tui.content.catalogue import Catalogue, data_dir
from horizon_tui.content.characters import load_character
from horizon_tui.content.files import read_document
from horizon_tui.content.models import Character
from horizon_tui.crash import write_report
from horizon_tui.errors import DataError, Problem
from horizon_tui.rules.character import build
from horizon_tui.rules.validation import check_character
from horizon_tui.storage.atomic import save_character
from horizon_tui.storage.character_files import characters_dir
from horizon_tui.storage.host_wiring import listed_character_files

def slugify(name: str) -> str:
    """A file name from a character's name: `Iriel of the Reeds` -> `iriel-of-the-reeds`."""
    text = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug[:48].strip("-") or "character"


@attrs.frozen
class SaveEntry:
    """One character file: loaded, or with the problems that keep it from loading."""

    path: Path
    mtime: float
    character: Character | None = None
    level: int | None = None
    problems: tuple[Problem, ...] = ()
    broken: bool = False  # the file can't be read at all (DataError on load)

    @property
    def openable(self) -> bool:
        """Readable, and any problems are loadout ones the loadout screen can fix."""
        return self.character is not None and all(p.key == "loadout" for p in self.problems)

    @property
    def title(self) -> str:
        return self.character.name if self.character else self.path.stem

    @property
    def summary(self) -> str:
        if self.character is None:
            return "can't be read"
        return f"{self.character.species.name}, level {self.level}"

    @property
    def problem_text(self) -> str:
        return "; ".join(short_problem(p) for p in self.problems)


DAMAGED = "damaged"


def move_to_damaged(path: Path) -> Path:
    """`FOLDER/NAME` -> `FOLDER/damaged/NAME` (`NAME-2`, `NAME-3`… if taken), its backups with it.
    Returns the new path; OSError if it can't be moved (the file then stays where it was)."""
    return move_aside(path, DAMAGED)


def move_aside(path: Path, folder_name: str) -> Path:
    """`FOLDER/NAME` -> `FOLDER/folder_name/NAME` (`NAME-2`, `NAME-3`… if taken), its backups with
    it; never over another file. The new path; OSError if it can't be moved (then nothing moved)."""
    folder = path.parent / folder_name
    folder.mkdir(exist_ok=True)
    target = folder / path.name
    n = 2
    while target.exists():
        target = folder / f"{path.stem}-{n}{path.suffix}"
        n += 1
    path.rename(target)
    for k in range(1, 4):  # NAME.1 … NAME.3 go with it, so nothing is left to pick up by mistake
        backup = path.with_name(f"{path.name}.{k}")
        if backup.exists() and not target.with_name(f"{target.name}.{k}").exists():
            backup.rename(target.with_name(f"{target.name}.{k}"))
    return target


def short_problem(problem: Problem) -> str:
    """A problem without its (long) file path: the list already names the file."""
    where = f"line {problem.line}: " if problem.line else ""
    key = f"{problem.key}: " if problem.key else ""
    hint = f" (did you mean '{problem.suggestion}'?)" if problem.suggestion else ""
    return f"{where}{key}{problem.message}{hint}"


@attrs.define
class OpenCharacter:
    """The character being played and the file it is saved in."""

    path: Path
    character: Character


class CharacterLibrary:
    """Characters under `SAVES/characters/`."""

    def __init__(self, saves_dir: Path, catalogue: Catalogue):
        self.saves_dir = Path(saves_dir)
        self.catalogue = catalogue

    @property
    def characters_dir(self) -> Path:
        return characters_dir(self.saves_dir)

    def files(self) -> list[Path]:
        """Character files, newest first (backups `NAME.toml.1` and temp files left out)."""
        return listed_character_files(self.saves_dir)

    def entry(self, path: Path) -> SaveEntry:
        """One file, read as opening it would; never raises (a file can't stop the Load screen)."""
        try:
            mtime = path.stat().st_mtime
        except OSError as exc:
            return SaveEntry(path, 0.0, problems=(Problem(str(path), "", f"can't be read: {exc.strerror}"),),
                             broken=True)
        try:
            character = load_character(path, self.catalogue)
        except DataError as exc:
            return SaveEntry(path, mtime, problems=tuple(exc.problems), broken=True)
        try:
            problems = tuple(check_character(character, self.catalogue, str(path)))
            level = None
            if all(p.key == "loadout" for p in problems):
                level = build(character, self.catalogue.rules).level
        except Exception as exc:  # noqa: BLE001 - a bug met on a file: reported, the list stays up
            report = write_report(exc, f"checking {path}")
            problem = Problem(str(path), "", f"can't be checked (internal error; crash report {report})")
            return SaveEntry(path, mtime, problems=(problem,), broken=True)
        return SaveEntry(path, mtime, character, level, problems)

    def move_to_damaged(self, path: Path) -> Path:
        """Set a damaged file aside: moved (never deleted, never over another) to `damaged/` beside it."""
        return move_to_damaged(path)

    def entries(self, limit: int | None = None) -> list[SaveEntry]:
        return [self.entry(p) for p in self.files()[:limit]]

    def new_path(self, name: str) -> Path:
        """A file for a new character that doesn't overwrite anyone: `iriel.toml`, `iriel-2.toml`…"""
        stem = slugify(name)
        path = self.characters_dir / f"{stem}.toml"
        n = 2
        while path.exists():
            path = self.characters_dir / f"{stem}-{n}.toml"
            n += 1
        return path

    def load(self, path: Path) -> Character:
        return load_character(path, self.catalogue)

    def save(self, path: Path, character: Character) -> None:
        """Atomic save with backups; DataError (and the file left alone) if the file there is broken."""
        save_character(path, character, self.catalogue)

    def problems(self, character: Character, path: Path | None = None) -> list[Problem]:
        return check_character(character, self.catalogue, str(path) if path else "<character>")


# --- encounters --------------------------------------------------------------------------------


@attrs.frozen
class EncounterEntry:
    path: Path
    name: str
    description: str = ""
    difficulty: str = ""
    xp: int | None = None
    size: str = ""
    problem: str | None = None
    enemies: int | None = None

    @property
    def id(self) -> str:
        return self.path.stem


def encounters_dir(catalogue: Catalogue) -> Path:
    return (catalogue.root or data_dir()) / "encounters"


def list_encounters(folder: Path) -> list[EncounterEntry]:
    """Every `*.toml` in the folder, read for what a picker shows; a broken file is listed with
    its problem rather than hidden."""
    if not folder.is_dir():
        return []
    entries = []
    for path in sorted(folder.glob("*.toml")):
        try:  # the guarded reader: a huge or deep file is a problem listed, not a crash
            data, _ = read_document(path)
        except DataError as exc:
            entries.append(EncounterEntry(path, path.stem, problem=short_problem(exc.problems[0])))
            continue
        entries.append(EncounterEntry(
            path,
            name=str(data.get("name") or path.stem),
            description=str(data.get("description") or ""),
            difficulty=str(data.get("difficulty") or data.get("difficulty_label") or ""),
            xp=_int_or_none(data.get("xp", data.get("xp_total"))),
            size=_size(data),
        ))
    return entries


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _size(data: dict[str, Any]) -> str:
    """The battlefield's size, from whichever way the file gives it: width/height, size, a map."""
    for table in (data, data.get("map") if isinstance(data.get("map"), dict) else {}):
        width, height = table.get("width"), table.get("height")
        if isinstance(width, int) and isinstance(height, int):
            return f"{width}×{height}"
        size = table.get("size")
        if isinstance(size, list) and len(size) == 2 and all(isinstance(n, int) for n in size):
            return f"{size[0]}×{size[1]}"
        if isinstance(size, int):
            return f"{size}×{size}"
        if isinstance(size, str) and size:
            return size
        drawn = table.get("map") if table is data else table.get("grid", table.get("rows"))
        if isinstance(drawn, str) and drawn.strip():
            rows = [r for r in drawn.strip("\n").splitlines() if r.strip()]
            return f"{max(len(r) for r in rows)}×{len(rows)}"
        if isinstance(drawn, list) and drawn and all(isinstance(r, str) for r in drawn):
            return f"{max(len(r) for r in drawn)}×{len(drawn)}"
    return ""
