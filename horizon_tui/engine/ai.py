"""The built-in AI: approach and strike, using the best ability it can (issue 3's baseline).

It plays through `perform` with the same actions as players, and it never cheats on sight:
it targets only combatants it sees now, else goes where its side last saw one.
"""

from __future__ import annotations

from fractions import Fraction

from horizon_tui.content.models import AbilityKind, Target
from horizon_tui.engine.actions import (
    Attack, Impossible, Move, UseAbility, Wait, ability_problem, blocked_for, perform,
)
from horizon_tui.engine.battle import (
    check_chance, comp, Battle, Entity, allies_of, cid, effects, enemies_of, gear, hp, ident, is_active, pos, team,
    typical_attack,
)
from horizon_tui.engine.components import Controller, Loadout, Memory, TurnState
from horizon_tui.rules.checks import difficulty_check_chance
from horizon_tui.rules.ranges import ability_range, distance, weapon_range


def visible_enemies(battle: Battle, e: Entity) -> list[Entity]:
    view = battle.battlefield.fov(pos(e), gear(e).sight_radius)
    seen = []
    for other in enemies_of(battle, e):
        x, y = pos(other)
        if view[y, x] and not effects(other).has("hidden"):
            seen.append(other)
    return seen


def choose_target(battle: Battle, e: Entity, candidates: list[Entity]) -> Entity | None:
    """Target choice as data (the enemy file's `targeting`)."""
    if not candidates:
        return None
    how = comp(e, Controller).targeting
    here = pos(e)
    if how == "weakest":
        return min(candidates, key=lambda o: (hp(o).hp, cid(o)))
    if how == "dangerous":
        return max(candidates, key=lambda o: (typical_attack(o), cid(o)))
    if how == "last_attacker":
        last = comp(e, Memory).last_attacker
        for o in candidates:
            if cid(o) == last:
                return o
    return min(candidates, key=lambda o: (distance(here, pos(o)), cid(o)))


def _expected_value(battle: Battle, e: Entity, ability) -> Fraction:
    """How much an ability is worth now: multiplier × the chance its difficulty check passes."""
    rules = battle.rules
    chance = check_chance(e, ability.difficulty, rules)
    multiplier = ability.multiplier if ability.multiplier is not None else rules.difficulty(ability.difficulty).multiplier
    return multiplier * chance


def best_ability(battle: Battle, e: Entity, target: Entity):
    """The highest-value usable damaging or harmful ability that reaches `target`, if its
    check is likely (≥ 50%) to pass."""
    g = gear(e)
    options = []
    for name in comp(e, Loadout).slotted:
        ability = g.character.ability(name)
        if ability is None or ability.is_passive or ability_problem(battle, e, ability):
            continue
        if ability.target not in (Target.enemy, Target.area, Target.line):
            continue
        if ability.kind is not AbilityKind.damage and not ability.effects:
            continue
        chance = check_chance(e, ability.difficulty, battle.rules)
        if chance < Fraction(1, 2):
            continue
        seen = cid(target) in comp(e, Memory).seen
        reach = ability_range(ability, g.weapon, battle.rules, target_seen=seen)
        if distance(pos(e), pos(target)) > reach:
            continue
        options.append((_expected_value(battle, e, ability), ability.difficulty.rank, ability.name, ability))
    if not options:
        return None
    return max(options, key=lambda o: o[:3])[3]


def _approach(battle: Battle, e: Entity, goal: tuple[int, int], reach: int, target: Entity | None) -> None:
    """Walk the cheapest path toward `goal`, stopping once within `reach` with a clear line."""
    field = battle.battlefield
    state = comp(e, TurnState)
    if state.movement_left <= 0:
        return
    path = field.path(pos(e), goal, blocked_for(battle, e), difficult_cost=battle.rules.turns.difficult_cost,
                      terrain_costs=gear(e).terrain_costs)
    if not path:
        return
    stop = None
    spent = 0
    g = gear(e)
    for xy in path:
        if xy == goal or (xy in battle.occupancy):
            if xy == goal:
                break
            continue
        spent += field.step_cost(xy, battle.rules.turns.difficult_cost, g.terrain_costs)
        if spent > state.movement_left:
            break
        stop = xy
        if distance(xy, goal) <= reach and (reach == 0 or field.line_of_sight(xy, goal)):
            break
    if stop is not None:
        perform(battle, Move(cid(e), stop, partial=True), auto_end=False)


def take_turn(battle: Battle, e: Entity) -> None:
    """Play one whole turn for `e`, ending it."""
    actor = cid(e)
    try:
        if effects(e).has("fear"):
            _flee_from(battle, e)
            return
        if effects(e).has("blindness"):
            return
        targets = visible_enemies(battle, e)
        target = choose_target(battle, e, targets)
        if target is None:
            _hunt(battle, e)
            return
        _heal_if_needed(battle, e)
        if comp(e, TurnState).acted:
            return
        ability = best_ability(battle, e, target)
        if ability is not None and _use(battle, e, ability, target):
            return
        reach = weapon_range(gear(e).weapon, battle.rules)
        if distance(pos(e), pos(target)) > reach or not battle.battlefield.line_of_sight(pos(e), pos(target)):
            _approach(battle, e, pos(target), reach, target)
        if battle.current is e and is_active(target):
            ability = best_ability(battle, e, target)
            if ability is None or not _use(battle, e, ability, target):
                perform(battle, Attack(actor, cid(target)), auto_end=False)
    finally:
        if battle.current is e and not battle.over:
            perform(battle, Wait(actor))


def _use(battle: Battle, e: Entity, ability, target: Entity) -> bool:
    if ability.target is Target.enemy:
        action = UseAbility(cid(e), ability.name, target=cid(target))
    else:
        action = UseAbility(cid(e), ability.name, at=pos(target))
    return not isinstance(perform(battle, action, auto_end=False), Impossible)


def _heal_if_needed(battle: Battle, e: Entity) -> None:
    """Use a healing ability on the most hurt ally below half health."""
    g = gear(e)
    hurt = [a for a in allies_of(battle, e) if hp(a).hp * 2 < hp(a).max_hp]
    if not hurt:
        return
    patient = min(hurt, key=lambda a: (hp(a).hp / hp(a).max_hp, cid(a)))
    for name in comp(e, Loadout).slotted:
        ability = g.character.ability(name)
        if ability is None or ability.is_passive or ability_problem(battle, e, ability):
            continue
        if not any(s.effect in ("heal", "regeneration") for s in ability.effects):
            continue
        if ability.target is Target.self and patient is not e:
            continue
        if ability.target in (Target.ally, Target.self):
            action = UseAbility(cid(e), name, target=cid(patient))
        elif ability.target is Target.area:
            action = UseAbility(cid(e), name, at=pos(patient))
        else:
            continue
        if not isinstance(perform(battle, action, auto_end=False), Impossible):
            return


def _hunt(battle: Battle, e: Entity) -> None:
    """No enemy in sight: go where the side last saw one."""
    known: dict[str, tuple[int, int]] = {}
    for ally in allies_of(battle, e):
        known.update(comp(ally, Memory).last_known)
    live = {o: xy for o, xy in known.items() if o in battle.by_id and is_active(battle[o]) and team(battle[o]) != team(e)}
    here = pos(e)
    if live:
        goal = min(live.values(), key=lambda xy: (distance(here, xy), xy))
    else:
        # Nobody seen yet: cross the field, toward the mirror of where it started, and back.
        origin = comp(e, Memory).origin or here
        field = battle.battlefield
        far = (field.width - 1 - origin[0], field.height - 1 - origin[1])
        goal = origin if distance(here, far) <= 2 else far
        if not field.is_walkable(goal):
            goal = _nearest_walkable(battle, goal)
            if goal is None:
                return
    _approach(battle, e, goal, 0, None)


def _nearest_walkable(battle: Battle, xy: tuple[int, int]) -> tuple[int, int] | None:
    field = battle.battlefield
    best = None
    for radius in range(1, max(field.width, field.height)):
        for dx in range(-radius, radius + 1):
            for dy in (-radius, radius) if abs(dx) != radius else range(-radius, radius + 1):
                cell = (xy[0] + dx, xy[1] + dy)
                if field.in_bounds(cell) and field.is_walkable(cell):
                    best = cell if best is None else min(best, cell)
        if best is not None:
            return best
    return None


def _flee_from(battle: Battle, e: Entity) -> None:
    """R-10 fear: move as far from the source as the movement allows."""
    fear = effects(e).get("fear")
    source = battle.by_id.get(fear.source) if fear and fear.source else None
    if source is None or not is_active(source):
        return
    field = battle.battlefield
    here = pos(e)
    best = here
    for _ in range(comp(e, TurnState).movement_left):
        options = [n for n in field.neighbours(best) if field.is_walkable(n) and n not in battle.occupancy]
        if not options:
            break
        far = max(options, key=lambda xy: (distance(xy, pos(source)), xy))
        if distance(far, pos(source)) <= distance(best, pos(source)):
            break
        best = far
    if best != here:
        perform(battle, Move(cid(e), best, partial=True), auto_end=False)

