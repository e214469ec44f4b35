"""What a targeting cursor shows before the player confirms: reach, area, line of sight, odds.

The battle screen asks these questions; the answers come from the same rules the actions apply
(R-7, R-9, R-11), so what is previewed is what happens. Given the viewer's read model, who stands
under the cursor is who that viewer may know (R-13); without it, who the user's side sees.
"""

from __future__ import annotations

from fractions import Fraction

import attrs
import numpy as np

from horizon_tui.content.models import Ability, Target
from horizon_tui.engine.actions import Attack, FreeAction, UseAbility
from horizon_tui.engine.attacks import auto_hits, chance_to_hit, is_harmful, line_cells
from horizon_tui.engine.battle import (
    Battle, Entity, check_chance, comp, gear, ident, is_downed, pos, stats, team,
)
from horizon_tui.engine.components import Memory
from horizon_tui.engine.readmodel import ReadModel
from horizon_tui.engine.resolve import aim_problem, target_problem
from horizon_tui.engine.sight import hidden_from
from horizon_tui.engine.usability import ability_refusal, free_action_refusal, turn_refusal
from horizon_tui.rules.combat import crit_chance
from horizon_tui.rules.ranges import ability_range, weapon_range


@attrs.frozen
class Preview:
    reach: int
    cells: list[tuple[int, int]]  # area or line cells affected
    target: str | None  # the combatant under the cursor
    hit: Fraction | None  # accuracy hit chance, None when there is no check
    crit: Fraction | None
    check: Fraction | None  # difficulty-check chance, None when none is needed
    problem: str | None  # why confirming would be refused, or None


def reach_mask(battle: Battle, origin: tuple[int, int], reach: int) -> np.ndarray:
    """Cells within `reach` cells of `origin` (R-11: Chebyshev distance − 1 ≤ reach)."""
    field = battle.battlefield
    ys, xs = np.ogrid[0:field.height, 0:field.width]
    return np.maximum(abs(xs - origin[0]), abs(ys - origin[1])) <= reach + 1


def _seen_at(battle: Battle, user: Entity, cell: tuple[int, int], known: ReadModel | None) -> Entity | None:
    """Who stands on `cell` as the viewer knows it (`known`, its read model), else as `user`'s side
    does: a combatant hidden from it is not there (R-13)."""
    if known is not None:
        unit = known.unit_at(cell)
        return battle[unit.id] if unit is not None else None
    target = battle.at(cell)
    return None if target is None or hidden_from(target, team(user)) else target


def attack_preview(battle: Battle, user: Entity, cell: tuple[int, int], known: ReadModel | None = None) -> Preview:
    reach = weapon_range(gear(user).weapon, battle.rules)
    target = _seen_at(battle, user, cell, known)
    problem = None
    hit = crit = None
    if target is None or target is user:
        problem = "no one to attack there"
    else:
        problem = _target_refusal(battle, Attack(ident(user).id, ident(target).id))
        hit = None if auto_hits(battle, user, target) else chance_to_hit(battle, user, target)
        crit = Fraction(1) if is_downed(target) and not gear(target).crit_immune else crit_chance(
            stats(user)["accuracy"], gear(user).weapon, battle.rules.attack)
    return Preview(reach, [], ident(target).id if target else None, hit, crit, None, problem)


def ability_preview(battle: Battle, user: Entity, ability: Ability, cell: tuple[int, int],
                    known: ReadModel | None = None) -> Preview:
    target = _seen_at(battle, user, cell, known)
    seen = target is not None and ident(target).id in comp(user, Memory).seen
    reach = ability_range(ability, gear(user).weapon, battle.rules, target_seen=seen)
    check = check_chance(user, ability.difficulty, battle.rules)
    check_shown = check if check < 1 else None
    cells: list[tuple[int, int]] = []
    hit = None
    if ability.target is Target.area:
        radius = ability.radius or 0
        cells = [(x, y) for x in range(cell[0] - radius, cell[0] + radius + 1)
                 for y in range(cell[1] - radius, cell[1] + radius + 1) if battle.battlefield.in_bounds((x, y))]
        action = UseAbility(ident(user).id, ability.name, at=cell)
    elif ability.target is Target.line:
        cells = line_cells(battle, pos(user), cell, ability.length or 0)
        action = UseAbility(ident(user).id, ability.name, at=cell)
    elif ability.target is Target.self:
        action = UseAbility(ident(user).id, ability.name)
    else:
        action = UseAbility(ident(user).id, ability.name, target=ident(target).id if target else None)
        if target is not None and team(target) != team(user) and is_harmful(ability):
            hit = None if auto_hits(battle, user, target) else chance_to_hit(battle, user, target)
    problem = _target_refusal(battle, action)
    return Preview(reach, cells, ident(target).id if target else None, hit, None, check_shown, problem)


def free_action_preview(battle: Battle, user: Entity, stock: str, cell: tuple[int, int],
                        known: ReadModel | None = None) -> Preview:
    target = _seen_at(battle, user, cell, known)
    action = next((a for a in battle.rules.free_actions if a.name == stock), None)
    reach = action.range if action else 0
    problem = _target_refusal(battle, FreeAction(ident(user).id, stock=stock, target=ident(target).id if target else None))
    chance = Fraction(action.chance) if action else None
    return Preview(reach, [], ident(target).id if target else None, chance, None, None, problem)


def _target_refusal(battle: Battle, action) -> str | None:
    """Ask the action's own legality checks without performing it."""

    e = battle[action.actor]
    if isinstance(action, Attack):
        target = battle.by_id.get(action.target)
        if target is None:
            return "no one there"
        return turn_refusal(battle, e) or target_problem(battle, e, target, weapon_range(gear(e).weapon, battle.rules))
    if isinstance(action, UseAbility):
        ability = gear(e).character.ability(action.ability)
        if ability is None:
            return "unknown ability"
        target = battle.by_id.get(action.target) if action.target else None
        return (ability_refusal(battle, e, ability.name)
                or aim_problem(battle, e, ability, target, action.at))
    if isinstance(action, FreeAction):
        stock = next((a for a in battle.rules.free_actions if a.name == action.stock), None)
        if stock is None:
            return "unknown free action"
        problem = free_action_refusal(battle, e)
        if problem:
            return problem
        if stock.target == "self":
            return None
        target = battle.by_id.get(action.target or "")
        if target is None:
            return "pick a target"
        return target_problem(battle, e, target, stock.range)
    return None
