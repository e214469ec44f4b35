"""An account's saves in the host's shared database (`serve-ssh --database URL`): its runs, its
battles in progress (a run's, a character's, those kept aside) and a GM's campaigns are rows
keyed by the account (the `owner` column, migration 0005), so the player or GM who lands on
another host of the same database finds them there. A live table stays on the host that opened it
(its folder is not the account's saves folder, so its battle stays in that folder's own database).

The host names the saves folder it shares (`HORIZON_SHARED_SAVES`, with `HORIZON_DATABASE` and
`HORIZON_ACCOUNT`): host_records.shares_saves says whether a folder is it without importing
SQLAlchemy, and `shared_saves` gives the database and the account. The first time an account's saves folder is
used with the database, what it kept on this host before is imported once (`import_saves_folder`:
the folder's own SQLite database, its run files) and moved aside, never deleted.

Below the records and runs modules (storage.records, storage.runs, host_saves.py's `SqlRuns`),
which ask it where a folder's saves are; it imports none of them.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import socket
import time
from pathlib import Path

import sqlalchemy as sa

from horizon_tui.errors import DataError, HorizonError
from horizon_tui.storage import schema
from horizon_tui.storage.atomic import move_aside, read_json
from horizon_tui.storage.database import DATABASE_FILE, Database, open_database
from horizon_tui.storage.documents import dumps
from horizon_tui.storage.host_records import ENV_ACCOUNT, ENV_DATABASE, shares_saves

IMPORTED = "imported"  # SAVES/imported/, records/runs/imported/: what a folder kept before, once in the database
RUN_FILES = ("records", "runs")  # where storage.runs.FileRuns keeps a folder's runs

_checked: set[tuple[str, str, Path]] = set()  # (URL, account, folder): imported in this process already
# folder -> why its own database was not imported in this process (`not_imported`)
_not_imported: dict[Path, str] = {}


@functools.lru_cache(maxsize=4)
def shared_database(url: str) -> Database:
    """One open database per URL in this process (an app asks for its offers more than once)."""
    return open_database(url)


def import_mark(*parts: str) -> str:
    """What was imported from where (this machine, that folder, that record), as a key."""
    return hashlib.sha256("\0".join((os.uname().nodename, *parts)).encode()).hexdigest()


def shared_saves(saves_dir: Path) -> tuple[Database, str] | None:
    """The shared database and the account whose saves `saves_dir` holds, when the host shares
    that folder's saves (its files imported first, once); None for a folder of this machine only.
    DatabaseError (which database, what is wrong) if the database can't be used."""
    if not shares_saves(saves_dir):
        return None
    url, account, folder = os.environ[ENV_DATABASE], os.environ[ENV_ACCOUNT], Path(saves_dir).resolve()
    database = shared_database(url)
    if (url, account, folder) not in _checked:
        problem = import_saves_folder(database, account, folder)
        if problem is None:
            _not_imported.pop(folder, None)
        else:
            _not_imported[folder] = problem
        _checked.add((url, account, folder))
    return database, account


def not_imported(saves_dir: Path) -> str | None:
    """Why the saves folder's own database was left out of the shared database when this process
    first used the folder (its file and what is wrong with it), for the player to be told; None if
    nothing was left out. The next start tries again."""
    return _not_imported.get(Path(saves_dir).resolve())


# --- the folder's saves of before, imported once --------------------------------------------------


def import_saves_folder(database: Database, account: str, saves_dir: Path) -> str | None:
    """What `saves_dir` kept on this host before it shared the database: its SQLite database's
    battles and campaigns, and its run files, copied under `account` in one transaction, then
    moved to `SAVES/imported/` (the database) and `records/runs/imported/` (the runs). A mark in
    `host_imports` (that account, folder and database file) says it was done, so never twice, even
    if the app was killed before the files were moved. A name the account has already in the
    shared database gets a new one (a campaign `slug-2`, a battle kept aside): nothing is lost.
    A folder database that can't be opened (damaged, not SQLite, from a newer Horizon) stays where
    it is and is not marked: the run files are imported, and the database is tried again at the
    next start. Gives why it wasn't (the `DatabaseError`: its file and what is wrong), else None."""
    saves_dir = Path(saves_dir)
    local_file = saves_dir / DATABASE_FILE
    run_files = _run_files(saves_dir)
    if not local_file.exists() and not run_files:
        return None
    try:
        found = local_file.stat()
        identity = f"{found.st_ino}:{found.st_size}:{found.st_mtime_ns}"
    except FileNotFoundError:
        identity = "no database"
    mark = import_mark("saves", account, str(saves_dir.resolve()), identity)
    imports = schema.host_imports.c
    with database.reading() as conn:
        done = conn.scalar(sa.select(imports.source).where(imports.source == mark)) is not None
    local = None
    problem = None
    if not done and local_file.exists():
        try:
            local = open_database(data_dir=saves_dir)
        except HorizonError as exc:  # left as it is and not marked imported: the next start tries again
            problem, local_file = str(exc), None
    try:
        if not done:
            with database.writing() as conn:
                if problem is None:  # (a run file is imported once either way: moved aside, and _copy_run skips a run it has)
                    conn.execute(schema.host_imports.insert().values(source=mark, imported_at=time.time()))
                if local is not None:
                    with local.reading() as source:
                        _copy_battles(source, conn, account)
                        _copy_campaigns(source, conn, account)
                for path, data in run_files:
                    _copy_run(conn, account, path, data)
    except sa.exc.IntegrityError:
        pass  # another window of this account imported it at the same moment
    finally:
        if local is not None:
            local.close()
    if local_file is not None and local_file.exists():
        with contextlib.suppress(OSError):
            _move_database_aside(local_file)
    for path, _ in run_files:
        with contextlib.suppress(OSError):
            move_aside(path, IMPORTED)
    return problem


def _move_database_aside(path: Path) -> None:
    """The folder's database moved aside with its `-wal` and `-shm` files under its new name:
    rows another window on this host committed and no one has checkpointed yet live in the
    `-wal` (`local.close()` checkpoints only when it is the last connection), and SQLite finds
    them only beside the database of the same name."""
    target = move_aside(path, IMPORTED)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            side.rename(target.with_name(target.name + suffix))


def _run_files(saves_dir: Path) -> list[tuple[Path, dict]]:
    """The run files of `records/runs/` that read (a damaged one stays, listed as it always was)."""
    folder = saves_dir.joinpath(*RUN_FILES)
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob("*.json")):
        if path.name.startswith(".") or path.name.count(".") != 1:
            continue  # battle and morgue files, temp files
        try:
            data = read_json(path)
        except DataError:
            continue
        if data.get("id") != path.stem:
            continue  # not a run FileRuns wrote (its file is named by its id)
        found.append((path, data))
    return found


def _copy_run(conn: sa.Connection, account: str, path: Path, data: dict) -> None:
    r = schema.runs.c
    run_id = str(data["id"])
    if conn.execute(sa.select(r.run_id).where((r.owner == account) & (r.run_id == run_id))).first():
        return  # the same run on two hosts' folders: the database's is the one played on
    morgue = path.with_name(f"{run_id}.morgue.txt")
    conn.execute(schema.runs.insert().values(
        owner=account, run_id=run_id, data=dumps(data), over=int(bool(data.get("over"))),
        updated_at=path.stat().st_mtime, morgue=morgue.read_text(errors="replace") if morgue.is_file() else ""))


def _free(taken, wanted: str, numbered) -> str:
    found, n = wanted, 2
    while taken(found):
        found, n = numbered(wanted, n), n + 1
    return found


def _copy_battles(source: sa.Connection, conn: sa.Connection, account: str) -> None:
    b, rows = schema.battles.c, schema.battle_inputs.c
    here = socket.gethostname()[:40] or "host"

    def taken(slot: str) -> bool:
        return conn.execute(sa.select(b.id).where((b.owner == account) & (b.slot == slot))).first() is not None

    def kept_aside(slot: str, n: int) -> str:  # `battles/kept/iriel--from-HOST.json`: Load ▸ Battles lists it
        folder, name = slot.rsplit("/", 1) if "/" in slot else ("", slot)
        stem = name.removesuffix(".json")
        folder = folder if folder.endswith("/kept") else f"{folder}/kept".lstrip("/")
        return f"{folder}/{stem}--from-{here}{'' if n == 2 else f'-{n}'}.json"

    for battle in source.execute(sa.select(schema.battles).where(b.owner == "")).all():
        slot = _free(taken, battle.slot, kept_aside) if taken(battle.slot) else battle.slot
        new_id = conn.execute(schema.battles.insert().values(
            owner=account, slot=slot, setup=battle.setup, created_at=battle.created_at,
            updated_at=battle.updated_at, head=battle.head, checks=battle.checks)).inserted_primary_key[0]
        inputs = source.execute(sa.select(rows.seq, rows.input).where(rows.battle_id == battle.id)).all()
        if inputs:
            conn.execute(schema.battle_inputs.insert(),
                         [{"battle_id": new_id, "seq": seq, "input": text} for seq, text in inputs])


def _copy_campaigns(source: sa.Connection, conn: sa.Connection, account: str) -> None:
    c = schema.campaigns.c

    def taken(slug: str) -> bool:
        return conn.execute(sa.select(c.id).where((c.owner == account) & (c.slug == slug))).first() is not None

    for campaign in source.execute(sa.select(schema.campaigns).where(c.owner == "")).all():
        slug = _free(taken, campaign.slug, lambda wanted, n: f"{wanted}-{n}")
        new_id = conn.execute(schema.campaigns.insert().values(
            owner=account, slug=slug, name=campaign.name, created_at=campaign.created_at,
            updated_at=campaign.updated_at, head=campaign.head, summary=campaign.summary)).inserted_primary_key[0]
        for table in (schema.campaign_log, schema.campaign_journal, schema.campaign_snapshots):
            found = [dict(row._mapping, campaign_id=new_id)
                     for row in source.execute(sa.select(table).where(table.c.campaign_id == campaign.id))]
            if found:
                conn.execute(table.insert(), found)
