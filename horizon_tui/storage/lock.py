"""One writer per save: a character, a campaign or a battle is written by one window or session.

A holder record `.NAME.owner` beside the save says who holds it, since when, and a token; a short
`filelock` section (`.NAME.lock`) makes "check the record, then write" one step across processes.
Whoever holds the token may write; `take_over=True` hands the save to a new holder, and the old
holder's next `guard()` raises `LockLost` instead of writing over the new holder's work. A record
left by a process that no longer runs on this host is stale and counts as free.

Used by the player app (local and over SSH) and the GM tool; a window that opens read-only simply
never acquires.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import attrs
from filelock import FileLock, Timeout

from horizon_tui.errors import HorizonError
from horizon_tui.paths import write_private_json

SECTION_TIMEOUT_S = 5.0  # the check-and-write section is short; longer means a hung writer


@attrs.frozen
class Holder:
    who: str
    since: float  # time.time() when acquired
    pid: int
    host: str
    token: str

    def describe(self) -> str:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.since))
        return f"{self.who} since {when}"


class SaveInUse(HorizonError):
    """The save is held by another live window or session."""

    def __init__(self, path: Path, holder: Holder):
        self.path, self.holder = path, holder
        super().__init__(f"{path.name} is already open in another session ({holder.describe()})")


class LockLost(HorizonError):
    """Another session took the save over; this one must not write it any more."""

    def __init__(self, path: Path, holder: Holder | None):
        self.path, self.holder = path, holder
        by = f" by {holder.describe()}" if holder else ""
        super().__init__(f"{path.name} was taken over{by}; this window no longer saves it")


def owner_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.owner")


def section_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.lock")


def process_alive(pid: int) -> bool:
    """Whether a process `pid` runs on this machine (someone else's counts: it is there)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _alive(holder: Holder) -> bool:
    if holder.host != socket.gethostname():
        return True  # can't tell from here: assume it runs
    return holder.pid == os.getpid() or process_alive(holder.pid)


def _read_small(path: Path, limit: int = 4096) -> bytes | None:
    """At most `limit` + 1 bytes of a plain file; None for anything else: a pipe would block the
    app, /dev/zero would read for ever (a hostile saves folder). No record is then a free save,
    and the next holder's record replaces it (a rename)."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, limit + 1)
    finally:
        os.close(fd)


def _read_record(path: Path) -> tuple[Holder | None, bool]:
    """The last holder written beside `path` (None if no readable record) and whether it let go."""
    try:
        raw = _read_small(owner_path(path))
        if raw is None or len(raw) > 4096:
            return None, True
        data = json.loads(raw)
        holder = Holder(
            who=str(data["who"])[:200], since=float(data["since"]), pid=int(data["pid"]),
            host=str(data["host"])[:255], token=str(data["token"])[:64],
        )
        return holder, bool(data.get("released", False))
    except (OSError, ValueError, KeyError, TypeError, RecursionError):
        return None, True


def read_holder(path: Path) -> Holder | None:
    """The live holder of `path`, or None (no record, a released one, or a stale one)."""
    holder, released = _read_record(path)
    if holder is None or released or not _alive(holder):
        return None
    return holder


def _write_holder(path: Path, holder: Holder, *, released: bool = False) -> None:
    write_private_json(owner_path(path), {**attrs.asdict(holder), "released": released})


class SaveLock:
    """The right to write one save. Acquire with `SaveLock.acquire`; write inside `guard()`."""

    def __init__(self, path: Path, holder: Holder):
        self.path = path
        self.holder = holder
        self._section = FileLock(str(section_path(path)), timeout=SECTION_TIMEOUT_S)

    @classmethod
    def acquire(cls, path: Path, who: str, *, take_over: bool = False) -> SaveLock:
        """Hold `path` for writing; raises `SaveInUse` if another live holder has it (unless
        `take_over`)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        holder = Holder(who=who, since=time.time(), pid=os.getpid(), host=socket.gethostname(),
                        token=uuid.uuid4().hex)
        lock = cls(path, holder)
        with lock._locked_section():
            current = read_holder(path)
            if current is not None and current.token != holder.token and not take_over:
                raise SaveInUse(path, current)
            _write_holder(path, holder)
        return lock

    @contextlib.contextmanager
    def _locked_section(self) -> Iterator[None]:
        try:
            with self._section:
                yield
        except Timeout:
            raise HorizonError(f"{self.path.name}: another writer has held it for over "
                               f"{SECTION_TIMEOUT_S:g} s; try again") from None

    def holds(self) -> bool:
        last, released = _read_record(self.path)
        return last is not None and not released and last.token == self.holder.token

    @contextlib.contextmanager
    def guard(self) -> Iterator[None]:
        """Write the save inside this block: no other holder can take it over meanwhile, and a
        save that was taken over raises `LockLost` before anything is written."""
        with self._locked_section():
            last, _released = _read_record(self.path)
            if last is None:  # the record was removed by hand: claim it again
                _write_holder(self.path, self.holder)
            elif last.token != self.holder.token:
                # Taken over, even if the taker has since closed: its saves are newer than ours.
                raise LockLost(self.path, last)
            yield

    def release(self) -> None:
        with contextlib.suppress(OSError, HorizonError), self._locked_section():
            last, _released = _read_record(self.path)
            if last is not None and last.token == self.holder.token:
                _write_holder(self.path, self.holder, released=True)

    def __enter__(self) -> SaveLock:
        return self

    def __exit__(self, *exc) -> None:
        self.release()
