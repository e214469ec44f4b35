"""The real OpenSSH client against the host (skipped where `ssh` is missing): the fake app on a
real terminal with resizes, and the refusals as an OpenSSH user sees them."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal

import pytest
from ssh_kit import plain

from horizon_tui.ssh.pty_process import PtyProcess

SSH = shutil.which("ssh")
pytestmark = pytest.mark.skipif(SSH is None, reason="the OpenSSH client (ssh) is not installed")


@pytest.fixture
def ssh_command(tmp_path, user_keys):
    """`ssh_command(port, *extra)` with alice's key, trusting nothing from this machine's ~/.ssh."""
    key = tmp_path / "id_alice"
    key.write_bytes(user_keys["alice"].export_private_key("openssh"))
    os.chmod(key, 0o600)

    def command(port: int, *extra: str, user: str = "alice") -> list[str]:
        return [SSH, "-F", "/dev/null", "-p", str(port), "-i", str(key), "-o", "IdentitiesOnly=yes",
                "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                "-o", "BatchMode=yes", "-o", "LogLevel=ERROR", *extra, f"{user}@127.0.0.1"]

    return command


def client_env(tmp_path) -> dict[str, str]:
    return {"HOME": str(tmp_path), "PATH": os.defpath, "TERM": "xterm-256color", "LANG": "C.UTF-8"}


async def run_ssh(argv, tmp_path, *command: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        *argv, *command, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT, env=client_env(tmp_path))
    out, _ = await asyncio.wait_for(process.communicate(), 10)
    return process.returncode, out.decode(errors="replace")


async def test_openssh_on_a_terminal_reaches_the_app_and_resizes(start_host, ssh_command, tmp_path):
    host = await start_host()
    output = bytearray()
    ended: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    ssh = PtyProcess(ssh_command(host.port, "-tt"), env=client_env(tmp_path), cwd=tmp_path,
                     size=(100, 30, 0, 0), on_output=output.extend,
                     on_exit=lambda rc: ended.done() or ended.set_result(rc))
    ssh.start()

    async def expect(text: str, timeout: float = 8.0) -> None:
        for _ in range(int(timeout / 0.02)):
            if text in plain(bytes(output)):
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f"no {text!r}; got {plain(bytes(output))!r}")

    try:
        await expect("READY")
        assert "MAIN MENU" in plain(bytes(output)) and "SIZE 100x30" in plain(bytes(output))
        assert "TERM xterm-256color" in plain(bytes(output))
        ssh.write(b"x")
        await expect("KEY 'x'")
        ssh.resize(120, 40)  # ssh gets SIGWINCH and sends a window-change
        await expect("SIZE 120x40")
        ssh.write(b"q")
        assert await asyncio.wait_for(ended, 8) == 3  # ssh exits with the app's status
    finally:
        if not ended.done():
            ssh.signal(signal.SIGKILL)
            await ssh.wait()


async def test_openssh_sees_every_other_request_refused(start_host, ssh_command, tmp_path):
    host = await start_host()
    marker = tmp_path / "ran"
    code, out = await run_ssh(ssh_command(host.port), tmp_path, f"touch {marker}")
    assert code == 1 and "commands are not allowed" in out and not marker.exists()
    code, out = await run_ssh(ssh_command(host.port, "-T"), tmp_path)
    assert code == 1 and "needs a terminal" in out
    code, out = await run_ssh(ssh_command(host.port, "-s"), tmp_path, "sftp")
    assert code == 255 and "subsystem request failed" in out
    code, out = await run_ssh(ssh_command(host.port, "-W", "127.0.0.1:22"), tmp_path)
    assert code == 255 and "forwarding failed" in out
    code, out = await run_ssh(ssh_command(host.port, "-N", "-o", "ExitOnForwardFailure=yes",
                                          "-R", "0:127.0.0.1:9"), tmp_path)
    assert code == 255 and "remote port forwarding failed" in out
    code, out = await run_ssh(ssh_command(host.port, "-o", "PubkeyAuthentication=no"), tmp_path)
    assert code == 255 and "Permission denied (publickey)" in out  # no password method offered
    code, out = await run_ssh(ssh_command(host.port, user="bob"), tmp_path)
    assert code == 255 and "Permission denied" in out  # alice's key is not bob's
    assert not (host.settings.data_dir / "users" / "alice" / "saves" / "launches.log").exists()


async def test_openssh_is_told_when_its_address_is_refused(start_host, ssh_command, tmp_path):
    host = await start_host(max_failed_logins=1)
    code, out = await run_ssh(ssh_command(host.port, user="bob"), tmp_path)
    assert code == 255 and "Permission denied" in out
    code, out = await run_ssh(ssh_command(host.port, "-o", "LogLevel=INFO"), tmp_path)
    assert code == 255 and "Too many failed logins from 127.0.0.1" in out
