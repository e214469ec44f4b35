"""The talk pane of a table's screens, and the line to write in.

`TalkPane` shows the table's talk as it reaches this seat (the table's process already chose who
may read each line: `table.talk`); every line is written as plain text (`rich.text.Text`, never
markup), so `[bold]` and escape sequences show as typed. `TalkPrompt` is the line a seat writes
in: enter sends it to the table, which checks it again and says why if it won't pass it on.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, RichLog, Static

from horizon_tui.table.talk import MAX_TALK, TalkLine, line_text

STYLES = {"announce": "bold yellow", "whisper": "italic magenta", "roll": "cyan", "notice": "dim"}


def heard_here(line: dict[str, Any], seat: str, role: str) -> bool:
    """Whether this screen's seat may read `line` (at one keyboard every seat's lines are at hand)."""
    return TalkLine(0, str(line.get("seat")), "", "", "", str(line.get("to", "all"))).heard_by(seat, role)


class TalkPane(RichLog):
    """The table's talk, newest at the bottom."""

    DEFAULT_CSS = """
    TalkPane { width: 1fr; height: 1fr; border-top: solid $panel-lighten-2; border-title-color: $text-muted; }
    """

    def __init__(self, *, id: str | None = "talk") -> None:
        super().__init__(id=id, wrap=True, markup=False, highlight=False, max_lines=300)
        self.can_focus = False  # every key stays the battle's; `c` opens the line to write in
        self.border_title = "talk · c writes"
        self.shown: set[int] = set()

    def add(self, line: dict[str, Any]) -> None:
        line_id = line.get("id")
        if isinstance(line_id, int):
            if line_id in self.shown:
                return
            self.shown.add(line_id)
        self.write(Text(line_text(line), style=STYLES.get(str(line.get("kind")), "")))

    def show_all(self, lines: Iterable[dict[str, Any]]) -> None:
        self.clear()
        self.shown.clear()
        for line in lines:
            self.add(line)


class TalkPrompt(ModalScreen[str | None]):
    """One line to the table: enter sends it, esc drops it. Markup typed here is sent as typed."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="talk.cancel")]
    DEFAULT_CSS = """
    TalkPrompt { align: center bottom; background: $background 40%; }
    TalkPrompt > Vertical { width: 100%; height: auto; border-top: solid $accent; background: $panel; }
    TalkPrompt Input { width: 1fr; }
    """

    def __init__(self, hint: str) -> None:
        super().__init__()
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.hint, style="dim"))
            yield Input(placeholder="say something (enter sends, esc cancels)", max_length=MAX_TALK, id="talk-line")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value if event.value.strip() else None)

    def action_cancel(self) -> None:
        self.dismiss(None)
