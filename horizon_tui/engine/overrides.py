"""GM overrides: the game master's hand on a running battle.

Each is a callable attrs class like the actions, applied at any moment (not only on the target's
turn) through `runner.override`, which records it as an input so the battle still replays. Each
logs an `override` event first, then whatever it caused (damage, heal, effects, a fall).
"""

from __future__ import annotations

from dataclasses import replace

from fractions import Fraction

import attrs

from horizon_tui.content.models import EFFECTS, Difficulty
from horizon_tui.engine import events as ev
from horizon_tui.engine.actions import Impossible, Outcome, Success
from horizon_tui.engine.battlefield import as_cell
from horizon_tui.engine.battle import (
    Battle, cid, combatant_summary, comp, effects, find, gear, hp, ident, is_active, put, set_charges, set_hp, set_ready_at,
)
from horizon_tui.engine.components import Controller, Health, Memory, Presence, TempHealth, TurnState
from horizon_tui.engine.effects import apply_effect, deal_damage, defeat, end_effect, expire_turn_effects, restore_health
from horizon_tui.engine.forming import spawn_combatant
from horizon_tui.engine.turns import advance, check_end, free_cell_near, update_sight
from horizon_tui.engine.usability import ready_at_after

CONTROLLERS = ("player", "ai", "gm")
CONTROLLER_NAMES = {"player": "player", "gm": "GM", "ai": "AI"}


def place_text(position: int) -> str:
    """A place in the turn order, 0 first: "1st", "2nd", "3rd", "11th"."""
    n = position + 1
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def acted_this_round(battle: Battle) -> set[str]:
    """Who has begun a turn this round: the `turn` events since the last `round` event."""
    acted: set[str] = set()
    for event in reversed(battle.log):
        if isinstance(event, ev.RoundStart):
            break
        if isinstance(event, ev.Turn):
            acted.add(event.actor)
    return acted


def held(battle: Battle) -> list[str]:
    """Those the GM holds out of the turn order (`Hold`), on the battlefield, in spawn order."""
    order = set(battle.order)
    return [combatant_id for combatant_id in battle.active if combatant_id not in order]


def _start(battle: Battle, target: str, what: str, value, reason: str) -> int | Impossible:
    if battle.over:
        return Impossible("the battle is over")
    if target not in battle.by_id:
        return Impossible(f"no combatant {target!r}")
    start = len(battle.log)
    battle.emit(ev.Override(target, what, value, reason))
    return start


@attrs.frozen
class SetHealth:
    """Set health to a number within 0…its maximum (0 fells it). A combatant that is down is
    brought back only by `Revive`, never by setting its health."""

    target: str
    hp: int
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        e = battle.by_id.get(self.target)
        if e is not None:
            if comp(e, Presence) is not Presence.active:
                return Impossible(f"{ident(e).name} is {comp(e, Presence).value}: revive it instead")
            if not 0 <= self.hp <= hp(e).max_hp:
                return Impossible(f"{ident(e).name}'s health is 0…{hp(e).max_hp}, not {self.hp}")
        start = _start(battle, self.target, "set health", self.hp, self.reason)
        if isinstance(start, Impossible):
            return start
        e = battle[self.target]
        _health_to(battle, e, min(self.hp, hp(e).max_hp))
        return Success(battle.log[start:])


def _health_to(battle: Battle, e, wanted: int) -> None:
    """Health set by the GM: taken as damage (temporary health first) or restored."""
    current = hp(e)
    if wanted < current.hp:
        deal_damage(battle, e, current.hp - wanted, "gm")
    elif wanted > current.hp:
        restore_health(battle, e, wanted - current.hp, "gm")
    check_end(battle)


@attrs.frozen
class AddEffect:
    target: str
    effect: str
    duration: int
    magnitude: Fraction = Fraction(0)
    stat: str | None = None
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        if self.effect not in EFFECTS and self.effect != "hidden":
            return Impossible(f"no effect {self.effect!r}")
        if self.duration < 0:
            return Impossible("a duration can't be negative")
        start = _start(battle, self.target, f"add {self.effect}", self.duration, self.reason)
        if isinstance(start, Impossible):
            return start
        apply_effect(battle, battle[self.target], self.effect, duration=self.duration,
                     magnitude=Fraction(self.magnitude), source=None, stat=self.stat)
        check_end(battle)
        return Success(battle.log[start:])


@attrs.frozen
class RemoveEffect:
    target: str
    effect: str
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        e = battle.by_id.get(self.target)
        effect = effects(e).get(self.effect) if e is not None else None
        if e is None or effect is None:
            return Impossible(f"{self.target} is not under {self.effect}")
        start = _start(battle, self.target, f"remove {self.effect}", None, self.reason)
        if isinstance(start, Impossible):
            return start
        end_effect(battle, e, effect)
        check_end(battle)
        return Success(battle.log[start:])


@attrs.frozen
class SetCharges:
    """Restore or spend charges of one difficulty."""

    target: str
    difficulty: str
    charges: int
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        try:
            difficulty = Difficulty(self.difficulty)
        except ValueError:
            return Impossible(f"no difficulty {self.difficulty!r}")
        if difficulty is Difficulty.I:
            return Impossible("difficulty I (the normal attack) has no charges")
        if self.charges < 0:
            return Impossible("charges can't be negative")
        start = _start(battle, self.target, f"charges {difficulty}", self.charges, self.reason)
        if isinstance(start, Impossible):
            return start
        e = battle[self.target]
        set_charges(e, difficulty, self.charges)
        return Success(battle.log[start:])


@attrs.frozen
class ResetCooldown:
    target: str
    ability: str
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        e = battle.by_id.get(self.target)
        if e is None or gear(e).character.ability(self.ability) is None:
            return Impossible(f"{self.target} has no ability {self.ability!r}")
        start = _start(battle, self.target, f"reset cooldown of {self.ability}", None, self.reason)
        if isinstance(start, Impossible):
            return start
        set_ready_at(e, self.ability, None)
        return Success(battle.log[start:])


@attrs.frozen
class SetCooldown:
    """An ability cooling down for `turns` more of its user's own turns (0: ready now)."""

    target: str
    ability: str
    turns: int
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        e = battle.by_id.get(self.target)
        if e is None or gear(e).character.ability(self.ability) is None:
            return Impossible(f"{self.target} has no ability {self.ability!r}")
        if self.turns < 0:
            return Impossible("a cooldown can't be negative")
        start = _start(battle, self.target, f"cooldown of {self.ability}", self.turns, self.reason)
        if isinstance(start, Impossible):
            return start
        set_ready_at(e, self.ability, ready_at_after(battle, e, self.turns))  # counted as cooldown_left counts
        return Success(battle.log[start:])


@attrs.frozen
class ForceCheck:
    """The target's next check (accuracy, difficulty, effect, free action…) comes out as given."""

    target: str
    success: bool
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        start = _start(battle, self.target, "force next check", self.success, self.reason)
        if isinstance(start, Impossible):
            return start
        battle.forced[self.target] = bool(self.success)
        return Success(battle.log[start:])


@attrs.frozen
class Teleport:
    """Move a combatant anywhere walkable and free."""

    target: str
    to: tuple[int, int]
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        e = battle.by_id.get(self.target)
        to = as_cell(self.to)
        if e is None or not is_active(e):
            return Impossible(f"{self.target} is not on the battlefield")
        if not battle.battlefield.in_bounds(to) or not battle.battlefield.is_walkable(to):
            return Impossible("that cell can't be stood on")
        if to in battle.occupancy:
            return Impossible("someone is standing there")
        start = _start(battle, self.target, "move", list(to), self.reason)
        if isinstance(start, Impossible):
            return start
        battle.place(e, to)
        battle.emit(ev.Moved(cid(e), [list(to)], 0, True, "gm"))
        update_sight(battle, e)
        return Success(battle.log[start:])


@attrs.frozen
class SetController:
    """Hand a combatant to a player, the GM, or its AI."""

    target: str
    kind: str
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        if self.kind not in CONTROLLERS:
            return Impossible(f"a controller is one of {', '.join(CONTROLLERS)}")
        e = battle.by_id.get(self.target)
        if e is None:
            return Impossible(f"{self.target} is not in this battle")
        was = comp(e, Controller).kind
        if was == self.kind:
            return Impossible(f"{ident(e).name} is played by the {CONTROLLER_NAMES[self.kind]} already")
        start = _start(battle, self.target, "controller",
                       f"{CONTROLLER_NAMES.get(was, was)} → {CONTROLLER_NAMES[self.kind]}", self.reason)
        if isinstance(start, Impossible):
            return start
        put(e, Controller, replace(comp(e, Controller), kind=self.kind))
        return Success(battle.log[start:])


@attrs.frozen
class Reorder:
    """Move a combatant to another place in the turn order (0 = first). The combatant whose turn
    it is keeps its turn; the new order holds from the next turn on."""

    target: str
    position: int
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        if battle.over:
            return Impossible("the battle is over")
        if self.target not in battle.order:
            return Impossible(f"{self.target!r} is not in the turn order")
        position = max(0, min(self.position, len(battle.order) - 1))
        was = battle.order.index(self.target)
        if was == position:
            return Impossible("it is already there")
        start = len(battle.log)
        current = battle.order[battle.index] if 0 <= battle.index < len(battle.order) else None
        battle.emit(ev.Override(self.target, "initiative", f"{place_text(was)} → {place_text(position)}", self.reason))
        order = [c for c in battle.order if c != self.target]
        order.insert(position, self.target)
        battle.order = order
        if current is not None:
            battle.index = order.index(current)
        return Success(battle.log[start:])


@attrs.frozen
class Hold:
    """The GM holds a combatant out of the turn order until `ReEnter` puts it back anywhere (a
    delay, as Foundry's tracker and Improved Initiative allow): the one whose turn it is, before
    it acts (the turn passes on; when it re-enters this round its turn is taken up as it was left,
    its effects not ticked twice, `turns.begin_turn`), or one still waiting for its turn."""

    target: str
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        if battle.over:
            return Impossible("the battle is over")
        e = battle.by_id.get(self.target)
        if e is None or self.target not in battle.order:
            return Impossible(f"{self.target!r} is not in the turn order")
        name = ident(e).name
        if not is_active(e):
            return Impossible(f"{name} is out of the battle")
        current = battle.current is e
        if current and comp(e, TurnState).acted:
            return Impossible(f"{name} has acted this turn: end the turn (.)")
        if not current and self.target in acted_this_round(battle):
            return Impossible(f"{name} has had its turn this round: {{ and }} move it in the order")
        position = battle.order.index(self.target)
        start = len(battle.log)
        battle.emit(ev.Override(self.target, "hold", f"{place_text(position)} → held", self.reason))
        battle.order.remove(self.target)
        if current:
            battle.held_turns[self.target] = battle.round
            battle.index = position - 1  # the one before: `advance` begins the one after it
            advance(battle, count_off=False)
        elif position < battle.index:
            battle.index -= 1
        return Success(battle.log[start:])


@attrs.frozen
class ReEnter:
    """A held combatant (`Hold`) back in the turn order at `position` (0 first; the combatant
    whose turn it is keeps it). Right after the current turn it acts next; before it, it acts
    there from the next round on (a turn held this round is then counted off, as it ends)."""

    target: str
    position: int
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        if battle.over:
            return Impossible("the battle is over")
        e = battle.by_id.get(self.target)
        if e is None or self.target in battle.order or not is_active(e):
            return Impossible(f"{ident(e).name if e is not None else self.target} is not held")
        position = max(0, min(self.position, len(battle.order)))
        start = len(battle.log)
        battle.emit(ev.Override(self.target, "re-enter", f"held → {place_text(position)}", self.reason))
        battle.order.insert(position, self.target)
        comes_this_round = position > battle.index
        if position <= battle.index:
            battle.index += 1
        if self.target in battle.held_turns and (battle.held_turns[self.target] != battle.round
                                                 or not comes_this_round):
            del battle.held_turns[self.target]
            expire_turn_effects(battle, e)  # the held turn ends unused, and is counted off
        return Success(battle.log[start:])


@attrs.frozen
class AdjustHealth:
    """Health up or down by a step, from the tracker's row (+/−): a change of the number as the
    GM reads it, logged from → to. Not a hit (no armour, R-9) and never below 0 nor over its
    maximum; a fallen combatant is brought back only by `Revive`."""

    target: str
    step: int
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        e = battle.by_id.get(self.target)
        if e is None:
            return Impossible(f"no combatant {self.target!r}")
        if comp(e, Presence) is not Presence.active:
            return Impossible(f"{ident(e).name} is {comp(e, Presence).value}: revive it instead (v)")
        current = hp(e)
        wanted = max(0, min(current.max_hp, current.hp + self.step))
        if wanted == current.hp:
            return Impossible(f"{ident(e).name}'s health is {current.hp}/{current.max_hp} already")
        start = _start(battle, self.target, "health", f"{current.hp} → {wanted}", self.reason)
        if isinstance(start, Impossible):
            return start
        _health_to(battle, e, wanted)
        return Success(battle.log[start:])


def _targets(battle: Battle, targets: tuple[str, ...]) -> list | Impossible:
    if battle.over:
        return Impossible("the battle is over")
    if not targets:
        return Impossible("pick at least one combatant")
    found = []
    for target in targets:
        e = battle.by_id.get(target)
        if e is None:
            return Impossible(f"no combatant {target!r}")
        if not is_active(e):
            return Impossible(f"{ident(e).name} is {comp(e, Presence).value}")
        found.append(e)
    return found


def _on_each(battle: Battle, targets, what: str, value: int, reason: str, change) -> Outcome:
    """One override on several combatants: each gets its `override` event, then the change."""
    found = _targets(battle, tuple(targets))
    if isinstance(found, Impossible):
        return found
    start = len(battle.log)
    for e in found:
        battle.emit(ev.Override(cid(e), what, value, reason))
        change(e)
    check_end(battle)
    return Success(battle.log[start:])


@attrs.frozen
class Damage:
    """The GM's damage by an amount, to one or several combatants at once (a trap, a fireball
    ruled at the table). Each may fall (R-9)."""

    targets: tuple[str, ...]
    amount: int
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        if self.amount < 1:
            return Impossible("damage is 1 or more")
        return _on_each(battle, self.targets, "damage", self.amount, self.reason,
                        lambda e: deal_damage(battle, e, self.amount, "gm"))


@attrs.frozen
class Heal:
    """The GM's healing by an amount, to one or several combatants at once (never above the maximum)."""

    targets: tuple[str, ...]
    amount: int
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        if self.amount < 1:
            return Impossible("healing is 1 or more")
        return _on_each(battle, self.targets, "heal", self.amount, self.reason,
                        lambda e: restore_health(battle, e, self.amount, "gm"))


@attrs.frozen
class GrantTempHealth:
    """Temporary health on one or several combatants (a shield spell ruled at the table): lost
    before their health, not healed back; a new grant replaces a smaller one (never adds up)."""

    targets: tuple[str, ...]
    points: int
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        if self.points < 0:
            return Impossible("temporary health is 0 or more")

        def grant(e) -> None:
            held = find(e, TempHealth)
            put(e, TempHealth, TempHealth(max(self.points, held.points if held and self.points else 0)))

        return _on_each(battle, self.targets, "temporary health", self.points, self.reason, grant)


def temp_health(e) -> int:
    held = find(e, TempHealth)
    return held.points if held is not None else 0


@attrs.frozen
class StartHealth:
    """A combatant enters the battle with the health an earlier fight left it (campaign.carry): set
    outright, not dealt as damage (no blow is logged or tallied); 0 leaves it down."""

    target: str
    hp: int
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        e = battle.by_id.get(self.target)
        if e is None or not is_active(e):
            return Impossible(f"{self.target} is not on the battlefield")
        if not 0 <= self.hp <= hp(e).max_hp:
            return Impossible(f"{ident(e).name}'s health is 0…{hp(e).max_hp}, not {self.hp}")
        start = _start(battle, self.target, "starts with health", self.hp, self.reason)
        if isinstance(start, Impossible):
            return start
        set_hp(e, self.hp)
        if self.hp == 0:
            defeat(battle, e)
            if battle.current is e and not check_end(battle):
                advance(battle)  # it starts down on its own turn (first in the order): the turn passes
        check_end(battle)
        return Success(battle.log[start:])


def revive_cell(battle: Battle, target: str) -> tuple[int, int] | None:
    """Where a fallen combatant gets up: the free cell nearest to where it started."""
    e = battle.by_id.get(target)
    if e is None:
        return None
    origin = comp(e, Memory).origin or (0, 0)
    if battle.battlefield.is_walkable(origin) and origin not in battle.occupancy:
        return origin
    return free_cell_near(battle, origin)


@attrs.frozen
class Revive:
    """Bring a fallen (unconscious or dead) combatant back with `hp` health (1…its maximum),
    standing on `at`: a potion, a prayer, the GM's word. It keeps its place in the turn order."""

    target: str
    hp: int
    at: tuple[int, int]
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        e = battle.by_id.get(self.target)
        if e is None:
            return Impossible(f"no combatant {self.target!r}")
        if battle.over:
            return Impossible("the battle is over")
        if comp(e, Presence) not in (Presence.unconscious, Presence.dead):
            return Impossible(f"{ident(e).name} is {comp(e, Presence).value}, not fallen")
        if not 1 <= self.hp <= hp(e).max_hp:
            return Impossible(f"revive with 1…{hp(e).max_hp} health, not {self.hp}")
        to = as_cell(self.at)
        if not battle.battlefield.in_bounds(to) or not battle.battlefield.is_walkable(to) or to in battle.occupancy:
            return Impossible("that cell can't be stood on")
        start = len(battle.log)
        battle.emit(ev.Override(self.target, "revive", self.hp, self.reason))
        set_hp(e, self.hp)
        battle.set_presence(e, Presence.active)
        battle.place(e, to)
        battle.emit(ev.Healed(self.target, self.hp, self.hp, "gm"))
        if self.target not in battle.order:
            battle.order.append(self.target)
        update_sight(battle, e)
        return Success(battle.log[start:])


@attrs.frozen
class Withdraw:
    """Take a combatant out of the fight (the GM's call: it leaves, it was never there). It gives
    no XP (R-14 shares the defeated's) and can be revived."""

    target: str
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        e = battle.by_id.get(self.target)
        if e is None or not is_active(e):
            return Impossible(f"{self.target} is not on the battlefield")
        start = _start(battle, self.target, "withdraw", None, self.reason)
        if isinstance(start, Impossible):
            return start
        battle.set_presence(e, Presence.fled)
        battle.place(e, None)
        battle.emit(ev.Fled(self.target))
        check_end(battle)
        return Success(battle.log[start:])


@attrs.frozen
class Reinforce:
    """A combatant joins mid-fight: an enemy type from `battle.enemy_defs` (the catalogue, or one
    the GM defined for this battle), on `at`, for a side; `hidden` keeps it out of the other
    side's sight until revealed (R-13's hidden effect, removed by `RemoveEffect`). It acts right
    after the combatant whose turn it is."""

    enemy: str
    at: tuple[int, int]
    side: str = "enemies"
    name: str = ""
    hidden: bool = False
    controller: str = "ai"
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        if battle.over:
            return Impossible("the battle is over")
        definition = battle.enemy_defs.get(self.enemy)
        if definition is None:
            return Impossible(f"no enemy type {self.enemy!r}")
        if self.side not in ("party", "enemies"):
            return Impossible("a side is party or enemies")
        if self.controller not in CONTROLLERS:
            return Impossible(f"a controller is one of {', '.join(CONTROLLERS)}")
        to = as_cell(self.at)
        if not battle.battlefield.in_bounds(to) or not battle.battlefield.is_walkable(to) or to in battle.occupancy:
            return Impossible("that cell can't be stood on")
        start = len(battle.log)
        e = spawn_combatant(
            battle, definition.character, name=self.name or definition.character.name,
            kind="enemy" if self.side == "enemies" else "character",
            side=self.side, level=definition.level, ally=self.side == "party",  # no share of the XP
            xy=to, xp_value=definition.xp if self.side == "enemies" else 0, glyph=definition.glyph,
            controller=Controller(self.controller, definition.ai, definition.targeting, definition.flee_below),
            hand_set=definition.hand_set,
        )
        battle.emit(ev.Override(cid(e), "joins", self.side, self.reason))
        battle.emit(ev.Join(combatant_summary(e), None))
        at = battle.index + 1 if 0 <= battle.index < len(battle.order) else len(battle.order)
        battle.order.insert(at, cid(e))
        if self.hidden:
            apply_effect(battle, e, "hidden", duration=battle.rules.turns.round_cap, magnitude=Fraction(0),
                         source=None, stat=None)
        update_sight(battle, e)
        return Success(battle.log[start:])


@attrs.frozen
class SetInitiative:
    """Write a combatant's initiative total by hand (the players rolled at the table): it moves
    to its place among the others' totals (ties after those already there)."""

    target: str
    total: int
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        if battle.over:
            return Impossible("the battle is over")
        if self.target not in battle.order:
            return Impossible(f"{self.target!r} is not in the turn order")
        values = initiative_values(battle)
        start = len(battle.log)
        current = battle.order[battle.index] if 0 <= battle.index < len(battle.order) else None
        battle.emit(ev.Override(self.target, "initiative value", self.total, self.reason))
        order = [c for c in battle.order if c != self.target]
        position = next((i for i, c in enumerate(order) if values.get(c, float("-inf")) < self.total), len(order))
        order.insert(position, self.target)
        battle.order = order
        if current is not None:
            battle.index = order.index(current)
        return Success(battle.log[start:])


def initiative_values(battle: Battle) -> dict[str, float]:
    """Each combatant's initiative total (R-8: its roll + initiative), as rolled at the start or
    last written by the GM (`SetInitiative`); those who joined later have none."""
    values: dict[str, float] = {}
    for event in battle.log:
        if isinstance(event, ev.Initiative):
            values.update({row["id"]: row["total"] for row in event.order})
        elif isinstance(event, ev.Override) and event.what == "initiative value":
            values[event.target] = event.value
    return values


OVERRIDE_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (SetHealth, AddEffect, RemoveEffect, SetCharges, ResetCooldown, ForceCheck, Teleport,
                SetController, Reorder, Damage, Heal, Revive, Withdraw, Reinforce, SetInitiative, SetCooldown,
                GrantTempHealth, StartHealth, Hold, ReEnter, AdjustHealth)
}

__all__ = [*OVERRIDE_TYPES, "OVERRIDE_TYPES", "CONTROLLERS", "CONTROLLER_NAMES", "Health", "acted_this_round",
           "held", "place_text"]
