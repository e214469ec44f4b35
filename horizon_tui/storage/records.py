"""Battles in progress and kept aside (journals in the saves folder's database), and the records
of finished ones (files under the saves folder).

No Textual here (tested without a terminal). A battle in progress is a journal in the database
(`storage.battles`) named by the file it was before: a character's is `battles/<character
stem>.json` (see `ui.battle.flow`); beside it:

- `battles/kept/<character stem>--<when>.json`: a battle in progress that was put aside to
  start another (the "Resume it?" question's "Start the new one"). It can be resumed from
  Load ▸ Battles; battles put aside by older versions in `battles/abandoned/` are listed too.
- `battles/damaged/…`: a battle that no longer replays, set aside when the player said so.
- `SAVES/records/<character stem>--<when>.txt` (and `.json`, the battle's seed and inputs, which
  replay it): the record of a finished battle, as Crawl's morgue files are: the result, who dealt
  and took what, and the whole log. Files by nature (read, copied, sent); never deleted by the app.

Battle save files of older versions (`SAVES/battles/*.json`, `kept/`, `abandoned/`) are imported
into the journal the first time the folder is looked at and moved to `imported/` beside them, never
deleted; a file that can't be imported stays where it is and is listed with what is wrong.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import stat
import time
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from horizon_tui.content.encounters import encounter_path
from horizon_tui.content.guard import current, read_document, read_json_object, read_limited
from horizon_tui.errors import DataError
from horizon_tui.storage.atomic import atomic_write, move_aside
from horizon_tui.storage.battles import BATTLE_KIND, CHECK_KEYS, BattleRepository, check_slot
from horizon_tui.storage.documents import dumps
from horizon_tui.storage.host_records import shares_saves

if TYPE_CHECKING:
    from horizon_tui.storage.battles_sql import SqlBattles
    from horizon_tui.storage.database import Database

KEPT = "kept"
IMPORTED = "imported"  # battle save files of older versions, once their battle is in the journal
LEGACY_KEPT = "abandoned"  # where battles given up went before they could be resumed
RECORDS = "records"
_STAMP = "%Y%m%d-%H%M%S"


def encounter_name(encounter: str | Path) -> str:
    """An encounter's `name` (Goblin Ambush), else its file's stem in words (goblin ambush). The
    path comes from a battle save: read with the guarded reader (a plain file, the size and
    nesting limits), never a device or a pipe that would read for ever."""
    path = Path(encounter)
    try:  # a save names a shipped encounter by its id (engine.persist), a GM's own by its path
        path = encounter_path(str(encounter))
        name = read_document(path)[0].get("name")
    except (DataError, OSError, ValueError):
        name = None
    return str(name) if isinstance(name, str) and name.strip() else path.stem.replace("_", " ")


def battles_dir(saves_dir: Path) -> Path:
    return Path(saves_dir) / "battles"


def records_dir(saves_dir: Path) -> Path:
    return Path(saves_dir) / RECORDS


def _stamp(when: float | None = None) -> str:
    return time.strftime(_STAMP, time.localtime(time.time() if when is None else when))


def _free(folder: Path, stem: str, suffixes: tuple[str, ...]) -> str:
    """`stem`, or `stem-2`, `stem-3`… : a name none of `suffixes` is taken for in `folder`."""
    name, n = stem, 2
    while any((folder / f"{name}{s}").exists() for s in suffixes):
        name, n = f"{stem}-{n}", n + 1
    return name


def stem_of(path: Path) -> str:
    """The character file stem a kept battle or a record belongs to."""
    stem = path.name.split(".", 1)[0]
    if "--" in stem:
        return stem.split("--", 1)[0]
    return re.sub(r"-\d+$", "", stem)  # battles/abandoned/<stem>-<n>.json


# --- battles in progress and kept aside: journals in the saves folder's database ----------------------

_open: dict[Path, tuple[Database, SqlBattles, int]] = {}  # one database per saves folder and process


def battles_of(saves_dir: Path) -> BattleRepository:
    """The battle journals of a saves folder (its SQLite database, opened once per process;
    again if the file was replaced), or of the account whose saves the host keeps in its shared
    database (storage.host_shared). DatabaseError (which file, what is wrong) if it can't be used."""
    folder = Path(saves_dir).resolve()
    if shares_saves(folder):  # the host's shared database keeps them (storage.host_shared)
        # SQLAlchemy only once a battle is looked up (see below)
        from horizon_tui.storage.battles_sql import SqlBattles
        from horizon_tui.storage.host_shared import shared_saves

        shared = shared_saves(folder)
        if shared is not None:
            return SqlBattles(*shared)
    kept = _open.get(folder)
    if kept is not None:
        database, battles, inode = kept
        try:
            if database.file is not None and database.file.stat().st_ino == inode:
                return battles
        except OSError:
            pass
        database.close()
        del _open[folder]
    # SQLAlchemy only once a battle is looked up: the modules that list records and runs (the
    # main menu, `horizon scores`, the SSH host) don't pay its import otherwise
    from horizon_tui.storage.battles_sql import SqlBattles
    from horizon_tui.storage.database import open_database

    database = open_database(data_dir=folder)
    battles = SqlBattles(database)
    assert database.file is not None
    if not _open:
        atexit.register(close_battles)  # a clean exit checkpoints and leaves no -wal or -shm file
    _open[folder] = (database, battles, database.file.stat().st_ino)
    return battles


def close_battles() -> None:
    """Close the battle journals this process opened (SQLite checkpoints and removes -wal, -shm)."""
    while _open:
        database, _battles, _inode = _open.popitem()[1]
        database.close()


def battle_slot(saves_dir: Path, path: Path) -> str:
    """The journal's name for the battle that was (or would have been) the file `path`."""
    return check_slot(Path(path).resolve().relative_to(Path(saves_dir).resolve()).as_posix())


def import_battle_files(saves_dir: Path, folder: Path, pattern: str = "*.json") -> list[Path]:
    """Import the battle save files of older versions in `folder` (directly in it) into the
    journal, each moved to `FOLDER/imported/` once its battle is stored; the files that stay
    (not a battle save, unreadable, or a battle by that name is in the journal already) are
    returned, to be listed with what is wrong."""
    if not folder.is_dir():
        return []
    left = []
    battles = None
    for path in sorted(folder.glob(pattern)):
        if path.name.startswith("."):
            continue
        try:
            data = read_json_object(path)
        except (DataError, OSError):
            left.append(path)
            continue
        inputs = data.get("inputs")
        if data.get("kind") != BATTLE_KIND or not isinstance(inputs, list):
            left.append(path)
            continue
        battles = battles or battles_of(saves_dir)
        slot = battle_slot(saves_dir, path)
        if battles.exists(slot):
            left.append(path)
            continue
        header = {k: v for k, v in data.items() if k not in ("inputs", *CHECK_KEYS)}
        battles.save(slot, dumps(header), 0, [dumps(i) for i in inputs], {k: data[k] for k in CHECK_KEYS if k in data})
        move_aside(path, IMPORTED)
    return left


def journal_file(saves_dir: Path) -> Path:
    """The saves folder's database, where its battles are kept (storage.database.DATABASE_FILE)."""
    from horizon_tui.storage.database import DATABASE_FILE  # SQLAlchemy's import: see battles_of

    return Path(saves_dir) / DATABASE_FILE


def has_journal(saves_dir: Path) -> bool:
    """The saves folder has its database (or the host's shared one keeps its battles): looking for
    battles never makes one."""
    return shares_saves(saves_dir) or journal_file(saves_dir).exists()


def has_battle(saves_dir: Path, save: Path) -> bool:
    """A battle kept as `save`: in the journal (legacy files imported first), or a file that
    couldn't be imported."""
    import_battle_files(saves_dir, save.parent)
    return save.exists() or (has_journal(saves_dir) and battles_of(saves_dir).exists(battle_slot(saves_dir, save)))


def read_battle(saves_dir: Path, save: Path) -> dict:
    """The battle kept as `save`, as a save file holds it (DataError if it can't be read; the
    file's or the journal's name in the message, never the folder)."""
    if save.exists():  # a file the journal couldn't take: read as it is, to say what is wrong
        return read_json_object(save)
    data = battles_of(saves_dir).load(battle_slot(saves_dir, save))
    if data is None:
        raise DataError.one(save.name, "", "no such battle")
    return data


def _moved_slot(saves_dir: Path, slot: str, to: str) -> str:
    """`to`, or `to` numbered (-2, -3…) if a battle or a file has that name."""
    battles = battles_of(saves_dir)
    stem, n = to.removesuffix(".json"), 2
    while battles.exists(to) or (Path(saves_dir) / to).exists():
        to, n = f"{stem}-{n}.json", n + 1
    battles.move(slot, to)
    return to


def keep_battle(save: Path, character_stem: str, saves_dir: Path | None = None) -> Path | None:
    """Put the battle in progress `save` aside in `battles/kept/` (a file the journal couldn't take
    too, as a file); returns its new name (a path as Load ▸ Battles lists it), None if there was
    none. Nothing is deleted."""
    saves_dir = Path(saves_dir) if saves_dir is not None else save.parent.parent
    moved = None
    if save.exists():
        folder = save.parent / KEPT
        folder.mkdir(parents=True, exist_ok=True)
        name = _free(folder, f"{character_stem}--{_stamp(save.stat().st_mtime)}", (".json",))
        moved = folder / f"{name}.json"
        save.rename(moved)
        for n in range(1, 10):
            backup = save.with_name(f"{save.name}.{n}")
            if backup.exists():
                backup.rename(moved.with_name(f"{moved.name}.{n}"))
    slot = battle_slot(saves_dir, save)
    if has_journal(saves_dir) and battles_of(saves_dir).exists(slot):
        to = f"{slot.rsplit('/', 1)[0]}/{KEPT}/{character_stem}--{_stamp()}.json"
        moved = Path(saves_dir) / _moved_slot(saves_dir, slot, to)
    return moved


def set_aside_damaged(saves_dir: Path, save: Path) -> Path:
    """A battle that doesn't replay moved to `battles/damaged/` (never deleted); the new name."""
    if save.exists():
        return move_aside(save, "damaged")
    slot = battle_slot(saves_dir, save)
    to = f"{slot.rsplit('/', 1)[0]}/damaged/{slot.rsplit('/', 1)[-1]}"
    return Path(saves_dir) / _moved_slot(saves_dir, slot, to)


def bring_back(kept: Path, save: Path, saves_dir: Path | None = None) -> None:
    """Make the kept battle `kept` the battle in progress at `save` (which must be free)."""
    saves_dir = Path(saves_dir) if saves_dir is not None else save.parent.parent
    if has_battle(saves_dir, save):
        raise FileExistsError(f"{save.name} is a battle in progress; keep it aside first")
    if kept.exists():  # a file the journal couldn't take
        save.parent.mkdir(parents=True, exist_ok=True)
        kept.rename(save)
        for n in range(1, 10):
            backup = kept.with_name(f"{kept.name}.{n}")
            if backup.exists():
                backup.rename(save.with_name(f"{save.name}.{n}"))
        return
    battles_of(saves_dir).move(battle_slot(saves_dir, kept), battle_slot(saves_dir, save))


def drop_battle(saves_dir: Path, save: Path) -> None:
    """The battle in progress `save` is over (its record is kept): its journal goes."""
    battles_of(saves_dir).drop(battle_slot(saves_dir, save))


@attrs.frozen
class BattleFile:
    """A kept battle or a finished battle's record, as a list shows it."""

    path: Path
    character_stem: str
    mtime: float
    encounter: str = ""
    party: tuple[str, ...] = ()
    turns: int = 0  # inputs given so far (kept) or in all (record)
    headline: str = ""  # records: "Victory!  4 rounds."
    problem: str = ""  # the file can't be read: why (it is listed, never hidden or deleted)
    kind: str = "kept"  # progress | kept | record

    @property
    def when(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(self.mtime))

    @property
    def encounter_name(self) -> str:
        return encounter_name(self.encounter) if self.encounter else "?"


def _battle_file(path: Path, kind: str, headline: str = "") -> BattleFile:
    mtime = path.stat().st_mtime
    stem = stem_of(path)
    json_path = path if path.suffix == ".json" else path.with_suffix(".json")
    if kind == "record" and not json_path.exists():
        return BattleFile(path, stem, mtime, headline=headline, kind=kind)
    try:  # the guarded reader: a plain file within the save limits (size, nesting, digits)
        data = read_json_object(json_path)
        party = tuple(str(m["character"]["name"]) for m in data.get("party", []))
        return BattleFile(path, stem, mtime, str(data.get("encounter", "")), party,
                          len(data.get("inputs", [])), headline, kind=kind)
    except DataError as exc:
        return BattleFile(path, stem, mtime, problem=exc.problems[0].message, kind=kind)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        return BattleFile(path, stem, mtime, problem=f"can't be read: {exc}", kind=kind)


def _journal_battles(saves_dir: Path, folder: Path, kind: str) -> list[BattleFile]:
    """The battles kept in the journal under `folder`, and the files there it couldn't take."""
    left = import_battle_files(saves_dir, folder)
    found = [_battle_file(p, kind) for p in left]
    if not has_journal(saves_dir):
        return found
    prefix = battle_slot(saves_dir, folder) + "/"
    for listed in battles_of(saves_dir).listing(prefix):
        path = Path(saves_dir) / listed.slot
        try:
            party = tuple(str(m["character"]["name"]) for m in listed.header.get("party", []))
        except (KeyError, TypeError):
            party = ()
        found.append(BattleFile(path, stem_of(path), listed.updated_at, str(listed.header.get("encounter", "")),
                                party, listed.inputs, problem=listed.problem, kind=kind))
    return found


def in_progress(saves_dir: Path) -> list[BattleFile]:
    """Each character's battle in progress (`battles/<stem>.json`), newest first."""
    found = _journal_battles(saves_dir, battles_dir(saves_dir), "progress")
    return sorted(found, key=lambda b: (-b.mtime, b.path.name))


def kept_battles(saves_dir: Path) -> list[BattleFile]:
    """Battles put aside, newest first."""
    found = []
    for name in (KEPT, LEGACY_KEPT):
        found += _journal_battles(saves_dir, battles_dir(saves_dir) / name, "kept")
    return sorted(found, key=lambda b: (-b.mtime, b.path.name))


def write_record(saves_dir: Path, character_stem: str, text: str, session_data: dict) -> Path:
    """A finished battle's record: `records/<stem>--<when>.txt` and the `.json` that replays it."""
    folder = records_dir(saves_dir)
    folder.mkdir(parents=True, exist_ok=True)
    name = _free(folder, f"{character_stem}--{_stamp()}", (".txt", ".json"))
    atomic_write(folder / f"{name}.json", json.dumps(session_data, ensure_ascii=False, indent=1).encode())
    atomic_write(folder / f"{name}.txt", text.encode())
    return folder / f"{name}.txt"


def _headline(path: Path) -> str:
    """A record's second line ("Victory!  4 rounds."), from the start of a plain file only: a pipe
    or a device in records/ would freeze the list."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return ""
        with open(path, "rb") as handle:
            head = handle.read(4096)
    except OSError:
        return ""
    lines = head.decode("utf-8", errors="replace").split("\n", 2)
    return lines[1].strip() if len(lines) > 1 else ""


def read_record(path: Path) -> str:
    """A record's whole text, as the record screen shows it; what can't be read, in words."""
    try:
        return read_limited(path, current().save_bytes).decode("utf-8", errors="replace")
    except DataError as exc:
        return str(exc.problems[0])


def records(saves_dir: Path) -> list[BattleFile]:
    """Finished battles' records, newest first."""
    folder = records_dir(saves_dir)
    if not folder.is_dir():
        return []
    found = []
    for path in folder.glob("*.txt"):
        if path.name.startswith("."):
            continue
        headline = _headline(path)
        found.append(_battle_file(path, "record", headline))
    return sorted(found, key=lambda b: (-b.mtime, b.path.name))


def record_text(title: str, headline: str, table: list[tuple[str, ...]], header: tuple[str, ...],
                footer: str, log_lines: list[str]) -> str:
    """The morgue text: title, headline, a plain table, the footer, then every line of the log."""
    widths = [max(len(str(row[i])) for row in (header, *table)) for i in range(len(header))]
    lines = [title, headline, ""]
    for row in (header, *table):
        lines.append("  ".join(str(cell).ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    lines += ["", footer, "", "Log", "---", *log_lines, ""]
    return "\n".join(lines)
