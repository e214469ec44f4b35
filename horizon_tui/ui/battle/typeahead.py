"""Type-ahead: keys that arrive while the turn changes hands are dropped, as Crawl flushes its key
buffer on such events, and the status line says so.

A turn is (whose, round) (R-8: one turn a round each). From the moment the player's turn ends
until `GUARD_S` after one of the player's turns is next on screen, a key that would act is
dropped: a habitual `.` a moment after an action that ended the turn by itself (no action or
movement left) no longer ends the *next* turn too, and keys mashed during enemy turns (`x`
among them) don't land on the player's. Looking (and leaving a cursor) is always allowed.
"""

from __future__ import annotations

import time
from collections.abc import Callable

GUARD_S = 0.6  # after a turn of the player's comes up, keys that act wait this long
HARMLESS = frozenset({"look", "cancel"})  # keys that never spend anything


class TypeAhead:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.turn: tuple[str, int] | None = None  # the player's turn on screen, None: not the player's
        self.shown_at = 0.0
        self.dropped = 0
        self.handed_over = False

    def observe(self, turn: tuple[str, int] | None) -> bool:
        """The screen shows `turn` (the player's: whose id and the round) or None (someone else's).
        True when a turn of the player's has just come up and keys are held back for a moment."""
        if turn == self.turn:
            return False
        self.handed_over = self.handed_over or self.turn is not None  # a turn of the player's has ended
        self.turn = turn
        self.shown_at = self.clock()
        return self.holding()

    def holding(self) -> bool:
        """Keys that act are held back now (the status line says "Your turn" only once they aren't)."""
        return self.handed_over and (self.turn is None or self.clock() - self.shown_at < GUARD_S)

    def accept(self, key: str) -> bool:
        """Whether `key` may act now; a dropped one is counted for the status line. Before any turn
        of the player's has ended (the battle's first), nothing is held back."""
        if key in HARMLESS:
            return True
        if self.holding():
            self.dropped += 1
            return False
        self.dropped = 0
        return True

    def notice(self) -> str:
        keys = "a key" if self.dropped == 1 else f"{self.dropped} keys"
        return f"{keys} pressed while the turn changed hands {'was' if self.dropped == 1 else 'were'} dropped"
