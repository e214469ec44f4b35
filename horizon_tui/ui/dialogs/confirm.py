"""A yes/no question: a `ModalScreen[bool]` that answers through `dismiss()` (Frogmouth's way)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static


class ConfirmDialog(ModalScreen[bool]):
    BINDINGS = [
        Binding("y", "answer(True)", "Yes", id="confirm.yes"),
        Binding("n,escape", "answer(False)", "No", id="confirm.no"),
        Binding("left,right,tab", "app.focus_next", "Switch button", show=False, id="confirm.switch"),
    ]

    def __init__(self, question: str, *, yes: str = "Yes", no: str = "No", title: str = "Are you sure?"):
        super().__init__(classes="dialog-screen")
        self.question = question
        self.yes_label = yes
        self.no_label = no
        self.dialog_title = title

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as box:
            box.border_title = self.dialog_title
            yield Static(self.question, classes="question", markup=False)
            with Horizontal(classes="buttons"):
                yield Button(f"{self.yes_label} (y)", variant="error", id="yes", compact=True)
                yield Button(f"{self.no_label} (n)", variant="primary", id="no", compact=True)

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


class QuitDialog(ConfirmDialog):
    """The question ctrl+q asks when a screen holds work not saved (`SavesFolder.quit` in ui.player.app)."""


class TextDialog(ModalScreen[str | None]):
    """One line of text (enter answers it, escape answers None): a name, an account."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="text.cancel")]

    def __init__(self, question: str, *, title: str, value: str = "", max_length: int = 64) -> None:
        super().__init__(classes="dialog-screen")
        self.question, self.dialog_title, self.value, self.max_length = question, title, value, max_length

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as box:
            box.border_title = self.dialog_title
            yield Static(self.question, classes="question", markup=False)
            yield Input(self.value, id="text-input", max_length=self.max_length, compact=True)

    def on_mount(self) -> None:
        self.query_one("#text-input").focus()

    def on_input_submitted(self, event) -> None:
        event.stop()
        if event.value.strip():
            self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


def ask_set_aside(app, path: Path, what: str, move: Callable[[Path], Path], then: Callable[[], None]) -> None:
    """Ask, then move a damaged file to `damaged/` beside it with `move` (kept there, never
    deleted) and call `then` (the list refreshed); a move that fails says so and leaves the file.
    `what`: "save", "campaign" (the Load screen's and the GM's campaign list's `m`)."""

    def answered(yes: bool | None) -> None:
        if not yes:
            return
        try:
            moved = move(path)
        except OSError as exc:
            app.notify(f"{path.name} can't be moved: {exc.strerror or exc}. It stays where it is.",
                       title="Not moved", severity="error", timeout=10)
            return
        app.notify(f"Moved to {moved}", title="Set aside")
        then()

    app.push_screen(ConfirmDialog(
        f"Move {path.name} to {path.parent.name}/damaged/? It is kept there, never deleted, and no longer listed.",
        title=f"Set the damaged {what} aside?", yes="Move it"), answered)
