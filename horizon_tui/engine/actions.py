"""Actions: one path for players, the AI and the GM.

Each action is a callable attrs class: `action(battle)` checks legality and returns `Success`
(with the events it caused) or `Impossible` (with the reason a player would read). Game-rule
refusals never raise. `perform` runs one for the combatant whose turn it is and ends the turn
when it is spent.
"""

from __future__ import annotations

from dataclasses import replace

from collections.abc import Mapping
from fractions import Fraction
from types import MappingProxyType
from typing import Any

import attrs
import numpy as np

from horizon_tui.content.models import Ability, Target
from horizon_tui.engine import events as ev
from horizon_tui.engine.attacks import strike, use_ability
from horizon_tui.engine.battlefield import as_cell
from horizon_tui.engine.battle import (
    Battle, Entity, charge_left, check_roll, cid, comp, current_attributes, effects, enemies_of, gear, ident,
    is_active, pos, put, spend_charge, stats, team,
)
from horizon_tui.engine.components import Cooldowns, FreeActions, Gear, Loadout, Memory, Presence, TurnState
from horizon_tui.engine.effects import apply_effect, deal_damage, end_effect, recompute_stats
from horizon_tui.engine.sideview import hidden_from
from horizon_tui.engine.turns import advance, check_end, update_sight
from horizon_tui.engine.usability import ability_refusal, charge_refusal, free_action_refusal, turn_refusal
from horizon_tui.rules.checks import contest_chance
from horizon_tui.rules.numbers import whole
from horizon_tui.rules.texts import counted
from horizon_tui.rules.ranges import ability_range, can_hit_fled, distance, weapon_range
from horizon_tui.rules.texts import distance_words


@attrs.frozen
class Success:
    events: list[ev.Event]
    ends_turn: bool = False


@attrs.frozen
class Impossible:
    reason: str


Outcome = Success | Impossible


def _state(e: Entity) -> TurnState:
    return comp(e, TurnState)


def edge_distances(battle: Battle, e: Entity) -> np.ndarray:
    """R-10 fear: how far each cell [y, x] is from the battlefield's nearest edge for `e`, the
    edge an afraid combatant flees towards (leaving by R-8 once it stands on it).

    The distance is the movement cost of the cheapest walk between the cell and the nearest
    walkable edge cell, found by the battlefield's distance map (tcod's pathing) with the
    combatant's own step costs and the other sides' cells blocked. On open ground that is the
    Chebyshev steps to the border, min(x, y, width − 1 − x, height − 1 − y); walls in the way
    make it the walk around them. Cells cut off from every edge read `UNREACHABLE`."""
    field = battle.battlefield
    edges = [(x, y) for x in range(field.width) for y in (0, field.height - 1)]
    edges += [(x, y) for y in range(1, field.height - 1) for x in (0, field.width - 1)]
    return field.distance_map([xy for xy in edges if field.is_walkable(xy)], blocked_for(battle, e),
                              **move_costs(battle, e))


def _spend_turn(battle: Battle, e: Entity, *, reveals: bool = True) -> None:
    """Mark the turn's action as used; acting reveals a hidden combatant (R-13 hide)."""
    state = _state(e)
    put(e, TurnState, TurnState(state.own_turns, state.movement_left, True))
    hidden = effects(e).get("hidden")
    if reveals and hidden is not None:
        end_effect(battle, e, hidden)


# --- movement -------------------------------------------------------------------------------


def first_step_affordable(battle: Battle, e: Entity, to: tuple[int, int]) -> bool:
    """`Move(partial=True)` toward `to` would move this turn, as it would find the way: a step it
    can pay for (R-8: rough ground costs 2) ends on a free cell (an ally may be passed, not stood
    on: one movement left and an ally on the first step, it would stay)."""
    here, field = pos(e), battle.battlefield
    costs = move_costs(battle, e)
    path = field.path(here, (to[0], to[1]), blocked_for(battle, e), **costs)
    left, spent = _state(e).movement_left, 0
    for xy, cost in zip(path or (), field.step_costs(path, start=here, **costs) if path else ()):
        spent += cost
        if spent > left:
            return False
        if xy not in battle.occupancy:
            return True
    return False


@attrs.frozen
class Move:
    """Move toward a cell along the cheapest path (R-8). A cell just outside the battlefield
    from an edge cell means fleeing. With `partial`, go as far as the movement allows."""

    actor: str
    to: tuple[int, int]
    partial: bool = False
    # The cheapest path to `to` when the mover already has one (the AI found it walking toward
    # something further: a prefix of a cheapest path is a cheapest path). Not an input: never saved.
    via: tuple[tuple[int, int], ...] | None = attrs.field(default=None, eq=False, repr=False)

    def __call__(self, battle: Battle) -> Outcome:
        e = battle.by_id[self.actor]
        start = len(battle.log)
        field = battle.battlefield
        here, state = pos(e), _state(e)
        to = as_cell(self.to)
        if to == here:
            return Impossible("already there")
        if state.movement_left <= 0:
            return Impossible(f"{ident(e).name} has no movement left this turn")
        if not field.in_bounds(to):
            if distance(to, here) != 0 or not field.is_edge(here):
                return Impossible("to flee, step off the battlefield from its edge")
            return self._flee(battle, e, start)
        costs = move_costs(battle, e)
        path = self.via if self.via is not None and self.via[-1:] == (to,) else field.path(
            here, to, blocked_for(battle, e), **costs)
        if not path:
            return Impossible("no way there")
        if to in battle.occupancy and not self.partial:
            return Impossible("someone is standing there")
        steps: list[tuple[int, int]] = []
        spent, paid = 0, []
        for xy, cost in zip(path, field.step_costs(path, start=here, **costs)):
            if spent + cost > state.movement_left:
                break
            steps.append(xy)
            paid.append(cost)
            spent += cost
        if not steps or (len(steps) < len(path) and not self.partial):
            total = field.path_cost(path, start=here, **costs)
            return Impossible(f"too far: {total} movement needed, {state.movement_left} left")
        # Allies can be passed through but not stood on: stop at the last free cell.
        while steps and steps[-1] in battle.occupancy:
            spent -= paid.pop()
            steps.pop()
        if not steps:
            return Impossible("someone is standing in the way")
        if effects(e).has("fear"):
            problem = _fear_refusal(battle, e, here, steps[-1])
            if problem:
                return Impossible(problem)
        battle.place(e, steps[-1])
        put(e, TurnState, TurnState(state.own_turns, state.movement_left - spent, state.acted))
        battle.emit(ev.Move(cid(e), [list(xy) for xy in steps], spent))
        update_sight(battle, e)
        return Success(battle.log[start:])

    def _flee(self, battle: Battle, e: Entity, start: int) -> Outcome:
        """R-8 [H]: leaving the battlefield's edge is fleeing; out of the battle."""
        battle.set_presence(e, Presence.fled)
        battle.place(e, None)
        battle.emit(ev.Move(cid(e), [list(self.to)], 1))
        battle.emit(ev.Fled(cid(e)))
        check_end(battle)
        return Success(battle.log[start:], ends_turn=True)


def _fear_refusal(battle: Battle, e: Entity, here: tuple[int, int], end: tuple[int, int]) -> str | None:
    """R-10 fear: an afraid combatant moves only to flee towards the nearest edge: a move may not
    end farther from it (`edge_distances`) than it started."""
    far = edge_distances(battle, e)
    before, after = int(far[here[1], here[0]]), int(far[end[1], end[0]])
    if after <= before:
        return None
    return (f"{ident(e).name} is afraid and can only flee towards the nearest edge "
            f"({counted(before, 'step')} away): {end[0]},{end[1]} is {counted(after, 'step')} from it")


def move_costs(battle: Battle, e: Entity) -> Mapping[str, Any]:
    """What its steps cost (R-8), as the battlefield's path and distance searches take it: the
    rules' difficult-ground and diagonal costs, and its species' own terrain costs."""
    g, turns = gear(e), battle.rules.turns
    key = ("move costs", e.uid)  # asked by every move and search: made once per gear and rules
    found = battle.memo.get(key)
    if found is None or found[0] is not g or found[1] is not turns:
        found = battle.memo[key] = (g, turns, MappingProxyType({
            "difficult_cost": turns.difficult_cost, "terrain_costs": g.terrain_costs,
            "diagonal_cost": turns.diagonal_cost}))
    return found[2]


def blocked_for(battle: Battle, e: Entity) -> list[tuple[int, int]]:
    """Cells a combatant can't move through: those of the other side (R-8)."""
    side = team(e)
    # The other sides' index (`battle.sides`: the active, who are the placed), not a scan of
    # every cell's Team. The searches take these as a set of cells: their order doesn't matter.
    cells = []
    for name, members in battle.sides.items():
        if name != side:
            for o in members.values():
                cells.append(pos(o))
    return cells


# --- attacks and abilities ------------------------------------------------------------------------


def _away(cells: int, reach: int) -> str:
    """R-11's distance and reach (cells between) as squares: "2 squares away, reach adjacent"."""
    return f"{distance_words(cells)} away, reach {distance_words(reach)}"


def _target_problem(battle: Battle, user: Entity, target: Entity, reach: int, *, allow_fled: bool = False) -> str | None:
    if effects(user).has("blindness"):
        return f"{ident(user).name} is blinded and can't pick a target"
    presence = comp(target, Presence)
    if presence is Presence.fled and allow_fled:
        return None if cid(target) in comp(user, Memory).seen else f"{ident(target).name} was never seen"
    if presence is not Presence.active:
        return f"{ident(target).name} is out of the battle"
    if hidden_from(target, team(user)):
        return "no one to target there"  # its side doesn't see it (nor learns who hides)
    here, there = pos(user), pos(target)
    cells = distance(here, there)
    if cells > reach:
        return f"{ident(target).name} is out of range: {_away(cells, reach)}"
    if cells > 0 and battle.rules.ranges.line_of_sight and not battle.battlefield.line_of_sight(here, there):
        return f"no line of sight to {ident(target).name}"
    return None


@attrs.frozen
class Attack:
    """A normal attack (difficulty I): unlimited, no slot (R-5, R-9)."""

    actor: str
    target: str

    def __call__(self, battle: Battle) -> Outcome:
        e, t = battle[self.actor], battle.by_id.get(self.target)
        if t is None:
            return Impossible(f"no combatant {self.target!r}")
        if t is e:
            return Impossible("you can't attack yourself")
        if team(t) == team(e) and comp(t, Presence) is Presence.active:
            return Impossible(f"{ident(t).name} fights on your side")
        problem = turn_refusal(battle, e) or _target_problem(battle, e, t, weapon_range(gear(e).weapon, battle.rules))
        if problem:
            return Impossible(problem)
        start = len(battle.log)
        _spend_turn(battle, e)
        strike(battle, e, t)
        check_end(battle)  # the last foe's fall ends the battle now, as after an ability
        return Success(battle.log[start:])


def ability_problem(battle: Battle, e: Entity, ability: Ability) -> str | None:
    """Why `e` can't use `ability` now (R-6: `usability.ability_refusal`), or None."""
    return ability_refusal(battle, e, ability.name)


@attrs.frozen
class UseAbility:
    """Use a slotted ability (R-6): a charge of its difficulty, then its cooldown."""

    actor: str
    ability: str
    target: str | None = None
    at: tuple[int, int] | None = None

    def __call__(self, battle: Battle) -> Outcome:
        e = battle[self.actor]
        ability = gear(e).character.ability(self.ability)
        if ability is None:
            return Impossible(f"{ident(e).name} doesn't know {self.ability!r}")
        problem = ability_refusal(battle, e, ability.name)
        if problem:
            return Impossible(problem)
        target = battle.by_id.get(self.target) if self.target else None
        aimed = as_cell(self.at) if self.at is not None else None
        problem = self._aim_problem(battle, e, ability, target, aimed)
        if problem:
            return Impossible(problem)
        start = len(battle.log)
        _spend_turn(battle, e)
        spend_charge(e, ability.difficulty)
        cooldown = battle.rules.difficulty(ability.difficulty).cooldown
        ready = dict(comp(e, Cooldowns).ready_at)
        ready[ability.name] = _state(e).own_turns + cooldown + 1  # blocked for `cooldown` own turns
        put(e, Cooldowns, Cooldowns(ready))
        battle.emit(ev.AbilityUsed(cid(e), ability.name, ability.difficulty.value, charge_left(e, ability.difficulty), cooldown))
        use_ability(battle, e, ability, target, aimed)
        check_end(battle)
        return Success(battle.log[start:])

    def _aim_problem(self, battle, e, ability: Ability, target: Entity | None, aimed) -> str | None:
        kind = ability.target
        if kind is Target.self:
            return None
        if kind in (Target.ally, Target.enemy):
            if target is None:
                return f"{ability.name} needs a target"
            if kind is Target.enemy and team(target) == team(e):
                return f"{ability.name} targets an enemy"
            if kind is Target.ally and team(target) != team(e):
                return f"{ability.name} targets an ally"
            seen = cid(target) in comp(e, Memory).seen
            reach = ability_range(ability, gear(e).weapon, battle.rules, target_seen=seen)
            fled_ok = can_hit_fled(ability, gear(e).weapon)
            if target is e and kind is Target.ally:
                return None
            if reach >= battle.rules.ranges.mage_non_damaging and seen and comp(target, Presence) is Presence.active:
                # 50 cells on a target seen once; sight is not needed then.
                if distance(pos(e), pos(target)) > reach:
                    return f"{ident(target).name} is out of range"
                return "blinded: can't pick a target" if effects(e).has("blindness") else None
            return _target_problem(battle, e, target, reach, allow_fled=fled_ok)
        if aimed is None:
            return f"{ability.name} needs a cell to aim at"
        if not battle.battlefield.in_bounds(aimed):
            return "that cell is off the battlefield"
        reach = ability_range(ability, gear(e).weapon, battle.rules)
        cells = distance(pos(e), aimed)
        if kind is Target.area and cells > reach:
            return f"that cell is out of range: {_away(cells, reach)}"
        if kind is Target.area and cells > 0 and not battle.battlefield.line_of_sight(pos(e), aimed):
            return "no line of sight to that cell"
        return None


@attrs.frozen
class Swap:
    """Replace one slotted ability with a known one; costs the turn (R-6). Non-replaceable
    passives can't be removed."""

    actor: str
    remove: str
    add: str

    def __call__(self, battle: Battle) -> Outcome:
        e = battle[self.actor]
        problem = turn_refusal(battle, e)
        if problem:
            return Impossible(problem)
        character = gear(e).character
        loadout = comp(e, Loadout)
        old, new = character.ability(self.remove), character.ability(self.add)
        if old is None or self.remove not in loadout.slotted:
            return Impossible(f"{self.remove!r} is not slotted")
        if new is None:
            return Impossible(f"{ident(e).name} doesn't know {self.add!r}")
        if self.add in loadout.slotted:
            return Impossible(f"{self.add} is already slotted")
        if old.is_fixed:
            return Impossible(f"{old.name} is a non-replaceable passive and can't be removed")
        if new.is_fixed:
            return Impossible(f"{new.name} is a non-replaceable passive: it is always slotted")
        start = len(battle.log)
        _spend_turn(battle, e)
        slotted = tuple(self.add if n == self.remove else n for n in loadout.slotted)
        put(e, Loadout, Loadout(slotted, loadout.active_passives - {self.remove}))
        battle.emit(ev.Swap(cid(e), self.remove, self.add))
        recompute_stats(battle, e)
        return Success(battle.log[start:])


@attrs.frozen
class TogglePassive:
    """Switch a slotted replaceable passive off or on; costs the turn, and switching on holds
    a charge of its difficulty (R-6)."""

    actor: str
    ability: str

    def __call__(self, battle: Battle) -> Outcome:
        e = battle[self.actor]
        problem = turn_refusal(battle, e)
        if problem:
            return Impossible(problem)
        ability = gear(e).character.ability(self.ability)
        loadout = comp(e, Loadout)
        if ability is None or not ability.is_passive or self.ability not in loadout.slotted:
            return Impossible(f"{self.ability!r} is not a slotted passive")
        if ability.is_fixed:
            return Impossible(f"{ability.name} is non-replaceable: it always works")
        on = self.ability not in loadout.active_passives
        if on:
            problem = charge_refusal(e, ability.difficulty)
            if problem:
                return Impossible(problem)
        start = len(battle.log)
        _spend_turn(battle, e)
        if on:
            spend_charge(e, ability.difficulty)
            active = loadout.active_passives | {self.ability}
        else:
            active = loadout.active_passives - {self.ability}
        put(e, Loadout, Loadout(loadout.slotted, frozenset(active)))
        battle.emit(ev.Toggle(cid(e), self.ability, on))
        recompute_stats(battle, e)
        return Success(battle.log[start:])


# --- free actions (R-13) ---------------------------------------------------------------------------


@attrs.frozen
class FreeAction:
    """A free action: costs the turn and one free-action point (R-13).

    Solo play names a stock action (`stock`); a GM rules on anything else: a description, an
    effect (any of R-10's, or `damage`), and certain (`chance` None) or a stated chance."""

    actor: str
    stock: str | None = None
    target: str | None = None
    description: str = ""
    effect: str | None = None
    chance: Fraction | None = None
    duration: int = 1
    magnitude: Fraction = Fraction(0)
    stat: str | None = None  # a buff's derived stat

    def __call__(self, battle: Battle) -> Outcome:
        e = battle[self.actor]
        problem = free_action_refusal(battle, e)
        if problem is None and effects(e).has("fear") and self.stock != "hide":
            problem = turn_refusal(battle, e)  # R-10 fear: of the free actions, only hiding
        if problem:
            return Impossible(problem)
        points = comp(e, FreeActions).points
        effect, chance, duration, magnitude, reach, description = (
            self.effect, self.chance, self.duration, Fraction(self.magnitude), None, self.description,
        )
        target_kind = "enemy"
        if self.stock is not None:
            stock = next((a for a in battle.rules.free_actions if a.name == self.stock), None)
            if stock is None:
                names = ", ".join(a.name for a in battle.rules.free_actions)
                return Impossible(f"no free action {self.stock!r}; the stock ones are {names}")
            effect, duration, magnitude, reach = stock.effect, stock.duration, stock.magnitude, stock.range
            description = description or stock.description
            target_kind = stock.target
            chance = stock.chance
            if stock.contest_stat:
                chance = _contest(battle, e, stock.contest_stat, stock.contest_against, stock.chance)
        if effect is None:
            return Impossible("a free action needs an effect (the GM's ruling)")
        target = e if target_kind == "self" else battle.by_id.get(self.target or "")
        if target is None:
            return Impossible("pick a target for the free action")
        if target is not e and reach is not None:
            problem = _target_problem(battle, e, target, reach)
            if problem:
                return Impossible(problem)
        start = len(battle.log)
        _spend_turn(battle, e)
        put(e, FreeActions, FreeActions(points - 1))
        battle.emit(ev.FreeActionEvent(cid(e), description or effect, points - 1, cid(target)))
        success = True
        if chance is not None and chance < 1:
            success = check_roll(battle, e, Fraction(chance))
            battle.emit(ev.Check(cid(e), "free_action", float(chance), success, target=cid(target)))
        if success:
            if effect == "damage":
                deal_damage(battle, target, whole(magnitude), cid(e), "free action")
            else:
                apply_effect(battle, target, effect, duration=duration, magnitude=magnitude, source=e, stat=self.stat)
        check_end(battle)
        return Success(battle.log[start:])


def _contest(battle: Battle, e: Entity, own: str, against: str | None, fallback: Fraction) -> Fraction:
    """R-13's contest against the best of the enemies present (`rules.checks.contest_chance`);
    the stated chance when there is no one to contest."""
    foes = enemies_of(battle, e)
    if not foes or against is None:
        return fallback
    best = max(_stat_or_attribute(f, against) for f in foes)
    return contest_chance(_stat_or_attribute(e, own), best, fallback)


def _stat_or_attribute(e: Entity, name: str) -> Fraction:
    values = stats(e).values
    return Fraction(values[name]) if name in values else Fraction(current_attributes(e).get(name, 0))


@attrs.frozen
class InventAbility:
    """R-13: a free-action point pays for inventing an ability mid-battle; it joins the known
    abilities (slotting it is a swap)."""

    actor: str
    ability: Ability

    def __call__(self, battle: Battle) -> Outcome:
        e = battle[self.actor]
        points = comp(e, FreeActions).points
        if points <= 0:
            return Impossible("no free-action points left")
        g = gear(e)
        if g.character.ability(self.ability.name) is not None:
            return Impossible(f"{ident(e).name} already knows an ability called {self.ability.name!r}")
        start = len(battle.log)
        character = attrs.evolve(g.character, abilities=[*g.character.abilities, self.ability])
        put(e, Gear, replace(g, character=character))
        put(e, FreeActions, FreeActions(points - 1))
        battle.emit(ev.FreeActionEvent(cid(e), f"invents {self.ability.name}", points - 1))
        return Success(battle.log[start:])


@attrs.frozen
class Wait:
    """End the turn (R-8: waiting is an action too). A frightened combatant 'hides' this way."""

    actor: str

    def __call__(self, battle: Battle) -> Outcome:
        e = battle[self.actor]
        start = len(battle.log)
        reason = "hides" if effects(e).has("fear") else "waits"
        if not _state(e).acted:
            battle.emit(ev.Wait(cid(e), reason))
        return Success(battle.log[start:], ends_turn=True)


Action = Move | Attack | UseAbility | Swap | TogglePassive | FreeAction | InventAbility | Wait
ACTION_TYPES: dict[str, type] = {cls.__name__: cls for cls in (Move, Attack, UseAbility, Swap, TogglePassive, FreeAction, InventAbility, Wait)}


def perform(battle: Battle, action, *, auto_end: bool = True) -> Outcome:
    """Run `action` for the combatant whose turn it is. The turn ends after a Wait, a flight,
    or — with `auto_end` — once the action is spent and no movement is left."""
    if battle.over:
        return Impossible("the battle is over")
    current = battle.current
    actor = getattr(action, "actor", None)
    if current is None or current.uid != actor:
        return Impossible("it is not that combatant's turn")
    outcome = action(battle)
    if outcome.__class__ is Impossible or battle.result is not None:
        return outcome
    state = _state(current)
    if outcome.ends_turn or not is_active(current) or (
            auto_end and state.acted and state.movement_left <= 0):
        advance(battle)
    return outcome


def end_turn(battle: Battle) -> None:
    """End the current turn without further action (the UI's 'end turn' when already acted)."""
    if not battle.over:
        advance(battle)


__all__ = [
    "Action", "Attack", "FreeAction", "Impossible", "InventAbility", "Move", "Success", "Swap",
    "TogglePassive", "UseAbility", "Wait", "perform", "end_turn", "ability_problem",
    "ACTION_TYPES",
]
