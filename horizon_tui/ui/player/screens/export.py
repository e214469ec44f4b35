"""Export: the character being played as plain text, to take away (over SSH there is no
SFTP or exec, so a player's own character leaves the server through their terminal).

Two texts: the sheet as `horizon sheet` prints it, and the save file exactly as it is on disk
(which `horizon sheet FILE` and `horizon validate FILE` read back). Shown read-only; `c` copies the
text shown to the player's own clipboard (OSC 52, which the terminal receives over SSH too) and
`p` leaves the app's screen and prints it in the terminal's scrollback, for terminals without it.
"""

from __future__ import annotations

import io

from rich.console import Console
from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import TextArea

from horizon_tui.rules.character import build, sheet
from horizon_tui.tools.cli_tables import print_sheet
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar

WIDTH = 100  # the sheet's text is laid out for this many columns


def sheet_text(character, rules) -> str:
    """The sheet as `horizon sheet` prints it, without colours."""
    console = Console(file=io.StringIO(), width=WIDTH, record=True, color_system=None)
    print_sheet(sheet(build(character, rules)), console)
    return console.export_text(styles=False)


class ExportScreen(Screen):
    TITLE = "Export"
    BINDINGS = [
        Binding("s", "show('sheet')", "Sheet", id="export.sheet"),
        Binding("f", "show('file')", "Save file", id="export.file"),
        Binding("c", "copy", "Copy", id="export.copy", tooltip="Copy the text to your clipboard (OSC 52)"),
        Binding("p", "print", "Print", id="export.print", tooltip="Print it in the terminal, below the game"),
        Binding("escape", "app.pop_screen", "Back", id="export.back"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.shown = "sheet"

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield TextArea(id="export-text", read_only=True, show_line_numbers=False, soft_wrap=False)
        yield KeyBar()

    def on_mount(self) -> None:
        self.action_show("sheet")

    def texts(self) -> dict[str, str]:
        session = self.app.session
        if session is None:
            return {"sheet": "No character is open.", "file": "No character is open."}
        try:
            saved = session.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            saved = f"{session.path.name} can't be read: {exc}"
        return {"sheet": sheet_text(session.character, self.app.rules), "file": saved}

    def action_show(self, which: str) -> None:
        self.shown = which
        area = self.query_one("#export-text", TextArea)
        area.load_text(self.texts()[which])
        session = self.app.session
        name = session.path.name if session is not None else ""
        area.border_title = "Sheet (as `horizon sheet` prints it)" if which == "sheet" else f"Save file {name}"

    @property
    def text(self) -> str:
        return self.query_one("#export-text", TextArea).text

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.text)
        self.app.notify("Copied to your clipboard (if your terminal allows it); p prints it instead",
                        timeout=5)

    def action_print(self) -> None:
        text = self.text
        try:
            with self.app.suspend():  # the terminal as it is outside the app, for its scrollback
                print("\n" + text.rstrip() + "\n", flush=True)
        except SuspendNotSupported:
            self.app.notify("This terminal can't show text outside the app; c copies it instead",
                            severity="warning")
            return
        self.app.notify("Printed in your terminal's scrollback, above the game", timeout=5)
