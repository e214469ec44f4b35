"""What the SSH host keeps per account, behind repository interfaces: the accounts (their public
keys and role) and the characters players offer to a GM.

Each interface has three implementations that pass the same contract tests
(tests/storage/test_host_records.py): an in-memory twin for unit tests; the data folder's files as
they have always been (`users/NAME/authorized_keys` and `role`, `tables/.offers/GM/PLAYER--FILE`),
the default of a host on one machine; and SQL tables through SQLAlchemy Core, the same statements
on SQLite and PostgreSQL, for `serve-ssh --database URL` (several hosts behind a balancer share one
PostgreSQL, so an account added on one host logs in on all of them).

A repository stores and returns records; it checks nothing about them (names, keys, limits): that
is the callers' (storage.accounts, table.lobby), once, whatever the repository.
"""

from __future__ import annotations

import functools
import hashlib
import os
import time
from pathlib import Path
from typing import Protocol

import attrs
import sqlalchemy as sa

from horizon_tui.errors import HorizonError
from horizon_tui.paths import private_dir, write_private_bytes

ROLES = ("player", "gm")
KEYS_FILE = "authorized_keys"
ROLE_FILE = "role"
OFFERS = ".offers"
OFFER_SEPARATOR = "--"
ENV_DATABASE = "HORIZON_DATABASE"  # set by serve-ssh --database for the apps it starts
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


# --- accounts ----------------------------------------------------------------------------------

def read_keys_file(path: Path) -> bytes:
    """An account's key file, held to the file size limit (content.guard); b"" when missing."""
    from horizon_tui.content.guard import current, read_limited

    if not os.path.lexists(path):
        return b""
    return read_limited(path, current().file_bytes)


class AccountRepository(Protocol):
    """Accounts by name: their public key lines (OpenSSH) and role (`player` or `gm`)."""

    def names(self) -> list[str]: ...
    def key_lines(self, name: str) -> list[bytes]: ...  # [] for no such account
    def role(self, name: str) -> str: ...  # `player` for anything but a stored `gm`
    def put_keys(self, name: str, lines: list[bytes]) -> None: ...  # creates the account as a player
    def set_role(self, name: str, role: str) -> None: ...  # of an existing account
    def remove(self, name: str) -> bool: ...  # False if there was none


def _role(stored: str | None) -> str:
    """An account is never given more than it was: anything but `gm` reads as a player."""
    return stored if stored in ROLES else "player"


class MemoryAccounts:
    """The in-memory twin."""

    def __init__(self):
        self._keys: dict[str, list[bytes]] = {}
        self._roles: dict[str, str] = {}

    def names(self) -> list[str]:
        return sorted(self._keys)

    def key_lines(self, name: str) -> list[bytes]:
        return list(self._keys.get(name, ()))

    def role(self, name: str) -> str:
        return _role(self._roles.get(name)) if name in self._keys else "player"

    def put_keys(self, name: str, lines: list[bytes]) -> None:
        self._keys[name] = list(lines)
        self._roles.setdefault(name, "player")

    def set_role(self, name: str, role: str) -> None:
        if name in self._keys:
            self._roles[name] = role

    def remove(self, name: str) -> bool:
        self._roles.pop(name, None)
        return self._keys.pop(name, None) is not None


class FolderAccounts:
    """The data folder's `users/NAME/authorized_keys` (written atomically) and `users/NAME/role`:
    a host on one machine, and what a database imports on its first start."""

    def __init__(self, users_dir: Path):
        self.users_dir = Path(users_dir)

    def _folder(self, name: str) -> Path:
        return self.users_dir / name

    def names(self) -> list[str]:
        if not self.users_dir.is_dir():
            return []
        return sorted(p.name for p in self.users_dir.iterdir() if (p / KEYS_FILE).is_file())

    def key_lines(self, name: str) -> list[bytes]:
        """DataError if the key file is too big or can't be read (a pipe, a folder)."""
        text = read_keys_file(self._folder(name) / KEYS_FILE)
        return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith(b"#")]

    def role(self, name: str) -> str:
        from horizon_tui.content.guard import read_limited
        from horizon_tui.errors import DataError

        try:  # plain files only, a few bytes: a pipe there would block every login
            return _role(read_limited(self._folder(name) / ROLE_FILE, 64).decode("utf-8").strip())
        except (DataError, UnicodeDecodeError):
            return "player"

    def put_keys(self, name: str, lines: list[bytes]) -> None:
        from horizon_tui.storage.atomic import atomic_write

        atomic_write(self._folder(name) / KEYS_FILE, b"".join(line + b"\n" for line in lines))

    def set_role(self, name: str, role: str) -> None:
        from horizon_tui.storage.atomic import atomic_write

        path = self._folder(name) / ROLE_FILE
        if not (self._folder(name) / KEYS_FILE).is_file():
            return
        if role == "player":
            path.unlink(missing_ok=True)
        else:
            atomic_write(path, f"{role}\n".encode())

    def remove(self, name: str) -> bool:
        path = self._folder(name) / KEYS_FILE
        if not path.is_file():
            return False
        path.unlink()
        (self._folder(name) / ROLE_FILE).unlink(missing_ok=True)  # a new account starts a player
        return True


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
            return _role(conn.scalar(sa.select(ACCOUNTS_TABLE.c.role).where(ACCOUNTS_TABLE.c.name == name)))

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


# --- characters offered to a GM ----------------------------------------------------------------

@attrs.frozen
class Offer:
    gm: str
    player: str
    filename: str
    content: bytes
    offered_at: float


class OfferRepository(Protocol):
    """Character files players offered to a GM's account, one per (GM, player, file name)."""

    def put(self, offer: Offer) -> None: ...  # replaces the same (gm, player, filename)
    def for_gm(self, gm: str) -> list[Offer]: ...  # newest first
    def by_player(self, player: str) -> list[tuple[str, str]]: ...  # (gm, filename) of each


class MemoryOffers:
    """The in-memory twin."""

    def __init__(self):
        self._offers: dict[tuple[str, str, str], Offer] = {}

    def put(self, offer: Offer) -> None:
        self._offers[(offer.gm, offer.player, offer.filename)] = offer

    def for_gm(self, gm: str) -> list[Offer]:
        return sorted((o for o in self._offers.values() if o.gm == gm), key=lambda o: o.offered_at, reverse=True)

    def by_player(self, player: str) -> list[tuple[str, str]]:
        return sorted((o.gm, o.filename) for o in self._offers.values() if o.player == player)


class FolderOffers:
    """`TABLES/.offers/GM/PLAYER--FILE`, as a host on one machine has always kept them."""

    def __init__(self, tables_dir: Path):
        self.root = Path(tables_dir) / OFFERS

    def path(self, gm: str, player: str, filename: str) -> Path:
        return self.root / gm / f"{player}{OFFER_SEPARATOR}{filename}"

    def put(self, offer: Offer) -> None:
        target = self.path(offer.gm, offer.player, offer.filename)
        private_dir(target.parent)
        write_private_bytes(target, offer.content)
        os.utime(target, (offer.offered_at, offer.offered_at))

    def paths_for(self, gm: str) -> list[Path]:
        folder = self.root / gm
        if not folder.is_dir():
            return []
        found = [p for p in folder.iterdir() if OFFER_SEPARATOR in p.name and not p.name.startswith(".")
                 and p.suffix in (".toml", ".json") and p.is_file()]
        return sorted(found, key=lambda p: p.stat().st_mtime, reverse=True)

    def for_gm(self, gm: str) -> list[Offer]:
        offers = []
        for path in self.paths_for(gm):
            player, filename = path.name.split(OFFER_SEPARATOR, 1)
            try:
                offers.append(Offer(gm, player, filename, path.read_bytes(), path.stat().st_mtime))
            except OSError:
                continue
        return offers

    def by_player(self, player: str) -> list[tuple[str, str]]:
        if not self.root.is_dir():
            return []
        return sorted((p.parent.name, p.name.split(OFFER_SEPARATOR, 1)[1])
                      for p in self.root.glob(f"*/{player}{OFFER_SEPARATOR}*"))


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


def offers_repository(tables_dir: Path) -> FolderOffers | SqlOffers:
    """Where this app's offers are: the database the host was started with (`HORIZON_DATABASE`,
    set by `serve-ssh --database`), else the tables folder's files."""
    url = os.environ.get(ENV_DATABASE)
    return SqlOffers(shared_database(url)) if url else FolderOffers(tables_dir)
