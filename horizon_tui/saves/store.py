"""Atomic saves with backups: a save is never half-written and a broken one is never overwritten.

Writing: temp file in the same folder → fsync → rename over the old file (atomic on POSIX), after
the old file was copied to `NAME.1` (and `.1` → `.2` → `.3`; three backups kept).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

import tomli_w

from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.characters import character_to_dict, load_character
from horizon_tui.content.models import Character
from horizon_tui.errors import DataError

BACKUPS = 3


def atomic_write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:  # make the rename itself durable
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass


def backup_path(path: Path, n: int) -> Path:
    return path.with_name(f"{path.name}.{n}")


def rotate_backups(path: Path, keep: int = BACKUPS) -> None:
    """NAME.2 → NAME.3, NAME.1 → NAME.2, NAME → NAME.1 (a copy, so NAME stays until replaced)."""
    if not path.exists() or keep < 1:
        return
    for n in range(keep - 1, 0, -1):
        older = backup_path(path, n)
        if older.exists():
            os.replace(older, backup_path(path, n + 1))
    atomic_write(backup_path(path, 1), path.read_bytes())


def save_bytes(path: Path, data: bytes, *, protect_unreadable: bool = True, check=None) -> None:
    """Write `data` to `path` atomically, keeping backups of what was there.

    With `check` (a callable that raises DataError on a file it can't read), an existing file
    that can't be read is left untouched and the DataError is raised instead.
    """
    if protect_unreadable and check is not None and path.exists():
        check(path)
    if path.exists() and path.read_bytes() == data:
        return
    rotate_backups(path)
    atomic_write(path, data)


def encode(data: dict[str, Any], path: Path) -> bytes:
    if path.suffix.lower() == ".json":
        return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()
    return tomli_w.dumps(_toml_safe(data)).encode()


def _toml_safe(value: Any) -> Any:
    """TOML has no null: drop None values."""
    if isinstance(value, dict):
        return {k: _toml_safe(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_toml_safe(v) for v in value if v is not None]
    return value


def save_character(path: Path, character: Character, catalogue: Catalogue) -> None:
    """Save a character; if the file there can't be read, raise instead of overwriting it."""

    def check(existing: Path) -> None:
        load_character(existing, catalogue)

    save_bytes(path, encode(character_to_dict(character, catalogue), path), check=check)


def read_json(path: Path) -> dict[str, Any]:
    """A save (battle, campaign) as a JSON object, through the guarded reader (content.guard:
    the save size limit, nesting, digits); DataError naming the file and line otherwise."""
    from horizon_tui.content.guard import read_json_object

    return read_json_object(path)
