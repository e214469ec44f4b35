"""The session log's lines on screen at any length of log: `LogTail` draws only the lines it
shows, read from the newest up (a day of 20,000 lines costs what a day of 20 does), and
`DayLines` keeps which log lines a day shows as the log grows, reading only what was added.

A Static holding the whole day was re-wrapped and laid out again on every GM action, and the
screen with it: a roll took seconds at the end of a long day (bench/bench_gm_evening.py).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.widget import Widget

from horizon_tui.campaign.session_log import LogEntry, SessionLog


class DayLines:
    """The positions in the log of one day's lines of the kinds shown, kept up to date by `follow`:
    lines appended to the log cost what they add, lines taken off the end (an undo) what they
    remove; another day, or another log (another campaign, the campaign opened again), asks the
    log for the day's positions (`SessionLog.positions_of`: SQL for its stored lines, never a
    line read one by one)."""

    def __init__(self, kinds: Collection[str]) -> None:
        self.kinds = frozenset(kinds)
        self.day: int | None = None
        self.log: SessionLog = SessionLog()
        self.positions: list[int] = []

    def follow(self, log: Sequence[LogEntry], day: int) -> bool:
        """Brings the positions to `log` and `day`; True when they changed."""
        log, old = SessionLog.of(log), self.log
        if log is old and day == self.day:
            return False
        kept = len(old)
        shared = log.common_prefix(old) if day == self.day and log.stored is old.stored else -1
        if shared == kept:
            self.positions.extend(n for n in range(kept, len(log)) if self._shows(log[n], day))
        elif shared == len(log):
            while self.positions and self.positions[-1] >= len(log):
                self.positions.pop()
        else:
            self.positions = log.positions_of(day, self.kinds)
        self.log, self.day = log, day
        return True

    def _shows(self, entry: LogEntry, day: int) -> bool:
        return entry.day == day and entry.kind in self.kinds


class LogTail(Widget, can_focus=True):
    """Lines of text, the newest at the bottom, drawn from the newest up until the widget is full:
    only the lines in view are wrapped and drawn. It follows new lines as a log does; scrolled back
    (up, page up, home, the mouse wheel) it stays on the lines it shows while new ones arrive,
    and end follows again. The lines come from `line(n)` for n below `count`."""

    BINDINGS = [
        Binding("up", "back(1)", "Earlier", show=False),
        Binding("down", "back(-1)", "Later", show=False),
        Binding("pageup", "page(1)", "Page up", show=False),
        Binding("pagedown", "page(-1)", "Page down", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end", "newest", "Newest", show=False),
    ]

    def __init__(self, empty: Text, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.empty = empty
        self.count = 0
        self.line: Callable[[int], Text] = lambda n: Text()
        self.back = 0  # how many lines below the bottom one shown (0: the newest is shown)

    def show(self, count: int, line: Callable[[int], Text]) -> None:
        """`count` lines, `line(n)` the n-th, oldest first. Scrolled back, the same lines stay in view."""
        if self.back:
            self.back = max(0, min(count - 1, self.back + count - self.count))
        self.count, self.line = count, line
        self._subtitle()
        self.refresh()

    @property
    def bottom(self) -> int:
        """The newest line in view (-1 when there is none)."""
        return self.count - 1 - self.back

    def shown_lines(self) -> list[Text]:
        """What the widget shows, one Text a screen row (the newest lines that fit, wrapped)."""
        width, height = self.content_size.width, self.content_size.height
        if width <= 0 or height <= 0 or not self.count:
            return []
        rows: list[Text] = []
        for n in range(self.bottom, -1, -1):
            wrapped = self.line(n).wrap(self.app.console, width, overflow="fold")
            rows[:0] = list(wrapped)
            if len(rows) >= height:
                break
        return rows[-height:]

    def render(self) -> Text:
        rows = self.shown_lines()
        return Text("\n").join(rows) if rows else (self.empty if not self.count else Text())

    def _most_back(self) -> int:
        """How far back the lines go with the first line at the top and the view full."""
        width, height = self.content_size.width, self.content_size.height
        filled = 0
        for n in range(self.count):
            filled += len(self.line(n).wrap(self.app.console, max(1, width), overflow="fold"))
            if filled >= height:
                return self.count - 1 - n
        return 0

    def _scroll_to(self, back: int) -> None:
        back = max(0, min(self._most_back(), back))
        if back != self.back:
            self.back = back
            self._subtitle()
            self.refresh()

    def _subtitle(self) -> None:
        self.border_subtitle = f"{self.back:,} newer ↓ (end)" if self.back else ""

    def action_back(self, lines: int) -> None:
        self._scroll_to(self.back + lines)

    def action_page(self, pages: int) -> None:
        self._scroll_to(self.back + pages * max(1, self.content_size.height - 1))

    def action_first(self) -> None:
        self._scroll_to(self.count - 1)

    def action_newest(self) -> None:
        self._scroll_to(0)

    def _on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        event.stop()
        self._scroll_to(self.back + 3)

    def _on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        event.stop()
        self._scroll_to(self.back - 3)
