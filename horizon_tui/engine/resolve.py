"""Resolving the hot actions: the checks and changes of a move, a normal attack and an ability's
use, and `perform`, which runs any action for the combatant whose turn it is.

`engine.actions` holds the actions themselves (the inputs players, the AI and the GM give, saved
with a battle): `Move`, `Attack` and `UseAbility` call `move`, `attack` and `use` here. This module
is compiled with mypyc (the Makefile's COMPILED list), the action classes are not: a compiled
dataclass keeps no field types for the converter that saves and loads them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from horizon_tui.content.models import Ability, Target
from horizon_tui.engine import events as ev
from horizon_tui.engine.attacks import strike, use_ability
from horizon_tui.engine.battlefield import as_cell
from horizon_tui.engine.battle import (
    Battle, Entity, charge_left, cid, comp, effects, gear, ident, is_active, pos, set_ready_at, set_turn_state,
    spend_charge, team, turn_state,
)
from horizon_tui.engine.components import Memory, Presence
from horizon_tui.engine.effects import end_effect
from horizon_tui.engine.sight import hidden_from
from horizon_tui.engine.turns import advance, check_end, update_sight
from horizon_tui.engine.usability import ability_refusal, turn_refusal
from horizon_tui.rules.texts import counted, distance_words
from horizon_tui.rules.ranges import ability_range, can_hit_fled, distance, weapon_range


class Success:
    """An action done: the events it recorded, and whether it ended the turn. A plain class, so
    the compiled core builds one natively (a frozen dataclass's generated `__init__` runs as
    Python, ~3.5 k instructions an action)."""

    __slots__ = ("events", "ends_turn")

    def __init__(self, events: list[ev.Event], ends_turn: bool = False) -> None:
        self.events = events
        self.ends_turn = ends_turn

    def __repr__(self) -> str:
        return f"Success(events={self.events!r}, ends_turn={self.ends_turn!r})"


@dataclass(frozen=True, slots=True)
class Impossible:
    reason: str


Outcome = Success | Impossible


def edge_distances(battle: Battle, e: Entity) -> np.ndarray:
    """R-10 fear: how far each cell [y, x] is from the battlefield's nearest edge for `e`, the
    edge an afraid combatant flees towards (leaving by R-8 once it stands on it).

    The distance is the movement cost of the cheapest walk between the cell and the nearest
    walkable edge cell, found by the battlefield's distance map (tcod's pathing) with the
    combatant's own step costs and the other sides' cells blocked. On open ground that is the
    Chebyshev steps to the border, min(x, y, width − 1 − x, height − 1 − y); walls in the way
    make it the walk around them. Cells cut off from every edge read `UNREACHABLE`.

    The whole field's map: a move's check (`_fear_refusal`) reads the same numbers at its end
    and, when it must, its start only (`Battlefield.edge_distances_at`); this is the definition
    they are tested against and what a screen or a test asks for the whole field."""
    return battle.battlefield.edge_distance_map(blocked_for(battle, e), **move_costs(battle, e))


def spend_turn(battle: Battle, e: Entity, *, reveals: bool = True) -> None:
    """Mark the turn's action as used; acting reveals a hidden combatant (R-13 hide)."""
    state = turn_state(e)
    set_turn_state(e, state.own_turns, state.movement_left, True)
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
    if not path:
        return False
    left, spent = turn_state(e).movement_left, 0
    for xy, cost in zip(path, field.step_costs(path, start=here, **costs)):
        spent += cost
        if spent > left:
            return False
        if xy not in battle.occupancy:
            return True
    return False


def move(battle: Battle, actor: str, destination: Sequence[int], partial: bool = False,
         via: tuple[tuple[int, int], ...] | None = None) -> Outcome:
    """`actions.Move`: toward `to` along the cheapest path (R-8), as far as the movement allows
    with `partial`; from an edge cell, a cell just off the battlefield is fleeing."""
    e = battle.by_id[actor]
    start = len(battle.log)
    field = battle.battlefield
    here, state = pos(e), turn_state(e)
    to = as_cell(destination)  # a list, from a saved or sent action
    if to == here:
        return Impossible("already there")
    if state.movement_left <= 0:
        return Impossible(f"{ident(e).name} has no movement left this turn")
    if not field.in_bounds(to):
        if distance(to, here) != 0 or not field.is_edge(here):
            return Impossible("to flee, step off the battlefield from its edge")
        return _flee(battle, e, to, start)
    costs = move_costs(battle, e)
    difficult, terrain, diagonal = costs.difficult_cost, costs.terrain_costs, costs.diagonal_cost
    path = via if via is not None and via[-1:] == (to,) else field.path(
        here, to, blocked_for(battle, e), difficult_cost=difficult, terrain_costs=terrain, diagonal_cost=diagonal)
    if not path:
        return Impossible("no way there")
    if to in battle.occupancy and not partial:
        return Impossible("someone is standing there")
    steps: list[tuple[int, int]] = []
    spent, paid = 0, []
    for xy, cost in zip(path, field.step_costs(path, difficult, terrain, start=here, diagonal_cost=diagonal)):
        if spent + cost > state.movement_left:
            break
        steps.append(xy)
        paid.append(cost)
        spent += cost
    if not steps or (len(steps) < len(path) and not partial):
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
    set_turn_state(e, state.own_turns, state.movement_left - spent, state.acted)
    battle.emit(ev.Moved(cid(e), [list(xy) for xy in steps], spent))
    update_sight(battle, e)
    return Success(battle.log[start:])


def _flee(battle: Battle, e: Entity, to: tuple[int, int], start: int) -> Outcome:
    """R-8 [H]: leaving the battlefield's edge is fleeing; out of the battle."""
    battle.set_presence(e, Presence.fled)
    battle.place(e, None)
    battle.emit(ev.Moved(cid(e), [list(to)], 1))
    battle.emit(ev.Fled(cid(e)))
    check_end(battle)
    return Success(battle.log[start:], ends_turn=True)


def _fear_refusal(battle: Battle, e: Entity, here: tuple[int, int], end: tuple[int, int]) -> str | None:
    """R-10 fear: an afraid combatant moves only to flee towards the nearest edge: a move may not
    end farther from it (`edge_distances`, read at the two cells: `Battlefield.edge_distances_at`)
    than it started. A move ending on the edge ends 0
    steps from it (the edge cells are where `edge_distances`' walks start): never farther. Where
    it ends no farther than its start's steps to the border, it ends no farther than its start
    (`Battlefield.steps_to_border`, a floor under the edge distance), which then needs no search."""
    field = battle.battlefield
    if field.is_edge(end):
        return None
    blocked, costs = blocked_for(battle, e), move_costs(battle, e)
    difficult, terrain, diagonal = costs.difficult_cost, costs.terrain_costs, costs.diagonal_cost
    after = field.edge_distances_at([end], blocked, difficult_cost=difficult, terrain_costs=terrain,
                                    diagonal_cost=diagonal)[0]
    if after <= field.steps_to_border(here):
        return None
    before = field.edge_distances_at([here], blocked, difficult_cost=difficult, terrain_costs=terrain,
                                     diagonal_cost=diagonal)[0]
    if after <= before:
        return None
    return (f"{ident(e).name} is afraid and can only flee towards the nearest edge "
            f"({counted(before, 'step')} away): {end[0]},{end[1]} is {counted(after, 'step')} from it")


class StepCosts:
    """What a combatant's steps cost (R-8): the rules' difficult-ground and diagonal costs and its
    species' own terrain costs, as the battlefield's searches take them (keyword arguments). A
    mapping of those three, so `**costs` passes them; the battle core's own searches pass the
    attributes by name instead, a direct call where `**` builds a dictionary and parses it."""

    __slots__ = ("difficult_cost", "terrain_costs", "diagonal_cost")

    def __init__(self, difficult_cost: int, terrain_costs: Mapping[str, int] | None, diagonal_cost: int) -> None:
        self.difficult_cost = difficult_cost
        self.terrain_costs = terrain_costs
        self.diagonal_cost = diagonal_cost

    def keys(self) -> tuple[str, str, str]:
        return ("difficult_cost", "terrain_costs", "diagonal_cost")

    def __getitem__(self, key: str) -> Any:
        if key not in self.keys():
            raise KeyError(key)
        return getattr(self, key)


def move_costs(battle: Battle, e: Entity) -> StepCosts:
    """What its steps cost (R-8), as the battlefield's path and distance searches take it."""
    g, turns = gear(e), battle.rules.turns
    found = battle.step_costs.get(e.uid)  # asked by every move and search: made once per gear and rules
    if found is None or found[0] is not g or found[1] is not turns:
        found = battle.step_costs[e.uid] = (g, turns, StepCosts(turns.difficult_cost, g.terrain_costs,
                                                                turns.diagonal_cost))
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
                cells.append(o.cell)  # `pos(o)`, as `Battle.place` keeps it: the tuple itself, not one rebuilt
    return cells


# --- attacks and abilities ------------------------------------------------------------------------


def _away(cells: int, reach: int) -> str:
    """R-11's distance and reach (cells between) as squares: "2 squares away, reach adjacent"."""
    return f"{distance_words(cells)} away, reach {distance_words(reach)}"


def target_problem(battle: Battle, user: Entity, target: Entity, reach: int, *, allow_fled: bool = False) -> str | None:
    """Why `user` can't aim at `target` now with this reach (R-11 range and sight, R-13 hide, a
    fled target only where `allow_fled` and seen once), or None."""
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


def attack(battle: Battle, actor: str, target: str) -> Outcome:
    """`actions.Attack`: a normal attack (difficulty I), unlimited, no slot (R-5, R-9)."""
    e, t = battle[actor], battle.by_id.get(target)
    if t is None:
        return Impossible(f"no combatant {target!r}")
    if t is e:
        return Impossible("you can't attack yourself")
    if team(t) == team(e) and comp(t, Presence) is Presence.active:
        return Impossible(f"{ident(t).name} fights on your side")
    problem = turn_refusal(battle, e) or target_problem(battle, e, t, weapon_range(gear(e).weapon, battle.rules))
    if problem:
        return Impossible(problem)
    start = len(battle.log)
    spend_turn(battle, e)
    strike(battle, e, t)
    check_end(battle)  # the last foe's fall ends the battle now, as after an ability
    return Success(battle.log[start:])


def use(battle: Battle, actor: str, name: str, target_id: str | None = None,
        at: Sequence[int] | None = None) -> Outcome:
    """`actions.UseAbility`: a slotted ability (R-6), a charge of its difficulty, then its cooldown."""
    e = battle[actor]
    ability = gear(e).character.ability(name)
    if ability is None:
        return Impossible(f"{ident(e).name} doesn't know {name!r}")
    problem = ability_refusal(battle, e, ability.name)
    if problem:
        return Impossible(problem)
    target = battle.by_id.get(target_id) if target_id else None
    aimed = as_cell(at) if at is not None else None
    problem = aim_problem(battle, e, ability, target, aimed)
    if problem:
        return Impossible(problem)
    start = len(battle.log)
    spend_turn(battle, e)
    spend_charge(e, ability.difficulty)
    cooldown = battle.rules.difficulty(ability.difficulty).cooldown
    set_ready_at(e, ability.name, turn_state(e).own_turns + cooldown + 1)  # blocked for `cooldown` own turns
    battle.emit(ev.AbilityUsed(cid(e), ability.name, ability.difficulty.value, charge_left(e, ability.difficulty), cooldown))
    use_ability(battle, e, ability, target, aimed)
    check_end(battle)
    return Success(battle.log[start:])


def aim_problem(battle: Battle, e: Entity, ability: Ability, target: Entity | None,
                aimed: tuple[int, int] | None) -> str | None:
    """Why `ability` can't be aimed at `target` or the cell `aimed` from where `e` stands (R-11
    reach and sight, the side its target kind needs), or None."""
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
        return target_problem(battle, e, target, reach, allow_fled=fled_ok)
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


def wait(battle: Battle, actor: str) -> Outcome:
    """`actions.Wait`: end the turn (R-8: waiting is an action too); a frightened combatant
    'hides' this way."""
    e = battle[actor]
    start = len(battle.log)
    reason = "hides" if effects(e).has("fear") else "waits"
    if not turn_state(e).acted:
        battle.emit(ev.Waited(cid(e), reason))
    return Success(battle.log[start:], ends_turn=True)


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
    state = turn_state(current)
    if outcome.ends_turn or not is_active(current) or (
            auto_end and state.acted and state.movement_left <= 0):
        advance(battle)
    return outcome


def end_turn(battle: Battle) -> None:
    """End the current turn without further action (the UI's 'end turn' when already acted)."""
    if not battle.over:
        advance(battle)
