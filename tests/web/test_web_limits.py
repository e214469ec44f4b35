"""Every limit of the host counts SSH and the browser together: games per account, games in all,
logins in progress per address, failed-login bans, the login grace time and connections per
account. Each test mixes an SSH connection and a browser's."""

from __future__ import annotations

import asyncio
import contextlib
import time

import asyncssh
import pytest
from ssh_kit import Terminal, connect, reason_closed
from web_kit import SocketTerminal, log_in, login_link



async def _settle(predicate, seconds: float = 3.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate() and time.monotonic() < deadline:
        await asyncio.sleep(0.02)


async def _idle_ssh_connections(host, count: int):
    """TCP connections to the SSH port that never log in: each is a login in progress."""
    opened = [await asyncio.open_connection("127.0.0.1", host.port) for _ in range(count)]
    await _settle(lambda: host.preauth.pending("127.0.0.1") == count)
    assert host.preauth.pending("127.0.0.1") == count
    return opened


async def _stalled_login_post(host, token: str):
    """A POST of the login form whose body never arrives: a web login in progress."""
    reader, writer = await asyncio.open_connection("127.0.0.1", host.web.port)
    body = f"token={token}".encode()
    writer.write(b"POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: " + host.web.origin.encode()
                 + b"\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: "
                 + str(len(body) + 100).encode() + b"\r\n\r\n" + body)
    await writer.drain()
    return reader, writer


async def _post_token(http, host, token: str):
    async with http.post(f"{host.web.origin}/login", data={"token": token},
                         headers={"Origin": host.web.origin}, allow_redirects=False) as response:
        return response.status, await response.text()


@contextlib.asynccontextmanager
async def playing_in_a_browser_and_over_ssh(http, host, user: str, key):
    """`user` with a game in a browser and one over SSH: (the browser's game, the SSH connection)."""
    await log_in(http, host, user)
    web_game = await SocketTerminal.open(http, host)
    await web_game.expect("READY")
    async with await connect(host, user, key) as conn:
        ssh_game = await Terminal.open(conn)
        await ssh_game.expect("READY")
        yield web_game, conn


async def test_the_games_per_account_cap_counts_ssh_and_web_together(start_host, http, user_keys):
    host = await start_host(max_sessions_per_user=2)
    async with playing_in_a_browser_and_over_ssh(http, host, "alice", user_keys["alice"]):
        third = await SocketTerminal.open(http, host)
        assert "already have 2 Horizon sessions" in await third.refusal()
        assert len(host.sessions) == 2


async def test_games_in_all_count_ssh_and_web_together(start_host, http, user_keys):
    host = await start_host(max_sessions=2)
    async with await connect(host, "alice", user_keys["alice"]) as conn:
        ssh_game = await Terminal.open(conn)
        await ssh_game.expect("READY")
        await log_in(http, host, "bob")
        web_game = await SocketTerminal.open(http, host)
        await web_game.expect("READY")
        third_web = await SocketTerminal.open(http, host)
        assert "The Horizon server is full (2 players)" in await third_web.refusal()
        third_ssh = await Terminal.open(conn)
        result = await third_ssh.finish()
        assert result.exit_status == 1 and "server is full (2 players)" in result.stderr.decode()
        assert len(host.sessions) == 2


async def test_the_games_per_account_cap_refuses_ssh_when_browsers_hold_it(start_host, http, user_keys):
    host = await start_host(max_sessions_per_user=2)
    await log_in(http, host, "alice")
    games = [await SocketTerminal.open(http, host) for _ in range(2)]
    await asyncio.gather(*(game.expect("READY") for game in games))
    async with await connect(host, "alice", user_keys["alice"]) as conn:
        third = await Terminal.open(conn)
        result = await third.finish()
        assert result.exit_status == 1 and "already have 2 Horizon sessions open" in result.stderr.decode()


async def test_ssh_logins_in_progress_hold_the_addresss_places_for_a_web_login(start_host, http):
    host = await start_host(max_startups_per_source=2, login_timeout=5)
    token = login_link(host, "alice").rsplit("/", 1)[1]
    waiting = await _idle_ssh_connections(host, 2)
    try:
        status, text = await _post_token(http, host, token)
        assert status == 503 and "Too many logins in progress from your address" in text
        assert host.web.store.link_user(token) == "alice"  # not spent: it works once the address is free
    finally:
        for _, writer in waiting:
            writer.close()
    await _settle(lambda: host.preauth.pending() == 0)
    status, _text = await _post_token(http, host, token)
    assert status == 303


async def test_web_logins_in_progress_hold_the_addresss_places_for_ssh(start_host, user_keys):
    host = await start_host(max_startups_per_source=2, login_timeout=5)
    stalled = [await _stalled_login_post(host, login_link(host, "bob").rsplit("/", 1)[1]) for _ in range(2)]
    try:
        await _settle(lambda: host.preauth.pending("127.0.0.1") == 2)
        assert host.preauth.pending("127.0.0.1") == 2
        reason = await reason_closed(host, "alice", user_keys["alice"])
        assert "busy" in reason or reason.startswith("closed")
    finally:
        for _, writer in stalled:
            writer.close()
    await _settle(lambda: host.preauth.pending() == 0)
    async with await connect(host, "alice", user_keys["alice"]):
        pass


async def test_a_web_login_whose_form_never_arrives_is_closed_after_the_login_grace_time(start_host, user_keys):
    host = await start_host(max_startups_per_source=1, login_timeout=0.5)
    token = login_link(host, "alice").rsplit("/", 1)[1]
    reader, writer = await _stalled_login_post(host, token)
    try:
        began = time.monotonic()
        await _settle(lambda: host.preauth.pending("127.0.0.1") == 1)
        assert host.preauth.pending("127.0.0.1") == 1  # its place: SSH from the address waits
        answer = await asyncio.wait_for(reader.read(), 5)
        assert time.monotonic() - began < 3
        assert answer == b"" or answer.startswith(b"HTTP/1.1 408")
    finally:
        writer.close()
    assert host.preauth.pending() == 0
    assert host.web.store.link_user(token) == "alice"  # nothing spent
    async with await connect(host, "alice", user_keys["alice"]):  # the place is free again
        pass


async def test_failed_logins_by_ssh_and_by_link_add_up_to_one_ban(start_host, http, user_keys):
    host = await start_host(max_failed_logins=3)
    for _ in range(2):  # alice's name with bob's key
        with pytest.raises(asyncssh.PermissionDenied):
            await connect(host, "alice", user_keys["bob"])
    assert host.limiter.failures("127.0.0.1") == 2
    async with http.get(f"{host.web.origin}/login/{'A' * 43}") as page:
        assert page.status == 403
    async with http.get(login_link(host, "alice")) as page:  # a good link: the address is banned
        assert page.status == 429
    reason = await reason_closed(host, "alice", user_keys["alice"])
    assert reason.startswith("Too many failed logins from 127.0.0.1")


async def test_connections_per_account_count_ssh_and_browser_sockets(start_host, http, user_keys):
    host = await start_host(max_connections_per_user=2, login_timeout=5)
    async with playing_in_a_browser_and_over_ssh(http, host, "alice", user_keys["alice"]) as (web_game, _conn):
        assert host.user_connections("alice") == 2
        reason = await reason_closed(host, "alice", user_keys["alice"])
        assert reason.startswith("You already have 2 connections to Horizon open, the most allowed")
        third = await SocketTerminal.open(http, host)
        assert "You already have 2 connections to Horizon open" in await third.refusal()
        assert len(host.sessions) == 2
        async with await connect(host, "bob", user_keys["bob"]):  # another account is not held up
            pass
    await web_game.ws.close()
    await _settle(lambda: host.user_connections("alice") == 0)
    assert host.user_connections("alice") == 0
    async with await connect(host, "alice", user_keys["alice"]):  # the places are free again
        pass
