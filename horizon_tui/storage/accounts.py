"""The SSH host's accounts: one folder per user under `DATA_DIR/users/NAME/`.

An account's records (its public keys and role) are in an `AccountRepository` (host_records.py):
by default the folder's own files, `users/NAME/authorized_keys` (OpenSSH format, written
atomically) and `users/NAME/role` (`gm` for a game master's account; none, or `player`: a
player's); with `--database URL`, a database's table that several hosts share. The player app's
saves live in `users/NAME/saves/`. A name is letters, digits, `-` and `_`, 1–32 characters, checked when an
account is added and again at every login, so no name reaches outside its folder. Everything in
the data folder is the host owner's alone: folders 0700, files 0600 (`private_tree`).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import asyncssh

from horizon_tui.content.guard import cap, current, read_limited
from horizon_tui.errors import DataError, HorizonError, Problem, echo
from horizon_tui.paths import private_dir
from horizon_tui.storage.host_records import KEYS_FILE as KEYS_FILE  # the account files' names, for
from horizon_tui.storage.host_records import ROLE_FILE as ROLE_FILE  # `horizon validate` and tests
from horizon_tui.storage.host_records import (
    ROLES,
    AccountRepository,
    FolderAccounts,
    read_keys_file,
)

NAME_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,32}")
NAME_RULE = "letters, digits, '-' and '_', 1 to 32 characters"
# The user key types ssh-audit's hardening guide keeps (PubkeyAcceptedAlgorithms, RequiredRSASize).
KEY_TYPES = (b"ssh-ed25519", b"sk-ssh-ed25519@openssh.com", b"ssh-rsa")
MIN_RSA_BITS = 3072
KEY_ADVICE = "make one with `ssh-keygen -t ed25519`"


class AccountError(HorizonError):
    """A bad user name, key file or account operation; the CLI prints it and exits 1."""


def is_valid_name(name: str) -> bool:
    return NAME_PATTERN.fullmatch(name) is not None


def check_name(name: str) -> str:
    if not is_valid_name(name):
        if not name:
            raise AccountError(f"a user name can't be empty: use {NAME_RULE}")
        raise AccountError(f"user name {echo(name)} is not allowed: use {NAME_RULE}")
    return name


def key_refusal(key) -> str | None:
    """Why a user's public key is not accepted (an old or weak type), or None."""
    algorithm = key.algorithm
    if algorithm not in KEY_TYPES:
        return f"{algorithm.decode(errors='replace')} keys are not accepted here; {KEY_ADVICE}"
    if algorithm == b"ssh-rsa" and key.pyca_key.key_size < MIN_RSA_BITS:
        return (f"an RSA key of {key.pyca_key.key_size} bits is too short (at least {MIN_RSA_BITS}); "
                f"{KEY_ADVICE}")
    return None


def accepts_key(key) -> bool:
    return key_refusal(key) is None


def private_tree(root: Path) -> int:
    """Make `root` (0700) and take every permission of group and others off what is inside it:
    folders end up 0700, files 0600 (or stricter). Symbolic links are not followed. Returns how
    many entries had to be tightened."""
    private_dir(Path(root))
    tightened = 0
    for folder, dirs, files in os.walk(root):
        for name in (*dirs, *files):
            path = os.path.join(folder, name)
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if stat.S_ISLNK(mode) or not mode & 0o077:
                continue
            wanted = 0o700 if stat.S_ISDIR(mode) else stat.S_IMODE(mode) & 0o600
            try:
                os.chmod(path, wanted, follow_symlinks=False)
                tightened += 1
            except (OSError, NotImplementedError):
                continue
    try:
        if os.stat(root).st_mode & 0o077:
            os.chmod(root, 0o700)
    except OSError:
        pass
    return tightened


def parse_public_keys(text: str, source: str) -> list[bytes]:
    """Every public key in an OpenSSH `.pub` / authorized_keys text, as OpenSSH lines.

    Refuses a private key given by mistake, and any line that isn't a public key."""
    if "PRIVATE KEY" in text:
        raise AccountError(f"{source}: this is a private key; give the public one (the .pub file)")
    lines: list[bytes] = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            key = asyncssh.import_public_key(line)
        except (asyncssh.KeyImportError, ValueError):
            raise AccountError(f"{source}:{number}: not an OpenSSH public key "
                               "(expected a line like 'ssh-ed25519 AAAA… comment')") from None
        refusal = key_refusal(key)
        if refusal:
            raise AccountError(f"{source}:{number}: {refusal}")
        lines.append(key.export_public_key("openssh").strip())
    if not lines:
        raise AccountError(f"{source}: no public key found")
    return lines


def check_keys_file(path: Path) -> list:
    """`horizon validate` of an account file: one problem per line that isn't an OpenSSH public
    key (at most `files.problems`), read as the host reads it at login."""
    try:
        raw = read_keys_file(path)
    except DataError as exc:
        return exc.problems
    problems: list[Problem] = []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [Problem(str(path), "", f"is not UTF-8 text (byte {exc.start})")]
    if "PRIVATE KEY" in text:
        return [Problem(str(path), "", "holds a private key; an account lists public keys only")]
    found = 0
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            asyncssh.import_public_key(line)
            found += 1
        except (asyncssh.KeyImportError, ValueError, TypeError):
            problems.append(Problem(str(path), "", "not an OpenSSH public key (expected a line like "
                                    "'ssh-ed25519 AAAA… comment')", number))
    if not found and not problems:
        problems.append(Problem(str(path), "", "no public key: nobody can log in to this account"))
    return cap(problems)


def key_blobs(lines: list[bytes]) -> set[bytes]:
    """The wire form of each key, which is what a client offers at login."""
    blobs = set()
    for line in lines:
        try:
            blobs.add(asyncssh.import_public_key(line).public_data)
        except (asyncssh.KeyImportError, ValueError, TypeError):
            continue  # a hand-edited line that no longer parses lets nobody in
    return blobs


class Accounts:
    """The accounts of one host: their records in `records` (an `AccountRepository`: the data
    folder's files by default, a database with `--database`), each user's folder (saves,
    recordings) under `data_dir/users/NAME/`. Reads the records every time, so `horizon users
    add` takes effect for a running server without a restart."""

    def __init__(self, data_dir: Path, records: AccountRepository | None = None):
        self.data_dir = Path(data_dir).expanduser().resolve()
        self.users_dir = self.data_dir / "users"
        self.records = records if records is not None else FolderAccounts(self.users_dir)
        self.where = (f"{self.data_dir}" if isinstance(self.records, FolderAccounts)
                      else "the database")  # named in "no user 'x' in …"

    def user_dir(self, name: str) -> Path:
        check_name(name)
        path = self.users_dir / name
        if path.is_symlink():
            raise AccountError(f"{path} is a symbolic link; a user's folder must be a plain folder")
        return path

    def saves_dir(self, name: str) -> Path:
        return self.user_dir(name) / "saves"

    def exists(self, name: str) -> bool:
        if not is_valid_name(name):
            return False
        self.user_dir(name)  # a symbolic link there is refused
        try:
            return bool(self.records.key_lines(name)) or name in self.records.names()
        except DataError:
            return True  # there, but unreadable: `allowed_keys` lets nobody in

    def names(self) -> list[str]:
        return [name for name in self.records.names() if is_valid_name(name)]

    def key_lines(self, name: str) -> list[bytes]:
        """The account's public key lines; DataError if its key file is too big or can't be read."""
        check_name(name)
        return self.records.key_lines(name)

    def allowed_keys(self, name: str) -> set[bytes]:
        """The key blobs that may log in as `name`; empty for an unknown or invalid name."""
        if not is_valid_name(name):
            return set()
        try:
            return key_blobs(self.key_lines(name))
        except DataError:
            return set()  # too big or unreadable: lets nobody in (`horizon validate` says why)

    def role(self, name: str) -> str:
        """`gm` or `player`. A stored role that says anything else is read as `player`: an
        account is never given more than it was."""
        if not is_valid_name(name):
            return "player"
        return self.records.role(name)

    def set_role(self, name: str, role: str) -> None:
        if role not in ROLES:
            raise AccountError(f"role {role!r} is not one of: {', '.join(ROLES)}")
        if not self.exists(name):
            raise AccountError(f"no user {name!r} in {self.where}")
        self.records.set_role(name, role)

    def add(self, name: str, key_file: Path, role: str | None = None) -> tuple[int, bool]:
        """Add the keys of `key_file` to `name` (creating the account), and set its role when
        one is given. Returns (keys added, whether the account is new)."""
        check_name(name)
        try:  # plain files only, held to the file size limit: a pipe or /dev/zero never ends
            text = read_limited(Path(key_file), current().file_bytes).decode("utf-8")
        except DataError as exc:
            message = exc.problems[0].message
            message = f"can't be read: {message}" if message == "no such file" else message
            raise AccountError(f"{key_file}: {message}") from None
        except UnicodeDecodeError as exc:
            raise AccountError(f"{key_file}: is not UTF-8 text (byte {exc.start}); "
                               "an OpenSSH public key file is text") from None
        new_lines = parse_public_keys(text, str(key_file))
        created = not self.exists(name)
        existing = self.key_lines(name)
        known = key_blobs(existing)
        added = []
        for line in new_lines:  # a key written twice in the file is added once
            blob = key_blobs([line])
            if blob - known:
                added.append(line)
                known |= blob
        self._make_private_dir(self.data_dir)
        self._make_private_dir(self.users_dir)
        self._make_private_dir(self.user_dir(name))
        if added or created:
            self.records.put_keys(name, existing + added)
        if role is not None:
            self.set_role(name, role)
        return len(added), created

    def remove(self, name: str) -> Path:
        """Remove the account (its keys); the saves stay. Returns the user's folder."""
        check_name(name)
        if not self.records.remove(name):
            raise AccountError(f"no user {name!r} in {self.where}")
        return self.user_dir(name)

    @staticmethod
    def _make_private_dir(path: Path) -> None:
        """Folders holding keys and players' saves are the host owner's alone (mode 0700)."""
        try:
            private_dir(path)
        except (FileExistsError, NotADirectoryError):
            blocking = next((p for p in (path, *path.parents) if p.exists() and not p.is_dir()), path)
            raise AccountError(f"{blocking} is not a folder; give --data-dir a folder (or a path to make one)") from None
        except OSError as exc:
            raise AccountError(f"{path} can't be made: {exc.strerror or exc}") from None

    def prepare_user(self, name: str) -> tuple[Path, Path]:
        """The user's folder and saves folder, made if missing (at the start of a session)."""
        home = self.user_dir(name)
        saves = home / "saves"
        self._make_private_dir(home)
        self._make_private_dir(saves)
        return home, saves


def host_accounts(data_dir: Path, database: str | None = None) -> Accounts:
    """A host's accounts: in its data folder's files, or in the database `database` names (a URL;
    several hosts share one PostgreSQL), into which the data folder's own accounts are imported the
    first time (the folders stay). DatabaseError if that database can't be used."""
    accounts = Accounts(data_dir)
    if database is None:
        return accounts
    from horizon_tui.storage.host_sql import SqlAccounts, shared_database  # SQLAlchemy only when used

    records = SqlAccounts(shared_database(database))
    records.import_folders(accounts.records, is_valid_name)
    return Accounts(data_dir, records)
