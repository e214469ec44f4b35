"""The PROXY protocol, version 2 (HAProxy's binary header), from the balancers the host trusts.

Behind a balancer or jump host every player arrives from the balancer's address, so the limits
per address (`host.limits`: pending logins, failed logins) would count them all as one. A balancer
that speaks the PROXY protocol sends, before the SSH stream, a header naming the client's own
address; the host then counts that. Only the addresses in `serve-ssh --proxy-protocol-from` may
send one: a header from any other address is refused (anyone could claim any address), and a
connection from a listed address without one is refused too (it would count as the balancer).

The v2 header (HAProxy's "The PROXY protocol", section 2.2): a 12-byte signature; a byte of version
(high nibble, 2) and command (low: 0 LOCAL, the balancer's own health check: its own address
counts; 1 PROXY); a byte of family (high: 1 IPv4, 2 IPv6, 3 Unix, 0 unspecified) and transport
(low: 1 stream, 2 datagram); a 16-bit big-endian length of what follows: the addresses (IPv4 4+4
bytes and two ports, IPv6 16+16 and two ports), then TLVs, which the host skips.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
import struct
from collections.abc import Callable, Iterable

SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"
HEADER = 16  # the signature, version/command, family/transport, length
MAX_BODY = 1024  # addresses and TLVs: HAProxy sends well under this; more is refused, never read
ADDRESS_SIZES = {0x1: 12, 0x2: 36}  # IPv4, IPv6: source, destination, the two ports


class ProxyError(ValueError):
    """A connection the host refuses before SSH (the reason is for the host's log)."""


def trusted_networks(addresses: Iterable[str]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """`--proxy-protocol-from`'s addresses and networks (10.0.0.5, 10.0.0.0/24, fd00::/64).
    ValueError naming the one that isn't an address."""
    networks = []
    for item in addresses:
        item = item.strip()
        if not item:
            continue
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            raise ValueError(f"{item[:60]!r} is not an IP address or network (e.g. 10.0.0.5 or 10.0.0.0/24)") from None
    return tuple(networks)


def is_trusted(address: str, networks) -> bool:
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return any(ip in network for network in networks if network.version == ip.version)


def body_length(header: bytes) -> int:
    """The length of what follows a v2 header's first 16 bytes; ProxyError if they aren't one."""
    if len(header) != HEADER or not header.startswith(SIGNATURE):
        raise ProxyError("no PROXY protocol v2 header")
    version, command = header[12] >> 4, header[12] & 0x0F
    if version != 2:
        raise ProxyError(f"PROXY protocol version {version}, not 2")
    if command not in (0, 1):
        raise ProxyError(f"PROXY protocol command {command} (LOCAL 0 or PROXY 1)")
    (length,) = struct.unpack("!H", header[14:16])
    if length > MAX_BODY:
        raise ProxyError(f"a PROXY header of {length} bytes (at most {MAX_BODY})")
    return length


def source_address(header: bytes, body: bytes) -> str | None:
    """The client's address the header reports; None for LOCAL (the balancer's own connection)
    or an address family with no IP (Unix, unspecified): then the balancer's address counts."""
    if header[12] & 0x0F == 0:
        return None
    family = header[13] >> 4
    size = ADDRESS_SIZES.get(family)
    if size is None:
        return None
    if len(body) < size:
        raise ProxyError(f"a PROXY header's addresses need {size} bytes, it has {len(body)}")
    raw = body[:4] if family == 0x1 else body[:16]
    return str(ipaddress.ip_address(raw))


async def _receive_exactly(loop: asyncio.AbstractEventLoop, sock: socket.socket, count: int) -> bytes:
    data = b""
    while len(data) < count:
        chunk = await loop.sock_recv(sock, count - len(data))
        if not chunk:
            raise ProxyError("closed before the PROXY header was complete")
        data += chunk
    return data


async def _starts_with_signature(loop: asyncio.AbstractEventLoop, sock: socket.socket) -> bool:
    """Whether the first bytes the client sends are a PROXY header's, without taking them: an
    SSH client sends its "SSH-2.0-…" line at once, which differs from the signature at once."""
    while True:
        await _readable(loop, sock)
        try:
            seen = sock.recv(len(SIGNATURE), socket.MSG_PEEK)
        except BlockingIOError:
            continue
        if not seen:
            raise ProxyError("closed before saying anything")
        if not SIGNATURE.startswith(seen):
            return False
        if len(seen) == len(SIGNATURE):
            return True


async def _readable(loop: asyncio.AbstractEventLoop, sock: socket.socket) -> None:
    ready = loop.create_future()
    fd = sock.fileno()
    loop.add_reader(fd, lambda: ready.done() or ready.set_result(None))
    try:
        await ready
    finally:
        loop.remove_reader(fd)


async def real_address(sock: socket.socket, peer: str, networks, timeout: float) -> str:
    """The address the host's limits count for a connection accepted on `sock` from `peer`: the
    one a trusted balancer's header reports, else `peer`. Reads the header (and nothing after it).
    ProxyError if the connection breaks the rule: a header from an untrusted address, or none
    from a trusted one, or a damaged one, or none within `timeout` seconds."""
    loop = asyncio.get_running_loop()
    try:
        async with asyncio.timeout(timeout):
            if not is_trusted(peer, networks):
                if await _starts_with_signature(loop, sock):
                    raise ProxyError(f"a PROXY header from {peer}, which is not a trusted balancer")
                return peer
            header = await _receive_exactly(loop, sock, HEADER)
            body = await _receive_exactly(loop, sock, body_length(header))
            return source_address(header, body) or peer
    except TimeoutError:
        raise ProxyError(f"no PROXY header from {peer} within {timeout:g} s") from None
    except OSError as exc:
        raise ProxyError(f"{peer}: {exc.strerror or exc}") from None


class ProxiedListener:
    """A listening socket for a host that takes the PROXY protocol: each connection's address is
    settled (`real_address`) before `on_connection(sock, address)` hands it to SSH. At most
    `max_waiting` connections may be settling at once; more are closed at once (a flood)."""

    def __init__(self, host: str, port: int, networks, *, timeout: float, max_waiting: int,
                 on_connection: Callable[[socket.socket, str], None], on_refused: Callable[[str, str], None]):
        self.networks = networks
        self.timeout = timeout
        self.max_waiting = max_waiting
        self.on_connection = on_connection
        self.on_refused = on_refused
        self.sockets = [socket.create_server((host, port), family=_family(host), backlog=128,
                                             reuse_port=False)]
        for sock in self.sockets:
            sock.setblocking(False)
        self._tasks: set[asyncio.Task] = set()
        self._accepting = [asyncio.ensure_future(self._accept(sock)) for sock in self.sockets]

    def get_port(self) -> int:
        return self.sockets[0].getsockname()[1]

    def close(self) -> None:
        for task in (*self._accepting, *self._tasks):
            task.cancel()
        for sock in self.sockets:
            sock.close()

    async def _accept(self, listening: socket.socket) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                sock, peer = await loop.sock_accept(listening)
            except OSError:  # out of descriptors, a connection reset while queued: go on
                await asyncio.sleep(0.05)
                continue
            sock.setblocking(False)
            if len(self._tasks) >= self.max_waiting:
                sock.close()
                self.on_refused(str(peer[0]), "too many connections waiting for a PROXY header")
                continue
            task = asyncio.ensure_future(self._settle(sock, str(peer[0])))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _settle(self, sock: socket.socket, peer: str) -> None:
        try:
            address = await real_address(sock, peer, self.networks, self.timeout)
        except ProxyError as exc:
            sock.close()
            self.on_refused(peer, str(exc))
            return
        except BaseException:
            sock.close()
            raise
        self.on_connection(sock, address)


def _family(host: str) -> socket.AddressFamily:
    with contextlib.suppress(ValueError):
        if ipaddress.ip_address(host).version == 6:
            return socket.AF_INET6
    return socket.AF_INET
