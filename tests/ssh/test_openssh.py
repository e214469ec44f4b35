"""The real OpenSSH client against the host (skipped where `ssh` is missing): the fake app on a
real terminal with resizes, and the refusals as an OpenSSH user sees them."""

from __future__ import annotations

import asyncio

from openssh_kit import OpenSSHTerminal, needs_openssh, run_ssh

pytestmark = needs_openssh


async def test_openssh_on_a_terminal_reaches_the_app_and_resizes(start_host, ssh_command, tmp_path):
    host = await start_host()
    async with OpenSSHTerminal(ssh_command(host.port, "-tt"), tmp_path, size=(100, 30)) as ssh:
        await ssh.expect("READY")
        assert "MAIN MENU" in ssh.text and "SIZE 100x30" in ssh.text
        assert "TERM xterm-256color" in ssh.text
        ssh.process.write(b"x")
        await ssh.expect("KEY 'x'")
        ssh.process.resize(120, 40)  # ssh gets SIGWINCH and sends a window-change
        await ssh.expect("SIZE 120x40")
        ssh.process.write(b"q")
        assert await asyncio.wait_for(ssh.ended, 8) == 3  # ssh exits with the app's status


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
