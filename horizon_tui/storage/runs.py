"""Runs and the hall of fame, behind two small repository interfaces, each with an in-memory twin
(tests) and a file implementation:

- `RunStore`: a run's state (plain JSON data, `play.runs.run.run_to_dict`), its battle in
  progress (a journal in `battles`, storage.battles, named `battle_slot(run id)`), and at its end
  the morgue (text, as Crawl's, and JSON). Files: `SAVES/records/runs/` — `<id>.json` (the run),
  `<id>.morgue.txt` and `<id>.morgue.json` once it is over; the fight in progress is in the saves
  folder's database (`records/runs/<id>.battle.json` is its name there, the file older versions
  wrote, imported on first open and moved to `records/runs/imported/`). Every write is atomic
  (`storage.atomic`, one transaction for the journal); nothing is deleted but a finished fight's journal.
- `ScoreTable`: the hall of fame, one entry per finished run. File: `hall_of_fame.json` in the
  user data folder (an SSH host's `--data-dir`, shared by every account: the host's apps all run
  as its one system user), changed under an exclusive lock (fcntl) so two runs ending at once
  both land.

The shapes are plain dicts so that a database can take them over as they are.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Protocol

from horizon_tui.errors import DataError, Problem
from horizon_tui.storage.atomic import atomic_write, read_json
from horizon_tui.storage.battles import BattleListing, BattleRepository, MemoryBattles
from horizon_tui.storage.documents import Plain
from horizon_tui.storage.records import battles_of, import_battle_files, records_dir

RUNS = "runs"
HALL_OF_FAME = "hall_of_fame.json"
HALL_OF_FAME_ENV = "HORIZON_HALL_OF_FAME"  # set by an SSH host for its accounts' apps: one shared table
MAX_SCORES = 10_000  # entries kept (the lowest go first): the file stays well under the save size limit
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,80}$")


def check_run_id(run_id: str) -> str:
    if not _ID.match(run_id) or ".." in run_id:
        raise ValueError(f"not a run id: {run_id!r} (letters, digits, '-', '_' and '.')")
    return run_id


def rank_key(entry: dict[str, Any]) -> tuple:
    """Deeper first, then a higher score, then the earlier run."""
    return (-int(entry.get("depth", 0)), -int(entry.get("score", 0)), str(entry.get("ended", "")),
            str(entry.get("id", "")))


class RunStore(Protocol):
    def save_run(self, data: dict[str, Any]) -> None: ...
    def load_run(self, run_id: str) -> dict[str, Any] | None: ...
    def runs_in_progress(self) -> list[dict[str, Any]]: ...
    def battles(self) -> BattleRepository: ...
    def battle_slot(self, run_id: str) -> str: ...
    def write_morgue(self, run_id: str, text: str, data: dict[str, Any]) -> str: ...


_SLOT_FOLDER, _SLOT_SUFFIX = f"records/{RUNS}/", ".battle.json"


def battle_slot(run_id: str) -> str:
    """A run's fight in progress, as its journal is named (the file older versions wrote)."""
    return f"{_SLOT_FOLDER}{check_run_id(run_id)}{_SLOT_SUFFIX}"


def run_of_slot(slot: str) -> str:
    """The run whose fight in progress `slot` is (`battle_slot` backwards); ValueError if it is no run's."""
    run_id = slot.removeprefix(_SLOT_FOLDER).removesuffix(_SLOT_SUFFIX)
    if battle_slot(run_id) != slot:
        raise ValueError(f"not a run's fight: {slot!r}")
    return run_id


class ScoreTable(Protocol):
    def add(self, entry: dict[str, Any]) -> None: ...
    def entries(self, *, daily: bool = False) -> list[dict[str, Any]]: ...


def ranked(entries: list[dict[str, Any]], daily: bool) -> list[dict[str, Any]]:
    chosen = [e for e in entries if bool(e.get("daily")) == daily]
    return sorted(chosen, key=rank_key)


class MemoryRuns:
    """The in-memory twin of `FileRuns`."""

    def __init__(self) -> None:
        self.runs: dict[str, dict[str, Any]] = {}
        self.journal = MemoryBattles()
        self.morgues: dict[str, tuple[str, dict[str, Any]]] = {}

    def save_run(self, data: dict[str, Any]) -> None:
        self.runs[check_run_id(data["id"])] = json.loads(json.dumps(data))

    def load_run(self, run_id: str) -> dict[str, Any] | None:
        found = self.runs.get(check_run_id(run_id))
        return json.loads(json.dumps(found)) if found is not None else None

    def runs_in_progress(self) -> list[dict[str, Any]]:
        return [dict(r) for _, r in sorted(self.runs.items()) if not r.get("over")]

    def battles(self) -> BattleRepository:
        return self.journal

    def battle_slot(self, run_id: str) -> str:
        return battle_slot(run_id)

    def write_morgue(self, run_id: str, text: str, data: dict[str, Any]) -> str:
        self.morgues[check_run_id(run_id)] = (text, data)
        return f"{run_id}.morgue.txt"


class MemoryScores:
    def __init__(self) -> None:
        self.all: list[dict[str, Any]] = []

    def add(self, entry: dict[str, Any]) -> None:
        self.all = sorted([*self.all, dict(entry)], key=rank_key)[:MAX_SCORES]

    def entries(self, *, daily: bool = False) -> list[dict[str, Any]]:
        return ranked(self.all, daily)


def _dump(data: dict[str, Any]) -> bytes:
    return (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode()


class FileRuns:
    """Runs as files under `SAVES/records/runs/`."""

    def __init__(self, saves_dir: Path) -> None:
        self.saves_dir = Path(saves_dir)
        self.folder = records_dir(self.saves_dir) / RUNS
        self._imported = False  # the fights older versions kept as files here: imported once

    def path(self, run_id: str, suffix: str = ".json") -> Path:
        return self.folder / f"{check_run_id(run_id)}{suffix}"

    def save_run(self, data: dict[str, Any]) -> None:
        atomic_write(self.path(data["id"]), _dump(data))

    def load_run(self, run_id: str) -> dict[str, Any] | None:
        path = self.path(run_id)
        return read_json(path) if path.exists() else None

    def runs_in_progress(self) -> list[dict[str, Any]]:
        """Runs not over, newest first; a damaged run file is listed with its problem (`damaged`)."""
        if not self.folder.is_dir():
            return []
        found = []
        for path in self.folder.glob("*.json"):
            if path.name.startswith(".") or path.name.count(".") != 1:
                continue  # battle and morgue files, temp files
            try:
                data = read_json(path)
            except DataError as exc:
                found.append({"id": path.stem, "damaged": str(exc.problems[0]), "mtime": _mtime(path)})
                continue
            if not data.get("over"):
                found.append(dict(data, mtime=_mtime(path)))
        return sorted(found, key=lambda d: (-d["mtime"], str(d.get("id"))))

    def battles(self) -> BattleRepository:
        """The saves folder's battle journals, once the fights older versions kept as files here
        are imported (DatabaseError if the database can't be used)."""
        if not self._imported:
            import_battle_files(self.saves_dir, self.folder, "*.battle.json")
            self._imported = True
        return battles_of(self.saves_dir)

    def battle_slot(self, run_id: str) -> str:
        return battle_slot(run_id)

    def write_morgue(self, run_id: str, text: str, data: dict[str, Any]) -> str:
        atomic_write(self.path(run_id, ".morgue.json"), _dump(data))
        path = self.path(run_id, ".morgue.txt")
        atomic_write(path, text.encode())
        return str(path)


class HeldRuns:
    """A `RunStore` that writes a run only while this window holds it: one writer per run. Its
    lock (`lock_class`: storage.lock.SaveLock beside the run's file, or across the hosts of a
    shared database storage.host_locks.SharedSaveLock, as host_wiring.save_lock_class chooses) is
    taken by `hold` (SaveInUse if another window has it: the screen offers read-only or taking it
    over) and by the first save of a run not held yet (a new one). Every write of the run, its
    fight and its morgue happens inside the lock's guard(), so once another window took the run
    over this one's writes raise LockLost and write nothing. `let_go` releases it."""

    def __init__(self, store: RunStore, saves_dir: Path, who: str, lock_class: Any) -> None:
        self.store = store
        self.folder = records_dir(Path(saves_dir)) / RUNS
        self.who = who
        self.lock_class = lock_class
        self.lock: Any = None
        self.run_id: str | None = None

    def hold(self, run_id: str, *, take_over: bool = False) -> None:
        """Hold `run_id` for writing (letting go of another run held before)."""
        if not take_over and self.run_id == run_id and self.lock is not None and self.lock.holds():
            return
        self.let_go()
        self.lock = self.lock_class.acquire(self.folder / f"{check_run_id(run_id)}.json", self.who,
                                            take_over=take_over)
        self.run_id = run_id

    def holds(self, run_id: str) -> bool:
        return self.run_id == run_id and self.lock is not None and self.lock.holds()

    def let_go(self) -> None:
        if self.lock is not None:
            self.lock.release()
        self.lock, self.run_id = None, None

    def guard(self, run_id: str):
        """The held run's lock's guard() (the run is held first if it isn't: SaveInUse if it can't be)."""
        if self.run_id != run_id or self.lock is None:
            self.hold(run_id)
        return self.lock.guard()

    def save_run(self, data: dict[str, Any]) -> None:
        with self.guard(str(data["id"])):
            self.store.save_run(data)

    def load_run(self, run_id: str) -> dict[str, Any] | None:
        return self.store.load_run(run_id)

    def runs_in_progress(self) -> list[dict[str, Any]]:
        return self.store.runs_in_progress()

    def battles(self) -> BattleRepository:
        return _HeldBattles(self, self.store.battles())

    def battle_slot(self, run_id: str) -> str:
        return self.store.battle_slot(run_id)

    def write_morgue(self, run_id: str, text: str, data: dict[str, Any]) -> str:
        with self.guard(run_id):
            return self.store.write_morgue(run_id, text, data)


class _HeldBattles:
    """A run's fight journal written under the run's lock (`HeldRuns.guard`); read as it is."""

    def __init__(self, runs: HeldRuns, battles: BattleRepository) -> None:
        self.runs, self.journal = runs, battles
        self.where = battles.where

    def save(self, slot: str, header: str, first: int, inputs: Sequence[str], checks: Plain) -> int:
        with self.runs.guard(run_of_slot(slot)):
            return self.journal.save(slot, header, first, inputs, checks)

    def load(self, slot: str) -> Plain | None:
        return self.journal.load(slot)

    def exists(self, slot: str) -> bool:
        return self.journal.exists(slot)

    def listing(self, folder: str) -> list[BattleListing]:
        return self.journal.listing(folder)

    def move(self, slot: str, to: str) -> None:
        with self.runs.guard(run_of_slot(slot)):
            self.journal.move(slot, to)

    def drop(self, slot: str) -> None:
        with self.runs.guard(run_of_slot(slot)):
            self.journal.drop(slot)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


class FileScores:
    """The hall of fame as one JSON file, changed under an exclusive lock (`<file>.lock`)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path.with_name(self.path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def _read(self) -> list[dict[str, Any]]:
        if not self.path.exists():
            return []
        data = read_json(self.path)
        entries = data.get("runs")
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise DataError([Problem(str(self.path), "runs", "a list of runs (tables)")])
        return entries

    def add(self, entry: dict[str, Any]) -> None:
        """Add a finished run. A damaged table is moved aside (never deleted) and a new one begun."""
        with self._locked():
            try:
                entries = self._read()
            except DataError:
                os.replace(self.path, self.path.with_name(self.path.name + ".damaged"))
                entries = []
            entries = sorted([*entries, dict(entry)], key=rank_key)[:MAX_SCORES]
            atomic_write(self.path, _dump({"schema": 1, "runs": entries}))

    def entries(self, *, daily: bool = False) -> list[dict[str, Any]]:
        """Ranked; DataError naming the file if it can't be read."""
        return ranked(self._read(), daily)


def hall_of_fame_path(data_dir: Path) -> Path:
    """The hall of fame of a data folder (`HORIZON_HALL_OF_FAME` wins: an SSH host's shared one)."""
    chosen = os.environ.get(HALL_OF_FAME_ENV)
    return Path(chosen) if chosen else Path(data_dir) / HALL_OF_FAME
