"""Small dialogs of the battle screen: a list to choose from, and the end-of-battle summary."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, OptionList, RichLog, Static
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

    def __init__(self, title: str, options: list[tuple[str, str]], *, numbered: bool = False) -> None:
        super().__init__()
        self.title_text = title
        self.options = options
        self.numbered = numbered  # the digits 1-9 pick the option of that number at once

    def on_key(self, event) -> None:
        if self.numbered and event.character and event.character in "123456789":
            index = int(event.character) - 1
            if index < len(self.options):
                event.stop()
                self.dismiss(self.options[index][0])

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.title_text, style="bold"))
            # plain text: an ability's name may hold brackets ('[/]' is not markup here)
            yield OptionList(*[Option(Content(label), id=value) for value, label in self.options], id="choices")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


# Short enough that every column shows at 80 columns ("End" was cut off).
SUMMARY_COLUMNS = ("Combatant", "Side", "Dealt", "Taken", "Effects", "End")


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
        for label in SUMMARY_COLUMNS:
            table.add_column(label)
        for row in self.rows:  # names as plain text: brackets in a name are not markup
            table.add_row(*(Text(cell) if isinstance(cell, str) else cell for cell in row))

    def action_close(self) -> None:
        self.dismiss(None)


class MessageLog(ModalScreen[None]):
    """The whole battle's log: scroll back with the arrows and PgUp/PgDn, `/` searches (only the
    lines containing the words, the words lit), esc closes (the first esc leaves the search)."""

    BINDINGS = [
        Binding("escape", "close", "Close the log", id="log.close"),
        Binding("slash", "search", "Search", id="log.search", key_display="/"),
    ]
    DEFAULT_CSS = """
    MessageLog { align: center middle; }
    MessageLog > Vertical { width: 100%; height: 100%; border: round $accent; background: $surface; }
    MessageLog Input { height: 1; border: none; padding: 0 1; }
    MessageLog RichLog { height: 1fr; }
    """

    def __init__(self, lines: list[str]) -> None:
        super().__init__()
        self.lines = lines

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = f"Message log — {len(self.lines)} lines"
            box.border_subtitle = "↑↓ PgUp PgDn scroll · / search · esc close"
            yield Input(placeholder="/ to search the log", id="log-search")
            yield RichLog(id="log-all", wrap=True, markup=False)

    def on_mount(self) -> None:
        self.show("")
        self.query_one("#log-all").focus()

    def show(self, words: str) -> None:
        log = self.query_one("#log-all", RichLog)
        log.clear()
        needle = words.strip().lower()
        found = [line for line in self.lines if needle in line.lower()]
        for line in found:
            text = Text(line)
            if needle:
                text.highlight_words([words.strip()], style="bold reverse", case_sensitive=False)
            log.write(text)
        if needle:
            self.query_one(Vertical).border_title = f"Message log — {len(found)} of {len(self.lines)} lines match"
        else:
            self.query_one(Vertical).border_title = f"Message log — {len(self.lines)} lines"
        log.scroll_end(animate=False)

    def on_input_changed(self, event) -> None:
        self.show(event.value)

    def on_input_submitted(self, event) -> None:
        self.query_one("#log-all").focus()

    def action_search(self) -> None:
        self.query_one("#log-search").focus()

    def action_close(self) -> None:
        box = self.query_one("#log-search", Input)
        if box.has_focus:
            self.query_one("#log-all").focus()
            return
        self.dismiss(None)
