"""Form widgets for the GM screens."""

from __future__ import annotations

from textual import events
from textual.widgets import Select

from horizon_tui.ui.dialogs.confirm import ConfirmDialog


class Dropdown(Select):
    """A Select that owns the letters typed while it has focus: a letter jumps to the next option
    starting with it (as in the open list), and never fires a screen's or the app's key ("r" in a
    dropdown opened the dice roller)."""

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        return character is not None and character.isprintable() and not character.isspace()

    def on_key(self, event: events.Key) -> None:
        character = event.character
        if self.expanded or not self.check_consume_key(event.key, character):
            return
        event.stop()
        event.prevent_default()
        options = [(str(prompt), value) for prompt, value in self._options if value is not Select.NULL]
        if not options:
            return
        values = [value for _, value in options]
        start = values.index(self.value) + 1 if self.value in values else 0
        for offset in range(len(options)):
            prompt, value = options[(start + offset) % len(options)]
            if prompt[:1].lower() == character.lower():
                self.value = value
                return
        self.app.bell()


def leave_asking(screen, leave, title: str) -> None:
    """esc on a GM form: `leave()` at once when the form holds nothing unsaved (its
    `unsaved_work()`), else after the GM says to forget it (no is the default answer)."""
    unsaved = screen.unsaved_work()
    if unsaved is None:
        leave()
        return
    screen.app.push_screen(ConfirmDialog(f"Leave and forget {unsaved}?", yes="Forget it", no="Stay",
                                         title=title), lambda forget: forget and leave())
