"""Where Horizon keeps a user's files (INTERFACES.md, second round: platformdirs, app name `horizon`).

One place decides every default folder, so the player app, the GM tool, crash reports and the SSH
host agree. `HORIZON_DATA_DIR` overrides the platform's folder (tests, portable installs).
Every folder made here is private to the user (0700).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

APP_NAME = "horizon"
ENV_DATA_DIR = "HORIZON_DATA_DIR"
# Set by an SSH host with a shared database for the apps it starts: the account's saves folder whose
# runs, battles and campaigns are kept in that database (storage.host_shared), not in the folder.
ENV_SHARED_SAVES = "HORIZON_SHARED_SAVES"


def user_data_dir() -> Path:
    """The user's data folder: `$HORIZON_DATA_DIR`, else platformdirs' user data dir for `horizon`.

    Resolved to an absolute path once, here, so a later `chdir` can't move it.
    """
    chosen = os.environ.get(ENV_DATA_DIR)
    if chosen:
        return Path(chosen).expanduser().resolve()
    import platformdirs  # ~10 ms: only when a folder is asked for and HORIZON_DATA_DIR is unset

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)).resolve()


def default_saves_dir() -> Path:
    """Characters, battles and campaigns when `--saves` is not given."""
    return user_data_dir() / "saves"


def crash_reports_dir() -> Path:
    return user_data_dir() / "crash-reports"


def default_server_dir() -> Path:
    """The SSH host's `--data-dir` when none is given."""
    return user_data_dir() / "server"


def private_dir(path: Path) -> Path:
    """Make `path` (and missing parents) and tighten it to 0700; returns it."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        if path.stat().st_mode & 0o077:
            path.chmod(0o700)
    except OSError:
        pass
    return path


def write_private_json(path: Path, data) -> None:
    """Write a small JSON file atomically (a reader sees the old one or the new, never half) and
    private to the user (0600): status files, lock records, table invitations."""
    write_private_bytes(path, json.dumps(data).encode("utf-8"))


def write_private_bytes(path: Path, data: bytes) -> None:
    """`write_private_json`'s atomic 0600 write, for bytes (a character offered to a GM)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(tmp, path)


def path_argument(text: str) -> Path:
    """A FILE or DIR on the command line (argparse `type=`): an empty one (an unset shell
    variable) is bad usage, not the current folder that `Path("")` would make of it."""
    import argparse  # the command line's alone: the player app imports this module at start-up

    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path (an unset variable?); give a file or folder")
    return Path(text)
