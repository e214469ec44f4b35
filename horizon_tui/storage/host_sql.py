"""The host's records in SQL tables (SQLAlchemy Core): the same statements on SQLite and on
PostgreSQL, for `serve-ssh --database URL` and `horizon users … --database URL`. The repositories'
interfaces, their in-memory twins and the data folder's files are in host_records.py; this module
is imported only where a database is used (SQLAlchemy takes a fifth of a second to import, which
the apps' start-up doesn't pay).
"""

from __future__ import annotations

import functools
import hashlib
import os
import time
from pathlib import Path

import attrs
import sqlalchemy as sa

from horizon_tui.errors import HorizonError
from horizon_tui.paths import private_dir
from horizon_tui.storage.host_records import FolderAccounts, Offer, stored_role

SCHEMES = ("sqlite", "postgresql", "postgres")


class DatabaseError(HorizonError):
    """A database URL that can't be used, or a database that can't be reached or read."""


def sqlalchemy_url(url: str) -> sa.engine.URL:
    """`sqlite:///PATH` or `postgresql://USER@HOST/DB` (psycopg 3) as SQLAlchemy's URL."""
    try:
        parsed = sa.engine.make_url(url)
    except sa.exc.ArgumentError:
        raise DatabaseError(f"--database {url!r} is not a database URL "
                            "(sqlite:///PATH or postgresql://USER@HOST/DATABASE)") from None
    scheme = parsed.drivername.split("+", 1)[0]
    if scheme not in SCHEMES:
        raise DatabaseError(f"--database: {scheme!r} databases are not supported "
                            "(sqlite:///PATH or postgresql://USER@HOST/DATABASE)")
    if scheme == "sqlite":
        return parsed.set(drivername="sqlite")
    try:
        import psycopg  # noqa: F401 - only to say clearly that the optional driver is missing
    except ImportError:
        raise DatabaseError("--database postgresql://…: the PostgreSQL driver is not installed; "
                            "pip install 'horizon-tui[postgres]'") from None
    return parsed.set(drivername="postgresql+psycopg")


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout = 5000")  # the host and `horizon users` side by side
    cursor.execute("PRAGMA journal_mode = WAL")
    cursor.close()


def open_database(url: str) -> sa.Engine:
    """An engine for `url` with the host's tables made if missing; DatabaseError if it can't be
    reached (the message says which database and why, never a password)."""
    target = sqlalchemy_url(url)
    if target.drivername == "sqlite" and target.database:
        private_dir(Path(target.database).expanduser().resolve().parent)
    engine = sa.create_engine(target, pool_pre_ping=True)
    if target.drivername == "sqlite":
        sa.event.listen(engine, "connect", _sqlite_pragmas)
    try:
        HOST_TABLES.create_all(engine)
    except sa.exc.SQLAlchemyError as exc:
        engine.dispose()
        shown = target.render_as_string(hide_password=True)
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        raise DatabaseError(f"the database {shown} can't be used: {reason}") from None
    return engine


HOST_TABLES = sa.MetaData()
ACCOUNTS_TABLE = sa.Table(
    "host_accounts", HOST_TABLES,
    sa.Column("name", sa.String(32), primary_key=True),
    sa.Column("role", sa.String(8), nullable=False, server_default="player"),
    sa.Column("key_lines", sa.Text, nullable=False),  # OpenSSH public key lines, one per line
    sa.Column("changed_at", sa.Float, nullable=False),
)
IMPORTS_TABLE = sa.Table(  # what was imported from a data folder once, so it is never imported twice
    "host_imports", HOST_TABLES,
    sa.Column("source", sa.String(64), primary_key=True),  # a hash of host, folder and account
    sa.Column("imported_at", sa.Float, nullable=False),
)
OFFERS_TABLE = sa.Table(
    "host_offers", HOST_TABLES,
    sa.Column("gm", sa.String(32), primary_key=True),
    sa.Column("player", sa.String(32), primary_key=True),
    sa.Column("filename", sa.String(255), primary_key=True),
    sa.Column("content", sa.LargeBinary, nullable=False),
    sa.Column("offered_at", sa.Float, nullable=False),
)


class SqlAccounts:
    """The `host_accounts` table (SQLite or PostgreSQL). Each call is one short transaction, so
    every host sees an account the moment `horizon users add --database …` commits it."""

    def __init__(self, engine: sa.Engine):
        self.engine = engine

    def names(self) -> list[str]:
        with self.engine.connect() as conn:
            return list(conn.scalars(sa.select(ACCOUNTS_TABLE.c.name).order_by(ACCOUNTS_TABLE.c.name)))

    def key_lines(self, name: str) -> list[bytes]:
        with self.engine.connect() as conn:
            text = conn.scalar(sa.select(ACCOUNTS_TABLE.c.key_lines).where(ACCOUNTS_TABLE.c.name == name))
        return [line.encode() for line in (text or "").splitlines() if line.strip()]

    def role(self, name: str) -> str:
        with self.engine.connect() as conn:
            return stored_role(conn.scalar(sa.select(ACCOUNTS_TABLE.c.role).where(ACCOUNTS_TABLE.c.name == name)))

    def put_keys(self, name: str, lines: list[bytes]) -> None:
        text = "".join(line.decode() + "\n" for line in lines)
        with self.engine.begin() as conn:
            updated = conn.execute(ACCOUNTS_TABLE.update().where(ACCOUNTS_TABLE.c.name == name)
                                   .values(key_lines=text, changed_at=time.time())).rowcount
            if not updated:
                conn.execute(ACCOUNTS_TABLE.insert().values(name=name, role="player", key_lines=text,
                                                            changed_at=time.time()))

    def set_role(self, name: str, role: str) -> None:
        with self.engine.begin() as conn:
            conn.execute(ACCOUNTS_TABLE.update().where(ACCOUNTS_TABLE.c.name == name)
                         .values(role=role, changed_at=time.time()))

    def remove(self, name: str) -> bool:
        with self.engine.begin() as conn:
            return conn.execute(ACCOUNTS_TABLE.delete().where(ACCOUNTS_TABLE.c.name == name)).rowcount > 0

    def import_folders(self, source: FolderAccounts, is_valid_name) -> list[str]:
        """Copy the data folder's accounts into the database, each once (an account removed from
        the database later is not brought back); the folders are left as they are. An account
        the database already has is kept as the database has it. Returns the names imported."""
        from horizon_tui.errors import DataError

        imported = []
        for name in source.names():
            if not is_valid_name(name):
                continue
            mark = hashlib.sha256(f"{os.uname().nodename}\0{source.users_dir.resolve()}\0{name}".encode()).hexdigest()
            try:
                lines = source.key_lines(name)
            except DataError:
                continue  # unreadable there: it let nobody in, and `horizon validate` says why
            with self.engine.begin() as conn:
                if conn.scalar(sa.select(IMPORTS_TABLE.c.source).where(IMPORTS_TABLE.c.source == mark)):
                    continue
                conn.execute(IMPORTS_TABLE.insert().values(source=mark, imported_at=time.time()))
                if conn.scalar(sa.select(ACCOUNTS_TABLE.c.name).where(ACCOUNTS_TABLE.c.name == name)):
                    continue
                conn.execute(ACCOUNTS_TABLE.insert().values(
                    name=name, role=source.role(name), changed_at=time.time(),
                    key_lines="".join(line.decode(errors="replace") + "\n" for line in lines)))
                imported.append(name)
        return imported


class SqlOffers:
    """The `host_offers` table: an offer made on one host is in the GM's Import on every host."""

    def __init__(self, engine: sa.Engine):
        self.engine = engine

    def put(self, offer: Offer) -> None:
        t = OFFERS_TABLE
        key = (t.c.gm == offer.gm) & (t.c.player == offer.player) & (t.c.filename == offer.filename)
        with self.engine.begin() as conn:
            conn.execute(t.delete().where(key))
            conn.execute(t.insert().values(**attrs.asdict(offer)))

    def for_gm(self, gm: str) -> list[Offer]:
        t = OFFERS_TABLE
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(t.c.gm, t.c.player, t.c.filename, t.c.content, t.c.offered_at)
                                .where(t.c.gm == gm).order_by(t.c.offered_at.desc(), t.c.filename))
            return [Offer(row.gm, row.player, row.filename, bytes(row.content), row.offered_at) for row in rows]

    def by_player(self, player: str) -> list[tuple[str, str]]:
        t = OFFERS_TABLE
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(t.c.gm, t.c.filename).where(t.c.player == player)
                                .order_by(t.c.gm, t.c.filename))
            return [(row.gm, row.filename) for row in rows]


@functools.lru_cache(maxsize=4)
def shared_database(url: str) -> sa.Engine:
    """One engine per URL in this process (an app asks for its offers more than once)."""
    return open_database(url)
