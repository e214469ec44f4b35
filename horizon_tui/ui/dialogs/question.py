"""A question with several answers (Resume / Start the new one / Cancel; read-only / take over /
cancel): a `ModalScreen[str | None]` that answers with the chosen id, and None for Esc.

Esc is always "cancel": it answers None, which every caller treats as "change nothing". Each
answer has a key (its label's underlined letter) and a button; the focus starts on the first
answer, the one that keeps what exists.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class QuestionDialog(ModalScreen[str | None]):
    BINDINGS = [
        Binding("escape", "answer('')", "Cancel", id="question.cancel"),
        Binding("left,right,tab", "app.focus_next", "Switch button", show=False, id="question.switch"),
    ]

    def __init__(self, question: str, answers: list[tuple[str, str, str]], *, title: str = "A question") -> None:
        """`answers`: (id, label, key) each; the key answers it at once."""
        super().__init__(classes="dialog-screen")
        self.question = question
        self.answers = answers
        self.dialog_title = title
        self._keys = {key: answer_id for answer_id, _, key in answers}

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog question-dialog") as box:
            box.border_title = self.dialog_title
            yield Static(self.question, classes="question", markup=False)
            with Horizontal(classes="buttons"):
                for answer_id, label, key in self.answers:
                    yield Button(f"{label} ({key})", id=f"answer-{answer_id}", compact=True,
                                 variant="primary" if answer_id == self.answers[0][0] else "default")
                yield Button("Cancel (esc)", id="answer-", compact=True)

    def on_mount(self) -> None:
        self.query_one(".question-dialog").styles.width = 76  # three answers in a row (max-width 95%)
        self.query_one(Button).focus()

    def on_key(self, event) -> None:
        if event.character in self._keys:
            event.stop()
            self.dismiss(self._keys[event.character])

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(event.button.id.removeprefix("answer-"))

    def action_answer(self, answer_id: str) -> None:
        self.dismiss(answer_id or None)
