"""Small GM dialogs: a few fields to fill in (a number, a reason), answered through `dismiss()`."""

from __future__ import annotations

from collections.abc import Callable

import attrs
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from horizon_tui.play.forms import parse_whole
from horizon_tui.table.core import MAX_REQUEST_TEXT


def whole_in(text: str, low: int, high: int, what: str) -> int:
    """A whole number typed in a GM form, within low…high; ValueError naming the bounds. The
    player app's guarded parse (play.forms): the same digit limits and messages as its forms."""
    return parse_whole(text, what, low=low, high=high)


def checked(fields: dict[str, tuple[int, int, str]]):
    """A PromptDialog `check` for number fields: key → (low, high, what)."""
    def check(values: dict[str, str]) -> str | None:
        for key, (low, high, what) in fields.items():
            try:
                whole_in(values[key], low, high, what)
            except ValueError as exc:
                return str(exc)
        return None
    return check


@attrs.frozen
class Field:
    key: str
    label: str
    value: str = ""
    placeholder: str = ""
    # a few words at most (a reason, a player's words), as a request at the table: a paste
    # longer than that is refused at once, not saved into a fight that then can't be written
    max_length: int = MAX_REQUEST_TEXT


class PromptDialog(ModalScreen[dict[str, str] | None]):
    """A few text fields; enter in the last one (or ctrl+s) answers, escape cancels. `check`
    returns the reason the answer can't be taken yet (shown, the dialog stays) or None."""

    BINDINGS = [
        Binding("ctrl+s", "ok", "OK", id="prompt.ok"),
        Binding("escape", "cancel", "Cancel", id="prompt.cancel"),
        # a priority binding runs as the app takes the key, before it hands on the next one: so
        # the keys after enter go to the next field even when they came in the same packet
        Binding("enter", "enter", "Next field", show=False, priority=True, id="prompt.enter"),
    ]

    def __init__(self, title: str, fields: list[Field], *, note: str = "",
                 check: Callable[[dict[str, str]], str | None] | None = None):
        super().__init__(classes="dialog-screen")
        self.dialog_title = title
        self.fields = fields
        self.note = note
        self.check = check

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog gm-prompt") as box:
            box.border_title = self.dialog_title
            # enter in a field goes on to the next (answers in the last one); ctrl+s answers anywhere
            keys = "enter: OK" if len(self.fields) == 1 else "enter: next field · ctrl+s: OK"
            box.border_subtitle = f"{keys} · esc: cancel"
            if self.note:
                yield Static(self.note, classes="question", markup=False)
            with Grid(classes="form"):
                for field in self.fields:
                    yield Label(field.label)
                    yield Input(field.value, placeholder=field.placeholder, id=f"prompt-{field.key}", compact=True,
                                max_length=field.max_length)
            yield Static(id="prompt-problem")

    def values(self) -> dict[str, str]:
        return {f.key: self.query_one(f"#prompt-{f.key}", Input).value for f in self.fields}

    def action_enter(self) -> None:
        """Enter: on to the next field, or in the last one answer. The field's own keys typed
        before enter may still wait in its queue: the answer is read after them, in that queue."""
        inputs = list(self.query(Input))
        field = self.focused
        if field is inputs[-1] or field not in inputs:
            self.action_ok()
        else:
            self.focus_next()

    def action_ok(self) -> None:
        """ctrl+s: answer, after the keys already in the focused field's queue."""
        field = self.focused
        (field if isinstance(field, Input) else self).call_later(self.action_submit)

    def action_submit(self) -> None:
        if self.app.screen is not self:  # answered already (two enters in one packet)
            return
        values = self.values()
        problem = self.check(values) if self.check else None
        if problem:
            self.app.bell()
            self.query_one("#prompt-problem", Static).update(Text(f"✗ {problem}", style="bold red"))
            return
        self.dismiss(values)

    def action_cancel(self) -> None:
        self.dismiss(None)


def reason_dialog(title: str, note: str, *, required: bool = True) -> PromptDialog:
    """Ask the GM why (an override of a rule is recorded with its reason)."""
    return PromptDialog(
        title, [Field("reason", "Reason", placeholder="why the GM allows it")], note=note,
        check=(lambda v: None if v["reason"].strip() else "give a reason: it is recorded") if required else None,
    )
