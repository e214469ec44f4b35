"""The real OpenSSH client for the SSH host's tests: a command line that trusts nothing from this
machine's ~/.ssh (and may bind a source address), running it, and running it on a terminal."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal

import pytest
from ssh_kit import plain

from horizon_tui.host.pty_process import PtyProcess

SSH = shutil.which("ssh")
needs_openssh = pytest.mark.skipif(SSH is None, reason="the OpenSSH client (ssh) is not installed")


@pytest.fixture
def ssh_command(tmp_path, user_keys):
    """`ssh_command(port, *extra, user="alice", source=None, key_of="alice")`: a key of `key_of`."""
    def command(port: int, *extra: str, user: str = "alice", source: str | None = None,
                key_of: str | None = None) -> list[str]:
        owner = key_of or "alice"
        key = tmp_path / f"id_{owner}"
        if not key.exists():
            key.write_bytes(user_keys[owner].export_private_key("openssh"))
            os.chmod(key, 0o600)
        bind = ["-b", source] if source else []
        # `extra` first: for ssh the first value of an option wins
        return [SSH, "-F", "/dev/null", *extra, "-p", str(port), *bind, "-i", str(key),
                "-o", "IdentitiesOnly=yes", "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR",
                f"{user}@127.0.0.1"]

    return command


def client_env(tmp_path) -> dict[str, str]:
    return {"HOME": str(tmp_path), "PATH": os.defpath, "TERM": "xterm-256color", "LANG": "C.UTF-8"}


async def run_ssh(argv, tmp_path, *command: str, timeout: float = 10) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        *argv, *command, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, env=client_env(tmp_path))
    out, _ = await asyncio.wait_for(process.communicate(), timeout)
    return process.returncode, out.decode(errors="replace")


class OpenSSHTerminal:
    """`ssh -tt` on a PTY of a given size: what a player at a real terminal runs."""

    def __init__(self, argv: list[str], tmp_path, size=(80, 24)):
        self.output = bytearray()
        self.ended: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.process = PtyProcess(argv, env=client_env(tmp_path), cwd=tmp_path,
                                  size=(*size, 0, 0), on_output=self.output.extend,
                                  on_exit=lambda rc: self.ended.done() or self.ended.set_result(rc))

    async def __aenter__(self) -> OpenSSHTerminal:
        self.process.start()
        return self

    async def __aexit__(self, *exc) -> None:
        if not self.ended.done():
            self.process.signal(signal.SIGKILL)
            await self.process.wait()

    @property
    def text(self) -> str:
        return plain(bytes(self.output))

    async def expect(self, text: str, timeout: float = 8.0) -> None:
        for _ in range(int(timeout / 0.02)):
            if text in self.text:
                return
            if self.ended.done():
                break
            await asyncio.sleep(0.02)
        raise AssertionError(f"no {text!r}; got {self.text!r}")
