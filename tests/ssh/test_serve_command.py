"""`horizon serve-ssh` as a process: its defaults, and SIGTERM saving every session and exiting 0."""

from __future__ import annotations

import asyncio
import re
import shlex
import signal
import sys
from pathlib import Path

from ssh_kit import FAKE_APP_COMMAND, Terminal, connect

from horizon_tui.cli import build_parser, main
from horizon_tui.paths import default_server_dir
from horizon_tui.host.ssh.ssh_commands import data_dir_of


def test_serve_ssh_defaults_follow_the_interfaces():
    args = build_parser().parse_args(["serve-ssh"])
    assert (args.host, args.port, args.data_dir) == ("127.0.0.1", 2222, None)
    assert data_dir_of(args) == default_server_dir() and default_server_dir().is_absolute()
    assert (args.idle_timeout, args.max_sessions_per_user, args.max_sessions) == (1800, 3, 50)
    assert (args.login_grace_time, args.max_startups, args.max_startups_per_source,
            args.max_connections_per_user, args.motd) == (10, None, 3, 4, None)
    args = build_parser().parse_args(["users", "add", "alice", "--key", "k.pub", "--data-dir", "d"])
    assert (args.command, args.users_command, args.name, args.data_dir) == ("users", "add", "alice", Path("d"))
    assert args.gm is False
    assert data_dir_of(args) == Path.cwd() / "d"


class _Host:  # what `connect` needs
    def __init__(self, port: int):
        self.port = port


async def test_sigterm_saves_every_session_and_exits_0(tmp_path, user_keys, capsys):
    data = tmp_path / "server"
    pub = tmp_path / "alice.pub"
    pub.write_bytes(user_keys["alice"].export_public_key("openssh"))
    assert main(["users", "add", "alice", "--key", str(pub), "--data-dir", str(data)]) == 0
    capsys.readouterr()
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "horizon_tui.cli", "serve-ssh", "--port", "0", "--data-dir", str(data),
        "--app-command", shlex.join(FAKE_APP_COMMAND), stderr=asyncio.subprocess.PIPE)
    log = []
    try:
        while not (found := re.search(r"listening on \S+:(\d+)", log[-1] if log else "")):
            line = await asyncio.wait_for(server.stderr.readline(), 10)
            assert line, "the server ended before listening: " + "".join(log)
            log.append(line.decode())
        async with await connect(_Host(int(found.group(1))), "alice", user_keys["alice"]) as conn:
            term = await Terminal.open(conn)
            await term.expect("READY")
            server.send_signal(signal.SIGTERM)
            result = await term.finish(timeout=10)
            assert result.exit_status == 0
            assert b"shutting down; your game was saved" in result.stderr
        assert await asyncio.wait_for(server.wait(), 10) == 0
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()
    log.append((await server.stderr.read()).decode())
    text = "".join(log)
    assert "login user=alice" in text and "reason=server shutdown" in text and "stopped" in text
    assert (data / "users" / "alice" / "saves" / "saved-on-sigterm").exists()


def test_help_documents_every_limit_with_examples(capsys):
    import pytest

    for argv, wanted in [
        (["serve-ssh", "--help"], ["examples:", "--login-grace-time SECONDS", "--max-startups START:RATE:FULL",
                                   "--max-startups-per-source N", "--max-connections-per-user N",
                                   "--motd FILE", "OpenSSH's MaxStartups", "--motd motd.txt",
                                   "ssh -p 2222 alice@your.host"]),
        (["users", "--help"], ["examples:", "horizon users role alice gm", "{add,list,role,remove}"]),
    ]:
        with pytest.raises(SystemExit):
            build_parser().parse_args(argv)
        out = capsys.readouterr().out
        for text in wanted:
            assert text in out, (argv, text)


def test_bad_limits_are_usage_errors(capsys):
    import pytest

    for argv, message in [(["--max-startups", "10:30"], "is not START:RATE:FULL"),
                          (["--login-grace-time", "nan"], "must be from 0 to a year"),
                          (["--max-connections-per-user", "0"], "must be 1 or more")]:
        with pytest.raises(SystemExit) as exit_:
            build_parser().parse_args(["serve-ssh", *argv])
        assert exit_.value.code == 2 and message in capsys.readouterr().err
    assert main(["serve-ssh", "--max-startups", "5:30:5", "--max-startups-per-source", "5"]) == 2
    assert "must be below --max-startups' FULL (5)" in capsys.readouterr().err


def test_an_empty_host_is_bad_usage_not_every_address(capsys):
    """By hand: `serve-ssh --host ""` (an unset variable) listened on every address."""
    import pytest

    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args(["serve-ssh", "--host", ""])
    assert exit_.value.code == 2 and "0.0.0.0" in capsys.readouterr().err


def test_a_host_that_cant_be_found_exits_1_without_a_traceback(tmp_path):
    """By hand: `serve-ssh --host 999.1.1.1` printed the session server's BrokenPipeError traceback
    (it was still warming up when the host gave up) above the one-line reason."""
    import subprocess

    done = subprocess.run([sys.executable, "-m", "horizon_tui", "serve-ssh", "--host", "999.1.1.1", "--port", "0",
                           "--data-dir", str(tmp_path / "srv")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "999.1.1.1" in done.stderr
