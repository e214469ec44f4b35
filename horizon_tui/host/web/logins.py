"""Browser logins for the host's accounts: one-time links and session cookies, stored hashed.

`ssh -t host web-login` asks `issue_link` for a 256-bit token valid `LINK_LIFETIME` seconds;
opening the link shows "Continue as NAME", and the button spends it (`spend_link`, once) for a
session cookie valid `SESSION_LIFETIME` (`open_session`). Only SHA-256 digests of tokens and
cookies are kept, so a copy of the store logs no one in. `end_sessions` (`ssh -t host
web-logout`, `horizon users remove`) forgets every cookie of an account.

`LoginStore` is the interface (what the web front end and the commands use); `MemoryLoginStore`
keeps it in memory (tests), `FileLoginStore` in the host's data folder (`web/logins.json`, 0600,
updated under a lock; one that can't be read is moved aside, never written over) so a restart
keeps the sessions and another process (`horizon users remove`) can end them. Lookups (every page,
every socket, the check of every live game's login) parse the file again only when it changed.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import secrets
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from horizon_tui.paths import private_dir, write_private_json

LINK_LIFETIME = 300.0              # seconds a login link stays valid (at most 5 minutes)
SESSION_LIFETIME = 14 * 86400.0    # a browser stays logged in for 14 days
LINKS_PER_ACCOUNT = 3              # unspent links an account may hold; the oldest goes first
STORE_LIMIT = 4 * 2**20            # a store file larger than this is not ours
TOKEN_BYTES = 32                   # 256 bits
_TOKEN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def digest(secret: str) -> str:
    """What is stored for a token or a cookie: 256 random bits need no slow hash."""
    return hashlib.sha256(secret.encode("ascii", "replace")).hexdigest()


def looks_like_token(text: str | None) -> bool:
    """A token as `secrets.token_urlsafe(TOKEN_BYTES)` makes them (43 URL-safe characters)."""
    return bool(text) and len(text) == 43 and set(text) <= _TOKEN_CHARS


class LoginStore:
    """Links and sessions as one dict {"links": {digest: {user, expires}}, "sessions": {…}};
    a subclass says where it is kept (`_read`, `_write`, `_locked`)."""

    def __init__(self, clock: Callable[[], float] = time.time):
        self.clock = clock

    # --- where it is kept ------------------------------------------------------------------

    def _read(self) -> dict:
        raise NotImplementedError

    def _write(self, state: dict) -> None:
        raise NotImplementedError

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        yield

    def _current(self) -> dict:
        """The state for a lookup, never to be changed: `_read()` unless a subclass keeps it."""
        return self._read()

    # --- links -----------------------------------------------------------------------------

    def issue_link(self, user: str) -> str:
        """A new one-time token for `user` (the token itself is returned, never stored)."""
        token = secrets.token_urlsafe(TOKEN_BYTES)
        with self._locked():
            state = self._pruned(self._read())
            mine = sorted((entry["expires"], key) for key, entry in state["links"].items()
                          if entry["user"] == user)
            for _expires, key in mine[: max(0, len(mine) - LINKS_PER_ACCOUNT + 1)]:
                del state["links"][key]
            state["links"][digest(token)] = {"user": user, "expires": self.clock() + LINK_LIFETIME}
            self._write(state)
        return token

    def _live_user(self, kind: str, key: str) -> str | None:
        """The user of the `kind` ("links" or "sessions") entry stored under `key`, unexpired."""
        entry = self._current()[kind].get(key)
        return entry["user"] if entry and entry["expires"] > self.clock() else None

    def link_user(self, token: str | None) -> str | None:
        """Whose link this is, without spending it (the "Continue as NAME" page)."""
        return self._live_user("links", digest(token)) if looks_like_token(token) else None

    def spend_link(self, token: str | None) -> str | None:
        """The link's user, once: the token is gone after this, used or expired."""
        if not looks_like_token(token):
            return None
        with self._locked():
            state = self._read()
            entry = state["links"].pop(digest(token), None)
            if entry is None:
                return None
            self._write(self._pruned(state))
        return entry["user"] if entry["expires"] > self.clock() else None

    # --- sessions --------------------------------------------------------------------------

    def open_session(self, user: str) -> str:
        cookie = secrets.token_urlsafe(TOKEN_BYTES)
        with self._locked():
            state = self._pruned(self._read())
            state["sessions"][digest(cookie)] = {"user": user, "expires": self.clock() + SESSION_LIFETIME}
            self._write(state)
        return cookie

    def session_user(self, cookie: str | None) -> str | None:
        return self._live_user("sessions", digest(cookie)) if looks_like_token(cookie) else None

    def session_key_user(self, key: str) -> str | None:
        """`session_user` by the cookie's digest (what a running game keeps of its login)."""
        return self._live_user("sessions", key)

    def session_key_users(self) -> dict[str, str]:
        """Every live session's user by its cookie's digest: one read for many games' checks."""
        now = self.clock()
        return {key: entry["user"] for key, entry in self._current()["sessions"].items() if entry["expires"] > now}

    def end_sessions(self, user: str) -> int:
        """Log every browser of `user` out (and drop the links not yet used); how many sessions."""
        with self._locked():
            state = self._read()
            ended = [key for key, entry in state["sessions"].items() if entry["user"] == user]
            for key in ended:
                del state["sessions"][key]
            for key in [key for key, entry in state["links"].items() if entry["user"] == user]:
                del state["links"][key]
            self._write(self._pruned(state))
        return len(ended)

    def _pruned(self, state: dict) -> dict:
        now = self.clock()
        for kind in ("links", "sessions"):
            state[kind] = {key: entry for key, entry in state[kind].items() if entry["expires"] > now}
        return state


def _valid_state(data) -> dict:
    """Only well-formed entries of a store file: anything else in it is dropped, never trusted."""
    state: dict = {"links": {}, "sessions": {}}
    if not isinstance(data, dict):
        return state
    for kind in state:
        entries = data.get(kind)
        if not isinstance(entries, dict):
            continue
        for key, entry in entries.items():
            if (isinstance(key, str) and len(key) == 64 and isinstance(entry, dict)
                    and isinstance(entry.get("user"), str)
                    and isinstance(entry.get("expires"), (int, float))):
                state[kind][key] = {"user": entry["user"], "expires": float(entry["expires"])}
    return state


class MemoryLoginStore(LoginStore):
    """The store in memory: what tests use, and what a later store must behave like."""

    def __init__(self, clock: Callable[[], float] = time.time):
        super().__init__(clock)
        self._state: dict = {"links": {}, "sessions": {}}

    def _read(self) -> dict:
        return json.loads(json.dumps(self._state))  # a copy, as a file would give

    def _write(self, state: dict) -> None:
        self._state = state


class FileLoginStore(LoginStore):
    """The store as `DATA_DIR/web/logins.json` (0600 in a 0700 folder), changed under a lock."""

    def __init__(self, data_dir: Path, clock: Callable[[], float] = time.time):
        super().__init__(clock)
        self.path = Path(data_dir) / "web" / "logins.json"
        self.damaged = False
        self._parsed: tuple[tuple, dict] | None = None  # (the file's identity, its state) for lookups

    def _read(self) -> dict:
        try:
            with open(self.path, "rb") as handle:
                raw = handle.read(STORE_LIMIT + 1)
        except FileNotFoundError:
            return _valid_state(None)
        try:
            if len(raw) > STORE_LIMIT:
                raise ValueError("too large")
            return _valid_state(json.loads(raw))
        except (ValueError, RecursionError):
            self.damaged = True  # kept aside, never written over (`_write`)
            return _valid_state(None)

    def _current(self) -> dict:
        """The file's state as last parsed, parsed again when its inode, time or size changed (a
        write replaces the file; `horizon users remove` writes it from another process)."""
        try:
            found = os.stat(self.path)
        except FileNotFoundError:
            return _valid_state(None)
        identity = (found.st_ino, found.st_mtime_ns, found.st_size)
        if self._parsed is None or self._parsed[0] != identity:
            self._parsed = (identity, self._read())  # read after the stat: never older than `identity`
        return self._parsed[1]

    def _write(self, state: dict) -> None:
        if self.damaged and self.path.exists():
            aside = self.path.with_name(f"{self.path.name}.damaged-{int(time.time())}")
            self.path.replace(aside)
            self.damaged = False
        write_private_json(self.path, state)

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        folder = private_dir(self.path.parent)
        with open(folder / ".logins.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
