"""A campaign's house rules: the shipped `rules.toml` plus the campaign's overrides.

No Textual here. Rules are edited as plain data (the unstructured `Ruleset`), cell by cell, and
checked after every keystroke: first that the data still makes a `Ruleset` (types), then
`rules.validation.check_ruleset` (thresholds rising with difficulty, no negative charges…) and the
few sanity checks below that it leaves out. A campaign stores only what differs from the shipped
defaults, so `diff` is also what the editor shows against them.
"""

from __future__ import annotations

import copy
import json
import pathlib
import re
from decimal import Decimal
from typing import Any

import attrs

from horizon_tui.content import ruleset as rs
from horizon_tui.content.convert import converter, structure
from horizon_tui.content.guard import parse_decimal
from horizon_tui.content.models import Difficulty
from horizon_tui.content.ruleset import Ruleset
from horizon_tui.errors import DataError
from horizon_tui.rules.validation import check_ruleset
from horizon_tui.storage.atomic import encode

Path = tuple[Any, ...]

STRONG = [d.value for d in Difficulty if d is not Difficulty.I]
LEVEL_COLUMNS: list[tuple[str, Path]] = [
    ("slots", ("slots",)), *[(d, ("charges", d)) for d in STRONG], ("free-action points", ("free_action_points",)),
]
DIFFICULTY_COLUMNS: list[tuple[str, Path]] = [
    ("multiplier", ("multiplier",)), ("cooldown", ("cooldown",)), ("threshold", ("threshold",)),
    ("check dropped at level", ("check_dropped_at",)),
]
# Sections of "other numbers", in the order the editor lists them.
SECTIONS = ("experience", "creation", "species", "checks", "turns", "attack", "ranges", "dialogue", "campaign",
            "abilities", "armor_classes", "free_actions")
ALLOW_NEGATIVE = {("dialogue", "modifier_min")}
SHARES = {  # probabilities: between 0 and 1
    ("species", "reaction_ill_wisher"), ("species", "reaction_indifferent"), ("species", "reaction_admirer"),
    ("attack", "hit_base"), ("attack", "hit_per_point"), ("attack", "hit_min"), ("attack", "hit_max"),
    ("checks", "failure_fizzle"), ("checks", "failure_self"), ("checks", "failure_random"),
    ("ranges", "bow_fled_hit_factor"),
}


def rules_data(rules: Ruleset) -> dict[str, Any]:
    """A Ruleset as plain data (what a rules.toml holds), JSON-normalised."""
    return json.loads(json.dumps(converter.unstructure(rules)))


def to_ruleset(data: dict[str, Any], file: str = "<campaign rules>") -> Ruleset:
    return structure(copy.deepcopy(data), Ruleset, file)


# --- overrides ------------------------------------------------------------------------------------


def merge(defaults: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """Tables merge key by key; anything else (numbers, lists) is replaced."""
    out = copy.deepcopy(defaults)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def overrides(defaults: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """What `data` changes in `defaults`: the smallest nested dict that `merge` turns back into it
    (a list that differs anywhere is kept whole)."""
    out: dict[str, Any] = {}
    for key, value in data.items():
        base = defaults.get(key)
        if isinstance(value, dict) and isinstance(base, dict):
            inner = overrides(base, value)
            if inner:
                out[key] = inner
        elif value != base:
            out[key] = copy.deepcopy(value)
    return out


def diff(defaults: dict[str, Any], data: dict[str, Any], prefix: Path = ()) -> list[tuple[str, Any, Any]]:
    """Every leaf that differs: (dotted key, default, campaign value)."""
    found: list[tuple[str, Any, Any]] = []
    for key in list(defaults) + [k for k in data if k not in defaults]:
        a, b = defaults.get(key), data.get(key)
        path = (*prefix, key)
        if isinstance(a, dict) and isinstance(b, dict):
            found += diff(a, b, path)
        elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            for index, (x, y) in enumerate(zip(a, b)):
                if isinstance(x, dict) and isinstance(y, dict):
                    label = x.get("level", x.get("name", index))
                    found += diff(x, y, (*path, label))
                elif x != y:
                    found.append((dotted((*path, index)), x, y))
        elif a != b:
            found.append((dotted(path), a, b))
    return found


def dotted(path: Path) -> str:
    return ".".join(str(p) for p in path)


def shown_key(data: dict[str, Any], path: Path) -> str:
    """A cell's key as the editor shows it: a level row by its level (`levels.2.slots` for the
    row shown as level 2, as the Changes tab and the log name it), not by its place in the list."""
    if len(path) > 1 and path[0] == "levels" and isinstance(path[1], int) and path[1] < len(data["levels"]):
        return dotted(("levels", data["levels"][path[1]]["level"], *path[2:]))
    return dotted(path)


_LEVEL_INDEX = re.compile(r"^levels\.(\d+)(?=[.:]|$)")


def _by_level(data: dict[str, Any], problem: str) -> str:
    """`levels.7.slots: …` (the list's index, as a file's reader says it) → `levels.8.slots: …`."""
    found = _LEVEL_INDEX.match(problem)
    rows = data.get("levels")
    if found is None or not isinstance(rows, list) or int(found.group(1)) >= len(rows):
        return problem
    row = rows[int(found.group(1))]
    level = row.get("level") if isinstance(row, dict) else None
    return problem if level is None else f"levels.{level}" + problem[found.end():]


def rules_file(data: dict[str, Any], campaign: str) -> bytes:
    """The rules as a rules.toml (`horizon rules --rules-file` prints it, [H] marks and all)."""
    head = (f"# The house rules of the campaign {' '.join(campaign.split())}, as `horizon gm` plays them\n"
            "# (the shipped rules with the campaign's changes). `horizon rules --rules-file THIS` prints them.\n")
    return head.encode() + encode(data, _TOML)


_TOML = pathlib.Path("rules.toml")  # storage.atomic.encode writes TOML for this suffix


# --- cells ----------------------------------------------------------------------------------------


def get(data: Any, path: Path) -> Any:
    for key in path:
        data = data[key]
    return data


def parse_cell(text: str, current: Any) -> Any:
    """What the GM typed, as the kind of value the cell holds (the Ruleset's types then check it)."""
    raw = text.strip()
    if isinstance(current, bool):
        lowered = raw.lower()
        if lowered in ("true", "yes", "on", "1"):
            return True
        if lowered in ("false", "no", "off", "0"):
            return False
        raise ValueError("write true or false")
    if isinstance(current, (int, float)) or current is None:
        if current is None and not raw:
            return None

        number = parse_decimal(raw)  # bounded digits and exponent: "1e999999999" is refused at once
        return int(number) if number.denominator == 1 else float(number)
    if not raw:
        raise ValueError("this can't be empty")
    return raw


def set_cell(data: dict[str, Any], path: Path, text: str) -> dict[str, Any]:
    """A copy of `data` with the cell at `path` set from `text`; ValueError if it doesn't parse."""
    value = parse_cell(text, get(data, path))
    out = copy.deepcopy(data)
    parent = get(out, path[:-1])
    parent[path[-1]] = value
    return out


def add_level(data: dict[str, Any]) -> dict[str, Any]:
    """One more row at the end of the level table (a copy of the last, one level up)."""
    out = copy.deepcopy(data)
    last = copy.deepcopy(out["levels"][-1])
    last["level"] += 1
    out["levels"].append(last)
    return out


def remove_level(data: dict[str, Any]) -> dict[str, Any]:
    if len(data["levels"]) <= 1:
        raise ValueError("the level table needs at least one row")
    out = copy.deepcopy(data)
    out["levels"].pop()
    return out


@attrs.frozen
class NumberRow:
    path: Path
    mark: str  # "[H] R-5", "[S] R-4" or ""

    @property
    def key(self) -> str:
        return dotted(self.path)


def number_rows(data: dict[str, Any]) -> list[NumberRow]:
    """Every scalar of the rules outside the level and difficulty tables, with its [H]/[S] mark."""
    classes = {
        "experience": rs.Experience, "creation": rs.Creation, "species": rs.SpeciesRules, "checks": rs.CheckRules,
        "turns": rs.TurnRules, "attack": rs.AttackRules, "ranges": rs.RangeRules, "dialogue": rs.DialogueRules,
        "campaign": rs.CampaignRules,
        "abilities": rs.AbilityRules,
    }
    rows: list[NumberRow] = []
    for section in SECTIONS:
        value = data.get(section)
        if section == "armor_classes":
            for key in sorted(value, key=int, reverse=True):
                for name in ("reduction", "strength"):
                    rows.append(NumberRow((section, key, name), _mark(Ruleset, "armor_classes")))
            continue
        if section == "free_actions":
            for index in range(len(value)):
                for name in ("chance", "duration", "magnitude", "range"):
                    rows.append(NumberRow((section, index, name), _mark(Ruleset, "free_actions")))
            continue
        cls = classes[section]
        for name, item in value.items():
            mark = _mark(cls, name)
            if isinstance(item, dict) and name == "minimums":
                rows += [NumberRow((section, name, k), mark) for k in item]
            elif isinstance(item, dict) and name == "kinds":
                for kind, row in item.items():
                    rows += [NumberRow((section, name, kind, k), mark) for k in row]
            elif not isinstance(item, (dict, list)):
                rows.append(NumberRow((section, name), mark))
    return rows


def _mark(cls: type, name: str) -> str:
    field = attrs.fields_dict(cls).get(name)
    if field is None or "house" not in field.metadata:
        return ""
    return f"[{'H' if field.metadata['house'] else 'S'}] {field.metadata['rule']}"


# --- checking -------------------------------------------------------------------------------------


def problems(data: dict[str, Any], file: str = "rules") -> list[str]:
    """Everything wrong with these rules, in words; empty when they can be used."""
    try:
        rules = to_ruleset(data, file)
    except DataError as exc:
        return [_by_level(data, f"{p.key}: {p.message}") for p in exc.problems]
    found = [_by_level(data, f"{p.key}: {p.message}") for p in check_ruleset(rules, file)]
    found += _sanity(data)
    return found


def _numbers(value: Any, path: Path = ()):
    if isinstance(value, bool):
        return
    if isinstance(value, (int, float)):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _numbers(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _numbers(v, (*path, i))


def _sanity(data: dict[str, Any]) -> list[str]:
    found = []
    for path, value in _numbers(data):
        if value < 0 and path not in ALLOW_NEGATIVE:
            found.append(f"{dotted(path)}: can't be negative")
        if (path in SHARES or (path[:1] == ("free_actions",) and path[-1] == "chance")) and value > 1:
            found.append(f"{dotted(path)}: a chance is between 0 and 1")
    species = data["species"]
    shares = Decimal(str(species["reaction_ill_wisher"])) + Decimal(str(species["reaction_indifferent"])) + Decimal(
        str(species["reaction_admirer"]))
    if shares != 1:
        found.append(f"species: the settlement reactions must add up to 1 (they add up to {shares})")
    dialogue = data["dialogue"]
    if dialogue["modifier_min"] > dialogue["modifier_max"]:
        found.append("dialogue.modifier_min: above modifier_max")
    levels = data["levels"]
    for before, after in zip(levels, levels[1:]):
        for key in ("slots", "free_action_points"):
            if after[key] < before[key]:
                found.append(f"levels.{after['level']}.{key}: falls from level {before['level']}")
        for d in STRONG:
            if after["charges"].get(d, 0) < before["charges"].get(d, 0):
                found.append(f"levels.{after['level']}.charges.{d}: falls from level {before['level']}")
    return found
