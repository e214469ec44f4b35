"""Step 4 of the creation wizard: weapon and armor. Armor the character is too weak for is shown
crossed and refused with the reason (R-9 [H], `rules.creation.armor_refusal`)."""

from __future__ import annotations

import attrs
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from horizon_tui.content.models import WeaponKind
from horizon_tui.rules.character import build
from horizon_tui.rules.creation import armor_refusal
from horizon_tui.rules.numbers import one_decimal
from horizon_tui.play.draft import CharacterDraft
from horizon_tui.play.forms import number
from horizon_tui.ui.widgets.tone import tone

NO_ARMOR = "__none__"


class EquipmentStep(Vertical):
    """Enter chooses the highlighted weapon or armor; armor too heavy for the character's
    strength is shown crossed and refused with the reason (R-9)."""

    title = "Weapon & armor"

    def __init__(self, draft: CharacterDraft, **kwargs):
        super().__init__(**kwargs)
        self.draft = draft

    def compose(self) -> ComposeResult:
        with Horizontal(id="equipment-lists"):
            yield OptionList(id="weapon-list")
            yield OptionList(id="armor-list")
        yield Static(id="equipment-detail", classes="panel")

    def on_mount(self) -> None:
        self.query_one("#weapon-list").border_title = "Weapon"
        self.query_one("#armor-list").border_title = "Armor"
        weapons = self.query_one("#weapon-list", OptionList)
        kind = None
        for key, weapon in sorted(self.draft.catalogue.weapons.items(), key=lambda kv: list(WeaponKind).index(kv[1].kind)):
            if weapon.kind is not kind:
                kind = weapon.kind
                weapons.add_option(Option(Content.styled(kind.label, "italic $text-muted"), disabled=True))
            weapons.add_option(Option(self._weapon_prompt(key), id=key))
        armor = self.query_one("#armor-list", OptionList)
        armor.add_option(Option(self._armor_prompt(NO_ARMOR), id=NO_ARMOR))
        armor.add_options(Option(self._armor_prompt(key), id=key) for key in self.draft.catalogue.armor)
        weapons.highlighted = weapons.get_option_index(self.draft.weapon_id)
        armor.highlighted = 0

    def on_show(self) -> None:
        self.refresh_prompts()  # strength may have changed on the attributes step

    def focus_first(self) -> None:
        self.query_one("#weapon-list").focus()

    def _strength(self):
        return build(attrs.evolve(self.draft.character(), armor=None), self.draft.catalogue.rules).stats["strength"]

    def _weapon_prompt(self, key: str) -> Content:
        w = self.draft.catalogue.weapons[key]
        chosen = key == self.draft.weapon_id
        return Content.assemble(
            ("● " if chosen else "  ", "$accent"), (f"{w.name:<16}", "bold" if chosen else ""),
            (f" {w.damage}", "bold" if chosen else ""), (" ✦" if w.short_blade else "", "$success"),
        )

    def _armor_prompt(self, key: str) -> Content:
        chosen = (self.draft.armor_id or NO_ARMOR) == key
        mark = ("● " if chosen else "  ", "$accent")
        if key == NO_ARMOR:
            return Content.assemble(mark, ("No armor", "bold" if chosen else ""))
        armor = self.draft.catalogue.armor[key]
        rules = self.draft.catalogue.rules
        row = rules.armor_classes.get(armor.armor_class)
        refused = armor_refusal(armor, self._strength(), rules) is not None
        cut = f"−{number(row.reduction * 100)}%" if row else ""
        detail = f" c{armor.armor_class:<2} {cut:<5} str {number(row.strength)}" if row else ""
        if refused:
            return Content.assemble(("✗ ", "$error"), (f"{armor.name:<15}", "$error 60%"), (detail, "$error 60%"))
        return Content.assemble(mark, (f"{armor.name:<15}", "bold" if chosen else ""), (detail, "dim"))

    def refresh_prompts(self) -> None:
        weapons = self.query_one("#weapon-list", OptionList)
        for key in self.draft.catalogue.weapons:
            weapons.replace_option_prompt(key, self._weapon_prompt(key))
        armor = self.query_one("#armor-list", OptionList)
        armor.replace_option_prompt(NO_ARMOR, self._armor_prompt(NO_ARMOR))
        for key in self.draft.catalogue.armor:
            armor.replace_option_prompt(key, self._armor_prompt(key))

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option.id and event.option_list.has_focus:
            self.show_detail(event.option_list.id or "", event.option.id)

    def on_descendant_focus(self, event) -> None:
        """The details follow the list the player is in."""
        widget = event.widget
        if isinstance(widget, OptionList) and widget.highlighted is not None:
            option = widget.get_option_at_index(widget.highlighted)
            if option.id:
                self.show_detail(widget.id or "", option.id)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        key = event.option.id or ""
        if event.option_list.id == "weapon-list":
            self.draft.weapon_id = key
        else:
            if key != NO_ARMOR:
                reason = armor_refusal(self.draft.catalogue.armor[key], self._strength(), self.draft.catalogue.rules)
                if reason:
                    self.app.bell()
                    self.notify(reason, title="Too heavy", severity="error", timeout=6)
                    self.show_detail("armor-list", key)
                    return
            self.draft.armor_id = None if key == NO_ARMOR else key
        self.refresh_prompts()
        self.show_detail(event.option_list.id or "", key)

    def show_detail(self, which: str, key: str) -> None:
        rules = self.draft.catalogue.rules
        text = Text()
        if which == "weapon-list":
            w = self.draft.catalogue.weapons[key]
            b = build(attrs.evolve(self.draft.character(), weapon=w), rules)
            text.append(w.name, style="bold")
            text.append(f"  {w.kind.label}, {w.damage}")
            if w.range is not None:
                text.append(f", range {w.range}")
            if w.short_blade:
                text.append("  ✦ short blade: can crit with a normal attack", style=tone(self, "success"))
            text.append(f"\n{w.description}\n", style="dim")
            text.append("Normal attack with it ")
            text.append(f"{one_decimal(b.attack_min):.1f} – {one_decimal(b.attack_max):.1f}", style="bold")
        elif key == NO_ARMOR:
            text.append("No armor", style="bold")
            text.append("\nNothing slows you; nothing turns a blow.", style="dim")
        else:
            armor = self.draft.catalogue.armor[key]
            row = rules.armor_classes.get(armor.armor_class)
            strength = self._strength()
            text.append(armor.name, style="bold")
            if row:
                text.append(f"  class {armor.armor_class}: −{number(row.reduction * 100)}% damage and speed, "
                            f"needs strength {number(row.strength)}")
            text.append(f"\n{armor.description}\n", style="dim")
            reason = armor_refusal(armor, strength, rules, self.draft.name.strip() or "this character")
            if reason:
                text.append(f"✗ can't wear it: {reason}", style=tone(self, "error", bold=True))
            else:
                text.append(f"✓ strength {float(strength):.1f} is enough", style=tone(self, "success"))
        chosen_armor = self.draft.armor()
        text.append("\nChosen ", style="dim")
        text.append(self.draft.weapon().name, style="bold")
        text.append(" and ", style="dim")
        text.append(chosen_armor.name if chosen_armor else "no armor", style="bold")
        text.append("   (enter chooses)", style="dim")
        self.query_one("#equipment-detail", Static).update(text)

    def refusal(self) -> str | None:
        armor = self.draft.armor()
        if armor is not None:
            reason = armor_refusal(armor, self._strength(), self.draft.catalogue.rules)
            if reason:
                return reason
        return None
