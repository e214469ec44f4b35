"""One writer per save across hosts: the lock a player app or GM tool takes over SSH when its host
shares a PostgreSQL database with other hosts (`serve-ssh --database postgresql://…`).

The same contract as `storage.lock.SaveLock` (acquire, `guard()` around each write, `holds()`,
`release()`; `SaveInUse` and `LockLost`), with the holder record a row of `host_save_holders`
instead of a file beside the save, since the second window may be on another machine. A holder is
alive while its database session is: the lock keeps one connection open for as long as it holds
the save, and a row whose session is gone from `pg_stat_activity` (the app was killed, its host
died) counts as free. Taking the save checks and writes the row under a transaction-scoped
advisory lock on the save's key (`pg_advisory_xact_lock`), as the file lock's short section does;
`guard()` reads the row FOR UPDATE in the transaction that writes the save (one transaction, one
connection: the check is the write's first statement), so nobody takes the save over halfway
through a write and a window that lost it writes nothing.

A character saved under this lock is also written as its row of `host_characters`, in the same
transaction, so the next host to list the player's characters has it (host_records.sync_characters).
"""

from __future__ import annotations

import contextlib
import os
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import sqlalchemy as sa

from horizon_tui.content.guard import current
from horizon_tui.errors import HorizonError
from horizon_tui.storage.host_records import ENV_ACCOUNT, ENV_DATABASE, StoredCharacter, is_character_filename
from horizon_tui.storage.host_sql import SqlCharacters, shared_database
from horizon_tui.storage.lock import Holder, LockLost, SaveInUse
from horizon_tui.storage.schema import host_save_holders

_SESSION = sa.text("SELECT pid::text || ':' || extract(epoch from backend_start)::text "
                   "FROM pg_stat_activity WHERE pid = pg_backend_pid()")
_ALIVE = sa.text("SELECT 1 FROM pg_stat_activity WHERE pid::text || ':' || extract(epoch from backend_start)::text = :session")
_SECTION = sa.text("SELECT pg_advisory_xact_lock(hashtext(:save))")


def save_key(account: str, path: Path) -> str:
    """The save's name on every host: ACCOUNT/FOLDER/FILE (`alice/characters/iriel.toml`)."""
    path = Path(path)
    return f"{account}/{path.parent.name}/{path.name}"[:255]


def _holder(row) -> Holder:
    return Holder(who=row.who, since=row.since, pid=row.pid, host=row.host, token=row.token)


class SharedSaveLock:
    """The right to write one save, across every host of one PostgreSQL database."""

    def __init__(self, path: Path, holder: Holder, key: str, account: str, database, session_conn):
        self.path = Path(path)
        self.holder = holder
        self.key = key
        self.account = account
        self.database = database
        self._session_conn = session_conn  # open while we hold: our liveness

    @classmethod
    def acquire(cls, path: Path, who: str, *, take_over: bool = False) -> SharedSaveLock:
        """Hold `path` for writing; `SaveInUse` if a live holder on any host has it (unless `take_over`)."""
        database = shared_database(os.environ[ENV_DATABASE])
        account = os.environ[ENV_ACCOUNT]
        key = save_key(account, path)
        try:
            session_conn = database.engine.connect()
        except sa.exc.SQLAlchemyError:  # the app then opens it read-only, saying why
            raise HorizonError(f"{Path(path).name}: the database that keeps who writes it ({database.where}) "
                               "can't be reached") from None
        try:
            session = session_conn.execute(_SESSION).scalar()
            session_conn.commit()
            holder = Holder(who=who, since=time.time(), pid=os.getpid(), host=socket.gethostname(),
                            token=uuid.uuid4().hex)
            with database.writing() as conn:
                conn.execute(_SECTION, {"save": key})
                row = conn.execute(sa.select(host_save_holders).where(host_save_holders.c.save == key)).first()
                if (row is not None and not take_over
                        and conn.execute(_ALIVE, {"session": row.session}).first() is not None):
                    raise SaveInUse(Path(path), _holder(row))
                values = {"token": holder.token, "who": who[:200], "host": holder.host[:255], "pid": holder.pid,
                          "since": holder.since, "session": session}
                if row is None:
                    conn.execute(host_save_holders.insert().values(save=key, **values))
                else:  # changed in place: a guard() holding the row (FOR UPDATE) finishes its write first
                    conn.execute(host_save_holders.update().where(host_save_holders.c.save == key).values(**values))
        except BaseException:
            session_conn.close()
            raise
        return cls(path, holder, key, account, database, session_conn)

    def _row(self, conn):
        return conn.execute(sa.select(host_save_holders).where(host_save_holders.c.save == self.key)).first()

    def holds(self) -> bool:
        with self.database.reading() as conn:
            row = self._row(conn)
        return row is not None and row.token == self.holder.token

    @contextlib.contextmanager
    def guard(self) -> Iterator[None]:
        """Write the save inside this block: nobody takes it over meanwhile, and a save that was
        taken over raises `LockLost` before anything is written. One transaction: what is
        written to this database in the block (a battle's input, a run, a campaign's action)
        joins the one that checks the holder row (`Database.transaction`), so the check and the
        write commit together; the row is held FOR UPDATE until then, and a take-over (`acquire`
        changes the row in place) waits for the write. A character file written in the block
        becomes its database row when the block ends, in the same transaction."""
        with self.database.transaction() as conn:
            row = conn.execute(sa.select(host_save_holders).where(host_save_holders.c.save == self.key)
                               .with_for_update()).first()
            if row is None:  # removed by hand: claim it again, as acquire would (its section)
                conn.execute(_SECTION, {"save": self.key})
                row = self._row(conn)
                if row is None:
                    conn.execute(host_save_holders.insert().values(
                        save=self.key, token=self.holder.token, who=self.holder.who[:200],
                        host=self.holder.host[:255], pid=self.holder.pid, since=self.holder.since,
                        session=self._session_conn.execute(_SESSION).scalar()))
            if row is not None and row.token != self.holder.token:
                raise LockLost(self.path, _holder(row))
            yield
            self._store_character(conn)

    def _store_character(self, conn) -> None:
        if self.path.parent.name != "characters" or not is_character_filename(self.path.name):
            return
        try:
            if self.path.stat().st_size > current().file_bytes:
                return
            content, changed = self.path.read_bytes(), self.path.stat().st_mtime
        except OSError:
            return
        SqlCharacters(self.database).put(self.account, StoredCharacter(self.path.name, content, changed), conn)

    def release(self) -> None:
        with contextlib.suppress(Exception), self.database.writing() as conn:
            conn.execute(host_save_holders.delete().where(
                (host_save_holders.c.save == self.key) & (host_save_holders.c.token == self.holder.token)))
        with contextlib.suppress(Exception):
            self._session_conn.close()

    def __enter__(self) -> SharedSaveLock:
        return self

    def __exit__(self, *exc) -> None:
        self.release()
