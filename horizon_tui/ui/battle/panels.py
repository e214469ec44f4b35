"""The battle screen's side panels as Rich text: the enemies in sight (a legend too), the
combatant shown, the ability slots, and the targets of a cursor with their odds.

Formatting only: what is known comes from the viewer's read model (`engine.readmodel`), what can
be used from `engine.usability`, the numbers from `engine.odds` and `engine.targeting`.
"""

from __future__ import annotations

from fractions import Fraction

from rich.text import Text

from horizon_tui.content.models import Target
from horizon_tui.engine import odds
from horizon_tui.engine.battle import Battle, Entity, charge_left, comp, gear, ident, pos, stats
from horizon_tui.engine.components import FreeActions, Loadout, TurnState
from horizon_tui.engine.readmodel import ReadModel
from horizon_tui.engine.sideview import UnitView
from horizon_tui.engine.usability import ability_refusal, cooldown_left
from horizon_tui.rules.texts import EFFECT_TEXT, counted, distance_words


# The log's colours by what a line means to its viewer (`engine.readmodel.LogLine.kind`): ANSI
# colours, which Textual maps to its dark and light themes' palettes, so each stays readable on
# either; under NO_COLOR (Textual's `App.no_color`) only the weight is kept.
LOG_STYLES = {
    "damage_taken": "bold red",
    "damage_dealt": "green",
    "heal": "cyan",
    "effect": "magenta",
    "sight": "bold",
    "round": "bold",
    "defeated": "bold",
    "result": "bold",
    "note": "italic",
}


def log_style(kind: str, no_color: bool = False) -> str:
    """The style of a log line of `kind`; without colour under NO_COLOR ("bold red" → "bold")."""
    style = LOG_STYLES.get(kind, "")
    if no_color:
        return " ".join(word for word in style.split() if word in ("bold", "italic", "dim"))
    return style


def pct(value: Fraction | None) -> str:
    return "—" if value is None else f"{float(value) * 100:.0f}%"


def health_bar(hp: int, max_hp: int, width: int) -> Text:
    share = max(0, hp) / max_hp if max_hp else 0
    filled = int(round(share * width))
    text = Text("█" * filled, style="green" if share > 0.5 else "yellow" if share > 0.25 else "red")
    text.append("░" * (width - filled), style="dim")
    return text


def effect_words(name: str, turns_left: int) -> str:
    """'fear 2 turns left' (R-10, `sideview.effect_turns_left`); never 'fear 0 turns'."""
    return f"{name} (ending)" if turns_left <= 0 else f"{name} {counted(turns_left, 'turn')} left"


def shown_window(count: int, lines: int | None, focus: int | None) -> tuple[int, int]:
    """Which of `count` enemies (two lines each) fit in `lines` (None: all) under the heading:
    (first, end), nearest first, moved on just enough to keep the one at `focus` (the cursor's,
    tab's target) in view; a line for each "more" hint, one for the last line's end."""
    if lines is None or 2 + 2 * count <= lines:
        return 0, count
    room = max(1, (lines - 3) // 2)  # the heading, "+N more", the end
    if focus is None or focus < room:
        return 0, room
    room = max(1, (lines - 4) // 2)  # "↑ N more" too
    first = min(focus - room + 1, count - room)
    return first, first + room


def enemies_text(view: ReadModel, glyphs: dict[str, str], width: int = 30, *, lines: int | None = None,
                 focus: str | None = None) -> Text:
    """Every enemy the viewer sees now, nearest first: glyph, name, health, distance from the one
    acting (`distance_words`), effects. With `lines` (the panel's room) too few for them all, a
    window of them that follows `focus` (the unit the cursor is on), and "+N more" for the rest."""
    foes = view.foes_nearest_first()
    text = Text(f"In sight ({len(foes)})\n" if foes else "No enemy in sight\n", style="bold")
    at = next((i for i, u in enumerate(foes) if u.id == focus), None)
    first, end = shown_window(len(foes), lines, at)
    if first:
        text.append(f"↑ {first} more, nearer\n", style="dim")
    for u in foes[first:end]:
        text.append(glyphs.get(u.id, u.glyph), style="bold red" if u.team != "party" else "bold cyan")
        text.append(f" {u.name[:width - 13]}")
        if u.distance is not None:  # the GM's list holds the one acting too: no distance to itself
            text.append(f" {distance_words(u.distance)}", style="dim")
        text.append("\n  ")
        text.append_text(health_bar(u.hp, u.max_hp, 10))
        text.append(f" {max(0, u.hp)}/{u.max_hp}")
        if u.effects:
            text.append("  " + ", ".join(effect_words(fx.name, fx.turns_left) for fx in u.effects), style="magenta")
        text.append("\n")
    if end < len(foes):
        text.append(f"+{len(foes) - end} more (; look, tab)\n", style="dim")
    return text


def legend_text(view: ReadModel, glyphs: dict[str, str]) -> Text:
    """One entry per kind of combatant the viewer sees, and the terrain."""
    text = Text()
    seen: dict[str, str] = {}
    for u in view.units:
        seen.setdefault(glyphs.get(u.id, u.glyph), u.kind_name)
    for glyph, kind in seen.items():
        text.append(glyph, style="bold")
        text.append(f" {kind}  ", style="dim")
    text.append("# wall  , rough ground", style="dim")
    return text


def unit_text(battle: Battle, u: UnitView | None, *, current: bool, detailed: bool) -> Text:
    """The combatant under the cursor, or the one whose turn it is."""
    if u is None:
        return Text("")
    e = battle[u.id]
    text = Text()
    text.append(u.name, style="bold cyan" if u.team == "party" else "bold red")
    text.append(f" · level {u.level}", style="dim")
    if u.distance is not None:  # from the one acting (none to itself)
        text.append(f" · {distance_words(u.distance)}", style="dim")
    text.append("\n")
    text.append_text(health_bar(u.hp, u.max_hp, 20))
    text.append(f" {max(0, u.hp)}/{u.max_hp}\n")
    if current:
        text.append(f"movement {comp(e, TurnState).movement_left}  ", style="dim")
        text.append(f"free actions {comp(e, FreeActions).points}\n", style="dim")
    for fx in u.effects:
        text.append(effect_words(fx.name, fx.turns_left), style="magenta")
        if fx.magnitude:
            text.append(f", {fx.magnitude:g}")
        text.append("\n")
        if detailed:
            text.append(f"  {EFFECT_TEXT.get(fx.name, '')}\n", style="dim italic")
    if detailed:
        values = stats(e).values
        for name in ("accuracy", "evasion", "speed", "willpower"):
            text.append(f"{name} {float(values[name]):.1f}  ", style="dim")
        text.append(f"\nweapon {gear(e).weapon.name}\n", style="dim")
    return text


def slots_text(battle: Battle, e: Entity | None, *, keys: str = "shift+1…9 or z") -> Text:
    """The slotted abilities with their charges and cooldowns; an unusable one is dim and says why."""
    text = Text(f"Abilities ({keys})\n", style="bold")
    if e is None:
        return text
    loadout = comp(e, Loadout)
    g = gear(e)
    for index, name in enumerate(loadout.slotted, start=1):
        ability = g.character.ability(name)
        if ability is None:
            continue
        problem = ability_refusal(battle, e, name)
        style = "" if problem is None else "dim"
        text.append(f"{index} ", style="bold" if problem is None else "dim")
        text.append(f"{name} ", style=style)
        text.append(f"{ability.difficulty} ", style="yellow")
        if ability.is_passive:
            on = ability.is_fixed or name in loadout.active_passives
            text.append("passive " + ("on" if on else "off"), style="dim")
        else:
            left = charge_left(e, ability.difficulty)
            text.append("∞ charges" if left is None else counted(left, "charge"), style="dim")
            cooldown = cooldown_left(battle, e, name)
            if cooldown:
                text.append(f" cooldown {counted(cooldown, 'turn')}", style="red")
        text.append("\n")
    return text


def _odds_line(o: odds.TargetOdds) -> str:
    parts = [f"hit {pct(o.hit)}" if o.hit is not None else "no check"]
    if o.damage is not None:
        parts.append(f"dmg {o.damage[0]}–{o.damage[1]}")
    if o.crit and o.crit_damage is not None:
        parts.append(f"crit {pct(o.crit)} {o.crit_damage[0]}–{o.crit_damage[1]}")
    if o.heal is not None:
        parts.append(f"heal {o.heal[0]}–{o.heal[1]}")
    for fx in o.effects:
        if fx.effect != "heal":
            parts.append(f"{fx.effect} immune" if fx.immune else f"{fx.effect} {pct(fx.chance)} {fx.duration}t")
    return " · ".join(parts)


def targets_text(battle: Battle, mode, me: Entity) -> Text:
    """Targeting: each possible target with its odds (R-7, R-9, R-10); the ones that can't be
    picked now greyed with the reason; for an area or a line, everyone it would touch."""
    ability = mode.ability
    preview = mode.preview(mode.cursor)
    text = Text(f"{mode.label}", style="bold")
    if preview.check is not None:
        text.append(f" · difficulty check {pct(preview.check)} (R-7)", style="yellow")
    text.append("\n")

    def one(e: Entity, problem: str | None, marked: bool) -> None:
        style = "dim" if problem else ("reverse" if marked else "")
        text.append(f"{'▶' if marked else ' '} {ident(e).name[:22]}\n", style=style or "bold")
        if problem:
            text.append(f"  {problem}\n", style="dim")
        elif mode.free_action:  # the stock action's stated chance
            text.append(f"  chance {pct(mode.preview(pos(e)).hit)}\n")
        else:
            o = odds.ability_odds(battle, me, ability, e) if ability is not None else odds.attack_odds(battle, me, e)
            text.append(f"  {_odds_line(o)}\n")

    if ability is not None and ability.target in (Target.area, Target.line):
        touched = odds.touched(battle, me, ability, mode.cursor, mode.known())
        shape = "area" if ability.target is Target.area else "line"
        text.append(f"The {shape} touches {counted(len(touched), 'combatant')}:\n" if touched
                    else f"The {shape} touches no one here.\n", style="dim")
        for e in touched:
            one(e, None, False)
        if preview.problem:
            text.append(f"✗ {preview.problem}\n", style="red")
        return text
    for e in mode.targets():
        problem = mode.preview(pos(e)).problem
        one(e, problem, pos(e) == mode.cursor)
    under = mode.known().unit_at(mode.cursor)
    if preview.problem and (under is None or battle[under.id] not in mode.targets()):
        text.append(f"✗ {preview.problem}\n", style="red")
    return text


def free_action_label(stock) -> str:
    if stock.contest_stat:
        return f"{stock.name} — {stock.description}"
    return f"{stock.name} — {stock.description} ({pct(Fraction(stock.chance))})"

