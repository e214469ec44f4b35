"""Battles kept aside and the records of finished ones, as files under the saves folder.

No Textual here (tested without a terminal). Beside a character's battle in progress
(`SAVES/battles/<character stem>.json`, see `ui.battle.flow`) live:

- `SAVES/battles/kept/<character stem>--<when>.json`: a battle in progress that was put aside to
  start another (the "Resume it?" question's "Start the new one"). It can be resumed from
  Load ▸ Battles; battles put aside by older versions in `battles/abandoned/` are listed too.
- `SAVES/records/<character stem>--<when>.txt` (and `.json`, the battle's seed and inputs, which
  replay it): the record of a finished battle, as Crawl's morgue files are: the result, who dealt
  and took what, and the whole log. Never deleted by the app.
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
from pathlib import Path

import attrs

from horizon_tui.content.encounters import encounter_path
from horizon_tui.content.guard import current, read_document, read_json_object, read_limited
from horizon_tui.errors import DataError
from horizon_tui.storage.atomic import atomic_write

KEPT = "kept"
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


def keep_battle(save: Path, character_stem: str) -> Path:
    """Move the battle in progress `save` (and its backups) to `battles/kept/`; returns its new
    path. Nothing is deleted."""
    folder = save.parent / KEPT
    folder.mkdir(parents=True, exist_ok=True)
    name = _free(folder, f"{character_stem}--{_stamp(save.stat().st_mtime)}", (".json",))
    target = folder / f"{name}.json"
    save.rename(target)
    for n in range(1, 10):
        backup = save.with_name(f"{save.name}.{n}")
        if backup.exists():
            backup.rename(target.with_name(f"{target.name}.{n}"))
    return target


def bring_back(kept: Path, save: Path) -> None:
    """Make the kept battle `kept` the battle in progress at `save` (which must be free)."""
    if save.exists():
        raise FileExistsError(f"{save} is a battle in progress; keep it aside first")
    save.parent.mkdir(parents=True, exist_ok=True)
    kept.rename(save)
    for n in range(1, 10):
        backup = kept.with_name(f"{kept.name}.{n}")
        if backup.exists():
            backup.rename(save.with_name(f"{save.name}.{n}"))


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


def in_progress(saves_dir: Path) -> list[BattleFile]:
    """Each character's battle in progress (`battles/<stem>.json`), newest first."""
    folder = battles_dir(saves_dir)
    if not folder.is_dir():
        return []
    found = [_battle_file(p, "progress") for p in folder.glob("*.json") if not p.name.startswith(".")]
    return sorted(found, key=lambda b: (-b.mtime, b.path.name))


def kept_battles(saves_dir: Path) -> list[BattleFile]:
    """Battles put aside, newest first."""
    found = []
    for name in (KEPT, LEGACY_KEPT):
        folder = battles_dir(saves_dir) / name
        if folder.is_dir():
            found += [_battle_file(p, "kept") for p in folder.glob("*.json") if not p.name.startswith(".")]
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
