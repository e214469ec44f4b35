"""The live sessions of a host, as files under its data folder: what `horizon who` and `watch` list.

`live/SESSION.json` is written by the host (player, when it started, the last key's time, the
terminal's size, how many watch, the host's pid); `live/SESSION.app.json` by the player app itself
(the character being played, the screen, whether the player lets others watch: the app knows
those, the host doesn't — `horizon_tui/play/hosting.py`). A file whose host is no longer running
is stale: listed by nobody, removed when a host starts. Files are 0600 in a 0700 folder.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
import time
from pathlib import Path

from horizon_tui.paths import write_private_json as write_json  # atomic and private

import attrs

from horizon_tui.paths import private_dir
from horizon_tui.storage.lock import process_alive

LIVE = "live"
APP_SUFFIX = ".app.json"
STATUS_LIMIT = 64 * 1024  # a status file larger than this is not ours


def live_dir(data_dir: Path) -> Path:
    return Path(data_dir) / LIVE


def read_json(path: Path) -> dict | None:
    """A status file, or None when it isn't one of ours: not a plain file (a pipe would block,
    /dev/zero never end), too big, or not a JSON object (nested past the parser's depth too)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as handle:
            raw = handle.read(STATUS_LIMIT + 1)
        if len(raw) > STATUS_LIMIT:
            return None
        data = json.loads(raw)
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


@attrs.frozen
class LiveGame:
    id: str
    player: str
    started: float          # time.time()
    last_input: float       # time.time() of the last key (to a few seconds)
    width: int
    height: int
    watchers: int
    host_pid: int
    character: str | None = None
    screen: str | None = None
    watchable: bool = True  # the player's choice (the app's file); the host's policy is apart

    def idle(self, now: float | None = None) -> float:
        return max(0.0, (time.time() if now is None else now) - self.last_input)


def _text(value, limit: int = 80) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    return "".join(ch if ch.isprintable() else "?" for ch in value)[:limit]


def read_session(status: Path) -> LiveGame | None:
    data = read_json(status)
    if data is None:
        return None
    try:
        host_pid = int(data["host_pid"])
        session = LiveGame(
            id=str(data["id"])[:64], player=str(data["player"])[:64], started=float(data["started"]),
            last_input=float(data["last_input"]), width=int(data["width"]), height=int(data["height"]),
            watchers=int(data.get("watchers", 0)), host_pid=host_pid)
    except (KeyError, TypeError, ValueError):
        return None
    if not process_alive(host_pid):
        return None
    app = read_json(status.with_name(status.name.removesuffix(".json") + APP_SUFFIX)) or {}
    return attrs.evolve(session, character=_text(app.get("character")), screen=_text(app.get("screen")),
                        watchable=app.get("watchers", "allow") != "refuse")


def live_sessions(data_dir: Path) -> list[LiveGame]:
    """The sessions running now, oldest first."""
    folder = live_dir(data_dir)
    if not folder.is_dir():
        return []
    found = []
    for status in folder.glob("*.json"):
        if status.name.endswith(APP_SUFFIX) or status.name.startswith("."):
            continue
        session = read_session(status)
        if session is not None:
            found.append(session)
    return sorted(found, key=lambda s: s.started)


def remove_stale(data_dir: Path) -> int:
    """At a host's start: remove the files of sessions whose host is gone."""
    folder = live_dir(data_dir)
    if not folder.is_dir():
        return 0
    removed = 0
    for status in folder.glob("*.json"):
        if status.name.endswith(APP_SUFFIX):
            continue
        data = read_json(status) or {}
        try:
            alive = process_alive(int(data.get("host_pid", -1))) if int(data.get("host_pid", -1)) > 0 else False
        except (TypeError, ValueError):
            alive = False
        if not alive:
            remove_session_files(status)
            removed += 1
    for leftover in folder.glob(f"*{APP_SUFFIX}"):  # an app's file without its session
        if not leftover.with_name(leftover.name.removesuffix(APP_SUFFIX) + ".json").exists():
            with contextlib.suppress(OSError):
                leftover.unlink()
    return removed


def remove_session_files(status: Path) -> None:
    for path in (status, status.with_name(status.name.removesuffix(".json") + APP_SUFFIX)):
        with contextlib.suppress(OSError):
            path.unlink()


class StatusFile:
    """The host's side of one session's entry. `touch()` on each key writes at most every
    `TOUCH_EVERY` seconds, so `who` shows idle time to within that."""

    TOUCH_EVERY = 5.0

    def __init__(self, data_dir: Path, session_id: str, player: str, size: tuple[int, int]):
        folder = private_dir(live_dir(data_dir))
        self.path = folder / f"{session_id}.json"
        self.app_path = folder / f"{session_id}{APP_SUFFIX}"
        now = time.time()
        self.data = {"id": session_id, "player": player, "started": now, "last_input": now,
                     "width": size[0], "height": size[1], "watchers": 0, "host_pid": os.getpid()}
        self._written_input = now
        self.closed = False
        self.write()

    def write(self) -> None:
        if self.closed:
            return
        with contextlib.suppress(OSError):
            write_json(self.path, self.data)

    def touch(self) -> None:
        now = time.time()
        self.data["last_input"] = now
        if now - self._written_input >= self.TOUCH_EVERY:
            self._written_input = now
            self.write()

    def update(self, **values) -> None:
        self.data.update(values)
        self.write()

    def app_status(self) -> dict:
        """What the player app last said (character, screen, watchers allowed)."""
        return read_json(self.app_path) or {}

    def remove(self) -> None:
        self.closed = True
        remove_session_files(self.path)


def duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds // 60 % 60:02d}m"


def who_table(sessions: list[LiveGame], now: float | None = None) -> list[str]:
    rows = [("PLAYER", "CHARACTER", "SCREEN", "IDLE", "WATCHERS", "SINCE")]
    for s in sessions:
        rows.append((s.player, s.character or "-", s.screen or "-", duration(s.idle(now)),
                     f"{s.watchers}" + ("" if s.watchable else " (refused)"),
                     time.strftime("%H:%M", time.localtime(s.started))))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]


def print_who(data_dir: Path) -> int:
    """`horizon who`: the live sessions of the host using `data_dir`, one line each."""
    sessions = live_sessions(data_dir)
    if not sessions:
        print(f"no live sessions (data folder {data_dir})", file=sys.stderr)
        return 0
    for line in who_table(sessions):
        print(line)
    return 0
