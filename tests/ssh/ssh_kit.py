"""Client helpers for the SSH host's tests: connect with asyncssh, a terminal that waits for text."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import asyncssh
import pytest

FAKE_APP = Path(__file__).with_name("fake_app.py")
FAKE_APP_COMMAND = (sys.executable, str(FAKE_APP), "--saves-dir")
USERS = ("alice", "bob")
_ESCAPES = re.compile(rb"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78])")


@pytest.fixture(scope="session")
def user_keys() -> dict[str, asyncssh.SSHKey]:
    """Private keys: one per account, and a stranger's that is on no account."""
    return {name: asyncssh.generate_private_key("ssh-ed25519", comment=name)
            for name in (*USERS, "stranger")}


@pytest.fixture
def server_dir(tmp_path: Path) -> Path:
    return tmp_path / "server"


async def start_test_host(hosts: list, settings, tmp_path: Path, user_keys: dict, users=USERS, **overrides):
    """A running SSHHost with `settings` (changed by `overrides`) and `users`' accounts, each with
    its key from `user_keys`; added to `hosts` (the fixture stops them)."""
    import attrs

    from horizon_tui.host.ssh.server import SSHHost

    host = SSHHost(attrs.evolve(settings, **overrides))
    for name in users:
        pub = tmp_path / f"{name}.pub"
        pub.write_bytes(user_keys[name].export_public_key("openssh"))
        host.accounts.add(name, pub)
    await host.start()
    hosts.append(host)
    return host


async def connect(host, user: str, key: asyncssh.SSHKey | list | None, **options):
    keys = key if isinstance(key, list) else [key] if key is not None else []
    for option in ("known_hosts", "agent_path", "config"):  # nothing from this machine's ~/.ssh
        options.setdefault(option, None)
    return await asyncssh.connect(
        "127.0.0.1", host.port, username=user, client_keys=keys,
        password=options.pop("password", None), preferred_auth=options.pop("preferred_auth", "publickey"),
        **options)


class _Told(asyncssh.SSHClient):
    """Keeps the reason the host gave when it closed the connection."""

    def __init__(self):
        self.lost: asyncio.Future = asyncio.get_running_loop().create_future()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.lost.done():
            self.lost.set_result(exc)


async def reason_closed(host, user: str, key, within: float = 3.0) -> str:
    """Log in as `user`, open nothing, and return what the host said when it turned the
    connection away: before the login, at it, or just after (`closed: …` without a reason)."""
    told = _Told()
    try:
        conn = await connect(host, user, key, client_factory=lambda: told)
    except asyncssh.DisconnectError as exc:  # closed before `connect` returned
        return exc.reason
    except (ConnectionError, asyncssh.ConnectionLost) as exc:
        return f"closed: {exc}"
    async with conn:
        try:
            exc = await asyncio.wait_for(told.lost, within)
        except TimeoutError:
            raise AssertionError(f"the connection of {user} was let in") from None
    assert isinstance(exc, asyncssh.DisconnectError), f"closed without a reason: {exc!r}"
    return exc.reason


def plain(data: bytes) -> str:
    """Terminal output without escape sequences."""
    return _ESCAPES.sub(b"", data).decode("utf-8", "replace")


class Terminal:
    """A client session on a PTY; `expect` waits for text on the screen's byte stream."""

    def __init__(self, process: asyncssh.SSHClientProcess):
        self.process = process
        self.output = b""

    @classmethod
    async def open(cls, conn: asyncssh.SSHClientConnection, size=(80, 24), term="xterm-256color",
                   **options) -> Terminal:
        process = await conn.create_process(term_type=term, term_size=size, encoding=None, **options)
        return cls(process)

    async def expect(self, text: str, timeout: float = 5.0) -> str:
        """Wait until `text` has appeared since the start; returns the plain output so far."""
        async def read_until() -> str:
            while text not in plain(self.output):
                chunk = await self.process.stdout.read(65536)
                if not chunk:
                    raise AssertionError(f"session ended before {text!r}; got {plain(self.output)!r}")
                self.output += chunk
            return plain(self.output)

        try:
            return await asyncio.wait_for(read_until(), timeout)
        except TimeoutError:
            raise AssertionError(f"no {text!r} within {timeout} s; got {plain(self.output)[-2000:]!r}") from None

    def line(self, prefix: str) -> str:
        """The last output line starting with `prefix` (without it)."""
        lines = [ln for ln in plain(self.output).replace("\r", "").split("\n") if ln.startswith(prefix)]
        assert lines, f"no line {prefix!r} in {plain(self.output)!r}"
        return lines[-1][len(prefix):].strip()

    def send(self, data: bytes | str) -> None:
        self.process.stdin.write(data.encode() if isinstance(data, str) else data)

    async def finish(self, timeout: float = 5.0) -> asyncssh.SSHCompletedProcess:
        """Wait for the session to end; returns the result (exit status or signal)."""
        async def drain():
            while chunk := await self.process.stdout.read(65536):
                self.output += chunk

        await asyncio.wait_for(drain(), timeout)
        return await asyncio.wait_for(self.process.wait(), timeout)
