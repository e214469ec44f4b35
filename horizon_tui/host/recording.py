"""Session recordings: every session's screen as an asciicast v2 file.

asciicast v2 (docs.asciinema.org/manual/asciicast/v2) is newline-delimited JSON: a header object
(`version` 2, `width`, `height`, `timestamp`, `env`, `title`), then one `[time, code, data]` array
per event, `time` in seconds since the start, code `"o"` (output), `"r"` (resize, `"COLSxROWS"`)
or `"m"` (marker). Only what the app drew is kept, never the keys typed. Files live under the
data folder as `recordings/USER/YYYY-MM-DD/HHMMSS-SESSION.cast`, private (0600 in 0700 folders);
one recording stops at a size limit (with a marker saying so), and old ones are removed by age and
by a total per user (`prune`). `horizon replay FILE [--speed X]` plays one back (`replay`).
"""

from __future__ import annotations

import codecs
import itertools
import json
import os
import re
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import attrs

from horizon_tui.errors import HorizonError
from horizon_tui.paths import path_argument, private_dir

RECORDINGS = "recordings"
FLUSH_EVERY = 1.0  # seconds: a crash of the host loses at most this much of a recording
SIZE_LIMIT_MARK = "recording stopped: size limit reached"


@attrs.frozen
class RecordingLimits:
    max_bytes: int = 20 * 2**20          # one recording
    max_user_bytes: int = 500 * 2**20    # all of one user's recordings
    keep_days: float = 30.0              # older recordings are removed (0: kept until the total)


def recordings_dir(data_dir: Path) -> Path:
    return Path(data_dir) / RECORDINGS


def recording_path(data_dir: Path, user: str, session_id: str, when: float | None = None) -> Path:
    stamp = time.localtime(when if when is not None else time.time())
    folder = recordings_dir(data_dir) / user / time.strftime("%Y-%m-%d", stamp)
    return folder / f"{time.strftime('%H%M%S', stamp)}-{session_id}.cast"


class Recorder:
    """Writes one session's output as it happens. `output`, `resize` and `close` never raise:
    a full disk stops the recording, never the session."""

    def __init__(self, path: Path, width: int, height: int, *, term: str, title: str,
                 max_bytes: int, clock=time.monotonic):
        self.path = path
        self.max_bytes = max_bytes
        self._clock = clock
        self._start = clock()
        self._last_flush = self._start
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.written = 0
        self.stopped: str | None = None
        private_dir(path.parent)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        self._file = os.fdopen(fd, "w", encoding="utf-8", newline="\n")
        header = {"version": 2, "width": int(width), "height": int(height),
                  "timestamp": int(time.time()), "title": title, "env": {"TERM": term, "SHELL": None}}
        self._write(json.dumps(header, ensure_ascii=False))

    def _write(self, line: str) -> None:
        if self.stopped:
            return
        try:
            self._file.write(line + "\n")
            self.written += len(line) + 1
            now = self._clock()
            if now - self._last_flush >= FLUSH_EVERY:
                self._file.flush()
                self._last_flush = now
        except (OSError, ValueError) as exc:
            self._stop(f"recording stopped: {exc}")

    def _event(self, code: str, data: str) -> None:
        if self.stopped:
            return
        line = json.dumps([round(self._clock() - self._start, 6), code, data], ensure_ascii=False)
        if self.written + len(line) > self.max_bytes:
            self._write(json.dumps([round(self._clock() - self._start, 6), "m", SIZE_LIMIT_MARK]))
            self._stop(SIZE_LIMIT_MARK)
            return
        self._write(line)

    def output(self, data: bytes) -> None:
        text = self._decoder.decode(data)  # a character split across two reads is kept whole
        if text:
            self._event("o", text)

    def resize(self, width: int, height: int) -> None:
        self._event("r", f"{int(width)}x{int(height)}")

    def marker(self, label: str) -> None:
        self._event("m", label)

    def _stop(self, reason: str) -> None:
        self.stopped = reason
        try:
            self._file.close()
        except OSError:
            pass

    def close(self) -> None:
        if not self.stopped:
            tail = self._decoder.decode(b"", final=True)
            if tail:
                self._event("o", tail)
            if not self.stopped:
                self._stop("closed")


def prune(data_dir: Path, limits: RecordingLimits, user: str | None = None,
          now: float | None = None) -> list[Path]:
    """Remove recordings older than `keep_days`, then a user's oldest until their total fits
    `max_user_bytes`. Returns what was removed. Only `*.cast` files under recordings/ are touched."""
    root = recordings_dir(data_dir)
    now = time.time() if now is None else now
    users = [root / user] if user else ([p for p in root.iterdir() if p.is_dir()] if root.is_dir() else [])
    removed: list[Path] = []
    for folder in users:
        if not folder.is_dir():
            continue
        casts = []
        for path in folder.glob("*/*.cast"):
            try:
                info = path.stat()
            except OSError:
                continue
            casts.append((info.st_mtime, info.st_size, path))
        casts.sort()
        kept = []
        for mtime, size, path in casts:
            if limits.keep_days and now - mtime > limits.keep_days * 86400:
                removed.append(path)
            else:
                kept.append((mtime, size, path))
        total = sum(size for _, size, _ in kept)
        while kept and total > limits.max_user_bytes:
            _, size, path = kept.pop(0)
            total -= size
            removed.append(path)
        for path in removed:
            try:
                path.unlink()
            except OSError:
                pass
        for day in folder.iterdir():
            try:
                day.rmdir()  # only empty ones go
            except OSError:
                pass
    return removed


# --- reading and replaying ------------------------------------------------------------------------

class CastError(HorizonError):
    """A file that is not a readable asciicast v2 recording."""


def read_cast(path: Path) -> tuple[dict, Iterator[tuple[float, str, str]]]:
    """The header and the events of an asciicast v2 file; `CastError` names the line and what
    was wrong. Events are read lazily: a long recording is never all in memory."""
    try:  # a pipe or a device (/dev/zero) would block or never end
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise CastError(f"{path}: is not a plain file (a folder, a device or a pipe)")
        handle = open(path, encoding="utf-8", errors="strict")
    except OSError as exc:
        raise CastError(f"{path}: can't be read: {exc.strerror or exc}") from None
    try:
        first = _line(handle, path, 1)
    except UnicodeDecodeError:
        handle.close()
        raise CastError(f"{path}:1: not UTF-8 text; an asciicast file is JSON lines") from None
    except CastError:
        handle.close()
        raise
    try:
        header = json.loads(first)
    except (ValueError, RecursionError):
        handle.close()
        raise CastError(f"{path}:1: the first line is not a JSON header "
                        "(an asciicast v2 file starts with {\"version\": 2, \"width\": …})") from None
    if not isinstance(header, dict) or header.get("version") != 2:
        handle.close()
        found = header.get("version") if isinstance(header, dict) else type(header).__name__
        raise CastError(f"{path}:1: version is {found!r}; only asciicast version 2 can be played")
    for key in ("width", "height"):
        if (not isinstance(header.get(key), int) or isinstance(header[key], bool)
                or not 0 < header[key] <= 10000):
            handle.close()
            raise CastError(f"{path}:1: {key} must be a whole number of cells, 1 to 10000; "
                            f"got {header.get(key)!r}")

    def events() -> Iterator[tuple[float, str, str]]:
        with handle:
            number = 1
            try:
                for number in itertools.count(2):
                    line = _line(handle, path, number)
                    if not line:
                        break
                    if not line.strip():
                        continue
                    try:
                        event = json.loads(line)
                    except (ValueError, RecursionError):
                        raise CastError(f"{path}:{number}: not a JSON event "
                                        "(each line after the header is [time, code, data])") from None
                    if (not isinstance(event, list) or len(event) != 3
                            or not isinstance(event[0], (int, float)) or isinstance(event[0], bool)
                            or not isinstance(event[1], str) or not isinstance(event[2], str)):
                        raise CastError(f"{path}:{number}: an event is [time, code, data] "
                                        f"(a number and two strings); got {line.strip()[:80]}")
                    try:
                        at = float(event[0])
                    except OverflowError:  # a whole number past a float's range
                        at = float("inf")
                    if not 0 <= at < float("inf"):  # NaN fails this too
                        shown = repr(event[0])
                        shown = shown if len(shown) <= 12 else f"{shown[:12]}…"
                        raise CastError(f"{path}:{number}: time {shown} must be a number, 0 or more")
                    yield at, event[1], event[2]
            except UnicodeDecodeError:
                raise CastError(f"{path}:{number + 1}: not UTF-8 text") from None

    return header, events()


LONGEST_LINE = 8 * 2**20  # characters in one line of a recording; the app's are far shorter


def _line(handle, path: Path, number: int) -> str:
    """One line, at most LONGEST_LINE characters (a damaged file may be one endless line)."""
    line = handle.readline(LONGEST_LINE + 1)
    if len(line) > LONGEST_LINE:
        raise CastError(f"{path}:{number}: a line longer than {LONGEST_LINE:,} characters; "
                        "not a recording Horizon made")
    return line


# What the app said to the player's terminal that would make the replaying terminal answer or send
# keys and mouse moves into the shell once the replay ends: queries (DECRQM, device attributes,
# cursor position, XTVERSION, kitty keyboard), mouse and focus reporting, the kitty keyboard mode.
_UNSAFE = re.compile(
    r"\x1b\[\?[\d;]*\$p"                      # DECRQM
    r"|\x1b\[[>=]?[\d;]*c"                      # device attributes
    r"|\x1b\[\??[56]n"                           # status, cursor position
    r"|\x1b\[>[\d;]*q"                          # XTVERSION
    r"|\x1b\[[>=<?][\d;]*u"                     # kitty keyboard push, pop, query
    r"|\x1b\[\?(?:1000|1002|1003|1004|1005|1006|1015|1016)(?:;\d+)*[hl]"  # mouse, focus
    r"|\x1b\]\d+;\?(?:\x07|\x1b\\)"                 # colour queries
    r"|\x1b\]52;[^\x07\x1b]*(?:\x07|\x1b\\)")          # OSC 52: writing the clipboard
_PARTIAL = re.compile(r"\x1b(?:\[[\d;?>=<$]*|\][^\x07\x1b]*)?$")  # a sequence cut by a read


def safe_output(text: str) -> str:
    return _UNSAFE.sub("", text)


TERMINAL_RESET = "\x1b[0m\x1b[?1049l\x1b[?25h\x1b[?7h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l"


LONGEST_PAUSE = 86_400.0  # seconds one pause of a replay may last, whatever the file says
SPEEDS = (0.001, 1_000_000.0)  # --speed, slowest and fastest


def replay(path: Path, *, speed: float = 1.0, idle_limit: float | None = None, out=None,
           sleep=time.sleep) -> int:
    """Play a recording to `out` (the terminal), `speed` times as fast; pauses longer than
    `idle_limit` (or the header's `idle_time_limit`) are cut to it. Returns the events played."""
    out = out or sys.stdout
    header, events = read_cast(path)
    limit = idle_limit if idle_limit is not None else header.get("idle_time_limit")
    if not isinstance(limit, (int, float)) or limit <= 0:
        limit = None
    played, previous, carried = 0, 0.0, ""
    try:
        for at, code, data in events:
            gap = max(0.0, at - previous)
            previous = at
            if limit is not None:
                gap = min(gap, limit)
            if gap > 0:
                sleep(min(gap / speed, LONGEST_PAUSE))
            if code == "o":
                text = carried + data
                cut = _PARTIAL.search(text[-64:])
                carried = cut.group(0) if cut else ""
                text = text[:len(text) - len(carried)]
                out.write(safe_output(text))
                out.flush()
                played += 1
    finally:
        if getattr(out, "isatty", lambda: False)():
            out.write(TERMINAL_RESET)  # a recording cut short may leave the screen mid-game
            out.flush()
    return played


def cmd_replay(args) -> int:
    speed = args.speed
    if not SPEEDS[0] <= speed <= SPEEDS[1]:  # NaN fails this too
        print(f"horizon replay: --speed must be a number from {SPEEDS[0]:g} to {SPEEDS[1]:,.0f}, not {args.speed}",
              file=sys.stderr)
        return 2
    if not 0 <= args.idle_limit <= LONGEST_PAUSE:
        print(f"horizon replay: --idle-limit must be from 0 to {LONGEST_PAUSE:,.0f} seconds, not {args.idle_limit}",
              file=sys.stderr)
        return 2
    try:
        replay(args.file, speed=speed, idle_limit=args.idle_limit if args.idle_limit > 0 else None)
    except CastError as exc:
        print(f"horizon replay: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


def add_replay_arguments(parser) -> None:
    parser.add_argument("file", type=path_argument, help="an asciicast v2 recording (.cast)")
    parser.add_argument("--speed", type=float, default=1.0, metavar="X",
                        help="play X times as fast (default 1; 100 shows a game in moments)")
    parser.add_argument("--idle-limit", type=float, default=3.0, metavar="SECONDS",
                        help="cut longer pauses to this (default 3; the file's own limit if 0)")
