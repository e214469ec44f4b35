"""The dice roller (`r` anywhere): an expression, the roll, and the history of the campaign's
rolls. Rolls use the campaign's seeded random source and go into its log like any GM action."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from horizon_tui.campaign import changes
from horizon_tui.rules.dice import DiceError, parse_dice

HISTORY = 30


class DiceScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "dismiss_dice", "Close", id="dice.close")]

    def __init__(self) -> None:
        super().__init__(classes="dialog-screen")

    def compose(self) -> ComposeResult:
        last = next((e.data.get("expr") for e in self.app.campaign.last_lines("roll", 1)), "1d20")
        with Vertical(classes="dialog gm-dice") as box:
            box.border_title = "Dice"
            box.border_subtitle = "enter rolls · esc closes"
            yield Input(str(last), id="dice-expr", placeholder="e.g. 1d20+3, 4d6kh3", compact=True)
            yield Static(id="dice-result")
            with VerticalScroll(id="dice-history-box"):
                yield Static(id="dice-history")

    def on_mount(self) -> None:
        self.query_one("#dice-expr", Input).focus()
        self.refresh_view()

    def refresh_view(self) -> None:
        rolls = self.app.campaign.last_lines("roll", HISTORY)
        text = Text()
        for entry in reversed(rolls):
            text.append(f"day {entry.day}  ", style="dim")
            text.append(f"{entry.data.get('expr')} ", style="")
            text.append(f"= {entry.data.get('total')}", style="bold")
            faces = entry.data.get("faces") or []
            if faces:
                text.append(f"  [{', '.join(map(str, faces))}]", style="dim")
            text.append("\n")
        self.query_one("#dice-history", Static).update(text or Text("No rolls yet.", style="dim"))

    def on_input_changed(self, event: Input.Changed) -> None:
        result = self.query_one("#dice-result", Static)
        try:
            dice = parse_dice(event.value)
        except DiceError as exc:
            result.update(Text(str(exc), style="red"))
            return
        result.update(Text(f"{dice}: {dice.minimum}–{dice.maximum}", style="dim"))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        expression = event.value.strip()
        found: list[int] = []

        def change(campaign):
            campaign, total, _ = changes.roll_dice(campaign, expression)
            found.append(total)
            return campaign

        if self.app.host.act(change, f"roll {expression}"):
            self.query_one("#dice-result", Static).update(Text(f"{expression} = {found[0]}", style="bold"))

    def action_dismiss_dice(self) -> None:
        self.dismiss(None)
