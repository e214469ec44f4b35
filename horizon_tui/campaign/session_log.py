"""The session log of a campaign as an immutable sequence of lines that reads its stored part on
demand: opening a campaign of 100,000 lines reads none of them.

A `SessionLog` is the first `kept` lines of what was stored when the campaign was opened (a
`StoredLines`: pages read from the repository when asked for, and the day, kind and position
look-ups answered by SQL, storage.campaigns) followed by the lines added since (`tail`, in
memory). A GM action appends to the tail, so the value it makes shares the stored part with the
one before, and comparing the two (`common_prefix`) reads nothing. Without a store (a campaign
read from a file, or built in a test) every line is in the tail.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict
from collections.abc import Collection, Iterator, Sequence
from typing import Any, overload

import attrs

from horizon_tui.errors import DataError
from horizon_tui.storage.campaigns import CampaignRepository, day_positions_back

PAGE = 256  # lines read from storage at once
PAGES_KEPT = 64  # decoded pages kept: the lines in view and today's, never a whole long log


@attrs.frozen
class LogEntry:
    """One line of the session log: what happened on which in-game day.

    `kind`: check, reaction, battle, xp, points, ability, day, npc, party, rules, roll, note.
    `data` is plain JSON (what the export and the daily limits read)."""

    day: int
    kind: str
    text: str
    data: dict[str, Any] = attrs.field(factory=dict)


def entry_of(line: Any, position: int, where: str) -> LogEntry:
    """A stored line as a LogEntry; one of the wrong shape (a damaged or hand-edited database) is a
    line saying so, so a screen that draws it shows the problem instead of crashing."""
    if (type(line) is dict and type(line.get("day")) is int and type(line.get("kind")) is str
            and type(line.get("text")) is str and type(line.get("data") or {}) is dict):
        return LogEntry(line["day"], line["kind"], line["text"], line.get("data") or {})
    return unreadable(position, f"{where}: log.{position}: not a log line this version can read")


def unreadable(position: int, problem: str) -> LogEntry:
    return LogEntry(0, "damaged", f"(line {position + 1:,} of the session log can't be read: {problem})")


class StoredLines:
    """The log as stored when the campaign was opened: `count` lines, read a page at a time
    (PAGES_KEPT pages kept) and looked up by day and kind in the store, a look-up over all `count`
    lines cached. It is made once, at the opening (`campaign_files`). An undo that takes stored
    lines back (storage deletes them) cuts the `SessionLog` to fewer (`kept`): the lines before
    `kept` are still these, looked up below `count` uncached, and what is written at the positions
    after is the log's tail, in memory, never read from here."""

    def __init__(self, store: CampaignRepository, slug: str, count: int, where: str):
        self.store, self.slug, self.count, self.where = store, slug, count, where
        self._pages: OrderedDict[int, tuple[LogEntry, ...]] = OrderedDict()
        self._positions: dict[tuple[int, frozenset[str] | None], list[int]] = {}
        self._last: dict[tuple[frozenset[str], int], list[int]] = {}
        self._days: list[int] | None = None

    def line(self, position: int) -> LogEntry:
        page = self.page(position // PAGE)
        offset = position % PAGE
        return page[offset] if offset < len(page) else unreadable(position, "missing: reopen the campaign")

    def page(self, number: int) -> tuple[LogEntry, ...]:
        found = self._pages.get(number)
        if found is not None:
            self._pages.move_to_end(number)
            return found
        start = number * PAGE
        stop = min(self.count, start + PAGE)
        found = tuple(self._read(start, stop))
        self._pages[number] = found
        if len(self._pages) > PAGES_KEPT:
            self._pages.popitem(last=False)
        return found

    def _read(self, start: int, stop: int) -> list[LogEntry]:
        """The lines start…stop; a page with a damaged line is read line by line, so only that
        line says it can't be read."""
        try:
            return [entry_of(line, start + n, self.where) for n, line in enumerate(self.store.log_lines(self.slug, start, stop))]
        except DataError:
            if stop - start > 1:
                return [entry for n in range(start, stop) for entry in self._read(n, n + 1)]
            return [unreadable(start, "missing or damaged in the database")]

    def positions(self, day: int, kinds: frozenset[str] | None, stop: int) -> list[int]:
        """`storage.campaigns.day_positions` over the first `stop` stored lines (cached for all of
        them: the stored lines don't change)."""
        if stop < self.count:
            return self.store.log_positions(self.slug, day, kinds, stop)
        found = self._positions.get((day, kinds))
        if found is None:
            found = self._positions[(day, kinds)] = self.store.log_positions(self.slug, day, kinds, self.count)
        return found

    def last(self, kinds: frozenset[str], count: int, stop: int) -> list[int]:
        if stop < self.count:
            return self.store.log_last(self.slug, kinds, count, stop)
        found = self._last.get((kinds, count))
        if found is None:
            found = self._last[(kinds, count)] = self.store.log_last(self.slug, kinds, count, self.count)
        return found

    def days(self, stop: int) -> list[int]:
        if stop < self.count:
            return self.store.log_days(self.slug, stop)
        if self._days is None:
            self._days = self.store.log_days(self.slug, self.count)
        return self._days


class _DaysAndKinds(Sequence[tuple[int, str]]):
    """Log lines as the (day, kind) pairs `storage.campaigns.day_positions_back` reads, each made
    when it is reached (it reads from the end and stops at an earlier day)."""

    __slots__ = ("lines",)

    def __init__(self, lines: Sequence[LogEntry]):
        self.lines = lines

    def __len__(self) -> int:
        return len(self.lines)

    @overload
    def __getitem__(self, index: int) -> tuple[int, str]: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[tuple[int, str]]: ...

    def __getitem__(self, index: int | slice) -> tuple[int, str] | Sequence[tuple[int, str]]:
        if isinstance(index, slice):
            return [(entry.day, entry.kind) for entry in self.lines[index]]
        entry = self.lines[index]
        return entry.day, entry.kind


class SessionLog(Sequence[LogEntry]):
    """The session log: `kept` stored lines, then `tail`. Immutable; `appended` makes the next one."""

    __slots__ = ("stored", "kept", "tail")

    def __init__(self, stored: StoredLines | None = None, kept: int = 0, tail: tuple[LogEntry, ...] = ()):
        self.stored = stored
        self.kept = kept if stored is not None else 0
        self.tail = tail

    @classmethod
    def of(cls, lines: Any) -> SessionLog:
        """A log from lines in memory (a tuple, a list), or the log itself."""
        return lines if isinstance(lines, SessionLog) else cls(None, 0, tuple(lines))

    def __len__(self) -> int:
        return self.kept + len(self.tail)

    @overload
    def __getitem__(self, index: int) -> LogEntry: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[LogEntry]: ...

    def __getitem__(self, index):
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step == 1 and start == 0:  # a beginning of the log: shares what it stores
                if stop <= self.kept:
                    return SessionLog(self.stored, stop)
                return SessionLog(self.stored, self.kept, self.tail[:stop - self.kept])
            if step == 1 and start >= self.kept:
                return self.tail[start - self.kept:stop - self.kept]
            return tuple(self[n] for n in range(start, stop, step))
        n = index + len(self) if index < 0 else index
        if not 0 <= n < len(self):
            raise IndexError("session log index out of range")
        if n >= self.kept:
            return self.tail[n - self.kept]
        return self.stored.line(n)

    def __iter__(self) -> Iterator[LogEntry]:
        for number in range(0, self.kept, PAGE):
            yield from self.stored.page(number // PAGE)[:self.kept - number]
        yield from self.tail

    def lines_from(self, start: int) -> Iterator[LogEntry]:
        """The lines from position `start` on, read as they are reached."""
        for n in range(start, self.kept):
            yield self.stored.line(n)
        yield from self.tail[max(0, start - self.kept):]

    def __reversed__(self) -> Iterator[LogEntry]:
        yield from reversed(self.tail)
        for number in range((self.kept - 1) // PAGE, -1, -1):
            yield from reversed(self.stored.page(number)[:self.kept - number * PAGE])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SessionLog):
            return len(self) == len(other) and self.common_prefix(other) == len(self)
        if isinstance(other, (tuple, list)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal logs with different storage

    def __add__(self, lines: Sequence[LogEntry]) -> SessionLog:
        return self.appended(*lines)

    def __repr__(self) -> str:
        return f"SessionLog({self.kept} stored + {len(self.tail)} new lines)"

    def appended(self, *lines: LogEntry) -> SessionLog:
        return SessionLog(self.stored, self.kept, self.tail + lines)

    def common_prefix(self, other: SessionLog) -> int:
        """How many first lines the two logs share. Two values of one open campaign share their
        stored lines: only the tails are compared (in memory)."""
        if self.stored is other.stored:
            shared = min(self.kept, other.kept)
            if self.kept != other.kept:  # one has fewer stored lines: the other's next ones are stored
                return shared + _same(self.lines_from(shared), other.lines_from(shared))
            return shared + _same(self.tail, other.tail)
        return _same(self, other)

    # --- look-ups, read from the end ---------------------------------------------------------

    def positions_of(self, day: int, kinds: Collection[str] | None = None) -> list[int]:
        """The positions of `day`'s lines (of `kinds`; None: all), read back from the newest: days
        only advance, so a day's lines are together and the newest last. A log out of day order (a
        file edited by hand) gives the lines of `day` after its last line of an earlier day."""
        wanted = None if kinds is None else frozenset(kinds)
        found, to_the_first = day_positions_back(_DaysAndKinds(self.tail), day, wanted)
        stored = self.stored.positions(day, wanted, self.kept) if to_the_first and self.kept else []
        return [*stored, *(self.kept + p for p in found)]

    def lines_at(self, positions: Sequence[int]) -> list[LogEntry]:
        return [self[p] for p in positions]

    def lines_of(self, day: int, kinds: Collection[str] | None = None) -> list[LogEntry]:
        return self.lines_at(self.positions_of(day, kinds))

    def last_lines(self, kinds: Collection[str], count: int) -> list[LogEntry]:
        """The newest `count` lines of `kinds`, oldest first."""
        found = [e for e in reversed(self.tail) if e.kind in kinds][:count]
        found.reverse()
        if len(found) < count and self.kept:
            found[:0] = self.lines_at(self.stored.last(frozenset(kinds), count - len(found), self.kept))
        return found

    def days(self) -> list[int]:
        """The days the log has lines of, in order."""
        stored = self.stored.days(self.kept) if self.kept else []
        return sorted({*stored, *(e.day for e in self.tail)})

    def runs_of_days(self) -> Iterator[tuple[int, Iterator[LogEntry]]]:
        """The log in order as (day, its lines) per run of one day, each run read as it is used (use
        it before the next): a page of lines in memory at a time, whatever the log's length (the
        export of every day)."""
        return itertools.groupby(self, key=lambda e: e.day)


def _same(a: Sequence[LogEntry], b: Sequence[LogEntry]) -> int:
    """How many first lines `a` and `b` share (identical objects compare at C speed)."""
    count = 0
    for x, y in zip(a, b):
        if x is not y and x != y:
            break
        count += 1
    return count
