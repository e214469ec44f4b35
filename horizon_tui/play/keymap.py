"""Every battlefield key in one table: id → default keys → what it does.

The battle screen's bindings are made from this table (`battle_bindings`), `?` lists them from the
live bindings, and a user keymap file (`keymap.toml` in the user data folder) rebinds any of them
by id through Textual's keymap (`App.set_keymap`). A bad entry is reported with the file, line,
key and what is allowed, and the default is kept; it never stops the app.

Numpad digits arrive in a terminal (tmux included) exactly as the number row's digits, so the
digits 1–9 are directions (the numpad's layout, 5 waits), and ability slots live on `z` (a menu)
and the shifted digits `! @ # …` — never on a bare digit (KP3 once cast a heal).
Look is `;` (as in Crawl), so no letter of `hjklyubn` is taken from moving; `x` stays "play the
enemies' turns now", which the GM's screen shares; `X` (shift) is the whole field's overview, as in Crawl.
"""

from __future__ import annotations

import difflib
import os
import unicodedata
from pathlib import Path

import attrs
from textual.binding import Binding
from textual.keys import REPLACED_KEYS, Keys

from horizon_tui.content.guard import current, parse_text, read_limited
from horizon_tui.errors import DataError, Problem
from horizon_tui.paths import user_data_dir

KEYMAP_FILE = "keymap.toml"


@attrs.frozen
class KeyCommand:
    id: str  # the binding id a keymap file names, e.g. "battle.up"
    keys: tuple[str, ...]  # Textual key names, default
    description: str
    action: str  # the Textual action it runs
    show: bool = False  # in the key bar at the bottom
    key_display: str | None = None  # None: Textual shows the keys in force (remapped ones too)


def _move(name: str, arrow: str, keys: tuple[str, ...]) -> KeyCommand:
    return KeyCommand(f"battle.{name}", keys, f"Move / cursor {arrow}", f"direction('{name}')")


SHIFTED_DIGITS = ("exclamation_mark", "at", "number_sign", "dollar_sign", "percent_sign",
                  "circumflex_accent", "ampersand", "asterisk", "left_parenthesis")

BATTLE_KEYS: tuple[KeyCommand, ...] = (
    _move("up", "↑", ("up", "k", "8", "kp_8")),
    _move("down", "↓", ("down", "j", "2", "kp_2")),
    _move("left", "←", ("left", "h", "4", "kp_4")),
    _move("right", "→", ("right", "l", "6", "kp_6")),
    _move("up_left", "↖", ("home", "y", "7", "kp_7")),
    _move("up_right", "↗", ("pageup", "u", "9", "kp_9")),
    _move("down_left", "↙", ("end", "b", "1", "kp_1")),
    _move("down_right", "↘", ("pagedown", "n", "3", "kp_3")),
    KeyCommand("battle.attack", ("a",), "Attack", "attack", show=True),
    KeyCommand("battle.abilities", ("z",), "Abilities", "abilities", show=True),
    *(KeyCommand(f"battle.ability{i}", (SHIFTED_DIGITS[i - 1],), f"Ability in slot {i}", f"ability({i})") for i in range(1, 10)),
    KeyCommand("battle.free", ("f",), "Free action", "free_action"),
    KeyCommand("battle.swap", ("s",), "Swap a slotted ability", "swap"),
    KeyCommand("battle.look", ("semicolon",), "Look", "look", show=True),
    KeyCommand("battle.travel", ("t",), "Travel", "travel"),
    KeyCommand("battle.wait", ("full_stop", "5", "kp_5", "w"), "End turn", "wait", show=True),
    KeyCommand("battle.confirm", ("enter",), "Confirm the cursor", "confirm"),
    KeyCommand("battle.next", ("tab",), "Auto-fight (in a cursor: next target)", "next_target", show=True,
               key_display="tab"),
    KeyCommand("battle.cancel", ("escape",), "Cancel the cursor", "cancel"),
    KeyCommand("battle.log", ("m",), "Log", "log", show=True),
    KeyCommand("battle.overview", ("X",), "Overview of the whole battlefield", "overview"),
    KeyCommand("battle.leave", ("ctrl+l",), "Leave (saved)", "leave_battle", show=True),
    KeyCommand("battle.skip", ("x",), "Play the enemies' turns at once", "skip"),
    KeyCommand("battle.faster", ("plus", "equals_sign"), "Faster enemy turns", "faster"),
    KeyCommand("battle.slower", ("minus",), "Slower enemy turns", "slower"),
)

DIRECTION_IDS = {f"battle.{name}": name for name in
                 ("up", "down", "left", "right", "up_left", "up_right", "down_left", "down_right")}


def battle_bindings() -> list[Binding]:
    return [Binding(",".join(c.keys), c.action, c.description, id=c.id, show=c.show, key_display=c.key_display)
            for c in BATTLE_KEYS]


_KEY_NAMES = frozenset(k.value for k in Keys)


def _is_character_name(name: str) -> bool:
    """Textual names printable keys by their Unicode name: "full_stop", "question_mark"."""
    try:
        unicodedata.lookup(REPLACED_KEYS.get(name, name).replace("_", " ").upper())
    except KeyError:
        return False
    return True


_MODIFIERS = ("ctrl", "shift", "alt", "meta", "super", "hyper")

# The app's own keys, bound before any screen's (priority): a battle key on one would never run.
APP_KEYS = {"ctrl+q": "quits the app", "ctrl+p": "opens the command palette",
            "ctrl+c": "tells how to quit"}


def key_problem(key: str) -> str | None:
    """Why `key` can't be a Textual key name, or None."""
    if not key or key != key.strip() or "," in key:
        return "a key name without spaces or commas"
    *mods, base = key.split("+") if len(key) > 1 else [key]
    bad = [m for m in mods if m not in _MODIFIERS]
    if bad:
        return f"unknown modifier {bad[0]!r} (allowed: {', '.join(_MODIFIERS)})"
    if len(base) == 1 or base in _KEY_NAMES or base in ("space", "kp_begin") or _is_character_name(base):
        return None
    if base.startswith("kp_") and base[3:].isdigit() or base[:1] == "f" and base[1:].isdigit():
        return None
    return "unknown key name (a single character, or a name such as up, pageup, home, escape, f5, kp_7)"


def _app_key(key: str) -> str | None:
    what = APP_KEYS.get(key)
    return f"is the app's own key (it {what} on every screen); pick another" if what else None


def _line_of(text: str, key: str) -> int | None:
    leaf = key.rsplit(".", 1)[-1]
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip().strip('"')
        if stripped.startswith((key, f'"{key}"', leaf, f'"{leaf}"')):
            return number
    return None


def _flatten(table: dict, prefix: str = "") -> dict[str, object]:
    flat: dict[str, object] = {}
    for name, value in table.items():
        key = f"{prefix}{name}"
        if isinstance(value, dict):
            flat.update(_flatten(value, key + "."))
        else:
            flat[key] = value
    return flat


def parse_keymap(text: str, source: str, commands: tuple[KeyCommand, ...] = BATTLE_KEYS
                 ) -> tuple[dict[str, str], list[Problem]]:
    """A keymap file's text → (binding id → "key,key", problems). Entries with a problem are left
    out (the default stays); the others apply. The text is read as every other file is (the
    guarded reader: nesting, digits), so a hostile file is a problem, not a crash."""
    try:
        data = parse_text(text, source, json_format=False)
    except DataError as exc:
        return {}, [attrs.evolve(p, message=f"{p.message}; nothing in it was applied") for p in exc.problems]
    known = {c.id: c for c in commands}
    keymap: dict[str, str] = {}
    problems: list[Problem] = []
    for key, value in _flatten(data).items():
        line = _line_of(text, key)
        if key.startswith(OPTIONS_PREFIX):
            continue  # keymap_options reads those
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            problems.append(Problem(source, key, "no such key command; the ids are listed by `?` in a battle "
                                    "and in the README", line, close[0] if close else None))
            continue
        keys = [value] if isinstance(value, str) else value
        if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
            problems.append(Problem(source, key, 'a key name or a list of key names, e.g. ["up", "k"]', line))
            continue
        wrong = [(k, why) for k in keys if (why := key_problem(k) or _app_key(k))]
        if wrong:
            k, why = wrong[0]
            problems.append(Problem(source, key, f"{k!r}: {why}", line))
            continue
        keymap[key] = ",".join(keys)
    problems.extend(_clashes(keymap, commands, source, text))
    return keymap, problems


OPTIONS_PREFIX = "options."
# [options]: numbers the battle keys use, with their range. auto_fight_stop: Tab (auto-fight) refuses
# below this share of health, in percent (Crawl's autofight_stop).
OPTIONS = {"auto_fight_stop": (0, 100)}


def keymap_options(text: str, source: str) -> tuple[dict[str, int], list[Problem]]:
    """The keymap file's `[options]` (name → whole number in its range), and what is wrong with them."""
    try:
        data = parse_text(text, source, json_format=False)
    except DataError:
        return {}, []  # parse_keymap reports it
    options: dict[str, int] = {}
    problems: list[Problem] = []
    table = data.get("options", {})
    if not isinstance(table, dict):
        return {}, [Problem(source, "options", "a table: [options]", _line_of(text, "options"))]
    for name, value in table.items():
        key = OPTIONS_PREFIX + name
        if name not in OPTIONS:
            close = difflib.get_close_matches(name, OPTIONS, n=1)
            problems.append(Problem(source, key, f"no such option; known: {', '.join(OPTIONS)}", _line_of(text, key),
                                    close[0] if close else None))
            continue
        low, high = OPTIONS[name]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            problems.append(Problem(source, key, f"a whole number from {low} to {high}, not {value!r}",
                                    _line_of(text, key)))
            continue
        options[name] = value
    return options, problems


def _clashes(keymap: dict[str, str], commands, source: str, text: str) -> list[Problem]:
    """A key given to two commands would do only one of them: say so (both stay as written)."""
    owners: dict[str, list[str]] = {}
    for c in commands:
        for k in (keymap.get(c.id) or ",".join(c.keys)).split(","):
            owners.setdefault(k, []).append(c.id)
    problems = []
    for binding_id, keys in keymap.items():
        for k in keys.split(","):
            others = [o for o in owners.get(k, ()) if o != binding_id]
            if others:
                problems.append(Problem(source, binding_id, f"{k!r} is also bound to {others[0]}; only one of them "
                                        "will run (rebind that one too)", _line_of(text, binding_id)))
    return problems


def load_keymap(path: Path) -> tuple[dict[str, str], list[Problem], dict[str, int]]:
    """The user's keymap file, if there is one: (binding id → keys, problems, [options]); a file
    that can't be read is a problem, not a crash."""
    if not os.path.lexists(path):  # a link to nowhere is a problem, not "no keymap"
        return {}, [], {}
    try:  # the guard's reader: plain files only (a pipe would block the start), the size limit
        raw = read_limited(path, current().file_bytes)
    except DataError as exc:
        return {}, [attrs.evolve(p, message=f"{p.message}; nothing in it was applied") for p in exc.problems], {}
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return {}, [Problem(str(path), "", f"is not UTF-8 text (byte {exc.start}); nothing in it was applied")], {}
    keymap, problems = parse_keymap(text, str(path))
    options, wrong = keymap_options(text, str(path))
    return keymap, problems + wrong, options


def user_keymap_path() -> Path:
    return user_data_dir() / KEYMAP_FILE


def apply_user_keymap(app, path: Path | None = None) -> list[Problem]:
    """Rebind the keys the user's keymap file names; report what it got wrong, keep going."""
    keymap, problems, options = load_keymap(path or user_keymap_path())
    if keymap:
        app.set_keymap(keymap)
    if "auto_fight_stop" in options:
        app.auto_fight_stop = options["auto_fight_stop"] / 100
    if problems:
        more = f"\n(and {len(problems) - 3} more)" if len(problems) > 3 else ""
        app.notify("\n".join(str(p) for p in problems[:3]) + more, title="Keymap: some entries were not applied",
                   severity="warning", timeout=15)
    return problems
