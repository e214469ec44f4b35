"""Rich tables for the CLI's readable output (sheet, rules). Pure presentation."""

from __future__ import annotations

from typing import Any

import attrs
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from horizon_tui.content.convert import converter
from horizon_tui.content.models import Difficulty
from horizon_tui.content.ruleset import Ruleset


def print_sheet(sheet: dict[str, Any], console: Console | None = None) -> None:
    console = console or Console()
    # names are the file's text: shown as written, never read as Rich markup ("[/]" would raise)
    title = escape(f"{sheet['name']} — {sheet['species']}, level {sheet['level']}")
    head = Table.grid(padding=(0, 2))
    head.add_row("XP", str(sheet["xp"]), "points bought", str(sheet["points_bought"]),
                  "next point", f"{sheet['next_point_cost']} XP")
    attributes = Table(title="Attributes", show_header=False)
    for name, value in sheet["attributes"].items():
        attributes.add_row(name, str(value))
    stats = Table(title="Derived stats", show_header=False)
    for name, value in sheet["stats"].items():
        stats.add_row(name, str(value) if name == "health" else f"{value:.1f}")
    combat = Table(title="Combat", show_header=False)
    weapon = sheet["weapon"]
    combat.add_row("weapon", escape(f"{weapon['name']} ({weapon['kind'].replace('_', '-')}, {weapon['damage']})"))
    armor = sheet["armor"]
    combat.add_row("armor", "none" if armor is None else escape(f"{armor['name']} (class {armor['class']})"))
    attack = sheet["normal_attack"]
    combat.add_row("normal attack", f"{attack['min']:.1f} – {attack['max']:.1f}")
    combat.add_row("critical chance", f"{sheet['crit_chance']:.1f}%")
    combat.add_row("ability slots", str(sheet["slots"]))
    combat.add_row("charges", "  ".join(f"{d}:{n}" for d, n in sheet["charges"].items()))
    combat.add_row("free-action points", str(sheet["free_action_points"]))
    combat.add_row("loadout", escape(", ".join(sheet["loadout"])) or "—")
    console.print(f"[bold]{title}[/bold]")
    console.print(head)
    grid = Table.grid(padding=(0, 2))
    grid.add_row(attributes, stats, combat)
    console.print(grid)


def _mark(cls: type, name: str) -> str:
    field = attrs.fields_dict(cls).get(name)
    if field is None or "house" not in field.metadata:
        return ""
    return f"[{'H' if field.metadata['house'] else 'S'}] {field.metadata['rule']}"


def rules_document(rules: Ruleset) -> dict[str, Any]:
    """The rules as JSON, with `house`: the dotted keys of every house default."""
    data = converter.unstructure(rules)
    data["house"] = sorted(_house_keys(rules))
    return data


def _house_keys(obj: Any, prefix: str = "") -> list[str]:
    keys = []
    for field in attrs.fields(type(obj)):
        value = getattr(obj, field.name)
        path = f"{prefix}{field.name}"
        if field.metadata.get("house"):
            keys.append(path)
        elif attrs.has(type(value)):
            keys += _house_keys(value, path + ".")
    return keys


def print_rules(rules: Ruleset, console: Console | None = None) -> None:
    console = console or Console()
    levels = Table(title=f"Level table {_mark(Ruleset, 'levels')}")
    for column in ("level", "slots", *[d.value for d in Difficulty if d is not Difficulty.I], "free-action points"):
        levels.add_column(column, justify="right")
    for i, row in enumerate(rules.levels):
        label = f"{row.level}+" if i == len(rules.levels) - 1 else str(row.level)
        levels.add_row(label, str(row.slots), *[str(row.charges.get(d, 0)) for d in Difficulty if d is not Difficulty.I],
                       str(row.free_action_points))
    console.print(levels)
    diffs = Table(title=f"Difficulties {_mark(Ruleset, 'difficulties')}")
    for column in ("difficulty", "multiplier", "cooldown", "check threshold", "check dropped at level"):
        diffs.add_column(column, justify="right")
    for d, row in rules.difficulties.items():
        diffs.add_row(d.value, f"{float(row.multiplier):g}", str(row.cooldown),
                      "—" if row.threshold == 0 else f"{float(row.threshold):g}", str(row.check_dropped_at))
    console.print(diffs)
    armor = Table(title=f"Armor classes {_mark(Ruleset, 'armor_classes')}")
    for column in ("class", "damage and speed", "strength needed"):
        armor.add_column(column, justify="right")
    for cls in sorted(rules.armor_classes, reverse=True):
        row = rules.armor_classes[cls]
        armor.add_row(str(cls), f"−{float(row.reduction * 100):g}%", f"{float(row.strength):g}")
    console.print(armor)
    ranges = Table(title=f"Ranges in cells (0 = adjacent) {_mark(Ruleset, 'ranges')}")
    for column in ("weapon", "normal attack", "abilities V–VI"):
        ranges.add_column(column)
    for kind, row in rules.ranges.kinds.items():
        normal = str(row.normal_min) if row.normal_min == row.normal_max else f"{row.normal_min}–{row.normal_max}"
        ranges.add_row(kind.label, normal, "—" if row.strong is None else str(row.strong))
    console.print(ranges)
    other = Table(title="Other numbers ([H] = house default, editable in rules.toml)")
    for column in ("key", "value", "mark"):
        other.add_column(column)
    for section in ("creation", "experience", "species", "checks", "turns", "attack", "derived_stats", "ranges",
                    "dialogue", "campaign", "abilities"):
        obj = getattr(rules, section)
        for field in attrs.fields(type(obj)):
            if field.name == "kinds":
                continue
            value = converter.unstructure(getattr(obj, field.name))
            other.add_row(f"{section}.{field.name}", escape(str(value)), _mark(type(obj), field.name))
    for action in rules.free_actions:
        other.add_row(escape(f"free action: {action.name}"), escape(f"{action.effect}, chance {float(action.chance):g}"),
                      "[H] R-13")
    console.print(other)
    console.print("[H] marks a house default: the source text is silent, so this is a reading a GM may change.")
