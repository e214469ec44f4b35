"""Where the catalogue's data folder is: `HORIZON_DATA`, else the one shipped in the package (an
installed wheel), else the repository's `data/` (a clone)."""

from __future__ import annotations

import os
from pathlib import Path


# resolved once: every guarded read asks for the data folder (content.guard.current), and resolving
# this file's path is a system call per directory, 40 of them in one GM action (bench_gm_evening)
_PACKAGE = Path(__file__).resolve().parent.parent


def data_dir() -> Path:
    override = os.environ.get("HORIZON_DATA")
    if override:
        return Path(override)
    packaged = _PACKAGE / "data"
    if packaged.is_dir():
        return packaged
    return _PACKAGE.parent / "data"
