"""Load character: every save, newest first. A save that can't be read is listed as damaged with
its problem and left exactly as it is; it can't be opened (and so can't be overwritten) from here.
`m` offers to move it to `damaged/` beside it (asked first; never deleted)."""

from __future__ import annotations

import os

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Static

from horizon_tui.content.guard import limits
from horizon_tui.play.library import SaveEntry, short_problem
from horizon_tui.play.transfer import shown
from horizon_tui.table.lobby import ENV_TABLES, my_seat_place, offer_character
from horizon_tui.ui.dialogs.confirm import TextDialog, ask_set_aside
from horizon_tui.ui.player.screens.transfer import BattlesScreen, ask_export, ask_import
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar
from horizon_tui.ui.widgets.lists import RowList


class LoadScreen(Screen):
    TITLE = "Load character"
    AUTO_FOCUS = "#saves"
    BINDINGS = [
        Binding("enter", "open", "Open", id="load.open", priority=False),
        Binding("f5,ctrl+r", "refresh", "Refresh", id="load.refresh"),
        Binding("m", "set_aside", "Set damaged aside", id="load.set_aside"),
        Binding("i", "import", "Import", id="load.import", tooltip="Bring in a character file from anywhere"),
        Binding("x", "export", "Export", id="load.export", tooltip="Write a copy of this save elsewhere"),
        Binding("b", "battles", "Battles", id="load.battles", tooltip="Battles in progress, kept, finished"),
        Binding("g", "offer", "Offer to a GM", id="load.offer",
                tooltip="Let your game master's account import this character (over SSH)"),
        Binding("escape", "back", "Back", id="load.back"),
    ]

    def check_action(self, action: str, parameters) -> bool | None:
        if action in ("import", "export", "battles"):
            return getattr(self.app, "PLAYER_FILES", False)
        if action == "offer":
            return getattr(self.app, "PLAYER_FILES", False) and bool(os.environ.get(ENV_TABLES))
        return True

    def action_offer(self) -> None:
        """Offer the highlighted character to a GM's account (`table.lobby.offer_character`)."""
        if not self.entries:
            return
        entry = self.entries[self.query_one("#saves", DataTable).cursor_row]
        if entry.broken:
            self.app.notify("A damaged save can't be offered; fix it first.", severity="error")
            return
        account, tables = my_seat_place()

        def offer(gm: str | None) -> None:
            if gm is None:
                return
            try:
                offer_character(tables, account, gm, entry.path, limits().file_bytes)
            except (ValueError, OSError) as exc:
                self.app.notify(str(exc), title="Not offered", severity="error", timeout=8)
                return
            self.app.notify(f"{gm} can now import {entry.title}: in the GM tool, i (Import) lists it.",
                            title="Offered", timeout=8)

        self.app.push_screen(TextDialog(f"Offer {entry.title} to which GM's account?", title="Offer to a GM",
                                        max_length=32), offer)

    def action_import(self) -> None:
        def imported(path) -> None:
            self.action_refresh()
            row = next((i for i, e in enumerate(self.entries) if e.path == path), 0)
            self.query_one("#saves", DataTable).move_cursor(row=row)

        ask_import(self.app, imported)

    def action_export(self) -> None:
        if self.entries:
            ask_export(self.app, self.entries[self.query_one("#saves", DataTable).cursor_row].path)

    def action_battles(self) -> None:
        self.app.push_screen(BattlesScreen())

    def __init__(self, *, then_battle: bool = False) -> None:
        super().__init__(id="load")
        self.entries: list[SaveEntry] = []
        self.then_battle = then_battle  # opened from the encounter list: go back to it once loaded

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Vertical(id="load-box", classes="panel"):
            yield RowList(id="saves", cursor_type="row", zebra_stripes=True)
        yield Static(id="save-detail", classes="panel")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#load-box").border_title = "Saved characters"
        self.query_one("#load-box").border_subtitle = "enter opens"
        self.query_one("#save-detail").border_title = "Details"
        table = self.query_one("#saves", DataTable)
        table.add_column("", key="mark", width=1)
        table.add_column("Name", key="name")
        table.add_column("Species and level", key="summary")
        table.add_column("File", key="file")
        self.action_refresh()

    def action_refresh(self) -> None:
        """The list again; the cursor stays on its row (after m, on the save below the one moved)."""
        self.entries = self.app.library.entries()
        table = self.query_one("#saves", DataTable)
        row = table.cursor_row
        table.clear()
        for index, entry in enumerate(self.entries):
            if entry.broken:
                mark, style = Text("✗", style="bold red"), "red"
            elif entry.problems:
                mark, style = Text("⚠", style="bold yellow"), ""
            else:
                mark, style = Text(" "), ""
            table.add_row(
                mark,
                Text(entry.title, style=f"bold {style}".strip()),
                Text(f"damaged: {entry.problem_text}"[:70] if entry.broken else entry.summary, style=style),
                Text(entry.path.name, style="dim"),
                key=str(index),
            )
        row = min(max(row, 0), len(self.entries) - 1)
        if row > 0:
            table.move_cursor(row=row)
        self.show_detail(row if self.entries else None)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None:
            self.show_detail(int(event.row_key.value))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def show_detail(self, index: int | None) -> None:
        detail = self.query_one("#save-detail", Static)
        if index is None:
            detail.update(Text.assemble(
                ("No saved characters in ", "dim"), (str(self.app.library.characters_dir), "bold"),
                (" yet.\nPress escape and choose New character.", "dim"),
            ))
            return
        entry = self.entries[index]
        text = Text()
        if entry.broken:
            text.append("This save can't be read. It is left exactly as it is, never overwritten.\n",
                        style="bold red")
            for problem in entry.problems:
                text.append(f"• {short_problem(problem)}\n", style="red")
            text.append("Fix the file by hand (horizon validate FILE lists its problems) and refresh, "
                        "or press m to move it to damaged/ (it is kept there, never deleted).", style="dim")
        else:
            c = entry.character
            assert c is not None
            text.append(f"{c.name}", style="bold")
            text.append(f" — {entry.summary}, {c.xp} XP unspent\n")
            text.append(f"Weapon {c.weapon.name}; armor {c.armor.name if c.armor else 'none'}; "
                        f"{len(c.abilities)} abilities, {len(c.loadout)} slotted\n", style="dim")
            for problem in entry.problems:
                text.append(f"⚠ {problem.message} (fix it on the Loadout screen)\n", style="yellow")
            text.append(shown(entry.path), style="dim")
        detail.update(text)

    def action_back(self) -> None:
        if self.then_battle:
            self.app.pop_screen()  # to the encounter list it was opened from
        else:
            self.app.action_main_menu()

    def action_open(self) -> None:
        table = self.query_one("#saves", DataTable)
        if not self.entries:
            return
        entry = self.entries[table.cursor_row]
        if not entry.openable:
            self.app.notify(
                f"{entry.path.name} can't be opened: {entry.problem_text}. The file is left as it is.",
                title="Can't open this save", severity="error", timeout=10,
            )
            return
        self.app.open_character(entry.path, entry.character, then_battle=self.then_battle)

    def action_set_aside(self) -> None:
        """Move the highlighted damaged save to `damaged/`, after asking; never a good one."""
        if not self.entries:
            return
        entry = self.entries[self.query_one("#saves", DataTable).cursor_row]
        if not entry.broken:
            self.app.notify(f"{entry.path.name} is not damaged; only damaged saves are moved aside.",
                            severity="warning")
            return

        ask_set_aside(self.app, entry.path, "save", self.app.library.move_to_damaged, self.action_refresh)
