"""Crash reports: an unexpected exception is a bug, never the user's fault.

`write_report` puts the traceback, the version and what was running into a file under
`paths.crash_reports_dir()` and returns its path; the CLI then prints one line naming it and
exits 70, the apps save their state first and show an error screen naming it.
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
import time
import traceback
from pathlib import Path

from horizon_tui import __version__
from horizon_tui.paths import crash_reports_dir, private_dir

EXIT_INTERNAL = 70  # INTERFACES.md: an internal error (EX_SOFTWARE)


def report_text(exc: BaseException, context: str = "") -> str:
    lines = [
        f"Horizon {__version__} crash report",
        f"time: {time.strftime('%Y-%m-%d %H:%M:%S %z')}",
        f"python: {platform.python_version()} on {platform.platform()}",
        f"command: {' '.join(sys.argv)}",
    ]
    if context:
        lines.append(f"while: {context}")
    lines += ["", "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))]
    return "\n".join(lines)


def write_report(exc: BaseException, context: str = "") -> Path | None:
    """The report's file (crash_reports_dir, else the system's temp folder); None if no folder
    can be written (the caller still says an internal error happened)."""
    text = report_text(exc, context)
    name = f"crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.txt"
    for folder in (crash_reports_dir, lambda: Path(tempfile.gettempdir())):
        try:
            target = private_dir(folder()) / name
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            # backslashreplace: the command line may hold a file name that isn't UTF-8
            with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
                handle.write(text)
            return target
        except Exception:  # noqa: BLE001 - a report that can't be written must not hide the crash
            continue
    return None


def one_line(report: Path | None) -> str:
    """What the user sees: one line, never a traceback."""
    if report is None:
        return "horizon: internal error (a bug, not your input); no crash report could be written"
    return f"horizon: internal error (a bug, not your input); crash report: {report}"
