"""What the SSH host keeps per account, behind repository interfaces: the accounts (their public
keys and role) and the characters players offer to a GM.

Each interface has three implementations that pass the same contract tests
(tests/storage/test_host_records.py): an in-memory twin for unit tests; the data folder's files as
they have always been (`users/NAME/authorized_keys` and `role`, `tables/.offers/GM/PLAYER--FILE`),
the default of a host on one machine; and SQL tables (host_sql.py: SQLAlchemy Core, the same
statements on SQLite and PostgreSQL) for `serve-ssh --database URL`: several hosts behind a
balancer share one PostgreSQL, so an account added on one host logs in on all of them.

A repository stores and returns records; it checks nothing about them (names, keys, limits): that
is the callers' (storage.accounts, table.lobby), once, whatever the repository.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Protocol

import attrs

from horizon_tui.content.guard import current, read_limited
from horizon_tui.errors import DataError
from horizon_tui.paths import ENV_SHARED_SAVES, private_dir, write_private_bytes
from horizon_tui.storage.atomic import atomic_write
from horizon_tui.storage.character_files import CHARACTER_SUFFIXES

ROLES = ("player", "gm")
KEYS_FILE = "authorized_keys"
ROLE_FILE = "role"
OFFERS = ".offers"
OFFER_SEPARATOR = "--"
ENV_DATABASE = "HORIZON_DATABASE"  # set by serve-ssh --database for the apps it starts
ENV_ACCOUNT = "HORIZON_ACCOUNT"  # the account an app over SSH runs for (set by the host)
TIME_SLACK_S = 0.001  # file times and a database's floats round differently


def shares_saves(saves_dir: Path) -> bool:
    """The host keeps this folder's runs, battles and campaigns in its shared database
    (storage.host_shared), as the environment it started the app with says."""
    shared = os.environ.get(ENV_SHARED_SAVES)
    return bool(shared and os.environ.get(ENV_DATABASE) and os.environ.get(ENV_ACCOUNT)
                and Path(saves_dir).resolve() == Path(shared).resolve())


# --- accounts ----------------------------------------------------------------------------------

def read_keys_file(path: Path) -> bytes:
    """An account's key file, held to the file size limit (content.guard); b"" when missing."""
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


def stored_role(stored: str | None) -> str:
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
        return stored_role(self._roles.get(name)) if name in self._keys else "player"

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
        try:  # plain files only, a few bytes: a pipe there would block every login
            return stored_role(read_limited(self._folder(name) / ROLE_FILE, 64).decode("utf-8").strip())
        except (DataError, UnicodeDecodeError):
            return "player"

    def put_keys(self, name: str, lines: list[bytes]) -> None:
        atomic_write(self._folder(name) / KEYS_FILE, b"".join(line + b"\n" for line in lines))

    def set_role(self, name: str, role: str) -> None:
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


# --- characters offered to a GM ----------------------------------------------------------------

@attrs.frozen
class CharacterOffer:
    gm: str
    player: str
    filename: str
    content: bytes
    offered_at: float


class OfferRepository(Protocol):
    """Character files players offered to a GM's account, one per (GM, player, file name)."""

    def put(self, offer: CharacterOffer) -> None: ...  # replaces the same (gm, player, filename)
    def for_gm(self, gm: str) -> list[CharacterOffer]: ...  # newest first
    def by_player(self, player: str) -> list[tuple[str, str]]: ...  # (gm, filename) of each


class MemoryOffers:
    """The in-memory twin."""

    def __init__(self):
        self._offers: dict[tuple[str, str, str], CharacterOffer] = {}

    def put(self, offer: CharacterOffer) -> None:
        self._offers[(offer.gm, offer.player, offer.filename)] = offer

    def for_gm(self, gm: str) -> list[CharacterOffer]:
        return sorted((o for o in self._offers.values() if o.gm == gm), key=lambda o: o.offered_at, reverse=True)

    def by_player(self, player: str) -> list[tuple[str, str]]:
        return sorted((o.gm, o.filename) for o in self._offers.values() if o.player == player)


class FolderOffers:
    """`TABLES/.offers/GM/PLAYER--FILE`, as a host on one machine has always kept them."""

    def __init__(self, tables_dir: Path):
        self.root = Path(tables_dir) / OFFERS

    def path(self, gm: str, player: str, filename: str) -> Path:
        return self.root / gm / f"{player}{OFFER_SEPARATOR}{filename}"

    def put(self, offer: CharacterOffer) -> None:
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

    def for_gm(self, gm: str) -> list[CharacterOffer]:
        offers = []
        for path in self.paths_for(gm):
            player, filename = path.name.split(OFFER_SEPARATOR, 1)
            try:
                offers.append(CharacterOffer(gm, player, filename, path.read_bytes(), path.stat().st_mtime))
            except OSError:
                continue
        return offers

    def by_player(self, player: str) -> list[tuple[str, str]]:
        if not self.root.is_dir():
            return []
        return sorted((p.parent.name, p.name.split(OFFER_SEPARATOR, 1)[1])
                      for p in self.root.glob(f"*/{player}{OFFER_SEPARATOR}*"))


# --- players' characters -----------------------------------------------------------------------

@attrs.frozen
class StoredCharacter:
    filename: str  # the file's name in the player's characters folder
    content: bytes  # the TOML (or JSON) file's bytes, as the player app wrote them
    changed_at: float


class CharacterRepository(Protocol):
    """A player's character files by account (the database's copy that every host shares)."""

    def listing(self, account: str) -> list[StoredCharacter]: ...  # by file name
    def put(self, account: str, character: StoredCharacter) -> None: ...  # replaces that file name
    def remove(self, account: str, filename: str) -> bool: ...


class MemoryCharacters:
    """The in-memory twin."""

    def __init__(self):
        self._rows: dict[tuple[str, str], StoredCharacter] = {}

    def listing(self, account: str) -> list[StoredCharacter]:
        return [row for (owner, _), row in sorted(self._rows.items()) if owner == account]

    def put(self, account: str, character: StoredCharacter) -> None:
        self._rows[(account, character.filename)] = character

    def remove(self, account: str, filename: str) -> bool:
        return self._rows.pop((account, filename), None) is not None


def is_character_filename(name: str) -> bool:
    """A name a row may give a file in the characters folder: no folder, nothing hidden."""
    return (0 < len(name) <= 255 and not name.startswith(".") and not set(name) & {"/", "\\", "\0"}
            and Path(name).suffix.lower() in CHARACTER_SUFFIXES)


SYNCED = ".synced.json"  # in the characters folder: the files it and the rows last both had
REMOVED = "removed"  # where a character removed through another host is set aside here


@attrs.frozen
class SyncResult:
    written: list[str]  # rows newer than this folder's copy (or new here), written here
    sent: list[str]  # files newer than their row (or new), sent as rows
    unrowed: list[str]  # gone from here since the last sync (set aside, deleted): their rows removed
    set_aside: list[str]  # their rows removed through another host: moved here to `removed/`


def _read_synced(folder: Path) -> set[str]:
    try:
        raw = read_limited(folder / SYNCED, 1_000_000)
        names = json.loads(raw)
        return {name for name in names if isinstance(name, str)} if isinstance(names, list) else set()
    except (DataError, ValueError, RecursionError):
        return set()  # none yet, or damaged: nothing is taken as removed


def _set_aside(path: Path) -> None:
    """Move `path` into `removed/` beside it, never over another file."""
    folder = private_dir(path.parent / REMOVED)
    target, n = folder / path.name, 2
    while target.exists():
        target = folder / f"{path.stem}-{n}{path.suffix}"
        n += 1
    path.rename(target)


def sync_characters(repository: CharacterRepository, account: str, folder: Path, max_bytes: int) -> SyncResult:
    """Make the player's characters folder and the repository agree. A file both sides have: the
    newer copy wins (a row saved through another host is written here; a file saved here becomes
    the row). A file one side lacks: new on the other side (copied over) unless both had it at
    the last sync (`.synced.json`), in which case it was removed on this side since (set aside as
    damaged, say): the row is removed, or the file is moved to `removed/`. Nothing is deleted."""
    folder = Path(folder)
    rows = {row.filename: row for row in repository.listing(account)}
    known = _read_synced(folder)
    result = SyncResult([], [], [], [])
    for name, row in rows.items():
        if not is_character_filename(name) or len(row.content) > max_bytes:
            continue
        path = folder / name
        try:
            if not path.exists() and name in known:
                repository.remove(account, name)
                result.unrowed.append(name)
                continue
            here = path.stat().st_mtime if path.is_file() else None
            if here is not None and (here >= row.changed_at - TIME_SLACK_S or path.read_bytes() == row.content):
                continue
            private_dir(folder)
            atomic_write(path, row.content)
            os.utime(path, (row.changed_at, row.changed_at))
            result.written.append(name)
        except OSError:
            continue  # this file stays as it is; the next listing tries again
    if folder.is_dir():
        for path in sorted(folder.iterdir()):
            name = path.name
            if name in result.written or not is_character_filename(name):
                continue
            try:
                if not path.is_file() or path.stat().st_size > max_bytes:
                    continue
                row = rows.get(name)
                if row is None and name in known:
                    _set_aside(path)
                    result.set_aside.append(name)
                    continue
                mtime = path.stat().st_mtime
                if row is not None and mtime <= row.changed_at + TIME_SLACK_S:
                    continue
                content = path.read_bytes()
            except OSError:
                continue
            if row is None or content != row.content:
                repository.put(account, StoredCharacter(name, content, mtime))
                result.sent.append(name)
        rowed = (set(rows) - set(result.unrowed)) | set(result.sent)
        now = sorted(rowed & {p.name for p in folder.iterdir() if p.is_file()})
        if set(now) != known:
            with contextlib.suppress(OSError):
                write_private_bytes(folder / SYNCED, json.dumps(now).encode())
    return result
