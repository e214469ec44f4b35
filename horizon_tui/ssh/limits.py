"""Limits shared by the connections of one server: failed logins per source address.

An instance lives on the `SSHHost` (never a module global); the clock is injectable for tests.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable


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
