"""Abilities: the character's inventions (R-6). Create, edit, delete; each shown with what it
does at the current level."""

from __future__ import annotations

import attrs
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from horizon_tui.content.models import Ability
from horizon_tui.rules.character import build
from horizon_tui.rules.validation import effective_loadout, loadout_problems
from horizon_tui.ui.dialogs.confirm import ConfirmDialog
from horizon_tui.ui.player.screens.ability_form import AbilityFormScreen
from horizon_tui.ui.widgets.ability import ability_text
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar


class AbilitiesScreen(Screen):
    TITLE = "Abilities"
    AUTO_FOCUS = "#ability-list"
    BINDINGS = [
        Binding("n", "new", "New", id="abilities.new"),
        Binding("e", "edit", "Edit", id="abilities.edit"),
        Binding("d,delete", "delete", "Delete", id="abilities.delete"),
        Binding("o", "app.loadout", "Loadout", id="abilities.loadout"),
        Binding("escape", "app.pop_screen", "Back", id="abilities.back"),
    ]

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal():
            yield OptionList(id="ability-list")
            with VerticalScroll(id="ability-detail-box", classes="panel"):
                yield Static(id="ability-detail")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#ability-detail-box").border_title = "Ability"
        self.refresh_list()

    def on_screen_resume(self) -> None:
        self.refresh_list()  # the loadout (the ● marks) may have changed meanwhile

    @property
    def abilities(self) -> list[Ability]:
        return self.app.session.character.abilities

    def refresh_list(self, select: int | None = None) -> None:
        character = self.app.session.character
        self.sub_title = character.name
        options = self.query_one("#ability-list", OptionList)
        highlighted = options.highlighted if select is None else select
        options.clear_options()
        slotted = {a.name for a in effective_loadout(character)}
        for index, ability in enumerate(self.abilities):
            mark = ("● ", "$success") if ability.name in slotted else ("  ", "")
            options.add_option(Option(Content.assemble(
                mark, (ability.name, "bold"), (f"  {ability.difficulty}", "$accent"),
            ), id=str(index)))
        options.border_title = f"Abilities ({len(self.abilities)})"
        if self.abilities:
            options.highlighted = min(highlighted or 0, len(self.abilities) - 1)
        self.show_detail()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.show_detail()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.action_edit()

    def _current(self) -> int | None:
        index = self.query_one("#ability-list", OptionList).highlighted
        return index if index is not None and index < len(self.abilities) else None

    def show_detail(self) -> None:
        detail = self.query_one("#ability-detail", Static)
        index = self._current()
        if index is None:
            detail.update(Text.assemble(
                ("No abilities yet.\n\n", "bold"),
                "Invent one with n: a name, a difficulty from I to VI, what it targets and what it does "
                "(R-6). Stronger difficulties hit harder but have fewer charges and a longer cooldown.",
            ))
            return
        character = self.app.session.character
        b = build(character, self.app.rules)
        slotted = {a.name for a in effective_loadout(character)}
        ability = self.abilities[index]
        detail.update(ability_text(self, ability, b, self.app.rules, ability.name in slotted))

    def action_new(self) -> None:
        self.app.push_screen(AbilityFormScreen(None, [a.name for a in self.abilities],
                                               commit=lambda ability: self._store(None, ability)))

    def action_edit(self) -> None:
        index = self._current()
        if index is None:
            self.action_new()
            return
        others = [a.name for i, a in enumerate(self.abilities) if i != index]
        self.app.push_screen(AbilityFormScreen(self.abilities[index], others,
                                               commit=lambda ability: self._store(index, ability)))

    def _store(self, index: int | None, ability: Ability) -> bool:
        """Save the character with `ability` (new, or in place of the one at `index`); False if the
        save was refused (`app.commit` says why), and the form stays open."""
        character = self.app.session.character
        abilities = list(character.abilities)
        loadout = list(character.loadout)
        if index is None:
            abilities.append(ability)
            index = len(abilities) - 1
        else:
            old = abilities[index].name
            abilities[index] = ability
            loadout = [ability.name if name == old else name for name in loadout]
        changed = attrs.evolve(character, abilities=abilities, loadout=loadout)
        if self.app.commit(changed):
            # a slotted ability made dearer may leave the loadout over the level's slots or
            # charges; the battle would refuse it, so say so now (the edit is kept: it is the player's)
            before = {p.message for p in loadout_problems(character, self.app.rules)}
            new = [p.message for p in loadout_problems(changed, self.app.rules) if p.message not in before]
            if new:
                self.notify(f"{ability.name} saved, but the loadout no longer fits: {new[0]}. "
                            "o opens the loadout to change it.", title="Loadout", severity="warning", timeout=12)
            else:
                self.notify(f"{ability.name} saved", timeout=3)
            self.refresh_list(select=index)
            return True
        return False

    def action_delete(self) -> None:
        index = self._current()
        if index is None:
            return
        name = self.abilities[index].name

        def answer(yes: bool | None) -> None:
            if not yes:
                return
            character = self.app.session.character
            abilities = [a for i, a in enumerate(character.abilities) if i != index]
            loadout = [n for n in character.loadout if n != name]
            if self.app.commit(attrs.evolve(character, abilities=abilities, loadout=loadout)):
                self.notify(f"{name} deleted", timeout=3)
            self.refresh_list()

        self.app.push_screen(ConfirmDialog(f"Delete {name}? It leaves the loadout too.", yes="Delete",
                                           no="Keep", title="Delete ability"), answer)
