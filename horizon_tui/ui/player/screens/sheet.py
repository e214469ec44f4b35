"""The character sheet: every number of `horizon sheet`, XP and the next point's cost."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from horizon_tui.rules.character import build, sheet
from horizon_tui.rules.progression import affordable_points
from horizon_tui.rules.validation import effective_loadout
from horizon_tui.ui.player.screens.export import ExportScreen
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar
from horizon_tui.ui.widgets.character import SheetView, sheet_heading
from horizon_tui.ui.widgets.creation import KIN, MEMORY
from horizon_tui.ui.widgets.tone import tone

MEMORY_WORDS = {value: words for words, value in MEMORY}
KIN_WORDS = {value: words.split(":")[0].split(",")[0] for words, value in KIN}


class SheetScreen(Screen):
    TITLE = "Character sheet"
    BINDINGS = [
        Binding("u", "app.level_up", "Level up", id="sheet.level_up"),
        Binding("a", "app.abilities", "Abilities", id="sheet.abilities"),
        Binding("o", "app.loadout", "Loadout", id="sheet.loadout"),
        Binding("b", "app.battle", "Battle", id="sheet.battle"),
        # show=False: the key bar stays as it was; ? lists it with the rest
        Binding("x", "export", "Export", id="sheet.export", tooltip="The character as text, to take away",
                show=False),
        Binding("escape", "app.main_menu", "Menu", id="sheet.back"),
    ]

    def action_export(self) -> None:
        self.app.push_screen(ExportScreen())

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with VerticalScroll(id="sheet-body"):
            yield Static(id="sheet-heading")
            yield Static(id="sheet-notes")
            yield SheetView(id="sheet-view")
            with Horizontal(id="sheet-more"):
                yield Static(id="sheet-abilities", classes="panel")
                yield Static(id="sheet-background", classes="panel")
            yield Static(id="sheet-path")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#sheet-abilities").border_title = "Abilities"
        self.query_one("#sheet-background").border_title = "Background"
        self.refresh_sheet()

    def on_screen_resume(self) -> None:
        self.refresh_sheet()

    def refresh_sheet(self) -> None:
        session = self.app.session
        if session is None:
            return
        character = session.character
        rules = self.app.rules
        b = build(character, rules)
        data = sheet(b)
        self.sub_title = character.name
        self.query_one("#sheet-heading", Static).update(sheet_heading(self, data))
        self.query_one(SheetView).show(data, character.attributes)
        self.query_one("#sheet-abilities", Static).update(self._abilities(character))
        self.query_one("#sheet-background", Static).update(self._background(character))
        notes = Text()
        can_buy = affordable_points(character.xp, b.points_bought, rules.experience)
        if can_buy:
            notes.append(f"{character.xp} XP buys {can_buy} point{'s' if can_buy != 1 else ''}: ",
                         style=tone(self, "success", bold=True))
            notes.append("press u to level up.\n")
        if not character.abilities:
            notes.append("No abilities yet: press a to invent one, then o to slot it.\n", style="dim")
        for problem in self.app.library.problems(character, session.path):
            notes.append(f"⚠ {problem.key}: {problem.message}\n", style=tone(self, "warning"))
        notes.rstrip()
        self.query_one("#sheet-notes", Static).update(notes)
        self.query_one("#sheet-path", Static).update(Text(f"saved in {session.path}", style="dim"))

    def _abilities(self, character) -> Text | Table:
        if not character.abilities:
            return Text("none yet (a invents one)", style="dim")
        slotted = {a.name for a in effective_loadout(character)}
        table = Table.grid(padding=(0, 1))
        table.add_column(width=1)
        table.add_column(ratio=1)
        table.add_column(justify="right")
        for ability in character.abilities:
            on = ability.name in slotted
            mark = Text("◆", style=tone(self, "warning")) if ability.is_fixed else Text(
                "●" if on else "○", style=tone(self, "success") if on else "dim")
            table.add_row(mark, Text(ability.name, style="bold" if on else ""),
                          Text(f"{ability.difficulty} {ability.kind.value}", style="dim"))
        return table

    def _background(self, character) -> Table:
        bg = character.background
        table = Table.grid(padding=(0, 1))
        table.add_column(style="dim", no_wrap=True)
        table.add_column(ratio=1)
        table.add_row("came from", bg.origin or "—")
        table.add_row("memory", MEMORY_WORDS[bg.memory])
        table.add_row("arrived", bg.arrived or "—")
        table.add_row("own kind", KIN_WORDS[bg.kin_settlement] + (f" ({bg.gm_note})" if bg.gm_note else ""))
        return table
