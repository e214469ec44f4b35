"""Opening Horizon's database from a URL: SQLite in the user data folder (or the host's
`--data-dir`) by default, PostgreSQL (`postgresql://…`) when the optional driver is installed
(`pip install 'horizon[postgres]'`).

SQLAlchemy Core for the SQL (one schema, storage.schema, for both databases) and Alembic for its
migrations (storage/migrations). At open the schema's revision is checked: a database from an older
Horizon is migrated, an SQLite file first copied beside itself (`horizon.sqlite3.before-REV`); one
from a newer Horizon, or a file that isn't a sound database, is refused with a `DatabaseError`
naming the file and what is wrong, and the app carries on without it.

SQLite runs in WAL mode (https://sqlite.org/wal.html): readers never block the writer, and a commit
is one append to the -wal file. `synchronous=NORMAL`: in WAL mode a commit survives the app being
killed (kill -9, a crash) because it is in the -wal file before `commit` returns; only a power cut or
an OS crash can roll back the last commits before a checkpoint, never corrupt the file. FULL would
add an fsync to every GM action and battle input, which the shared machine measured at several
milliseconds (bench/bench_storage.py prints both). Checkpoints are SQLite's automatic ones (every
1,000 pages) plus one when the database is closed, which also removes the -wal and -shm files;
files left by a killed process are recovered and cleaned by the next open. `busy_timeout` lets a
second process wait for the writer instead of failing at once.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import sqlalchemy
from sqlalchemy import event, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError, SQLAlchemyError

from horizon_tui.errors import HorizonError
from horizon_tui.paths import private_dir, user_data_dir

DATABASE_FILE = "horizon.sqlite3"
# The newest migration (storage/migrations/versions); tests/storage/test_database.py checks it is
# Alembic's head, so a database already at it opens without loading Alembic at all.
SCHEMA_REVISION = "0005"
BUSY_TIMEOUT_MS = 5000
SQLITE_HEADER = b"SQLite format 3\x00"
_WRITE = "horizon_write"  # execution option: this transaction will write (BEGIN IMMEDIATE on SQLite)
# the open `Database.transaction()` of this thread or task, which its database's reads and writes join
_JOINED: contextvars.ContextVar[tuple[Database, Connection] | None] = contextvars.ContextVar("joined", default=None)


class DatabaseError(HorizonError):
    """The database can't be used: which one (its file, or its URL without the password) and why."""

    def __init__(self, where: str, problem: str):
        self.where, self.problem = where, problem
        super().__init__(f"{where}: {problem}")


class StorageRefused(HorizonError):
    """A write the database refused (a full disk, a read-only folder, a lock held too long): nothing
    of it was written, and what was saved before is intact."""


def database_url(url: str | None = None, data_dir: Path | None = None) -> str:
    """The URL to open: `url` as given, else the SQLite file in `data_dir` (default: the user data folder)."""
    if url:
        return url
    folder = Path(data_dir) if data_dir is not None else user_data_dir()
    return f"sqlite:///{folder.resolve() / DATABASE_FILE}"


class Database:
    """An open database. Read in `reading()`, write in `writing()`: one transaction each, committed
    when the block ends and rolled back when it raises."""

    def __init__(self, engine: Engine, where: str, file: Path | None):
        self.engine = engine
        self.where = where  # for messages: the file, or the URL without its password
        self.file = file  # the SQLite file; None for a server database

    @property
    def is_sqlite(self) -> bool:
        return self.file is not None

    @contextlib.contextmanager
    def reading(self) -> Iterator[Connection]:
        joined = _JOINED.get()
        if joined is not None and joined[0] is self:  # inside transaction(): read what it wrote
            yield joined[1]
            return
        with self._translated(), self.engine.connect() as conn, conn.begin():
            yield conn

    @contextlib.contextmanager
    def writing(self) -> Iterator[Connection]:
        joined = _JOINED.get()
        if joined is not None and joined[0] is self:  # inside transaction(): part of it
            yield joined[1]
            return
        with self._translated(), self.engine.connect() as conn:
            conn = conn.execution_options(**{_WRITE: True})
            with conn.begin():
                yield conn

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Connection]:
        """One write transaction that every `writing()` and `reading()` of this database inside
        the block joins (in this thread or task): what a lock checks and what is written under it
        commit together, or nothing does (storage.host_locks.SharedSaveLock.guard)."""
        with self.writing() as conn:
            token = _JOINED.set((self, conn))
            try:
                yield conn
            finally:
                _JOINED.reset(token)

    @contextlib.contextmanager
    def _translated(self) -> Iterator[None]:
        """The driver's errors as a message naming the database: a full disk or a read-only
        folder refuses the action (the transaction is rolled back: nothing of it is kept)."""
        try:
            yield
        except OperationalError as exc:
            raise StorageRefused(f"{self.where}: not saved: {_reason(exc)}") from None
        except sqlalchemy.exc.DatabaseError as exc:
            if type(exc) is not sqlalchemy.exc.DatabaseError:  # a constraint, a bug: not the file's fault
                raise
            raise DatabaseError(self.where, f"damaged: {_reason(exc)}") from None

    def close(self) -> None:
        """Close every connection: SQLite checkpoints and removes the -wal and -shm files."""
        self.engine.dispose()


def _reason(exc: SQLAlchemyError) -> str:
    original = getattr(exc, "orig", None)
    message = str(original if original is not None else exc).strip().splitlines()[0][:200]
    if "disk is full" in message or "database or disk is full" in message:
        return "the disk is full (free some space and try again)"
    if "readonly" in message or "read-only" in message:
        return "the database or its folder is read-only"
    if "locked" in message or "busy" in message:
        return f"another process has held the database for over {BUSY_TIMEOUT_MS // 1000} s; try again"
    return message


def open_database(url: str | None = None, *, data_dir: Path | None = None, migrate: bool = True) -> Database:
    """Open (and if needed create or migrate) the database; `DatabaseError` if it can't be used."""
    url = database_url(url, data_dir)
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise DatabaseError("--database", f"not a database URL: {url[:80]!r} (sqlite:///FILE or postgresql://…)") from None
    if parsed.get_backend_name() == "sqlite":
        return _open_sqlite(parsed, migrate)
    if parsed.get_backend_name() == "postgresql":
        return _open_server(parsed, migrate)
    raise DatabaseError(parsed.render_as_string(hide_password=True),
                        "not a database Horizon can use (sqlite:///FILE or postgresql://…)")


def _open_sqlite(parsed: sqlalchemy.URL, migrate: bool) -> Database:
    if not parsed.database or parsed.database == ":memory:":
        raise DatabaseError(str(parsed), "an SQLite database needs a file (sqlite:///FILE)")
    file = Path(parsed.database).expanduser().resolve()
    where = str(file)
    _check_sqlite_file(file)
    try:
        private_dir(file.parent)
        if not file.exists():  # private to the user, as every save is; SQLite's -wal and -shm take its mode
            os.close(os.open(file, os.O_WRONLY | os.O_CREAT, 0o600))
    except OSError as exc:
        raise DatabaseError(where, f"can't make it: {exc.strerror}") from None
    engine = sqlalchemy.create_engine(
        parsed.set(database=str(file)), connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000})
    event.listen(engine, "connect", _sqlite_connected)
    event.listen(engine, "begin", _sqlite_begin)
    return _checked(Database(engine, where, file), migrate)


def _checked(database: Database, migrate: bool) -> Database:
    """`database` once it is sound (SQLite's quick_check) and at the schema's revision; else
    closed, and a DatabaseError naming it."""
    try:
        if database.is_sqlite:
            with database.engine.connect() as conn:
                problem = conn.exec_driver_sql("PRAGMA quick_check(3)").scalars().all()
            if problem != ["ok"]:
                raise DatabaseError(database.where, "damaged: " + "; ".join(str(p) for p in problem)[:300])
        _check_revision(database, migrate)
    except DatabaseError:
        database.close()
        raise
    except SQLAlchemyError as exc:
        database.close()
        raise DatabaseError(database.where, f"can't be opened: {_reason(exc)}") from None
    return database


def _check_sqlite_file(file: Path) -> None:
    """A file that exists must be an SQLite database: another file (a campaign's JSON put there by
    hand, an empty disk image) is reported, never overwritten."""
    if file.exists() and not file.is_file():
        raise DatabaseError(str(file), "not a file")
    if not file.exists() or file.stat().st_size == 0:
        return
    try:
        with file.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise DatabaseError(str(file), f"can't be read: {exc.strerror}") from None
    if header != SQLITE_HEADER:
        raise DatabaseError(str(file), "not an SQLite database (its first bytes are not SQLite's header)")


def _sqlite_connected(dbapi_connection: sqlite3.Connection, _record: object) -> None:
    dbapi_connection.isolation_level = None  # transactions begin in _sqlite_begin, as SQLAlchemy asks
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys = ON")
        with contextlib.suppress(sqlite3.OperationalError):  # a read-only folder keeps its journal mode
            cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
    finally:
        cursor.close()


def _sqlite_begin(conn: Connection) -> None:
    """A writing transaction takes SQLite's write lock at once (BEGIN IMMEDIATE): two writers wait
    for each other (busy_timeout) instead of one failing when its read turns into a write."""
    conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(_WRITE) else "BEGIN")


def _open_server(parsed: sqlalchemy.URL, migrate: bool) -> Database:
    where = parsed.render_as_string(hide_password=True)
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    try:
        engine = sqlalchemy.create_engine(parsed, pool_pre_ping=True)
    except (NoSuchModuleError, ModuleNotFoundError):
        raise DatabaseError(where, "PostgreSQL needs its driver: pip install 'horizon[postgres]'") from None
    return _checked(Database(engine, where, None), migrate)


def current_revision(conn: Connection) -> str | None:
    """The schema revision the database is at (Alembic's table), None for an empty database."""
    if not sqlalchemy.inspect(conn).has_table("alembic_version"):
        return None
    return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


def _check_revision(database: Database, migrate: bool) -> None:
    with database.engine.connect() as conn:
        revision = current_revision(conn)
        tables = sqlalchemy.inspect(conn).get_table_names()
    if revision == SCHEMA_REVISION:
        return
    if revision is None and tables:
        raise DatabaseError(database.where, f"not a Horizon database (it has tables {', '.join(tables[:5])} "
                            "but no schema revision)")
    if revision is not None and revision not in known_revisions():
        raise DatabaseError(database.where, f"written by a newer Horizon (schema revision {revision!r}); "
                            "upgrade Horizon to open it")
    if not migrate:
        raise DatabaseError(database.where, f"at schema revision {revision!r}, this Horizon needs {SCHEMA_REVISION!r}")
    if revision is not None and database.file is not None:
        keep_copy(database, database.file.with_name(f"{database.file.name}.before-{SCHEMA_REVISION}"))
    upgrade(database)


def migrations_folder() -> Path:
    return Path(__file__).with_name("migrations")


# Alembic is imported only when a database needs migrating (or a test asks): the app's start
# doesn't pay for it when the schema is current.


def _alembic_config(connection: Connection | None = None):
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(migrations_folder()))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def known_revisions() -> set[str]:
    from alembic.script import ScriptDirectory

    return {script.revision for script in ScriptDirectory.from_config(_alembic_config()).walk_revisions()}


def head_revision() -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_alembic_config()).get_current_head()


def upgrade(database: Database, revision: str = "head") -> None:
    """Run the migrations up to `revision` in one transaction (SQLite and PostgreSQL both alter
    tables transactionally: a migration that fails leaves the database as it was)."""
    from alembic import command

    with database.engine.connect() as conn:
        conn = conn.execution_options(**{_WRITE: True})
        with conn.begin():
            command.upgrade(_alembic_config(conn), revision)


def keep_copy(database: Database, copy: Path) -> Path:
    """A consistent copy of the SQLite database (SQLite's online backup, -wal included) at `copy`;
    an existing copy is kept and the new one numbered."""
    assert database.file is not None
    target, n = copy, 2
    while target.exists():
        target = copy.with_name(f"{copy.name}.{n}")
        n += 1
    source = sqlite3.connect(database.file, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        dest = sqlite3.connect(target)
        try:
            source.backup(dest)
        finally:
            dest.close()
    finally:
        source.close()
    return target
