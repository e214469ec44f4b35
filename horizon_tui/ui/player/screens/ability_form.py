"""Create or edit one ability with every R-6 field; its damage, check chance, cooldown and
charges update as it is typed. Answers with the `Ability` (valid by `check_ability`) or None."""

from __future__ import annotations

from collections.abc import Callable

import difflib

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Checkbox, DataTable, Input, Label, Select, Static

from horizon_tui.content.guard import check_ranges
from horizon_tui.content.models import Ability, AbilityKind, Difficulty, EffectSpec, Target
from horizon_tui.rules.character import build
from horizon_tui.rules.creation import ability_multiplier, solo_ability
from horizon_tui.rules.ranges import weapon_range
from horizon_tui.rules.validation import check_ability
from horizon_tui.ui.battle.flow import enemy_ids
from horizon_tui.ui.dialogs.confirm import ConfirmDialog
from horizon_tui.ui.dialogs.effect import EffectDialog
from horizon_tui.play.forms import (
    format_bonuses,
    name_length,
    number,
    parse_bonuses,
    parse_optional_int,
    parse_optional_number,
)
from horizon_tui.ui.widgets.ability import effect_label, preview_text
from horizon_tui.ui.widgets.onoff import OnOffBox
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar
from horizon_tui.ui.widgets.tone import tone

KINDS = [
    ("damage: hits for the normal attack × multiplier", AbilityKind.damage),
    ("effect: applies effects, no damage", AbilityKind.effect),
    ("passive: on for the whole battle", AbilityKind.passive),
    ("companion: brings an ally to the field", AbilityKind.companion),
]
TARGETS = [
    ("one enemy", Target.enemy), ("one ally", Target.ally), ("self", Target.self),
    ("area (radius)", Target.area), ("line (length)", Target.line),
]


class EffectsTable(DataTable):
    """The ability's effects; a adds, enter edits, x removes."""

    HELP_TITLE = "Effects"
    BINDINGS = [
        Binding("a,plus", "request('add')", "Add effect", id="effects.add"),
        Binding("enter", "request('edit')", "Edit effect", id="effects.edit"),
        Binding("x,delete", "request('remove')", "Remove effect", id="effects.remove"),
    ]

    @dataclass
    class Request(Message):
        table: EffectsTable
        what: str
        index: int | None

    def action_request(self, what: str) -> None:
        index = self.cursor_row if self.row_count else None
        self.post_message(self.Request(self, what, index))


class AbilityFormScreen(Screen[Ability | None]):
    TITLE = "Ability"
    BINDINGS = [
        Binding("ctrl+s", "save", "Save ability", id="ability.save"),
        Binding("ctrl+t", "add_effect", "Add effect", id="ability.add_effect"),
        Binding("escape", "cancel", "Cancel", id="ability.cancel"),
    ]

    def __init__(self, ability: Ability | None, other_names: list[str],
                 commit: Callable[[Ability], bool] | None = None):
        """`commit`: keeps the ability (saves the character or campaign); the form closes only once
        it says True, so a save refused (its reason shown by `commit`) loses nothing typed."""
        super().__init__(id="ability-form-screen")
        self.commit = commit
        self.original = ability
        self.other_names = set(other_names)
        self.effects: list[EffectSpec] = list(ability.effects) if ability else []

    def compose(self) -> ComposeResult:
        a = self.original or Ability(name="", difficulty=Difficulty.II, kind=AbilityKind.damage)
        yield TitleBar()
        yield Static(id="ability-preview", classes="panel")
        # not focusable itself: tab landing on the scroll box left the typing nowhere visible
        with VerticalScroll(id="ability-form", can_focus=False):
            with Grid(classes="form"):
                yield Label("Name")
                yield Input(a.name, placeholder="e.g. Ember Lash", id="ab-name", compact=True, max_length=name_length())
                yield Label("Description")
                yield Input(a.description, placeholder="what it looks like, what it does", id="ab-description",
                            compact=True)
                yield Label("Difficulty")
                yield Select([(f"{d.value}", d) for d in Difficulty], value=a.difficulty, allow_blank=False,
                             id="ab-difficulty", compact=True)
                yield Label("Kind")
                yield Select(KINDS, value=a.kind, allow_blank=False, id="ab-kind", compact=True)
                yield Label("")
                yield OnOffBox("Replaceable", a.replaceable, worded=True,
                               hint="a passive or companion that can be swapped out", id="ab-replaceable")
                yield Label("Target")
                yield Select(TARGETS, value=a.target, allow_blank=False, id="ab-target", compact=True)
                yield Label("Radius")
                yield Input(_opt(a.radius), placeholder="area: cells around the aimed cell", id="ab-radius",
                            compact=True)
                yield Label("Length")
                yield Input(_opt(a.length), placeholder="line: cells long", id="ab-length", compact=True)
                yield Label("Multiplier")
                yield Input(_opt(a.multiplier), id="ab-multiplier", compact=True)
                yield Label("Range")
                yield Input(_opt(a.range), id="ab-range", compact=True)
                yield Label("")
                yield OnOffBox("Own critical damage", a.crit, worded=True,
                               hint="critical hits in its own terms, GM-approved", id="ab-crit")
                yield Label("Modifiers")
                yield Input(format_bonuses({}, a.modifiers), placeholder="passives: e.g. evasion +2, strength +1",
                            id="ab-modifiers", compact=True)
                yield Label("Companion")
                yield Input(a.companion or "", placeholder="companion: an enemy-catalogue id, e.g. wolf",
                            id="ab-companion", compact=True)
                yield Label("Effects")
                yield EffectsTable(id="ab-effects", cursor_type="row", show_header=False)
            yield Static("Multiplier and range are GM overrides: leave them blank to use the difficulty's "
                         "multiplier and the weapon's range. On the effects: a adds, enter edits, x removes.",
                         classes="hint", id="ab-override-hint")
        yield Static(id="ability-problems")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#ability-preview").border_title = "At your level"
        self.sub_title = self.original.name if self.original else "new"
        weapon = self.app.session.character.weapon
        self.query_one("#ab-range", Input).placeholder = (
            f"GM override; blank: the weapon's ({weapon_range(weapon, self.app.rules)} cells)")
        if not self.app.overrides_allowed:  # R-6 [H]: overrides need the GM
            for field_id in ("#ab-multiplier", "#ab-range", "#ab-crit"):
                self.query_one(field_id).disabled = True
            self.query_one("#ab-override-hint", Static).update(
                "Multiplier, range and critical damage are GM overrides: without a GM the rules' numbers "
                "are used (a campaign's house rules may allow player overrides: [abilities] player_overrides). "
                "On the effects: a adds, enter edits, x removes.")
        for field in self.query(Input):
            # a field reached by tab or shift+tab keeps its text: with select-on-focus the next key
            # typed replaced it (the ability's name, silently)
            field.select_on_focus = False
        self.query_one("#ab-effects", EffectsTable).add_column("effect", key="effect")
        self.refresh_effects()
        self.query_one("#ab-name").focus()
        self.update_form()
        self.as_opened = self.read()[0]  # what esc compares with: a changed form asks before it is thrown away

    # --- reading the form ---------------------------------------------------------------------

    def read(self) -> tuple[Ability | None, list[str]]:
        """The ability the form describes, and what keeps it from being one."""
        errors: list[str] = []

        def value(field_id: str) -> str:
            return self.query_one(f"#{field_id}", Input).value

        def attempt(parse, *args, **kwargs):
            try:
                return parse(*args, **kwargs)
            except ValueError as exc:
                errors.append(str(exc))
                return None

        kind = self.query_one("#ab-kind", Select).value
        target = self.query_one("#ab-target", Select).value
        modifiers = attempt(parse_bonuses, value("ab-modifiers"), attributes=False)
        ability = Ability(
            name=value("ab-name").strip(),
            description=value("ab-description").strip(),
            difficulty=self.query_one("#ab-difficulty", Select).value,  # type: ignore[arg-type]
            kind=kind,  # type: ignore[arg-type]
            replaceable=self.query_one("#ab-replaceable", Checkbox).value,
            target=target,  # type: ignore[arg-type]
            radius=attempt(parse_optional_int, value("ab-radius"), "radius") if target is Target.area else None,
            length=attempt(parse_optional_int, value("ab-length"), "length") if target is Target.line else None,
            multiplier=attempt(parse_optional_number, value("ab-multiplier"), "multiplier"),
            range=attempt(parse_optional_int, value("ab-range"), "range"),
            crit=self.query_one("#ab-crit", Checkbox).value,
            effects=list(self.effects),
            modifiers=modifiers[1] if modifiers else {},
            companion=(value("ab-companion").strip() or None) if kind is AbilityKind.companion else None,
        )
        if not ability.name:
            errors.append("an ability needs a name")
        elif ability.name in self.other_names:
            errors.append(f"another ability is already called {ability.name!r}")
        errors += [f"{p.key.split('.', 1)[-1]}: {p.message}" if "." in p.key else p.message
                   for p in check_ranges(ability, "", ("ability",)) + check_ability(ability, "", "ability")]
        errors += self._companion_problem(ability.companion)
        return ability, errors

    def _companion_problem(self, companion: str | None) -> list[str]:
        """A companion names an enemy of the catalogue (R-10): else the battle would refuse to
        start. Said here, with the closest id, while the ability is being made."""
        known = enemy_ids(self.app) if companion else None
        if not known or companion in known:
            return []
        close = difflib.get_close_matches(companion, known, n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        return [f"companion: {companion!r} is not an enemy of the catalogue{hint}; known: {', '.join(known)}"]

    def on_input_changed(self, event: Input.Changed) -> None:
        self.update_form()

    def on_select_changed(self, event: Select.Changed) -> None:
        self.update_form()

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        self.update_form()

    def update_form(self) -> None:
        kind = self.query_one("#ab-kind", Select).value
        target = self.query_one("#ab-target", Select).value
        passive = kind in (AbilityKind.passive, AbilityKind.companion)
        self.query_one("#ab-replaceable").disabled = not passive
        self.query_one("#ab-radius").disabled = target is not Target.area
        self.query_one("#ab-length").disabled = target is not Target.line
        self.query_one("#ab-modifiers").disabled = not passive
        self.query_one("#ab-companion").disabled = kind is not AbilityKind.companion
        difficulty = self.query_one("#ab-difficulty", Select).value
        if isinstance(difficulty, Difficulty):
            probe = Ability(name="", difficulty=difficulty, kind=AbilityKind.damage)
            self.query_one("#ab-multiplier", Input).placeholder = (
                f"GM override; blank: ×{number(ability_multiplier(probe, self.app.rules))} for {difficulty}")
        ability, errors = self.read()
        preview = self.query_one("#ability-preview", Static)
        if ability is not None:
            b = build(self.app.session.character, self.app.rules)
            used = ability if self.app.overrides_allowed else solo_ability(ability, self.app.rules)
            preview.update(preview_text(self, used, b, self.app.rules))
        problems = self.query_one("#ability-problems", Static)
        problems.update(Text(f"✗ {errors[0]}" + (f"  (+{len(errors) - 1} more)" if len(errors) > 1 else ""),
                             style=tone(self, "error", bold=True)) if errors else
                        Text("✓ ctrl+s saves it", style=tone(self, "success")))

    # --- effects ------------------------------------------------------------------------------

    def refresh_effects(self) -> None:
        table = self.query_one("#ab-effects", EffectsTable)
        table.clear()
        for effect in self.effects:
            table.add_row(effect_label(effect))
        if not self.effects:
            table.add_row(Text("none — a adds one", style="dim"), key="none")

    def on_effects_table_request(self, event: EffectsTable.Request) -> None:
        index = event.index if self.effects else None
        if event.what == "add" or (event.what == "edit" and index is None):
            self.action_add_effect()
        elif event.what == "edit" and index is not None:
            self.app.push_screen(EffectDialog(self.effects[index]), lambda e: self._put_effect(index, e))
        elif event.what == "remove" and index is not None:
            del self.effects[index]
            self.refresh_effects()
            self.update_form()

    def action_add_effect(self) -> None:
        self.app.push_screen(EffectDialog(), lambda e: self._put_effect(None, e))

    def _put_effect(self, index: int | None, effect: EffectSpec | None) -> None:
        if effect is None:
            return
        if index is None:
            self.effects.append(effect)
        else:
            self.effects[index] = effect
        self.refresh_effects()
        self.update_form()

    # --- leaving ------------------------------------------------------------------------------

    def action_save(self) -> None:
        ability, errors = self.read()
        if errors or ability is None:
            self.app.bell()
            self.notify(errors[0] if errors else "the form is incomplete", title="Can't save the ability",
                        severity="error")
            return
        if self.commit is not None and not self.commit(ability):
            return  # not kept (said why): the form stays open with everything typed
        self.dismiss(ability)

    def unsaved_work(self) -> str | None:
        """For ctrl+q (`SavesFolder.quit` in ui.player.app): the changes esc would ask about."""
        if self.read()[0] == getattr(self, "as_opened", None):
            return None
        return f"the changes to the ability {self.original.name}" if self.original else "the new ability"

    def action_cancel(self) -> None:
        if self.read()[0] == getattr(self, "as_opened", None):
            self.dismiss(None)
            return

        self.app.push_screen(ConfirmDialog("This ability has changes that are not saved. Throw them away?",
                                           yes="Throw away", no="Keep editing", title="Unsaved changes"),
                             lambda discard: discard and self.dismiss(None))


def _opt(value) -> str:
    return "" if value is None else number(value)
