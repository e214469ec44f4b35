"""Battle: pick an encounter from the data folder's `encounters/` (name, difficulty, size, enemies
and XP as the engine loads it, or why it can't be fought). Choosing one calls `app.start_battle`;
the battlefield is `tui.battle.screen.BattleScreen`."""

from __future__ import annotations

import re

import attrs
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Static

from horizon_tui.tui.library import EncounterEntry, encounter_details, encounters_dir, list_encounters
from horizon_tui.tui.widgets.bars import KeyBar, TitleBar


class EncounterPickerScreen(Screen):
    TITLE = "Battle"
    AUTO_FOCUS = "#encounters"
    BINDINGS = [
        Binding("enter", "fight", "Fight", id="battle.fight"),
        Binding("l", "load", "Load character", id="battle.load"),
        Binding("escape", "app.pop_screen", "Back", id="battle.back"),
    ]

    def __init__(self) -> None:
        super().__init__(id="battle")
        self.encounters: list[EncounterEntry] = []

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Static(id="fighter", markup=False)
        with Vertical(id="encounter-box", classes="panel"):
            yield DataTable(id="encounters", cursor_type="row", zebra_stripes=True)
        yield Static(id="encounter-detail", classes="panel")
        yield KeyBar()

    def on_mount(self) -> None:
        folder = encounters_dir(self.app.catalogue)
        self.query_one("#encounter-box").border_title = "Encounters"
        self.query_one("#encounter-box").border_subtitle = "enter fights"
        self.query_one("#encounter-detail").border_title = "Description"
        session = self.app.session
        fighter = self.query_one("#fighter", Static)
        if session is None:
            fighter.update(Text.assemble(
                ("No character loaded. ", "bold yellow"),
                "Press l to load one, or go back and choose New character.",
            ))
        else:
            c = session.character
            fighter.update(Text.assemble(("Fighting as ", "dim"), (c.name, "bold"), (f", {c.species.name}", "")))
        table = self.query_one("#encounters", DataTable)
        for label, key in (("Encounter", "name"), ("Difficulty", "difficulty"), ("Size", "size"),
                           ("Enemies", "enemies"), ("XP", "xp")):
            table.add_column(label, key=key)
        self.encounters = list_encounters(folder)
        self.fill_table()
        self.show_detail(0 if self.encounters else None, folder)
        if self.encounters:
            self.load_details()

    def fill_table(self) -> None:
        table = self.query_one("#encounters", DataTable)
        row = table.cursor_row
        table.clear()
        for index, e in enumerate(self.encounters):
            style = "red" if e.problem else ""
            table.add_row(
                Text(("⚠ " if e.problem else "") + e.name, style=f"bold {style}".strip()),
                Text(e.difficulty or "—", style=style),
                Text(e.size or "—"),
                Text("…" if e.enemies is None and not e.problem else str(e.enemies or "—"), justify="right"),
                Text("…" if e.xp is None and not e.problem else str(e.xp or "—"), justify="right"),
                key=str(index),
            )
        if self.encounters:
            table.move_cursor(row=min(row, len(self.encounters) - 1))

    @work(thread=True, exclusive=True)
    def load_details(self) -> None:
        """XP and enemies as the engine reads the encounter; slow imports, so off the UI thread."""
        details = encounter_details([e.path for e in self.encounters], self.app.catalogue)
        self.app.call_from_thread(self.show_details, details)

    def show_details(self, details: dict) -> None:
        for index, e in enumerate(self.encounters):
            found = details.get(e.path)
            if isinstance(found, str):
                self.encounters[index] = attrs.evolve(e, problem=f"can't be fought: {found}")
            elif found is not None:
                self.encounters[index] = attrs.evolve(e, xp=found[0], enemies=found[1])
            else:
                # not looked up (a file added since the list was read): what the file says
                self.encounters[index] = attrs.evolve(e, xp=e.xp or 0, enemies=e.enemies or 0)
        self.fill_table()
        table = self.query_one("#encounters", DataTable)
        self.show_detail(table.cursor_row if self.encounters else None)

    def show_detail(self, index: int | None, folder=None) -> None:
        detail = self.query_one("#encounter-detail", Static)
        if index is None:
            detail.update(Text.assemble(
                ("No encounters yet in ", "dim"), (str(folder or encounters_dir(self.app.catalogue)), "bold"),
                (".\nEncounters are TOML files there, with a name and a description.", "dim"),
            ))
            return
        e = self.encounters[index]
        if e.problem:
            detail.update(Text(f"{e.path.name}: {e.problem}", style="red"))
            return
        facts = [f for f in (e.difficulty, e.size and f"{e.size} cells",
                             e.enemies and f"{e.enemies} enem{'y' if e.enemies == 1 else 'ies'}",
                             e.xp and f"{e.xp} XP") if f]
        detail.update(Text.assemble((e.name, "bold"), (f"  {' · '.join(facts)}", "dim"), "\n",
                                    _reflow(e.description) or "(no description)"))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None:
            self.show_detail(int(event.row_key.value))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_fight()

    def action_load(self) -> None:
        """Load a character and come back here to pick its fight (over its sheet)."""
        if self.app.data_problems():
            return
        from horizon_tui.tui.screens.load import LoadScreen

        self.app.push_screen(LoadScreen(then_battle=True))

    def action_fight(self) -> None:
        if not self.encounters:
            self.app.notify("There is no encounter to fight yet", severity="warning")
            return
        encounter = self.encounters[self.query_one("#encounters", DataTable).cursor_row]
        if encounter.problem:
            self.app.notify(f"{encounter.path.name}: {encounter.problem}", severity="error")
            return
        if self.app.session is None:
            self.app.notify("Load or create a character first (l loads one)", severity="warning")
            return
        self.app.start_battle(encounter.path, self.app.session.character)


def _reflow(text: str) -> str:
    """Join the hard-wrapped lines of a TOML string; keep blank-line paragraphs."""
    return re.sub(r"(?<!\n)\n(?!\n)", " ", text.strip())
