"""Sessions over asyncssh's client against the fake app: the menu, keys, resizes, each user's own
saves, idle and session limits, a killed app, a server stop, the host key across restarts."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import stat

import pytest

from horizon_tui.host.ssh.hostkey import host_key_path
from horizon_tui.host.ssh.server import configure_logging

from ssh_kit import FAKE_APP_COMMAND, Terminal, connect


async def test_login_shows_the_menu_and_keys_act(start_host, user_keys, server_dir):
    host = await start_host()
    async with await connect(host, "alice", user_keys["alice"]) as conn:
        term = await Terminal.open(conn, size=(100, 30))
        await term.expect("READY")
        assert "MAIN MENU" in term.output.decode()
        assert term.line("SIZE ") == "100x30"
        assert term.line("TERM ") == "xterm-256color COLORTERM -"
        assert term.line("CTTY ") == "True"  # the PTY is the app's controlling terminal
        assert term.line("CWD ") == str(server_dir / "users" / "alice")
        env = set(term.line("ENV ").split(","))
        assert env <= {"TERM", "LANG", "HOME", "USER", "LOGNAME", "PATH", "PYTHONPATH", "COLORTERM",
                       "HORIZON_SESSION", "HORIZON_WATCH",  # live.py, tui/hosting.py
                       "HORIZON_ACCOUNT", "HORIZON_TABLES", "HORIZON_HOST_PID",  # table/lobby.py: live tables
                       "HORIZON_HALL_OF_FAME"}  # storage/runs.py: one hall of fame for the host
        assert "HORIZON_HALL_OF_FAME" in env
        term.send("j")
        await term.expect("KEY 'j'")
        term.send("\x1b[B")  # an arrow key arrives as its bytes
        await term.expect("KEY '\\x1b[B'")
        term.send("q")
        result = await term.finish()
        assert result.exit_status == 3  # the app's own exit status


async def test_resize_reaches_the_app(start_host, user_keys):
    host = await start_host()
    async with await connect(host, "alice", user_keys["alice"]) as conn:
        term = await Terminal.open(conn, size=(80, 24))
        await term.expect("READY")
        term.process.change_terminal_size(132, 43)
        await term.expect("SIZE 132x43")


async def test_truecolor_clients_get_colorterm(start_host, user_keys):
    host = await start_host()
    async with await connect(host, "alice", user_keys["alice"]) as conn:
        term = await Terminal.open(conn, env={"COLORTERM": "truecolor", "EVIL": "1"})
        await term.expect("READY")
        assert term.line("TERM ") == "xterm-256color COLORTERM truecolor"
        assert "EVIL" not in term.line("ENV ")


async def test_two_users_at_once_each_see_only_their_saves(start_host, user_keys, server_dir):
    host = await start_host()
    for name in ("alice", "bob"):
        saves = server_dir / "users" / name / "saves"
        saves.mkdir(parents=True, exist_ok=True)
        (saves / f"{name}-hero.toml").write_text("name = 'x'\n")
    async with await connect(host, "alice", user_keys["alice"]) as a, \
            await connect(host, "bob", user_keys["bob"]) as b:
        ta, tb = await Terminal.open(a), await Terminal.open(b)
        await asyncio.gather(ta.expect("READY"), tb.expect("READY"))
        assert ta.line("SAVES ") == tb.line("SAVES ") == "saves"  # relative to each one's folder
        assert ta.line("CWD ") == str(server_dir / "users" / "alice")
        assert tb.line("CWD ") == str(server_dir / "users" / "bob")
        assert ta.line("FILES ") == "alice-hero.toml"
        assert tb.line("FILES ") == "bob-hero.toml"
        assert len(host.sessions) == 2


async def test_an_unknown_key_and_a_wrong_users_key_are_refused(start_host, user_keys):
    host = await start_host()
    import asyncssh

    with pytest.raises(asyncssh.PermissionDenied):
        await connect(host, "alice", user_keys["stranger"])
    with pytest.raises(asyncssh.PermissionDenied):
        await connect(host, "alice", user_keys["bob"])  # bob's key is not alice's
    with pytest.raises(asyncssh.PermissionDenied):
        await connect(host, "nobody", user_keys["alice"])
    with pytest.raises(asyncssh.PermissionDenied):
        await connect(host, "../alice", user_keys["alice"])  # checked at login too


async def test_password_and_keyboard_interactive_are_refused(start_host, user_keys):
    import asyncssh

    host = await start_host()
    with pytest.raises(asyncssh.PermissionDenied):
        await connect(host, "alice", None, password="alice", preferred_auth="password")
    with pytest.raises(asyncssh.PermissionDenied):
        await connect(host, "alice", None, password="alice", preferred_auth="keyboard-interactive")


async def test_idle_session_is_ended_with_a_save(start_host, user_keys, server_dir):
    host = await start_host(idle_timeout=0.8)
    async with await connect(host, "alice", user_keys["alice"]) as conn:
        term = await Terminal.open(conn)
        await term.expect("READY")
        term.send("x")  # input resets the clock
        await term.expect("SAVED", timeout=5)
        result = await term.finish()
        assert result.exit_status == 0
        assert "no key pressed for 0.8 s" in result.stderr.decode()
    assert (server_dir / "users" / "alice" / "saves" / "saved-on-sigterm").exists()


async def test_the_extra_session_of_a_user_and_of_the_server_gets_a_message(start_host, user_keys):
    host = await start_host(max_sessions_per_user=2, max_sessions=3)
    async with await connect(host, "alice", user_keys["alice"]) as a, \
            await connect(host, "bob", user_keys["bob"]) as b:
        first, second = await Terminal.open(a), await Terminal.open(a)
        await asyncio.gather(first.expect("READY"), second.expect("READY"))
        third = await Terminal.open(a)
        result = await third.finish()
        assert result.exit_status == 1
        assert "already have 2 Horizon sessions open" in result.stderr.decode()

        bob1 = await Terminal.open(b)
        await bob1.expect("READY")
        bob2 = await Terminal.open(b)
        result = await bob2.finish()
        assert result.exit_status == 1 and "server is full (3 players)" in result.stderr.decode()

        first.send("q")  # a slot frees when a session ends
        await first.finish()
        bob3 = await Terminal.open(b)
        await bob3.expect("READY")


async def test_a_killed_app_ends_its_session_only(start_host, user_keys):
    host = await start_host()
    async with await connect(host, "alice", user_keys["alice"]) as a, \
            await connect(host, "bob", user_keys["bob"]) as b:
        ta, tb = await Terminal.open(a), await Terminal.open(b)
        await asyncio.gather(ta.expect("READY"), tb.expect("READY"))
        os.kill(int(ta.line("PID ")), signal.SIGKILL)
        result = await ta.finish()
        assert result.exit_signal is not None and result.exit_signal[0] == "KILL"
        tb.send("k")
        await tb.expect("KEY 'k'")
        again = await Terminal.open(a)  # the server still takes new sessions
        await again.expect("READY")


async def test_a_hung_app_is_killed_after_the_grace_time(start_host, user_keys, server_logging):
    hung = (FAKE_APP_COMMAND[0], FAKE_APP_COMMAND[1], "--ignore-term", "--saves-dir")
    host = await start_host(app_command=hung, stop_grace=0.5)
    async with await connect(host, "bob", user_keys["bob"]) as b:
        tb = await Terminal.open(b)
        await tb.expect("READY")
        conn = await connect(host, "alice", user_keys["alice"])
        ta = await Terminal.open(conn)
        await ta.expect("READY")
        pid = int(ta.line("PID "))
        conn.close()
        for _ in range(60):
            if len(host.sessions) == 1:
                break
            await asyncio.sleep(0.05)
        assert [s.user for s in host.sessions] == ["bob"]
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # gone, and reaped
        tb.send("z")
        await tb.expect("KEY 'z'")
    ends = [r.getMessage() for r in server_logging.records if "session end user=alice" in r.getMessage()]
    assert ends and "reason=client closed" in ends[0]


async def test_client_leaving_saves_the_app(start_host, user_keys, server_dir):
    host = await start_host()
    conn = await connect(host, "alice", user_keys["alice"])
    term = await Terminal.open(conn)
    await term.expect("READY")
    conn.close()
    await conn.wait_closed()
    for _ in range(100):
        if not host.sessions:
            break
        await asyncio.sleep(0.05)
    assert not host.sessions
    assert (server_dir / "users" / "alice" / "saves" / "saved-on-sigterm").exists()


async def test_stop_saves_and_closes_every_session(start_host, user_keys, server_dir, caplog):
    caplog.set_level(logging.INFO, logger="horizon.ssh")
    host = await start_host()
    async with await connect(host, "alice", user_keys["alice"]) as a, \
            await connect(host, "bob", user_keys["bob"]) as b:
        ta, tb = await Terminal.open(a), await Terminal.open(b)
        await asyncio.gather(ta.expect("READY"), tb.expect("READY"))
        await host.stop()
        for term in (ta, tb):
            result = await term.finish()
            assert result.exit_status == 0
            assert "shutting down; your game was saved" in result.stderr.decode()
    for name in ("alice", "bob"):
        assert (server_dir / "users" / name / "saves" / "saved-on-sigterm").exists()
    ends = [r.getMessage() for r in caplog.records if "session end" in r.getMessage()]
    assert len(ends) == 2 and all("reason=server shutdown" in e for e in ends)


async def test_host_key_is_the_same_after_a_restart(start_host, user_keys, server_dir):
    host = await start_host()
    async with await connect(host, "alice", user_keys["alice"]) as conn:
        first = conn.get_server_host_key().public_data
    await host.stop()
    path = host_key_path(server_dir)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    host = await start_host(users=())
    async with await connect(host, "alice", user_keys["alice"]) as conn:
        assert conn.get_server_host_key().public_data == first


@pytest.fixture
def server_logging(caplog):
    """The server's logging set-up (`configure_logging`), captured; restored afterwards."""
    asyncssh_logger = logging.getLogger("asyncssh")
    saved = asyncssh_logger.level
    configure_logging()
    caplog.set_level(logging.INFO)
    asyncssh_logger.setLevel(logging.WARNING)
    yield caplog
    asyncssh_logger.setLevel(saved)


async def test_logs_name_logins_refusals_and_ends_but_no_keys(start_host, user_keys, server_logging):
    caplog = server_logging
    host = await start_host()
    import asyncssh

    with pytest.raises(asyncssh.PermissionDenied):
        await connect(host, "alice", user_keys["stranger"])
    async with await connect(host, "alice", user_keys["alice"]) as conn:
        await conn.run("cat /etc/secret-typed-thing", check=False)
        term = await Terminal.open(conn)
        await term.expect("READY")
        term.send("hunter2")
        await term.expect("KEY 'hunter2'")
        term.send("q")
        await term.finish()
    text = "\n".join(r.getMessage() for r in caplog.records if r.name == "horizon.ssh")
    assert "refused user=alice addr=127.0.0.1:" in text and "reason=key not on the account" in text
    assert "login user=alice" in text and "reason=exec request" in text
    assert "session end user=alice" in text and "reason=app quit (status 3)" in text
    everything = "\n".join(r.getMessage() for r in caplog.records)
    for secret in ("hunter2", "secret-typed-thing"):
        assert secret not in everything
    for key in user_keys.values():
        blob = key.export_public_key("openssh").split()[1].decode()
        assert blob not in everything
