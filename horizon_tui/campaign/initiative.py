"""The initiative tracker (R-8) as a GM who knows Foundry VTT's combat tracker or Improved
Initiative uses it, without a screen: the rows (acting, acted, waiting, held, out), and each of
the tracker's acts as the `engine.overrides` change it makes, or the reason it can't be made.

Every act acts on the combatant the GM names (the selected row), never on whoever's turn it is,
and each override logs what it changed, from → to (`logged`)."""

from __future__ import annotations

import attrs

from horizon_tui.engine import events as ev
from horizon_tui.engine.actions import Success
from horizon_tui.engine.battle import Battle, comp, effects, hp, ident, is_active, team
from horizon_tui.engine.components import Controller, Presence
from horizon_tui.engine.overrides import (
    CONTROLLER_NAMES,
    AdjustHealth,
    Hold,
    ReEnter,
    Reorder,
    SetController,
    acted_this_round,
    held,
)

__all__ = ["Reorder", "TrackerRow", "EffectBadge", "acted_this_round", "adjust_health", "controller_change",
           "delay_position", "effect_badges", "hold_or_reenter", "logged", "next_controller", "party_to_ai",
           "ready_position",
           "reorder", "tracker_rows"]

# a glyph for each effect, one cell wide in any terminal font: read with its turns left
EFFECT_ICONS = {"bleeding": "♦", "poison": "☠", "disease": "✚", "stun": "✷", "blindness": "◌", "slow": "≈",
                "fear": "!", "domination": "♛", "knockdown": "↓", "heal": "♥", "regeneration": "♥",
                "buff": "▲", "cleanse": "○", "hidden": "◐"}


@attrs.frozen
class TrackerRow:
    id: str
    name: str
    team: str
    controller: str
    state: str  # current | acted | waiting | held | out
    presence: str


@attrs.frozen
class EffectBadge:
    icon: str
    effect: str
    turns_left: int | None  # None: until removed (hidden)

    def __str__(self) -> str:
        if self.turns_left is None:  # hidden: until revealed, in capitals as the GM's reminder
            return f"{self.icon}{self.effect.upper()}"
        return f"{self.icon}{self.effect} {self.turns_left}t"


def tracker_rows(battle: Battle) -> list[TrackerRow]:
    """The turn order, then those the GM holds out of it (`Hold`), then any who fell while held."""
    acted = acted_this_round(battle)
    current = battle.current
    in_order = set(battle.order)
    held_now = set(held(battle))
    rows = []
    for combatant_id in [*battle.order, *(c for c in battle.by_id if c not in in_order)]:
        e = battle[combatant_id]
        presence = comp(e, Presence)
        if presence is not Presence.active:
            state = "out"
        elif combatant_id in held_now:
            state = "held"
        elif e is current:
            state = "current"
        elif combatant_id in acted and battle.held_turns.get(combatant_id) != battle.round:
            state = "acted"  # (a held turn taken up again later this round is still to come)
        else:
            state = "waiting"
        rows.append(TrackerRow(combatant_id, ident(e).name, team(e), comp(e, Controller).kind, state, presence.value))
    return rows


def effect_badges(battle: Battle, target: str) -> list[EffectBadge]:
    """The effects on a combatant, each with its icon and turns left (R-10)."""
    return [EffectBadge(EFFECT_ICONS.get(fx.effect, "•"), fx.effect, None if fx.effect == "hidden" else fx.turns_left)
            for fx in effects(battle[target]).active]


# --- the tracker's acts: an override to run, or the reason it can't be done --------------------


def hold_or_reenter(battle: Battle, target: str) -> Hold | ReEnter | str:
    """d: hold the combatant out of the turn order (the one acting, before it acts, or one still
    waiting); a held one re-enters right after the turn in progress (it acts next). { and } then
    move it anywhere in the order."""
    if target not in battle.by_id:
        return f"no combatant {target!r}"
    e = battle[target]
    if not is_active(e):
        return f"{ident(e).name} is out of the battle"
    if target in held(battle):
        return ReEnter(target, battle.index + 1 if battle.current is not None else len(battle.order))
    return Hold(target)


def delay_position(battle: Battle, target: str) -> int | str:
    """One place later, past the next combatant still in the fight (`Reorder`): the place, or a
    refusal in words. For the one acting, `hold_or_reenter` holds its turn instead."""
    rows = [row for row in tracker_rows(battle) if row.state != "held"]
    index = next((i for i, r in enumerate(rows) if r.id == target), None)
    if index is None:
        return f"{target!r} is not in the turn order"
    row = rows[index]
    if row.state == "current":
        return "it is acting now: d holds its turn"
    if row.state == "out":
        return f"{row.name} is out of the battle"
    later = [i for i, r in enumerate(rows) if i > index and r.state != "out"]
    if not later:
        return f"{row.name} is last already"
    return later[0]


def ready_position(battle: Battle, target: str) -> int | str:
    """Ready: act right after the combatant whose turn it is."""
    if target not in battle.order:
        return f"{ident(battle[target]).name} is held: d brings it back" if target in held(battle) \
            else f"{target} is not in the turn order"
    if battle.current is None:
        return "nobody's turn"
    if target == ident(battle.current).id:
        return "it is acting now"
    if comp(battle[target], Presence) is not Presence.active:
        return f"{ident(battle[target]).name} is out of the battle"
    current_index = battle.order.index(ident(battle.current).id)
    here = battle.order.index(target)
    return current_index + 1 if here > current_index else current_index


def reorder(battle: Battle, target: str, step: int) -> Reorder | str:
    """{ and }: one place earlier or later in the turn order."""
    if target in held(battle):
        return f"{ident(battle[target]).name} is held: d brings it back after this turn, then {{ }} move it"
    if target not in battle.order:
        return f"{target!r} is not in the turn order"
    position = battle.order.index(target) + step
    if not 0 <= position < len(battle.order):
        return f"{ident(battle[target]).name} is {'first' if step < 0 else 'last'} already"
    return Reorder(target, position)


def controller_change(battle: Battle, target: str, kind: str) -> SetController | str:
    """p, g, I: the named combatant to a player, the GM or its AI; nobody else changes."""
    if target not in battle.by_id:
        return f"no combatant {target!r}"
    now = comp(battle[target], Controller).kind
    if now == kind:
        return f"{ident(battle[target]).name} is played by the {CONTROLLER_NAMES[kind]} already"
    return SetController(target, kind)


def next_controller(battle: Battle, target: str) -> SetController:
    """c: the next of player → GM → AI → player, for the named combatant only."""
    cycle = {"player": "gm", "gm": "ai", "ai": "player"}
    return SetController(target, cycle.get(comp(battle[target], Controller).kind, "gm"))


def party_to_ai(battle: Battle) -> list[SetController] | str:
    """C: every party combatant still in the fight played by its AI (those already are stay)."""
    changes = [SetController(combatant_id, "ai") for combatant_id, e in battle.active.items()
               if team(e) == "party" and comp(e, Controller).kind != "ai"]
    return changes or "the whole party is played by the AI already"


def adjust_health(battle: Battle, target: str, step: int) -> AdjustHealth | str:
    """+ and −: the named combatant's health one up or down, within 0…its maximum."""
    if target not in battle.by_id:
        return f"no combatant {target!r}"
    e = battle[target]
    if not is_active(e):
        return f"{ident(e).name} is {comp(e, Presence).value}: v revives it"
    current = hp(e)
    if not 0 <= current.hp + step <= current.max_hp:
        return f"{ident(e).name}'s health is {current.hp}/{current.max_hp}"
    return AdjustHealth(target, step)


def logged(battle: Battle, outcome: Success) -> str:
    """A tracker act in the GM's log, with what it changed: "Morwen: initiative 2nd → 4th"."""
    lines = []
    for event in outcome.events:
        if isinstance(event, ev.Override):
            name = ident(battle[event.target]).name if event.target in battle.by_id else event.target
            value = "" if event.value is None else f" {event.value}"
            lines.append(f"{name}: {event.what}{value}")
    return "; ".join(lines)
