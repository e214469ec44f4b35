"""The SSH host's accounts: one folder per user under `DATA_DIR/users/NAME/`.

`users/NAME/authorized_keys` (OpenSSH format, written atomically) is the account; the player
app's saves live in `users/NAME/saves/`. A name is letters, digits, `-` and `_`, 1–32 characters,
checked when an account is added and again at every login, so no name reaches outside its folder.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from horizon_tui.errors import HorizonError

NAME_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,32}")
NAME_RULE = "letters, digits, '-' and '_', 1 to 32 characters"
KEYS_FILE = "authorized_keys"


class AccountError(HorizonError):
    """A bad user name, key file or account operation; the CLI prints it and exits 1."""


def is_valid_name(name: str) -> bool:
    return NAME_PATTERN.fullmatch(name) is not None


def check_name(name: str) -> str:
    if not is_valid_name(name):
        shown = repr(name) if name else "an empty name"
        raise AccountError(f"user name {shown} is not allowed: use {NAME_RULE}")
    return name


def parse_public_keys(text: str, source: str) -> list[bytes]:
    """Every public key in an OpenSSH `.pub` / authorized_keys text, as OpenSSH lines.

    Refuses a private key given by mistake, and any line that isn't a public key."""
    import asyncssh

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
        lines.append(key.export_public_key("openssh").strip())
    if not lines:
        raise AccountError(f"{source}: no public key found")
    return lines


def key_blobs(lines: list[bytes]) -> set[bytes]:
    """The wire form of each key, which is what a client offers at login."""
    import asyncssh

    blobs = set()
    for line in lines:
        try:
            blobs.add(asyncssh.import_public_key(line).public_data)
        except (asyncssh.KeyImportError, ValueError):
            continue  # a hand-edited line that no longer parses lets nobody in
    return blobs


class Accounts:
    """The accounts under one data folder. Reads the files every time, so `horizon users add`
    takes effect for a running server without a restart."""

    def __init__(self, data_dir: Path):
        self.data_dir = Path(data_dir)
        self.users_dir = self.data_dir / "users"

    def user_dir(self, name: str) -> Path:
        check_name(name)
        path = self.users_dir / name
        if path.is_symlink():
            raise AccountError(f"{path} is a symbolic link; a user's folder must be a plain folder")
        return path

    def saves_dir(self, name: str) -> Path:
        return self.user_dir(name) / "saves"

    def keys_path(self, name: str) -> Path:
        return self.user_dir(name) / KEYS_FILE

    def exists(self, name: str) -> bool:
        return is_valid_name(name) and self.keys_path(name).is_file()

    def names(self) -> list[str]:
        if not self.users_dir.is_dir():
            return []
        return sorted(p.name for p in self.users_dir.iterdir()
                      if is_valid_name(p.name) and (p / KEYS_FILE).is_file())

    def key_lines(self, name: str) -> list[bytes]:
        path = self.keys_path(name)
        try:
            text = path.read_bytes()
        except FileNotFoundError:
            return []
        return [line.strip() for line in text.splitlines()
                if line.strip() and not line.startswith(b"#")]

    def allowed_keys(self, name: str) -> set[bytes]:
        """The key blobs that may log in as `name`; empty for an unknown or invalid name."""
        if not is_valid_name(name):
            return set()
        return key_blobs(self.key_lines(name))

    def add(self, name: str, key_file: Path) -> tuple[int, bool]:
        """Add the keys of `key_file` to `name` (creating the account). Returns (keys added,
        whether the account is new)."""
        from horizon_tui.saves.store import atomic_write

        check_name(name)
        try:
            text = Path(key_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise AccountError(f"{key_file}: can't be read: {exc}") from None
        new_lines = parse_public_keys(text, str(key_file))
        created = not self.exists(name)
        existing = self.key_lines(name)
        known = key_blobs(existing)
        added = [line for line in new_lines if key_blobs([line]) - known]
        self._make_private_dir(self.data_dir)
        self._make_private_dir(self.users_dir)
        self._make_private_dir(self.user_dir(name))
        if added or created:
            atomic_write(self.keys_path(name), b"".join(line + b"\n" for line in existing + added))
        return len(added), created

    def remove(self, name: str) -> Path:
        """Remove the account (its keys); the saves stay. Returns the user's folder."""
        check_name(name)
        path = self.keys_path(name)
        if not path.is_file():
            raise AccountError(f"no user {name!r} in {self.data_dir}")
        path.unlink()
        return self.user_dir(name)

    @staticmethod
    def _make_private_dir(path: Path) -> None:
        """Folders holding keys and players' saves are the host owner's alone (mode 0700)."""
        if not path.exists():
            path.mkdir(parents=True, exist_ok=True)
            os.chmod(path, 0o700)

    def prepare_user(self, name: str) -> tuple[Path, Path]:
        """The user's folder and saves folder, made if missing (at the start of a session)."""
        home = self.user_dir(name)
        saves = home / "saves"
        self._make_private_dir(home)
        self._make_private_dir(saves)
        return home, saves
