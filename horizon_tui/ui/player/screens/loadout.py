"""Loadout (R-6): the level's slots and charges, which abilities fill them. Non-replaceable
passives are pinned; a change that `loadout_problems` objects to is refused with its reason."""

from __future__ import annotations

from collections import Counter

import attrs
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Static

from horizon_tui.content.models import Ability
from horizon_tui.rules.character import build
from horizon_tui.rules.validation import effective_loadout, loadout_problems
from horizon_tui.ui.widgets.ability import kind_label
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar
from horizon_tui.ui.widgets.tone import tone
from horizon_tui.ui.widgets.lists import RowList


class LoadoutScreen(Screen):
    TITLE = "Loadout"
    AUTO_FOCUS = "#loadout-table"
    BINDINGS = [
        Binding("space", "toggle", "Slot / unslot", id="loadout.toggle"),
        Binding("a", "app.abilities", "Abilities", id="loadout.abilities"),
        Binding("escape", "app.pop_screen", "Back", id="loadout.back"),
    ]

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Static(id="loadout-summary", classes="panel")
        with Vertical(id="loadout-box", classes="panel"):
            yield RowList(id="loadout-table", cursor_type="row")
        yield Static(id="loadout-problem")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#loadout-summary").border_title = "Slots and charges"
        self.query_one("#loadout-box").border_title = "Abilities known (space or enter slots one)"
        table = self.query_one("#loadout-table", DataTable)
        table.add_column("", key="mark", width=2)
        table.add_column("Ability", key="name")
        table.add_column("Diff", key="difficulty", width=4)
        table.add_column("Kind", key="kind")
        self.refresh_loadout()

    def on_screen_resume(self) -> None:
        self.refresh_loadout()

    @property
    def abilities(self) -> list[Ability]:
        return self.app.session.character.abilities

    def refresh_loadout(self, problem: str | None = None) -> None:
        character = self.app.session.character
        rules = self.app.rules
        b = build(character, rules)
        slotted = effective_loadout(character)
        slotted_names = {a.name for a in slotted}
        self.sub_title = character.name

        summary = Text()
        summary.append(f"Level {b.level}: ", style="bold")
        summary.append(f"{len(slotted)} of {b.slots} slots filled",
                       style=tone(self, "error" if len(slotted) > b.slots else "accent", bold=True))
        summary.append("\n")
        for index in range(max(b.slots, len(slotted))):
            ability = slotted[index] if index < len(slotted) else None
            summary.append(f"{index + 1} ", style="dim")
            if ability is None:
                summary.append("—", style="dim")
            else:
                summary.append(ability.name, style="bold")
                if ability.is_fixed:
                    summary.append(" ◆", style=tone(self, "warning"))
            summary.append("   ")
        held = Counter(a.difficulty for a in slotted if a.is_passive)
        summary.append("\nCharges per battle  ", style="dim")
        for difficulty, count in b.charges.items():
            summary.append(f"{difficulty} ", style="dim")
            summary.append(f"{count}", style="bold")
            if held.get(difficulty):
                summary.append(f" ({held[difficulty]} held)", style=tone(self, "warning"))
            summary.append("  ")
        summary.append("\n● slotted  ◆ pinned: a non-replaceable passive is always slotted", style="dim")
        self.query_one("#loadout-summary", Static).update(summary)

        table = self.query_one("#loadout-table", DataTable)
        row = table.cursor_row
        table.clear()
        for index, ability in enumerate(self.abilities):
            if ability.is_fixed:
                mark = Text("◆", style=tone(self, "warning", bold=True))
            elif ability.name in slotted_names:
                mark = Text("●", style=tone(self, "success", bold=True))
            else:
                mark = Text("○", style="dim")
            kind = kind_label(ability)
            if ability.is_fixed:
                kind += " · pinned"
            elif ability.is_passive:
                kind += " · holds a charge"
            table.add_row(mark, Text(ability.name, style="bold" if ability.name in slotted_names else ""),
                          ability.difficulty.value, Text(kind, style="dim"), key=str(index))
        if self.abilities:
            table.move_cursor(row=min(row, len(self.abilities) - 1))

        problems = loadout_problems(character, rules)
        note = self.query_one("#loadout-problem", Static)
        if problem:
            note.update(Text(f"✗ {problem}", style=tone(self, "error", bold=True)))
        elif problems:
            note.update(Text(f"⚠ {problems[0].message}: unslot something", style=tone(self, "warning", bold=True)))
        elif not self.abilities:
            note.update(Text("No abilities yet: press a to invent one.", style="dim"))
        else:
            note.update("")

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_toggle()

    def action_toggle(self) -> None:
        if not self.abilities:
            return
        character = self.app.session.character
        ability = self.abilities[self.query_one("#loadout-table", DataTable).cursor_row]
        if ability.is_fixed:
            self._refuse(f"{ability.name} is a non-replaceable passive: it always holds its slot and can't be "
                         "removed (R-6)")
            return
        if ability.name in character.loadout:
            loadout = [name for name in character.loadout if name != ability.name]
        else:
            loadout = [*character.loadout, ability.name]
            problems = loadout_problems(attrs.evolve(character, loadout=loadout), self.app.rules)
            if problems:
                self._refuse(problems[0].message)
                return
        if self.app.commit(attrs.evolve(character, loadout=loadout)):
            self.refresh_loadout()

    def _refuse(self, reason: str) -> None:
        self.app.bell()
        self.notify(reason, title="Not slotted", severity="error", timeout=6)
        self.refresh_loadout(problem=reason)
