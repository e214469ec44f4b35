"""Where a player's characters are saved, and which files there are characters.

Kept apart from `library` (which reads the files through the catalogue) so the main menu can tell
"no characters yet" without importing the content models or loading the catalogue.
"""

from __future__ import annotations

from pathlib import Path

from horizon_tui.storage.temps import remove_stale_temps

CHARACTER_SUFFIXES = (".toml", ".json")


def characters_dir(saves_dir: Path) -> Path:
    return Path(saves_dir) / "characters"


_cleaned: set[Path] = set()


def clean_saves(saves_dir: Path) -> None:
    """Once per process per saves folder: remove the temp files interrupted saves left behind."""
    folder = Path(saves_dir).resolve()
    if folder not in _cleaned:
        _cleaned.add(folder)
        remove_stale_temps(folder)


def character_files(saves_dir: Path) -> list[Path]:
    """Character files under `SAVES/characters/`, newest first (backups `NAME.toml.1`, hidden
    temp files and the `damaged/` folder left out). Interrupted saves' temp files go first."""
    clean_saves(saves_dir)
    folder = characters_dir(saves_dir)
    if not folder.is_dir():
        return []
    found = []
    for p in folder.iterdir():
        try:
            if p.is_file() and p.suffix.lower() in CHARACTER_SUFFIXES and not p.name.startswith("."):
                found.append((-p.stat().st_mtime, p.name, p))
        except OSError:  # gone since the listing, or can't be looked at: not listed
            continue
    return [p for _, _, p in sorted(found)]
