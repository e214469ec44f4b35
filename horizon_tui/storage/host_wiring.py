"""Which of the host's stores this app uses: the shared database the host was started with
(`serve-ssh --database`, passed as `HORIZON_DATABASE`) or the data folder's files. Above the
records (host_records.py), their SQL (host_sql.py) and the shared lock (host_locks.py), so that
none of them needs another; SQLAlchemy is imported only when a database is used."""

from __future__ import annotations

import os
from pathlib import Path

from horizon_tui.errors import HorizonError
from horizon_tui.content.guard import current
from horizon_tui.storage.character_files import character_files
from horizon_tui.storage.host_records import (
    ENV_ACCOUNT, ENV_DATABASE, FolderOffers, OfferRepository, shares_saves, sync_characters,
)
from horizon_tui.storage.lock import SaveLock
from horizon_tui.storage.runs import FileRuns, FileScores, RunStore, ScoreTable


def offers_repository(tables_dir: Path) -> OfferRepository:
    """Where this app's offers are: the database the host was started with (`HORIZON_DATABASE`,
    set by `serve-ssh --database`), else the tables folder's files."""
    url = os.environ.get(ENV_DATABASE)
    if not url:
        return FolderOffers(tables_dir)
    from horizon_tui.storage.host_sql import SqlOffers, shared_database  # SQLAlchemy only when used

    return SqlOffers(shared_database(url))


def sync_with_host_database(saves_dir: Path) -> None:
    """Over SSH with `serve-ssh --database`: bring the player's characters folder and the
    database's rows into agreement (`sync_characters`) before it is listed. Without a database,
    or when it can't be reached (the list then shows what this host has), nothing."""
    url, account = os.environ.get(ENV_DATABASE), os.environ.get(ENV_ACCOUNT)
    if not url or not account:
        return
    from horizon_tui.storage.host_sql import SqlCharacters, shared_database  # SQLAlchemy only when used

    try:
        sync_characters(SqlCharacters(shared_database(url)), account, Path(saves_dir) / "characters",
                        current().file_bytes)
    except HorizonError:
        return


def score_table(path: Path, database: str | None = None) -> ScoreTable:
    """The hall of fame to enter runs in and show: the shared database's (`database`, else
    `HORIZON_DATABASE`, set by `serve-ssh --database`: every account on every host), with the
    runs of the file `path` (a data folder's `hall_of_fame.json` of before) brought over once;
    else that file (storage.runs.FileScores)."""
    url = database or os.environ.get(ENV_DATABASE)
    if not url:
        return FileScores(path)
    from horizon_tui.storage.host_sql import SqlScores, shared_database  # SQLAlchemy only when used

    scores = SqlScores(shared_database(url))  # DatabaseError (which database, what is wrong) if it can't be used
    if path.exists():
        scores.import_file(path)
    return scores


def save_lock_class():
    """What holds a save for writing in this app: `SharedSaveLock` (host_locks.py) over SSH when
    the host shares a PostgreSQL database with other hosts, so the second window is read-only on
    whichever host it is; else `storage.lock.SaveLock`, the files beside the save (one machine)."""
    url = os.environ.get(ENV_DATABASE, "")
    if url.startswith(("postgresql", "postgres")) and os.environ.get(ENV_ACCOUNT):
        from horizon_tui.storage.host_locks import SharedSaveLock  # SQLAlchemy only when used

        return SharedSaveLock
    return SaveLock


def listed_character_files(saves_dir: Path) -> list[Path]:
    """The player's character files, newest first (`character_files`), the folder first brought
    into agreement with the shared database when the host has one (`sync_with_host_database`)."""
    if os.environ.get(ENV_DATABASE):
        sync_with_host_database(saves_dir)
    return character_files(saves_dir)


def run_store(saves_dir: Path) -> RunStore:
    """Where this app's runs are: the host's shared database, under the account, when the host
    shares this saves folder there (storage.host_shared: a run started on one host goes on on
    another); else the folder's files (`FileRuns`). DatabaseError if the database can't be used."""
    if shares_saves(saves_dir):
        from horizon_tui.storage.host_saves import SqlRuns  # SQLAlchemy only when used
        from horizon_tui.storage.host_shared import shared_saves

        shared = shared_saves(saves_dir)
        if shared is not None:
            return SqlRuns(*shared, saves_dir)
    return FileRuns(saves_dir)
