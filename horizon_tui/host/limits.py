"""Limits of the SSH host: failed logins per source address, connections not yet logged in
(per source and in all), and the terminal size a session may ask for and how often it changes.

Instances live on the `SSHHost` or a session (never module globals); clocks and randomness are
injectable for tests.
"""

from __future__ import annotations

import asyncio
import ipaddress
import math
import random
import time
from collections import deque
from collections.abc import Callable

import attrs


class LoginLimiter:
    """After `max_failures` failed logins from one address within `window` seconds, refuse that
    address for `ban` seconds. A connection counts once however many keys it tries, and is
    forgiven if it then logs in (a player whose agent offers a few other keys first)."""

    MAX_ADDRESSES = 10_000  # bound the memory an address-spraying client can make us hold

    def __init__(self, max_failures: int = 5, window: float = 60.0, ban: float = 60.0,
                 clock: Callable[[], float] = time.monotonic):
        self.max_failures = max_failures
        self.window = window
        self.ban = ban
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._banned_until: dict[str, float] = {}

    def blocked_for(self, address: str) -> float:
        """Seconds left before `address` may try again; 0 when it may."""
        until = self._banned_until.get(address)
        if until is None:
            return 0.0
        left = until - self._clock()
        if left <= 0:
            del self._banned_until[address]
            return 0.0
        return left

    def record_failure(self, address: str) -> bool:
        """Count one failed login; True when this failure starts a ban."""
        if self.max_failures <= 0:
            return False
        now = self._clock()
        recent = self._failures.get(address)
        if recent is None:
            if len(self._failures) >= self.MAX_ADDRESSES:
                self._prune(now)
            recent = self._failures[address] = deque()
        while recent and now - recent[0] > self.window:
            recent.popleft()
        recent.append(now)
        if len(recent) >= self.max_failures:
            self._banned_until[address] = now + self.ban
            recent.clear()
            return True
        return False

    def forgive(self, address: str) -> None:
        """Take back the latest failure of `address` (its connection logged in after all)."""
        recent = self._failures.get(address)
        if recent:
            recent.pop()

    def failures(self, address: str) -> int:
        now = self._clock()
        return sum(1 for t in self._failures.get(address, ()) if now - t <= self.window)

    def _prune(self, now: float) -> None:
        for address in [a for a, d in self._failures.items() if not d or now - d[-1] > self.window]:
            del self._failures[address]
        if len(self._failures) >= self.MAX_ADDRESSES:  # still full: drop the oldest half
            oldest = sorted(self._failures, key=lambda a: self._failures[a][-1])
            for address in oldest[: len(oldest) // 2]:
                del self._failures[address]
        for address in [a for a, until in self._banned_until.items() if until <= now]:
            del self._banned_until[address]


# --- before authentication: MaxStartups and PerSourceMaxStartups, as OpenSSH's sshd has ------

@attrs.frozen
class Startups:
    """OpenSSH's `MaxStartups start:rate:full`: past `start` unauthenticated connections a new one
    is dropped with probability `rate` %, rising linearly to 100 % at `full`."""

    start: int = 10
    rate: int = 30
    full: int = 100

    @classmethod
    def parse(cls, text: str) -> Startups:
        parts = text.split(":")
        try:
            numbers = [int(part) for part in parts]
        except ValueError:
            numbers = []
        if len(numbers) == 1:
            numbers = [numbers[0], 100, numbers[0]]
        if len(numbers) != 3:
            raise ValueError(f"{text!r} is not START:RATE:FULL (three whole numbers, e.g. 10:30:100)")
        start, rate, full = numbers
        if not (1 <= start <= full and 0 <= rate <= 100):
            raise ValueError(f"{text!r}: need 1 <= START <= FULL and RATE from 0 to 100 (e.g. 10:30:100)")
        return cls(start, rate, full)

    def __str__(self) -> str:
        return f"{self.start}:{self.rate}:{self.full}"

    def drop_chance(self, pending: int) -> float:
        """The chance (0 to 1) that a new connection is dropped with `pending` already waiting."""
        if pending < self.start:
            return 0.0
        if pending >= self.full:
            return 1.0
        return (self.rate + (100 - self.rate) * (pending - self.start) / (self.full - self.start)) / 100


def source_block(address: str, ipv4_prefix: int = 32, ipv6_prefix: int = 64) -> str:
    """The network block an address is counted in (OpenSSH's PerSourceNetBlockSize): one IPv4
    address, one IPv6 /64 (what one home or server is given). Anything else counts as itself."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    prefix = ipv4_prefix if ip.version == 4 else ipv6_prefix
    return str(ipaddress.ip_network(f"{ip}/{prefix}", strict=False))


class PreAuthGate:
    """Connections that have not logged in yet, per source block and in all.

    `admit` says why a new connection must be dropped, or counts it; `release` uncounts it once
    it has logged in or gone. A source may hold at most `per_source` such connections. Past
    `startups.start` in all, a new connection from a source that already has one waiting is
    dropped at random (`Startups.drop_chance`); a source with none waiting is never dropped
    early, only at `startups.full`. So one address flooding the host fills its own few places
    and never shuts another address out."""

    def __init__(self, startups: Startups = Startups(), per_source: int = 3,
                 rng: random.Random | None = None):
        if per_source >= startups.full:
            raise ValueError(f"per-source limit {per_source} must be below MaxStartups' full {startups.full}")
        self.startups = startups
        self.per_source = per_source
        self._rng = rng or random.Random()
        self._pending: dict[str, int] = {}
        self.total = 0

    def pending(self, address: str | None = None) -> int:
        return self.total if address is None else self._pending.get(source_block(address), 0)

    def admit(self, address: str) -> str | None:
        """None when the connection is counted; else the reason it is dropped (for the log)."""
        block = source_block(address)
        mine = self._pending.get(block, 0)
        if mine >= self.per_source:
            return f"{mine} connections from {block} not logged in yet"
        if self.total >= self.startups.full:
            return f"{self.total} connections not logged in yet (the most)"
        if mine and self._rng.random() < self.startups.drop_chance(self.total):
            return f"early drop at {self.total} connections not logged in yet"
        self._pending[block] = mine + 1
        self.total += 1
        return None

    def release(self, address: str) -> None:
        block = source_block(address)
        left = self._pending.get(block, 0) - 1
        if left < 0:
            return
        self.total -= 1
        if left:
            self._pending[block] = left
        else:
            del self._pending[block]


# --- the terminal a session may ask for -------------------------------------------------------

MAX_COLUMNS = 500  # wider or taller than any game screen needs: a 65535² terminal costs the app
MAX_ROWS = 200     # its memory and a CPU for every redraw


def clamp_terminal_size(width: int, height: int, pixwidth: int = 0, pixheight: int = 0):
    """The size the app gets: 0 (a client without a terminal) becomes 80x24, anything beyond
    MAX_COLUMNS x MAX_ROWS is cut to it; pixel sizes are scaled down with it."""
    columns = min(width, MAX_COLUMNS) if width > 0 else 80
    rows = min(height, MAX_ROWS) if height > 0 else 24
    pixwidth = pixwidth * columns // width if width > 0 and pixwidth > 0 else 0
    pixheight = pixheight * rows // height if height > 0 and pixheight > 0 else 0
    return (columns, rows, min(pixwidth, 65535), min(pixheight, 65535))


class ResizeThrottle:
    """At most one resize every `interval` seconds reaches `apply`; the last size asked for
    always arrives (a window being dragged gives the app a few sizes, not hundreds)."""

    def __init__(self, apply: Callable[[tuple], None], interval: float = 0.2,
                 loop: asyncio.AbstractEventLoop | None = None):
        self._apply = apply
        self.interval = interval
        self._loop = loop or asyncio.get_running_loop()
        self._last = -math.inf
        self._waiting: tuple | None = None
        self._handle: asyncio.TimerHandle | None = None
        self.applied = 0

    def submit(self, size: tuple) -> None:
        now = self._loop.time()
        if self._handle is None and now - self._last >= self.interval:
            self._do(size, now)
            return
        self._waiting = size
        if self._handle is None:
            self._handle = self._loop.call_at(self._last + self.interval, self._flush)

    def _flush(self) -> None:
        self._handle = None
        size, self._waiting = self._waiting, None
        if size is not None:
            self._do(size, self._loop.time())

    def _do(self, size: tuple, now: float) -> None:
        self._last = now
        self.applied += 1
        self._apply(size)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
