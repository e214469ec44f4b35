"""Temp files of interrupted saves: named `.NAME.PID.xxxx.tmp` by `store.atomic_write`,
removed at the next start when their writer is gone. No heavy imports: the main menu calls this."""

from __future__ import annotations

import os
import time
from pathlib import Path

TEMP_SUFFIX = ".tmp"
STALE_SECONDS = 600  # a temp file this old whose writer can't be told is left from a crash


def temp_prefix(path: Path) -> str:
    """`.NAME.PID.`: the writer's process id, so a later start can tell a crashed write's leftovers."""
    return f".{path.name}.{os.getpid()}."


def remove_stale_temps(folder: Path, *, depth: int = 2) -> list[Path]:
    """Temp files left by interrupted saves (`.NAME.PID.xxxx.tmp`) under `folder`, removed: those
    whose writer is no longer running, and any older than STALE_SECONDS. Returns what went."""
    removed: list[Path] = []
    if not folder.is_dir():
        return removed
    now = time.time()
    stack = [(folder, 0)]
    while stack:
        current, level = stack.pop()
        try:
            children = list(current.iterdir())
        except OSError:
            continue
        for child in children:
            try:
                if child.is_dir() and not child.is_symlink():
                    if level < depth:
                        stack.append((child, level + 1))
                    continue
                if not (child.name.startswith(".") and child.name.endswith(TEMP_SUFFIX)):
                    continue
                if _writer_alive(child) and now - child.stat().st_mtime < STALE_SECONDS:
                    continue
                child.unlink()
                removed.append(child)
            except OSError:
                continue
    return removed


def _writer_alive(temp: Path) -> bool:
    parts = temp.name[1:].split(".")
    pid = next((int(p) for p in reversed(parts[:-2]) if p.isdigit()), None) if len(parts) >= 3 else None
    if pid is None:
        return True  # can't tell: the age decides
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process
    return True
