"""The host's records in Horizon's database (storage.database; the tables are storage.schema's
`host_*`, made by the migration 0002): the same statements on SQLite and PostgreSQL, for
`serve-ssh --database URL` and `horizon users … --database URL`. The repositories' interfaces,
their in-memory twins and the data folder's files are in host_records.py; this module is imported
only where a database is used (SQLAlchemy takes a fifth of a second to import, which the apps'
start-up doesn't pay).
"""

from __future__ import annotations

import time

import attrs
import sqlalchemy as sa

from horizon_tui.errors import DataError
from horizon_tui.storage.database import Database
from horizon_tui.storage.documents import dumps, read_json_text
from horizon_tui.storage.host_shared import import_mark
from horizon_tui.storage.host_shared import shared_database as shared_database  # where the apps ask for it
from horizon_tui.storage.host_records import FolderAccounts, CharacterOffer, StoredCharacter, stored_role
from horizon_tui.storage.runs import MAX_SCORES, FileScores, ranked
from horizon_tui.storage.schema import hall_of_fame, host_accounts, host_characters, host_imports, host_offers


class SqlAccounts:
    """The `host_accounts` table. Each call is one short transaction, so every host sees an
    account the moment `horizon users add --database …` commits it."""

    def __init__(self, database: Database):
        self.database = database

    def names(self) -> list[str]:
        with self.database.reading() as conn:
            return list(conn.scalars(sa.select(host_accounts.c.name).order_by(host_accounts.c.name)))

    def key_lines(self, name: str) -> list[bytes]:
        with self.database.reading() as conn:
            text = conn.scalar(sa.select(host_accounts.c.key_lines).where(host_accounts.c.name == name))
        return [line.encode() for line in (text or "").splitlines() if line.strip()]

    def role(self, name: str) -> str:
        with self.database.reading() as conn:
            return stored_role(conn.scalar(sa.select(host_accounts.c.role).where(host_accounts.c.name == name)))

    def put_keys(self, name: str, lines: list[bytes]) -> None:
        text = "".join(line.decode() + "\n" for line in lines)
        with self.database.writing() as conn:
            updated = conn.execute(host_accounts.update().where(host_accounts.c.name == name)
                                   .values(key_lines=text, changed_at=time.time())).rowcount
            if not updated:
                conn.execute(host_accounts.insert().values(name=name, role="player", key_lines=text,
                                                           changed_at=time.time()))

    def set_role(self, name: str, role: str) -> None:
        with self.database.writing() as conn:
            conn.execute(host_accounts.update().where(host_accounts.c.name == name)
                         .values(role=role, changed_at=time.time()))

    def remove(self, name: str) -> bool:
        with self.database.writing() as conn:
            return conn.execute(host_accounts.delete().where(host_accounts.c.name == name)).rowcount > 0

    def import_folders(self, source: FolderAccounts, is_valid_name) -> list[str]:
        """Copy the data folder's accounts into the database, each once (an account removed from
        the database later is not brought back); the folders are left as they are. An account
        the database already has is kept as the database has it. Returns the names imported."""
        imported = []
        for name in source.names():
            if not is_valid_name(name):
                continue
            mark = import_mark("account", str(source.users_dir.resolve()), name)
            try:
                lines = source.key_lines(name)
            except DataError:
                continue  # unreadable there: it let nobody in, and `horizon validate` says why
            with self.database.writing() as conn:
                if conn.scalar(sa.select(host_imports.c.source).where(host_imports.c.source == mark)):
                    continue
                conn.execute(host_imports.insert().values(source=mark, imported_at=time.time()))
                if conn.scalar(sa.select(host_accounts.c.name).where(host_accounts.c.name == name)):
                    continue
                conn.execute(host_accounts.insert().values(
                    name=name, role=source.role(name), changed_at=time.time(),
                    key_lines="".join(line.decode(errors="replace") + "\n" for line in lines)))
                imported.append(name)
        return imported


class SqlScores:
    """The hall of fame in the host's database (`hall_of_fame`): one row per finished run, so two
    runs ending at once on two hosts both land, and every account on every host sees them all."""

    def __init__(self, database: Database):
        self.database = database

    def add(self, entry: dict) -> bool:
        """Enter a finished run (once: False if it is there already)."""
        run_id = str(entry.get("id", ""))[:96]
        with self.database.writing() as conn:
            if conn.scalar(sa.select(hall_of_fame.c.run_id).where(hall_of_fame.c.run_id == run_id)):
                return False
            conn.execute(hall_of_fame.insert().values(run_id=run_id, daily=int(bool(entry.get("daily"))),
                                                      entry=dumps(entry), added_at=time.time()))
        return True

    def entries(self, *, daily: bool = False) -> list[dict]:
        """Ranked (storage.runs.rank_key), the best MAX_SCORES; DataError naming a damaged row."""
        with self.database.reading() as conn:
            rows = conn.execute(sa.select(hall_of_fame.c.run_id, hall_of_fame.c.entry)
                                .where(hall_of_fame.c.daily == int(daily))).all()
        found = [read_json_text(entry, f"{self.database.where}: hall of fame: {run_id}") for run_id, entry in rows]
        return ranked(found, daily)[:MAX_SCORES]

    def import_file(self, path) -> int:
        """The runs of a data folder's `hall_of_fame.json` (before the host had a database), each
        once; the file is left as it is. Returns how many were added."""
        mark = import_mark("hall of fame", str(path.resolve()))
        with self.database.reading() as conn:
            if conn.scalar(sa.select(host_imports.c.source).where(host_imports.c.source == mark)):
                return 0
        try:
            entries = FileScores(path).entries() + FileScores(path).entries(daily=True)
        except DataError:
            entries = []  # unreadable: `horizon scores --data-dir` says why; nothing to bring over
        added = sum(self.add(entry) for entry in entries)
        with self.database.writing() as conn:
            if not conn.scalar(sa.select(host_imports.c.source).where(host_imports.c.source == mark)):
                conn.execute(host_imports.insert().values(source=mark, imported_at=time.time()))
        return added


class SqlOffers:
    """The `host_offers` table: an offer made on one host is in the GM's Import on every host."""

    def __init__(self, database: Database):
        self.database = database

    def put(self, offer: CharacterOffer) -> None:
        t = host_offers
        key = (t.c.gm == offer.gm) & (t.c.player == offer.player) & (t.c.filename == offer.filename)
        with self.database.writing() as conn:
            conn.execute(t.delete().where(key))
            conn.execute(t.insert().values(**attrs.asdict(offer)))

    def for_gm(self, gm: str) -> list[CharacterOffer]:
        t = host_offers
        with self.database.reading() as conn:
            rows = conn.execute(sa.select(t.c.gm, t.c.player, t.c.filename, t.c.content, t.c.offered_at)
                                .where(t.c.gm == gm).order_by(t.c.offered_at.desc(), t.c.filename))
            return [CharacterOffer(row.gm, row.player, row.filename, bytes(row.content), row.offered_at) for row in rows]

    def by_player(self, player: str) -> list[tuple[str, str]]:
        t = host_offers
        with self.database.reading() as conn:
            rows = conn.execute(sa.select(t.c.gm, t.c.filename).where(t.c.player == player)
                                .order_by(t.c.gm, t.c.filename))
            return [(row.gm, row.filename) for row in rows]


class SqlCharacters:
    """The `host_characters` table: each player's character files as rows, so a character saved
    through one host opens through another."""

    def __init__(self, database: Database):
        self.database = database

    def listing(self, account: str) -> list[StoredCharacter]:
        t = host_characters
        with self.database.reading() as conn:
            rows = conn.execute(sa.select(t.c.filename, t.c.content, t.c.changed_at)
                                .where(t.c.account == account).order_by(t.c.filename))
            return [StoredCharacter(row.filename, bytes(row.content), row.changed_at) for row in rows]

    def put(self, account: str, character: StoredCharacter, conn: sa.Connection | None = None) -> None:
        """Write one character's row (in `conn`'s transaction when given: a save under its lock)."""
        if conn is None:
            with self.database.writing() as conn:
                self.put(account, character, conn)
            return
        t = host_characters
        key = (t.c.account == account) & (t.c.filename == character.filename)
        conn.execute(t.delete().where(key))
        conn.execute(t.insert().values(account=account, filename=character.filename,
                                       content=character.content, changed_at=character.changed_at))

    def remove(self, account: str, filename: str) -> bool:
        t = host_characters
        with self.database.writing() as conn:
            return conn.execute(t.delete().where((t.c.account == account) & (t.c.filename == filename))).rowcount > 0
