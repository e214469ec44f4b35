"""PROXY protocol v2 from trusted balancers (`serve-ssh --proxy-protocol-from`): the limits per
address count the address the balancer reports; a header from anyone else, or none from a
balancer, is refused. The balancer is a small asyncio relay written here, in front of the real
host, with the real OpenSSH client behind it."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import struct

import pytest
from openssh_kit import needs_openssh, run_ssh

from horizon_tui.host.ssh.proxy_protocol import (
    SIGNATURE,
    ProxyError,
    body_length,
    source_address,
    trusted_networks,
)


def proxy_header(source: str, source_port: int = 40000, *, command: int = 1, version: int = 2) -> bytes:
    """HAProxy's v2 header for a TCP client at `source` (IPv4 or IPv6) reaching port 2222."""
    ip = ipaddress.ip_address(source)
    family = 0x11 if ip.version == 4 else 0x21
    destination = ipaddress.ip_address("10.0.0.1" if ip.version == 4 else "fd00::1")
    body = ip.packed + destination.packed + struct.pack("!HH", source_port, 2222)
    return SIGNATURE + bytes([(version << 4) | command, family]) + struct.pack("!H", len(body)) + body


def test_the_header_names_the_client_ipv4_or_ipv6_and_local_means_the_balancer():
    for address in ("198.51.100.7", "2001:db8::42"):
        header = proxy_header(address)
        assert body_length(header[:16]) == len(header) - 16
        assert source_address(header[:16], header[16:]) == address
    local = proxy_header("198.51.100.7", command=0)
    assert source_address(local[:16], local[16:]) is None  # a health check: the balancer's own address
    with pytest.raises(ProxyError, match="version 1"):
        body_length(proxy_header("198.51.100.7", version=1)[:16])
    with pytest.raises(ProxyError, match="at most 1024"):
        body_length(SIGNATURE + b"\x21\x11" + struct.pack("!H", 60000))
    with pytest.raises(ProxyError, match="no PROXY protocol v2 header"):
        body_length(b"SSH-2.0-OpenSSH_9\r\n"[:16])
    with pytest.raises(ValueError, match="'example.org' is not an IP address"):
        trusted_networks(["10.0.0.5", "example.org"])


class Balancer:
    """A TCP relay as HAProxy's `send-proxy-v2` would be: each connection it takes goes on to the
    host behind a PROXY v2 header naming `reports` (the client's address, as the balancer saw it)."""

    def __init__(self, host_port: int):
        self.host_port = host_port
        self.reports = "198.51.100.1"
        self.server: asyncio.AbstractServer | None = None
        self.tasks: set[asyncio.Task] = set()

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._relay, "127.0.0.1", 0)
        return self.server.sockets[0].getsockname()[1]

    async def _relay(self, client_reader, client_writer) -> None:
        host_reader, host_writer = await asyncio.open_connection("127.0.0.1", self.host_port)
        host_writer.write(proxy_header(self.reports))

        async def pipe(reader, writer):
            with contextlib.suppress(ConnectionError):
                while data := await reader.read(65536):
                    writer.write(data)
                    await writer.drain()
            writer.close()

        await asyncio.gather(pipe(client_reader, host_writer), pipe(host_reader, client_writer))

    async def stop(self) -> None:
        self.server.close()


async def _pending(port: int, header: bytes = b"", source: str = "127.0.0.1"):
    """A connection that says its SSH version and then waits (not logged in)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    writer.write(header + b"SSH-2.0-Waiting\r\n")
    return reader, writer


async def _until(predicate, seconds: float = 5.0) -> None:
    async def wait():
        while not predicate():
            await asyncio.sleep(0.02)

    await asyncio.wait_for(wait(), seconds)


async def _refused(reader: asyncio.StreamReader) -> bool:
    """Closed without a byte of SSH (the host never began)."""
    try:
        return await asyncio.wait_for(reader.read(100), 5) == b""
    except ConnectionError:
        return True


async def _closed(reader: asyncio.StreamReader) -> bool:
    """Closed by the host within a few seconds (after its banner and a disconnect, say)."""
    try:
        async with asyncio.timeout(5):
            while await reader.read(4096):
                pass
        return True
    except ConnectionError:
        return True
    except TimeoutError:
        return False


async def test_the_limits_count_the_address_the_balancer_reports(start_host):
    host = await start_host(proxy_protocol_from=("127.0.0.1",), max_startups_per_source=2)
    opened = []
    try:
        for client in ("198.51.100.1", "198.51.100.2", "198.51.100.3", "198.51.100.1"):
            opened.append(await _pending(host.port, proxy_header(client)))
        await _until(lambda: host.preauth.total == 4)  # one balancer, four waiting: none dropped
        assert host.preauth.pending("198.51.100.1") == 2 and host.preauth.pending("127.0.0.1") == 0
        opened.append(await _pending(host.port, proxy_header("198.51.100.1")))
        assert await _closed(opened[-1][0])  # that client's own third: past --max-startups-per-source
        assert host.preauth.pending("198.51.100.1") == 2
        # a balancer's connection without a header would count as the balancer: refused
        bare = await _pending(host.port)
        assert await _refused(bare[0])
        # a header from an address that is no trusted balancer is a lie anyone could tell: refused
        liar = await _pending(host.port, proxy_header("198.51.100.9"), source="127.0.0.2")
        assert await _refused(liar[0])
        # from anywhere else plain SSH goes on as ever
        plain_reader, plain_writer = await _pending(host.port, source="127.0.0.2")
        assert (await asyncio.wait_for(plain_reader.readline(), 5)).startswith(b"SSH-2.0-")
        plain_writer.close()
        for _, writer in (bare, liar):
            writer.close()
    finally:
        for _, writer in opened:
            writer.close()


async def test_a_header_that_never_comes_is_dropped_at_the_login_grace_time(start_host):
    host = await start_host(proxy_protocol_from=("127.0.0.0/8",), login_timeout=1.0)
    reader, writer = await asyncio.open_connection("127.0.0.1", host.port)
    writer.write(SIGNATURE[:6])  # half a signature, then nothing
    assert await _refused(reader)
    writer.close()
    reader, writer = await asyncio.open_connection("127.0.0.1", host.port)
    writer.write(SIGNATURE + b"\x21\x11\x00\x04abcd")  # and a damaged one: 4 bytes for two addresses
    assert await _refused(reader)
    writer.close()


@needs_openssh
async def test_openssh_through_a_balancer_is_banned_by_its_own_address_not_the_balancers(
        start_host, ssh_command, tmp_path):
    host = await start_host(proxy_protocol_from=("127.0.0.1",), max_failed_logins=1)
    balancer = Balancer(host.port)
    port = await balancer.start()
    try:
        balancer.reports = "198.51.100.1"
        code, out = await run_ssh(ssh_command(port, user="bob"), tmp_path)  # alice's key: a failed login
        assert code == 255 and "Permission denied" in out
        code, out = await run_ssh(ssh_command(port, "-o", "LogLevel=INFO"), tmp_path)
        assert code == 255 and "Too many failed logins from 198.51.100.1" in out  # that client is banned
        balancer.reports = "198.51.100.2"  # another player behind the same balancer is not
        code, out = await run_ssh(ssh_command(port, "-T"), tmp_path)
        assert code == 1 and "needs a terminal" in out  # logged in (and told a game needs `ssh -t`)
    finally:
        await balancer.stop()
