"""Where the catalogue's data folder is: `HORIZON_DATA`, else the one shipped in the package (an
installed wheel), else the repository's `data/` (a clone)."""

from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    override = os.environ.get("HORIZON_DATA")
    if override:
        return Path(override)
    packaged = Path(__file__).resolve().parent.parent / "data"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent.parent / "data"
