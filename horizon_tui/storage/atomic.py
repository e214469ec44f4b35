"""Atomic saves with backups: a save is never half-written and a broken one is never overwritten.

Writing: temp file in the same folder → fsync → rename over the old file (atomic on POSIX), after
the old file was copied to `NAME.1` (and `.1` → `.2` → `.3`; three backups kept). A read-only
file is never replaced and a write that fails (full disk) leaves the old file as it was: both
raise `SaveError`. Temp files left by a crash are removed at the next start (`remove_stale_temps`).
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import tomli_w

from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.characters import character_from_text, character_to_dict, load_character
from horizon_tui.content.guard import current as guard_limits
from horizon_tui.content.guard import read_json_object
from horizon_tui.content.models import Character
from horizon_tui.errors import DataError, HorizonError
from horizon_tui.storage.temps import TEMP_SUFFIX, remove_stale_temps, temp_prefix  # noqa: F401

BACKUPS = 3


class SaveError(HorizonError, OSError):
    """A save that can't be written (a read-only file or folder, a full disk): the old file is as
    it was. An OSError too, so callers that caught those still do; the CLI exits 1 with it."""

    def __str__(self) -> str:
        return self.strerror or super().__str__()


def _refuse_read_only(path: Path) -> None:
    """A rename would replace a read-only file without a word: refuse instead."""
    if path.exists() and not os.access(path, os.W_OK):
        raise SaveError(errno.EACCES, f"{path} is read-only; it was not replaced (make it writable to save)")


def atomic_write(path: Path, data: bytes | Iterable[bytes]) -> None:
    """Temp file beside it → fsync → rename over. Raises SaveError (and leaves the old file as it
    was, with no temp file behind) if it can't be written. `data` may come in pieces, written as
    they are made (an export of a long session log is never in memory whole)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _refuse_read_only(path)
        fd, tmp = tempfile.mkstemp(prefix=temp_prefix(path), suffix=TEMP_SUFFIX, dir=path.parent)
    except SaveError:
        raise
    except OSError as exc:
        raise _save_error(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            for piece in (data,) if isinstance(data, bytes) else data:
                handle.write(piece)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError) and not isinstance(exc, SaveError):
            raise _save_error(path, exc) from None
        raise
    try:  # make the rename itself durable
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass


def _save_error(path: Path, exc: OSError) -> SaveError:
    reason = {
        errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is used up",
        errno.EACCES: "permission denied", errno.EPERM: "permission denied", errno.EROFS: "the disk is read-only",
    }.get(exc.errno or 0, exc.strerror or str(exc))
    kept = "the old file is as it was" if Path(path).exists() else "nothing was written"
    return SaveError(exc.errno or errno.EIO, f"{path} can't be saved: {reason}; {kept}")


def backup_path(path: Path, n: int) -> Path:
    return path.with_name(f"{path.name}.{n}")


def rotate_backups(path: Path, keep: int = BACKUPS) -> None:
    """NAME.2 → NAME.3, NAME.1 → NAME.2, NAME → NAME.1 (a copy, so NAME stays until replaced)."""
    if not path.exists() or keep < 1:
        return
    _refuse_read_only(path)
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
    try:
        if path.exists() and path.read_bytes() == data:
            return
    except OSError as exc:
        raise _save_error(path, exc) from None
    _refuse_read_only(path)  # before the backups move: nothing changes when it can't be written
    try:
        rotate_backups(path)
    except SaveError:
        raise
    except OSError as exc:
        raise _save_error(path, exc) from None
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
    """Save a character; if the file there can't be read, raise instead of overwriting it.

    What is written is first read back as `load_character` reads a file (the same limits: a
    name's length, a number's range, the file's size), so the app never writes a character it
    would then refuse to open: DataError naming the key, and nothing written."""

    def check(existing: Path) -> None:
        load_character(existing, catalogue)

    data = encode(character_to_dict(character, catalogue), path)
    limit = guard_limits().file_bytes
    if len(data) > limit:
        raise DataError.one(path, "", f"would be {len(data):,} bytes; at most {limit:,} (files.file_bytes in limits.toml)")
    character_from_text(data.decode(), path, catalogue)
    save_bytes(path, data, check=check)


def read_json(path: Path) -> dict[str, Any]:
    """A save (battle, campaign) as a JSON object, through the guarded reader (content.guard:
    the save size limit, nesting, digits); DataError naming the file and line otherwise."""
    return read_json_object(path)


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
