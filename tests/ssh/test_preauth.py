"""Before and around logging in: a flood of idle connections from one address
never locks out another, the login grace time, the per-account connection cap, a login that opens
no session, MaxStartups' random early drop; oversized terminals are clamped, resizes throttled."""

from __future__ import annotations

import asyncio
import random
import time

import pytest
from openssh_kit import OpenSSHTerminal, needs_openssh, run_ssh
from ssh_kit import Terminal, connect, reason_closed

from horizon_tui.host.limits import (
    MAX_COLUMNS,
    MAX_ROWS,
    PreAuthGate,
    ResizeThrottle,
    Startups,
    clamp_terminal_size,
    source_block,
)

FLOODER, PLAYER = "127.0.0.3", "127.0.0.2"


async def _idle_connections(port: int, count: int, source: str = FLOODER):
    """`count` TCP connections from `source` that never send a byte (bounded: the test closes them)."""
    opened = []
    for _ in range(count):
        opened.append(await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0)))
    return opened


async def _closed_within(reader: asyncio.StreamReader, seconds: float) -> bool:
    try:
        while await asyncio.wait_for(reader.read(4096), seconds):
            pass
        return True
    except (TimeoutError, ConnectionError):
        return False


def _close(connections) -> None:
    for _, writer in connections:
        writer.close()


async def _settle(host, predicate, seconds: float = 3.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate() and time.monotonic() < deadline:
        await asyncio.sleep(0.02)


@needs_openssh
async def test_200_idle_connections_from_one_address_never_lock_out_another(start_host, ssh_command, tmp_path):
    host = await start_host(login_timeout=5, max_startups=Startups(10, 30, 100), max_startups_per_source=3)
    flood = await _idle_connections(host.port, 200)
    try:
        await _settle(host, lambda: host.preauth.pending() == 3 and len(host.connections) == 3)
        assert host.preauth.pending(FLOODER) == 3 and host.preauth.pending() == 3  # 197 dropped
        began = time.monotonic()
        code, out = await run_ssh(ssh_command(host.port, "-o", "ConnectTimeout=5", source=PLAYER),
                                  tmp_path, "true")
        seconds = time.monotonic() - began
        assert code == 1 and "commands are not allowed" in out  # logged in, then exec refused
        assert seconds < 2.0
        async with OpenSSHTerminal(ssh_command(host.port, "-tt", source=PLAYER), tmp_path) as ssh:
            await ssh.expect("READY", timeout=2.0)  # and the game itself starts within 2 s
        assert host.preauth.pending(PLAYER) == 0
    finally:
        _close(flood)


async def _reconnect_until(port: int, deadline: list[float], budget: list[int]) -> None:
    """Reopen from the flooder's address as soon as the host drops it (bounded by time and count)."""
    while time.monotonic() < deadline[0] and budget[0] > 0:
        budget[0] -= 1
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(FLOODER, 0))
        except OSError:
            continue
        try:
            await asyncio.wait_for(reader.read(-1), max(deadline[0] - time.monotonic(), 0.01))
        except (TimeoutError, ConnectionError):
            pass
        finally:
            writer.close()


@needs_openssh
async def test_a_flooder_reconnecting_as_fast_as_it_can_still_never_locks_out_another(
        start_host, ssh_command, tmp_path):
    host = await start_host(login_timeout=5)
    budget = [3000]
    deadline = [time.monotonic() + 3.0]
    # 20 reconnecting at once, from this same event loop as the host: the host pays for the
    # flood twice over here (by hand, bench_ssh_flood.py --reconnect: median 0.38 s with 200)
    flood = [asyncio.ensure_future(_reconnect_until(host.port, deadline, budget)) for _ in range(20)]
    try:
        await asyncio.sleep(0.3)
        began = time.monotonic()
        code, out = await run_ssh(ssh_command(host.port, source=PLAYER), tmp_path, "true")
        assert code == 1 and "commands are not allowed" in out
        assert time.monotonic() - began < 2.5
        assert host.preauth.pending(FLOODER) <= 3
    finally:
        deadline[0] = 0  # the flood stops with the login
        for job in flood:
            job.cancel()
        await asyncio.gather(*flood, return_exceptions=True)
    assert budget[0] <= 3000 - 20 - 17  # the 17 dropped each came back at least once


async def test_the_flooders_own_places_close_after_the_login_grace_time(start_host, user_keys):
    host = await start_host(login_timeout=0.5, max_startups_per_source=3)
    flood = await _idle_connections(host.port, 5)
    try:
        began = time.monotonic()
        dropped = await asyncio.gather(*(_closed_within(reader, 0.25) for reader, _ in flood))
        assert dropped == [False, False, False, True, True]  # the 4th and 5th at once
        waited = await asyncio.gather(*(_closed_within(reader, 2.0) for reader, _ in flood[:3]))
        assert all(waited) and 0.45 < time.monotonic() - began < 1.5  # LoginGraceTime 0.5 s
        await _settle(host, lambda: host.preauth.pending() == 0)
        assert host.preauth.pending() == 0 and not host.connections
    finally:
        _close(flood)
    async with await connect(host, "alice", user_keys["alice"]):  # the address may try again
        pass


@needs_openssh
async def test_a_login_that_opens_no_session_is_closed_after_the_grace_time(start_host, user_keys,
                                                                              ssh_command, tmp_path):
    host = await start_host(login_timeout=0.5)
    began = time.monotonic()
    code, out = await run_ssh(ssh_command(host.port, "-N", "-o", "LogLevel=INFO"), tmp_path)  # no session
    assert code == 255 and "No session was opened within 0.5 s." in out
    assert 0.45 < time.monotonic() - began < 3
    async with await connect(host, "alice", user_keys["alice"]) as playing:
        term = await Terminal.open(playing)
        await term.expect("READY")
        await asyncio.sleep(0.8)  # a connection with a game keeps it
        term.send("x")
        await term.expect("KEY 'x'")


async def test_one_account_holds_at_most_n_connections_with_or_without_sessions(start_host, user_keys):
    host = await start_host(max_connections_per_user=2, login_timeout=5)
    first = await connect(host, "alice", user_keys["alice"])
    second = await connect(host, "alice", user_keys["alice"])
    try:
        term = await Terminal.open(first)  # one with a game, one without: both count
        await term.expect("READY")
        reason = await reason_closed(host, "alice", user_keys["alice"])
        assert reason.startswith("You already have 2 connections to Horizon open, the most "
                                 "allowed; close one and try again.")
        async with await connect(host, "bob", user_keys["bob"]):  # another account is not held up
            pass
    finally:
        second.close()
        await second.wait_closed()
    await _settle(host, lambda: host.user_connections("alice") == 1)
    async with await connect(host, "alice", user_keys["alice"]):  # a freed place is taken again
        pass
    first.close()


@needs_openssh
async def test_openssh_is_told_about_the_per_account_cap(start_host, ssh_command, tmp_path, user_keys):
    host = await start_host(max_connections_per_user=1)
    async with await connect(host, "alice", user_keys["alice"]) as held:
        term = await Terminal.open(held)
        await term.expect("READY")
        code, out = await run_ssh(ssh_command(host.port, "-o", "LogLevel=INFO"), tmp_path, "true")
        assert code == 255 and "You already have 1 connection to Horizon open" in out


def test_maxstartups_drops_at_random_past_start_but_never_a_first_connection():
    gate = PreAuthGate(Startups(start=4, rate=50, full=10), per_source=3, rng=random.Random(7))
    assert [gate.admit("10.0.0.1") for _ in range(3)] == [None] * 3
    assert gate.admit("10.0.0.1") == "3 connections from 10.0.0.1/32 not logged in yet"
    for n in range(2, 5):
        assert gate.admit(f"10.0.0.{n}") is None
    assert gate.total == 6  # past START: 50 % at 4, rising to 100 % at 10
    assert gate.startups.drop_chance(6) == pytest.approx((50 + 50 * 2 / 6) / 100)
    for n in range(5, 9):
        assert gate.admit(f"10.0.1.{n}") is None  # an address with none waiting is never dropped early
    assert gate.total == 10
    assert gate.admit("10.0.9.9") == "10 connections not logged in yet (the most)"  # only at FULL
    gate.release("10.0.0.1")
    gate.release("10.0.0.1")
    assert (gate.pending("10.0.0.1"), gate.total) == (1, 8)
    gate.release("10.0.0.9")  # never counted: nothing changes
    assert gate.total == 8


def test_the_early_drop_rate_is_the_one_asked_for():
    gate = PreAuthGate(Startups(start=2, rate=30, full=100), per_source=99, rng=random.Random(1))
    gate.admit("a")
    gate.admit("a")  # 2 waiting: at START, 30 %
    dropped = 0
    for _ in range(2000):
        if gate.admit("a") is None:
            gate.release("a")
        else:
            dropped += 1
    assert 0.26 < dropped / 2000 < 0.34


def test_sources_are_counted_per_ipv4_address_and_per_ipv6_64():
    assert source_block("127.0.0.3") != source_block("127.0.0.2")
    assert source_block("2001:db8::1") == source_block("2001:db8::ffff:1") == "2001:db8::/64"
    assert source_block("::ffff:192.0.2.7") == "192.0.2.7/32"
    assert source_block("not an address") == "not an address"


@pytest.mark.parametrize("text, expected", [("10:30:100", Startups(10, 30, 100)), ("5", Startups(5, 100, 5))])
def test_maxstartups_is_written_as_openssh_writes_it(text, expected):
    assert Startups.parse(text) == expected


@pytest.mark.parametrize("text", ["10:30", "a:b:c", "10:30:5", "10:130:100", "0:30:100", ""])
def test_bad_maxstartups_say_what_is_allowed(text):
    with pytest.raises(ValueError, match="START"):
        Startups.parse(text)


def test_terminal_sizes_are_clamped_to_what_a_game_needs():
    assert (MAX_COLUMNS, MAX_ROWS) == (500, 200)
    assert clamp_terminal_size(65535, 65535, 65535, 65535) == (500, 200, 500, 200)
    assert clamp_terminal_size(0, 0) == (80, 24, 0, 0)
    assert clamp_terminal_size(132, 43, 1056, 688) == (132, 43, 1056, 688)


async def test_an_oversized_terminal_reaches_the_app_clamped(start_host, user_keys):
    host = await start_host()
    async with await connect(host, "alice", user_keys["alice"]) as conn:
        term = await Terminal.open(conn, size=(65535, 65535))
        await term.expect("READY")
        assert term.line("SIZE ") == "500x200"
        term.process.change_terminal_size(4000, 3000)
        await term.expect("SIZE 500x200\r\n")
        term.process.change_terminal_size(90, 30)
        await term.expect("SIZE 90x30")


@needs_openssh
async def test_openssh_on_a_huge_terminal_gets_500x200(start_host, ssh_command, tmp_path):
    host = await start_host()
    async with OpenSSHTerminal(ssh_command(host.port, "-tt"), tmp_path, size=(3000, 1000)) as ssh:
        await ssh.expect("READY")
        assert "SIZE 500x200" in ssh.text


async def test_a_storm_of_resizes_reaches_the_app_as_a_few_ending_with_the_last(start_host, user_keys):
    host = await start_host(resize_interval=0.2)
    async with await connect(host, "alice", user_keys["alice"]) as conn:
        term = await Terminal.open(conn)
        await term.expect("READY")
        (session,) = host.sessions
        for width in range(100, 300):  # 200 window-change requests at once
            term.process.change_terminal_size(width, 50)
        await term.expect("SIZE 299x50")
        await asyncio.sleep(0.3)
        assert session._resizes.applied <= 3


async def test_resize_throttle_lets_one_through_per_interval_and_keeps_the_last():
    applied = []
    throttle = ResizeThrottle(applied.append, interval=0.1)
    throttle.submit((1, 1))
    throttle.submit((2, 2))
    throttle.submit((3, 3))
    assert applied == [(1, 1)]
    await asyncio.sleep(0.15)
    assert applied == [(1, 1), (3, 3)]
    await asyncio.sleep(0.15)
    throttle.submit((4, 4))  # after a quiet interval: at once
    assert applied[-1] == (4, 4)
