"""Rules: the rules data in force, in tables, house defaults marked [H] (RULES.md)."""

from __future__ import annotations

import attrs
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Static, TabbedContent, TabPane

from horizon_tui.content.convert import converter
from horizon_tui.content.models import Difficulty
from horizon_tui.content.ruleset import Ruleset
from horizon_tui.play.forms import number
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar

SECTIONS = ("creation", "experience", "species", "checks", "turns", "attack", "ranges", "dialogue")
TABS = ("levels", "difficulties", "armor", "ranges", "numbers")


def mark(cls: type, name: str) -> Text:
    """[H] R-5 / [S] R-9 from the field's metadata (ruleset.py), house defaults highlighted."""
    field = attrs.fields_dict(cls).get(name)
    if field is None or "house" not in field.metadata:
        return Text("")
    house = field.metadata["house"]
    return Text(f"[{'H' if house else 'S'}] {field.metadata['rule']}", style="bold yellow" if house else "dim")


class RulesScreen(Screen):
    TITLE = "Rules"
    AUTO_FOCUS = "#rules-levels"
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back", id="rules.back"),
        *[
            Binding(str(n), f"tab('{tab}')", f"{tab.capitalize()} tab", show=False, id=f"rules.tab.{tab}",
                    group=Binding.Group("Switch tab"))
            for n, tab in enumerate(TABS, start=1)
        ],
    ]

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Static(Text.assemble(
            ("[H]", "bold yellow"), " a house default: the source is silent, so this is a reading a GM may "
            "change in rules.toml. ", ("[S]", "dim"), " the source says so. II–VI: charges per battle.",
        ), id="rules-legend")
        with TabbedContent(id="rules-tabs"):
            with TabPane(self._label(1, "Levels", "levels"), id="levels"):
                yield DataTable(id="rules-levels", cursor_type="row", zebra_stripes=True)
            with TabPane(self._label(2, "Difficulties", "difficulties"), id="difficulties"):
                yield DataTable(id="rules-difficulties", cursor_type="row", zebra_stripes=True)
            with TabPane(self._label(3, "Armor", "armor_classes"), id="armor"):
                yield DataTable(id="rules-armor", cursor_type="row", zebra_stripes=True)
            with TabPane(self._label(4, "Ranges", "ranges"), id="ranges"):
                yield DataTable(id="rules-ranges", cursor_type="row", zebra_stripes=True)
            with TabPane("5 Other numbers", id="numbers"):
                yield DataTable(id="rules-numbers", cursor_type="row", zebra_stripes=True)
        yield KeyBar()

    @staticmethod
    def _label(n: int, title: str, field: str) -> str:
        house = attrs.fields_dict(Ruleset)[field].metadata.get("house")
        return f"{n} {title}" + (r" \[H]" if house else "")

    def on_mount(self) -> None:
        rules: Ruleset = self.app.rules
        strong = [d for d in Difficulty if d is not Difficulty.I]

        table = self.query_one("#rules-levels", DataTable)
        table.add_columns("level", "slots", *[f"{d}" for d in strong], "free-action points")
        for i, row in enumerate(rules.levels):
            label = f"{row.level}+" if i == len(rules.levels) - 1 else str(row.level)
            table.add_row(label, str(row.slots), *[str(row.charges.get(d, 0)) for d in strong],
                          str(row.free_action_points))

        table = self.query_one("#rules-difficulties", DataTable)
        table.add_columns("difficulty", "multiplier", "cooldown (own turns)", "check threshold", "check dropped at level")
        for d, row in rules.difficulties.items():
            table.add_row(d.value, f"×{number(row.multiplier)}", str(row.cooldown),
                          "—" if row.threshold == 0 else number(row.threshold), str(row.check_dropped_at))

        table = self.query_one("#rules-armor", DataTable)
        table.add_columns("class", "damage and speed", "strength needed", "catalogue armor")
        by_class: dict[int, list[str]] = {}
        for armor in self.app.catalogue.armor.values():
            by_class.setdefault(armor.armor_class, []).append(armor.name)
        for cls in sorted(rules.armor_classes, reverse=True):
            row = rules.armor_classes[cls]
            table.add_row(str(cls), f"−{number(row.reduction * 100)}%", number(row.strength),
                          ", ".join(by_class.get(cls, [])) or "—")

        table = self.query_one("#rules-ranges", DataTable)
        table.add_columns("weapon", "normal attack (cells)", "abilities V–VI")
        for kind, row in rules.ranges.kinds.items():
            normal = str(row.normal_min) if row.normal_min == row.normal_max else f"{row.normal_min}–{row.normal_max}"
            table.add_row(kind.label, normal, "—" if row.strong is None else str(row.strong))
        table.add_row(Text("0 = adjacent, diagonals included (R-11)", style="dim"), "", "")

        table = self.query_one("#rules-numbers", DataTable)
        table.add_columns("mark", "rule", "value")
        for section in SECTIONS:
            obj = getattr(rules, section)
            for field in attrs.fields(type(obj)):
                if field.name == "kinds":
                    continue
                value = converter.unstructure(getattr(obj, field.name))
                table.add_row(mark(type(obj), field.name), f"{section}.{field.name}", _plain(value))
        for action in rules.free_actions:
            table.add_row(Text("[H] R-13", style="bold yellow"), f"free action: {action.name}",
                          f"{action.effect}, chance {number(action.chance)}")

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab
        self.query_one(f"#rules-{tab}", DataTable).focus()

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        pane = event.pane.id
        if pane:
            self.query_one(f"#rules-{pane}", DataTable).focus()


def _plain(value) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {_plain(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_plain(v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)
