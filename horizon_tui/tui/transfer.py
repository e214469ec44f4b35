"""Bringing a character file in from anywhere, and a copy of one out (the Load screen's i and x).

No Textual here. An import is read and checked like any save (a file that can't be read is
refused with its problems, nothing is written) and saved under a new name in `SAVES/characters/`,
never over another character. An export is the save's bytes, exactly, written where the player
asks; an existing file there is replaced only when the caller says so (the screen asks first).
"""

from __future__ import annotations

from pathlib import Path



def examples_dir() -> Path:
    """The characters shipped as examples (`examples/party/` of the repository)."""
    return Path(__file__).resolve().parents[2] / "examples" / "party"


def example_files() -> list[Path]:
    folder = examples_dir()
    return sorted(folder.glob("*.toml")) if folder.is_dir() else []


def import_character(library, source: Path) -> Path:
    """Read `source` as a character (DataError with its problems if it can't be) and save it in
    the library under a new file name; returns that path."""
    source = Path(source).expanduser()
    character = library.load(source)
    target = library.new_path(character.name)
    library.save(target, character)
    return target


def export_character(save: Path, target: Path, *, replace: bool = False) -> Path:
    """Copy the save's bytes to `target` (a folder: the save's name inside it). FileExistsError if
    `target` exists and `replace` is False; the save itself is never touched."""
    from horizon_tui.saves.store import atomic_write

    target = Path(target).expanduser()
    if target.is_dir():
        target = target / Path(save).name
    if target.exists() and not replace:
        raise FileExistsError(f"{target} already exists")
    if target.resolve() == Path(save).resolve():
        raise FileExistsError(f"{target} is the save itself")
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(target, Path(save).read_bytes())
    return target
