"""Widgets that show a character's numbers: attributes (editable), derived stats, the sheet.

They show what the rules computed (a `Build`, a `sheet()` dict); they never compute a rule.
Changes the player asks for go out as messages; the screen applies the rule and calls `show`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import DataTable, Static

from horizon_tui.content.models import ATTRIBUTES, STATS
from horizon_tui.rules.numbers import one_decimal, whole
from horizon_tui.rules.stats import drivers
from horizon_tui.play.forms import number
from horizon_tui.ui.widgets.tone import tone


def stat_text(stat: str, value: Fraction | float) -> str:
    """Health whole, every other stat to one decimal, half up (R-2)."""
    return str(whole(value)) if stat == "health" else f"{one_decimal(value):.1f}"


class AttributeTable(DataTable):
    """The six attributes; +/− move a point in or out of the highlighted one."""

    HELP_TITLE = "Attributes"
    BINDINGS = [
        Binding("plus,equals_sign,right,l", "adjust(1)", "Raise", id="attributes.raise"),
        Binding("minus,left,h", "adjust(-1)", "Lower", id="attributes.lower"),
        Binding("greater_than_sign", "adjust(5)", "Raise by 5", show=False, id="attributes.raise5"),
        Binding("less_than_sign", "adjust(-5)", "Lower by 5", show=False, id="attributes.lower5"),
    ]

    @dataclass
    class Adjust(Message):
        """The player asks to move `steps` points into (or out of) `attribute`."""

        table: AttributeTable
        attribute: str
        steps: int

    @dataclass
    class Focused(Message):
        """The highlighted attribute changed (the stats it drives light up)."""

        table: AttributeTable
        attribute: str

    def __init__(self, *, bought_column: bool = False, id: str | None = None):
        super().__init__(id=id, cursor_type="row", zebra_stripes=False)
        self.bought_column = bought_column

    def on_mount(self) -> None:
        self.add_column("Attribute", key="name", width=11)
        self.add_column("Points", key="points", width=6)
        self.add_column("Bonus", key="bonus", width=5)
        self.add_column("Total", key="total", width=5)
        if self.bought_column:
            self.add_column("Bought", key="bought", width=6)
        else:
            self.add_column("Min", key="min", width=3)
        for name in ATTRIBUTES:
            self.add_row(name.capitalize(), "", "", "", "", key=name)

    @property
    def attribute(self) -> str:
        return ATTRIBUTES[self.cursor_row] if self.row_count else ATTRIBUTES[0]

    def show(
        self,
        invested: Mapping[str, int],
        totals: Mapping[str, int],
        minimums: Mapping[str, int],
        bought: Mapping[str, int] | None = None,
    ) -> None:
        for name in ATTRIBUTES:
            points = invested.get(name, 0)
            bonus = totals.get(name, 0) - points
            at_min = points <= minimums.get(name, 0)
            self.update_cell(name, "points", Text(str(points), justify="right",
                                                  style=tone(self, "foreground", dim=True) if at_min else "bold"))
            self.update_cell(name, "bonus", Text(f"{bonus:+d}" if bonus else "", justify="right",
                                                 style=tone(self, "success")))
            self.update_cell(name, "total", Text(str(totals.get(name, 0)), justify="right", style="bold"))
            if self.bought_column:
                n = (bought or {}).get(name, 0)
                self.update_cell(name, "bought", Text(f"+{n}" if n else "", justify="right",
                                                      style=tone(self, "accent", bold=True)))
            else:
                self.update_cell(name, "min", Text(str(minimums.get(name, 0)), justify="right", style="dim"))

    def action_adjust(self, steps: int) -> None:
        self.post_message(self.Adjust(self, self.attribute, steps))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table is self and event.row_key.value:
            self.post_message(self.Focused(self, event.row_key.value))


class StatsPanel(Static):
    """The ten derived stats; those the focused attribute feeds are highlighted with their
    coefficient; with a baseline, the change since it is shown."""

    def show(
        self,
        stats: Mapping[str, Fraction],
        attribute: str | None = None,
        baseline: Mapping[str, Fraction] | None = None,
    ) -> None:
        fed = drivers(attribute) if attribute else {}
        accent = tone(self, "accent", bold=True)
        table = Table.grid(padding=(0, 1))
        table.add_column(width=1)
        table.add_column(min_width=11)
        table.add_column(justify="right", min_width=6)
        table.add_column(min_width=6)
        for stat in STATS:
            value = stats[stat]
            lit = stat in fed
            note = Text("")
            if baseline is not None and stat_text(stat, baseline[stat]) != stat_text(stat, value):
                note = Text(f"+{stat_text(stat, value - baseline[stat])}", style=tone(self, "success", bold=True))
            elif lit:
                note = Text(f"×{number(fed[stat])}", style=tone(self, "accent"))
            table.add_row(
                Text("▸" if lit else "", style=accent),
                Text(stat, style=accent if lit else ""),
                Text(stat_text(stat, value), style=accent if lit else "bold"),
                note,
            )
        self.update(table)


class SheetView(Horizontal):
    """Every number of `horizon sheet`, from the `rules.character.sheet` dict. Narrower than
    `NARROW` columns, the combat panel goes under the other two (class `-narrow`): beside them it
    was squeezed until its values were cut off."""

    NARROW = 76  # attributes 21 + derived stats 22 + the combat panel's longest row ("normal attack …") 33

    def on_resize(self) -> None:
        self.set_class(self.size.width < self.NARROW, "-narrow")

    def compose(self) -> ComposeResult:
        yield Static(id="sheet-attributes", classes="panel")
        yield Static(id="sheet-stats", classes="panel")
        yield Static(id="sheet-combat", classes="panel")

    def on_mount(self) -> None:
        self.query_one("#sheet-attributes").border_title = "Attributes"
        self.query_one("#sheet-stats").border_title = "Derived stats"
        self.query_one("#sheet-combat").border_title = "Combat"

    def show(self, sheet: dict[str, Any], invested: Mapping[str, int]) -> None:
        attributes = Table.grid(padding=(0, 1), expand=True)
        attributes.add_column(ratio=1)
        attributes.add_column(justify="right")
        attributes.add_column(min_width=2)
        for name, total in sheet["attributes"].items():
            bonus = total - invested.get(name, 0)
            attributes.add_row(name, Text(str(total), style="bold"),
                               Text(f"{bonus:+d}" if bonus else "", style=tone(self, "success")))
        self.query_one("#sheet-attributes", Static).update(attributes)

        stats = Table.grid(padding=(0, 1), expand=True)
        stats.add_column(ratio=1)
        stats.add_column(justify="right")
        for name, value in sheet["stats"].items():
            stats.add_row(name, Text(str(value) if name == "health" else f"{value:.1f}", style="bold"))
        self.query_one("#sheet-stats", Static).update(stats)

        combat = Table.grid(padding=(0, 1), expand=True)
        combat.add_column(style="dim", no_wrap=True)
        combat.add_column(ratio=1)
        weapon = sheet["weapon"]
        armor = sheet["armor"]
        attack = sheet["normal_attack"]
        combat.add_row("weapon", Text.assemble((weapon["name"], "bold"), f" {weapon['damage']}"))
        combat.add_row("", Text(weapon["kind"].replace("_", "-"), style="dim"))
        combat.add_row("armor", "none" if armor is None else Text.assemble((armor["name"], "bold"),
                                                                           f" c{armor['class']}"))
        combat.add_row("normal attack", Text(f"{attack['min']:.1f} – {attack['max']:.1f}", style="bold"))
        combat.add_row("critical", f"{sheet['crit_chance']:.1f}%")
        combat.add_row("slots", Text(str(sheet["slots"]), style="bold"))
        combat.add_row("charges", " ".join(f"{d}:{n}" for d, n in sheet["charges"].items()))
        combat.add_row("free actions", str(sheet["free_action_points"]))
        combat.add_row("loadout", Text(", ".join(sheet["loadout"])) if sheet["loadout"] else Text("—", style="dim"))
        combat.add_row("abilities", str(len(sheet["abilities"])))
        self.query_one("#sheet-combat", Static).update(combat)


def sheet_heading(widget, sheet: dict[str, Any]) -> Text:
    """`Iriel — Elf, level 2    XP 0 · next point 10 XP · points bought 0`."""
    return Text.assemble(
        (sheet["name"], tone(widget, "accent", bold=True)),
        f" — {sheet['species']}, ",
        (f"level {sheet['level']}", "bold"),
        ("   XP ", "dim"), (str(sheet["xp"]), "bold"),
        ("  · next point ", "dim"), (f"{sheet['next_point_cost']} XP", "bold"),
        ("  · points bought ", "dim"), (str(sheet["points_bought"]), "bold"),
    )
