"""Small dialogs of the battle screen: a list to choose from, and the end-of-battle summary."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option


class ChoiceDialog(ModalScreen[str | None]):
    """Pick one of `options` ((value, label) pairs); escape returns None."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="choice.cancel")]
    DEFAULT_CSS = """
    ChoiceDialog { align: center middle; }
    ChoiceDialog > Vertical { width: 70; max-width: 95%; height: auto; max-height: 80%;
                              border: round $accent; background: $surface; padding: 0 1; }
    ChoiceDialog OptionList { height: auto; max-height: 16; }
    """

    def __init__(self, title: str, options: list[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.options = options

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.title_text, style="bold"))
            yield OptionList(*[Option(label, id=value) for value, label in self.options], id="choices")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class BattleSummary(ModalScreen[None]):
    """What happened: who dealt and took what, the effects, the XP gained."""

    BINDINGS = [Binding("enter,escape,space", "close", "Continue", id="summary.close", priority=True)]
    DEFAULT_CSS = """
    BattleSummary { align: center middle; }
    BattleSummary > Vertical { width: 90; max-width: 98%; height: auto; max-height: 95%;
                               border: double $accent; background: $surface; padding: 0 1; }
    BattleSummary DataTable { height: auto; max-height: 14; }
    """

    def __init__(self, headline: str, rows: list[tuple[str, ...]], footer: str,
                 hint: str = "enter: back to the character sheet") -> None:
        super().__init__()
        self.headline = headline
        self.rows = rows
        self.footer = footer
        self.hint = hint

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.headline, style="bold"), id="summary-headline")
            yield DataTable(id="summary-table", cursor_type="none", zebra_stripes=True)
            yield Static(Text(self.footer), id="summary-footer")
            yield Static(Text(self.hint, style="dim"))

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label in ("Combatant", "Side", "Damage dealt", "Damage taken", "Effects caused", "End"):
            table.add_column(label)
        for row in self.rows:
            table.add_row(*row)

    def action_close(self) -> None:
        self.dismiss(None)
