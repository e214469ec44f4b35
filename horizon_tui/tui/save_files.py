"""Where a player's characters are saved, and which files there are characters.

Kept apart from `library` (which reads the files through the catalogue) so the main menu can tell
"no characters yet" without importing the content models or loading the catalogue.
"""

from __future__ import annotations

from pathlib import Path

CHARACTER_SUFFIXES = (".toml", ".json")


def characters_dir(saves_dir: Path) -> Path:
    return Path(saves_dir) / "characters"


def character_files(saves_dir: Path) -> list[Path]:
    """Character files under `SAVES/characters/`, newest first (backups `NAME.toml.1` and hidden
    temp files left out)."""
    folder = characters_dir(saves_dir)
    if not folder.is_dir():
        return []
    found = [
        p for p in folder.iterdir()
        if p.is_file() and p.suffix.lower() in CHARACTER_SUFFIXES and not p.name.startswith(".")
    ]
    return sorted(found, key=lambda p: (-p.stat().st_mtime, p.name))
