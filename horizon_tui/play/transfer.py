"""Bringing a character file in from anywhere, and a copy of one out (the Load screen's i and x).

No Textual here. An import is read and checked like any save (a file that can't be read is
refused with its problems, nothing is written) and saved under a new name in `SAVES/characters/`,
never over another character. An export is the save's bytes, exactly, written where the player
asks; an existing file there is replaced only when the caller says so (the screen asks first).
"""

from __future__ import annotations

import os
from pathlib import Path

from horizon_tui.play.hosting import hosted
from horizon_tui.storage.atomic import atomic_write



def examples_dir() -> Path:
    """The characters shipped as examples (`examples/party/` of the repository)."""
    return Path(__file__).resolve().parents[2] / "examples" / "party"


def example_files() -> list[Path]:
    folder = examples_dir()
    return sorted(folder.glob("*.toml")) if folder.is_dir() else []


class OutsideFolder(PermissionError):
    """Over SSH a typed path left the player's own folder."""


def confined(path: Path) -> Path:
    """A path the player typed. Played locally: as typed (`~` expanded). Over SSH (hosted) the
    app runs as the host's own user, so "anywhere" would reach the host's files and the other
    players' saves: a path must stay inside the player's own folder (the session's
    HOME; relative paths start there), else `OutsideFolder`, whose message names no server path."""
    if not hosted():
        return Path(path).expanduser()
    home = Path(os.environ.get("HOME") or Path.cwd()).resolve()
    typed = str(path)
    if typed == "~" or typed.startswith("~/"):
        typed = typed[2:] or "."
    full = (home / typed).resolve()
    if not full.is_relative_to(home):
        raise OutsideFolder(f"{typed}: over SSH only files in your own folder can be used "
                            "(a name such as saves/characters/ada.toml or ada.toml)")
    return full


def shown(path: Path) -> str:
    """A path as the player may see it: over SSH relative to their own folder, never the server's."""
    if not hosted():
        return str(path)
    home = Path(os.environ.get("HOME") or Path.cwd()).resolve()
    try:
        return str(Path(path).resolve().relative_to(home))
    except ValueError:
        return Path(path).name


def import_character(library, source: Path) -> Path:
    """Read `source` as a character (DataError with its problems if it can't be) and save it in
    the library under a new file name; returns that path."""
    source = Path(source) if Path(source) in example_files() else confined(source)
    character = library.load(source)
    target = library.new_path(character.name)
    library.save(target, character)
    return target


class FolderMissing(FileNotFoundError):
    """The folder an export goes into isn't there; the player is asked before it is made."""

    def __init__(self, folder: Path) -> None:
        super().__init__(f"{folder} doesn't exist")
        self.folder = folder


def ends_in_separator(text: str) -> bool:
    """A typed path that names a folder by its last character (`/tmp/x/`, or `\\` on Windows)."""
    return text.endswith(("/", os.sep))


def export_character(save: Path, target: Path, *, replace: bool = False, into_folder: bool = False,
                     make_folder: bool = False) -> Path:
    """Copy the save's bytes to `target`; a folder (one that exists, or `into_folder`: the path was
    typed with a separator at its end) gets the save's name inside it. A missing folder is made
    only with `make_folder` (else FolderMissing, so the player is asked first). FileExistsError if
    the file exists and `replace` is False; the save itself is never touched."""
    target = confined(target)
    if into_folder or target.is_dir():
        if not target.is_dir():
            if target.exists():
                raise NotADirectoryError(f"{target} is a file, not a folder")
            if not make_folder:
                raise FolderMissing(target)
            target.mkdir(parents=True)
        target = target / Path(save).name
    if target.exists() and not replace:
        raise FileExistsError(f"{target} already exists")
    if target.resolve() == Path(save).resolve():
        raise FileExistsError(f"{target} is the save itself")
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(target, Path(save).read_bytes())
    return target
