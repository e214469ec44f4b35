"""Everything but the game is refused: exec, a shell without a PTY, SFTP, forwarding of any kind,
and too many failed logins from one address."""

from __future__ import annotations

import asyncio

import asyncssh
import pytest

from ssh_kit import Terminal, connect


async def test_exec_gets_a_line_and_status_1_and_nothing_runs(start_host, user_keys, server_dir, tmp_path):
    host = await start_host()
    marker = tmp_path / "ran"
    async with await connect(host, "alice", user_keys["alice"]) as conn:
        result = await conn.run(f"touch {marker}", check=False)
        assert result.exit_status == 1
        assert "commands are not allowed" in result.stderr
        assert result.stderr.count("\n") == 1
        with_pty = await conn.run(f"touch {marker}", term_type="xterm", check=False)
        assert with_pty.exit_status == 1
    await asyncio.sleep(0.2)
    assert not marker.exists()
    assert not (server_dir / "users" / "alice" / "saves" / "launches.log").exists()


async def test_shell_without_a_pty_gets_a_message(start_host, user_keys, server_dir):
    host = await start_host()
    async with await connect(host, "alice", user_keys["alice"]) as conn:
        process = await conn.create_process(encoding=None)  # no term_type: no PTY
        result = await asyncio.wait_for(process.wait(), 5)
        assert result.exit_status == 1
        assert b"needs a terminal" in result.stderr
    assert not (server_dir / "users" / "alice" / "saves" / "launches.log").exists()
    assert not host.sessions


async def test_sftp_subsystem_is_refused(start_host, user_keys):
    host = await start_host()
    async with await connect(host, "alice", user_keys["alice"]) as conn:
        with pytest.raises((asyncssh.Error, OSError)):
            await conn.start_sftp_client()
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.create_process(subsystem="anything", encoding=None)


async def test_port_forwarding_both_ways_is_refused(start_host, user_keys):
    host = await start_host()
    async with await connect(host, "alice", user_keys["alice"]) as conn:
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.open_connection("127.0.0.1", host.port)  # local (direct-tcpip)
        with pytest.raises(asyncssh.ChannelListenError):
            await conn.forward_remote_port("127.0.0.1", 0, "127.0.0.1", host.port)
        with pytest.raises(asyncssh.ChannelOpenError):
            await conn.open_unix_connection("/run/anything.sock")
        with pytest.raises(asyncssh.ChannelListenError):
            await conn.forward_remote_path("/tmp/horizon-test.sock", "/run/anything.sock")
        term = await Terminal.open(conn)  # the connection itself is still fine
        await term.expect("READY")


async def test_agent_and_x11_forwarding_are_refused(start_host, user_keys, tmp_path):
    host = await start_host()
    async with await connect(host, "alice", user_keys["alice"], agent_forwarding=True,
                             agent_path=str(tmp_path / "agent.sock")) as conn:
        term = await Terminal.open(conn, x11_forwarding="ignore_failure", x11_display="localhost:0")
        await term.expect("READY")
        env = term.line("ENV ")
        assert "SSH_AUTH_SOCK" not in env and "DISPLAY" not in env
        (session,) = host.sessions
        assert session.chan.get_agent_path() is None
        assert session.chan.get_x11_display() is None


async def test_failed_logins_are_rate_limited_per_address(start_host, user_keys):
    host = await start_host(max_failed_logins=3, failed_login_window=60, login_ban=60)
    # one connection offering a wrong key and then the right one logs in, and is forgiven
    async with await connect(host, "alice", [user_keys["stranger"], user_keys["alice"]]):
        pass
    assert host.limiter.failures("127.0.0.1") == 0
    for _ in range(3):
        with pytest.raises(asyncssh.PermissionDenied):
            await connect(host, "alice", user_keys["stranger"])
    with pytest.raises(asyncssh.DisconnectError) as refused:
        await connect(host, "alice", user_keys["alice"])  # the right key, but too late
    assert "Too many failed logins from 127.0.0.1; try again in 60 s" in refused.value.reason
    assert host.limiter.blocked_for("127.0.0.1") > 50


async def test_too_many_keys_on_one_connection_drop_it(start_host, user_keys):
    host = await start_host(max_auth_tries=2)
    many = [asyncssh.generate_private_key("ssh-ed25519") for _ in range(3)] + [user_keys["alice"]]
    with pytest.raises((asyncssh.PermissionDenied, asyncssh.DisconnectError, ConnectionError)):
        await connect(host, "alice", many)


async def test_a_flood_of_connections_is_capped(start_host, user_keys):
    host = await start_host(max_connections=1)
    async with await connect(host, "alice", user_keys["alice"]):
        with pytest.raises((asyncssh.Error, ConnectionError)):
            await connect(host, "bob", user_keys["bob"])
    for _ in range(100):
        if not host.connections:
            break
        await asyncio.sleep(0.02)
    async with await connect(host, "bob", user_keys["bob"]):  # a freed place is taken again
        pass


async def test_scores_prints_the_hosts_hall_of_fame_for_every_account(start_host, user_keys, server_dir):
    """`ssh -t host scores`: the one hall of fame of the host (every account's runs), then the end;
    nothing else runs, and any other command is still refused."""
    from horizon_tui.storage.runs import HALL_OF_FAME, FileScores

    host = await start_host()
    FileScores(server_dir / HALL_OF_FAME).add({"id": "r1", "account": "bob", "party": ["Brakka"], "levels": [3],
                                               "depth": 4, "score": 180, "pace": "source", "seed": 9})
    FileScores(server_dir / HALL_OF_FAME).add({"id": "r2", "account": "bob", "party": ["Sefa"], "levels": [2],
                                               "depth": 2, "score": 40, "pace": "source", "seed": 7,
                                               "daily": "2026-12-05"})
    async with await connect(host, "alice", user_keys["alice"]) as conn:
        result = await conn.run("scores", term_type="xterm", check=False)
        assert result.exit_status == 0
        assert "Hall of fame" in result.stdout and "Brakka" in result.stdout and "bob" in result.stdout
        assert "Sefa" not in result.stdout  # the daily seed has its own table
        daily = await conn.run("scores --daily", term_type="xterm", check=False)
        assert "Sefa" in daily.stdout and "Brakka" not in daily.stdout
        refused = await conn.run("scores; touch x", term_type="xterm", check=False)
        assert refused.exit_status == 1 and "commands are not allowed" in refused.stderr + refused.stdout
    assert not host.sessions
