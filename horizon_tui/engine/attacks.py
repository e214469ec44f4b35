"""Resolving strikes and abilities: R-7 difficulty checks, R-9 hits, crits and damage, R-10 effects.

Legality (range, sight, charges) is the actions' business; by the time these run, the use is
allowed and only dice remain.
"""

from __future__ import annotations

from fractions import Fraction

import attrs
import tcod.los

from horizon_tui.content.models import NEGATIVE_EFFECTS, Ability, AbilityKind, Difficulty, Target, Weapon
from horizon_tui.engine import events as ev
from horizon_tui.engine.battle import (
    Battle, Entity, active_combatants, attack_for_roll, check_chance, check_roll, cid, comp, gear, is_downed,
    is_immobile, pos, stats, team,
)
from horizon_tui.engine.components import Presence
from horizon_tui.engine.effects import apply_effect, deal_damage
from horizon_tui.rules.checks import Failure, failure_outcome
from horizon_tui.rules.combat import armor_reduction, crit_chance, damage, hit_chance
from horizon_tui.rules.creation import ability_multiplier
from horizon_tui.rules.numbers import whole
from horizon_tui.rules.ranges import distance, is_melee


def rolled_attack(battle: Battle, e: Entity) -> Fraction:
    """One normal attack's damage (R-9): the weapon rolled, put through the formula."""
    return attack_for_roll(e, gear(e).weapon_dice.roll(battle.rng))


def chance_to_hit(battle: Battle, attacker: Entity, target: Entity, *, fled: bool = False) -> Fraction:
    """R-9 hit chance; R-11 [H] a fled target is hit at a fraction of it. Exact Fractions are
    slow, and the same pairs of numbers come back battle after battle: kept in a memo."""
    # Stats values are shared by every combatant with the same numbers and never written
    # (battle.recompute_stats): their identity stands for the numbers, across battles.
    mine, theirs, rules = stats(attacker).values, stats(target).values, battle.rules.attack
    key = (id(mine), id(theirs), id(rules))
    found = _HIT_MEMO.get(key)
    if found is None or found[0] is not mine or found[1] is not theirs or found[2] is not rules:
        if len(_HIT_MEMO) >= _DAMAGE_MEMO_LIMIT:
            _HIT_MEMO.clear()
        found = _HIT_MEMO[key] = (mine, theirs, rules, hit_chance(mine["accuracy"], theirs["evasion"], rules))
    chance = found[3]
    if fled:
        chance *= battle.rules.ranges.bow_fled_hit_factor
    return chance


def auto_hits(battle: Battle, attacker: Entity, target: Entity) -> bool:
    """R-9 [S]: in melee against an immobile target (stunned, knocked down) there is no accuracy
    check: it hits. Melee is the weapon's kind within its reach (`rules.ranges.is_melee`)."""
    if comp(target, Presence) is not Presence.active or not is_immobile(target):
        return False
    return is_melee(gear(attacker).weapon, distance(pos(attacker), pos(target)), battle.rules)


def strike(
    battle: Battle,
    attacker: Entity,
    target: Entity,
    *,
    ability: Ability | None = None,
    check_accuracy: bool = True,
    aimed: tuple[int, int] | None = None,
) -> bool:
    """A normal attack or a damaging ability's blow on one target. Returns whether it hit."""
    rules = battle.rules
    fled = comp(target, Presence) is Presence.fled
    me, them = attacker.uid, target.uid  # `cid`s, asked for every event below
    name = ability.name if ability else None
    difficulty = ability.difficulty if ability else Difficulty.I
    hit = True
    if check_accuracy and not auto_hits(battle, attacker, target):
        chance = chance_to_hit(battle, attacker, target, fled=fled)
        hit = check_roll(battle, attacker, chance)
        battle.emit(ev.Check(me, "accuracy", _float(chance), hit, ability=name, target=them))
    crit = False
    if hit and not gear(target).crit_immune:
        if is_downed(target):
            crit = True  # a downed target always takes critical damage
        else:
            if ability is None or ability.crit:
                chance = _crit_chance(attacker, rules, blade=ability is not None)
            else:
                chance = _NO_CRIT
            if chance.numerator > 0:  # `chance > 0` on its integers
                crit = check_roll(battle, attacker, chance)
                battle.emit(ev.Check(me, "crit", _float(chance), crit, ability=name, target=them))
    battle.emit(ev.Attacked(me, them, name, difficulty.value, hit, crit, list(aimed) if aimed else None))
    if not hit:
        return False
    multiplier = strike_multiplier(battle, ability)
    base = rolled_attack(battle, attacker)
    worn = gear(target).armor
    armor = _NO_ARMOR if worn is None else armor_reduction(worn, rules)  # one object: the memo below
    # The pipeline is pure in these, and the same objects come back battle after battle (rolls from
    # the shared attack memo, the rules' numbers): a memo across battles, checked by identity.
    key = (id(base), id(multiplier), crit, id(armor), id(rules.attack))
    found = _DAMAGE_MEMO.get(key)
    if found is None or found[0] is not base or found[1] is not multiplier or found[2] is not armor \
            or found[3] is not rules.attack:
        if len(_DAMAGE_MEMO) >= _DAMAGE_MEMO_LIMIT:
            _DAMAGE_MEMO.clear()
        found = _DAMAGE_MEMO[key] = (base, multiplier, armor, rules.attack, damage(
            base, multiplier=multiplier, critical=crit, armor=armor, attack=rules.attack))
    amount = found[4]
    deal_damage(battle, target, amount, me, name)
    return True


def _crit_chance(attacker: Entity, rules, *, blade: bool) -> Fraction:
    """R-9's crit chance for this attacker (`rules.combat.crit_chance`; an ability granting
    critical damage counts as a short blade). Pure in the stats, the weapon and the rules: kept
    in a memo across battles, checked by identity (as `chance_to_hit`)."""
    values, weapon = stats(attacker).values, gear(attacker).weapon
    key = (id(values), id(weapon), blade, id(rules.attack))
    found = _CRIT_MEMO.get(key)
    if found is None or found[0] is not values or found[1] is not weapon or found[2] is not rules.attack:
        if len(_CRIT_MEMO) >= _DAMAGE_MEMO_LIMIT:
            _CRIT_MEMO.clear()
        chance = crit_chance(values["accuracy"], as_short_blade(weapon) if blade else weapon, rules.attack)
        found = _CRIT_MEMO[key] = (values, weapon, rules.attack, chance)
    return found[3]


def as_short_blade(weapon: Weapon) -> Weapon:
    """The weapon as a short blade: a crit chance for a normal attack (R-9), as the odds show it."""
    return attrs.evolve(weapon, short_blade=True)


_ONE = Fraction(1)  # one object, so the damage memo in `strike` recognises it
_NO_ARMOR = Fraction(0)  # likewise: armor_reduction(None), which makes a new one each call
_DAMAGE_MEMO: dict[tuple, tuple] = {}  # a memo of a pure function (R-9's pipeline), not state; bounded
_HIT_MEMO: dict[tuple, tuple] = {}  # likewise for the hit chance
_CRIT_MEMO: dict[tuple, tuple] = {}  # and the crit chance
_NO_CRIT = Fraction(0)
_DAMAGE_MEMO_LIMIT = 50_000


def _float(value: Fraction) -> float:
    """`float(value)`: the same division of its two integers, without the four calls of
    numbers.Rational's `__float__` (every check in the log carries its chance as a float)."""
    numerator, denominator = value.as_integer_ratio()
    return numerator / denominator


def _below_one(chance: Fraction) -> bool:
    """`chance < 1` on the integers of the ratio (its denominator is positive), without Fraction's
    comparison machinery."""
    numerator, denominator = chance.as_integer_ratio()
    return numerator < denominator


def strike_multiplier(battle: Battle, ability: Ability | None) -> Fraction:
    """R-9's ability multiplier (R-6: `rules.creation.ability_multiplier`); ×1 for a normal attack."""
    if ability is None:
        return _ONE
    return ability_multiplier(ability, battle.rules)


def is_harmful(ability: Ability) -> bool:
    return ability.kind is AbilityKind.damage or any(e.effect in NEGATIVE_EFFECTS for e in ability.effects)


def line_cells(battle: Battle, origin: tuple[int, int], aimed: tuple[int, int], length: int) -> list[tuple[int, int]]:
    """The cells a line ability crosses: from beside the user toward the aimed cell, `length`
    cells long, stopped by walls."""
    ox, oy = origin
    ax, ay = aimed
    if (ax, ay) == (ox, oy):
        return []
    # Extend the aim far enough, then cut to length.
    scale = max(1, (length + 1) // max(1, max(abs(ax - ox), abs(ay - oy))) + 1)
    far = (ox + (ax - ox) * scale, oy + (ay - oy) * scale)
    cells: list[tuple[int, int]] = []
    for x, y in tcod.los.bresenham(origin, far).tolist()[1:]:
        if len(cells) >= length or not battle.battlefield.in_bounds((x, y)):
            break
        if not battle.battlefield.is_walkable((x, y)):
            break
        cells.append((x, y))
    return cells


def affected(battle: Battle, user: Entity, ability: Ability, target: Entity | None, aimed: tuple[int, int] | None) -> list[Entity]:
    """Who an ability lands on (no misfire). Harmful areas and lines hit the user's enemies,
    helpful ones its allies."""
    if ability.target is Target.self:
        return [user]
    if ability.target in (Target.ally, Target.enemy):
        return [target] if target is not None else []
    harmful = is_harmful(ability)
    side = team(user)
    if ability.target is Target.area:
        cx, cy = aimed or pos(user)
        radius = ability.radius or 0
        cells = None
    else:
        cells = set(line_cells(battle, pos(user), aimed or pos(user), ability.length or 0))
    hits = []
    for other in active_combatants(battle):
        if (team(other) != side) != harmful:
            continue
        x, y = pos(other)
        if cells is None:
            if max(abs(x - cx), abs(y - cy)) <= radius:
                hits.append(other)
        elif (x, y) in cells:
            hits.append(other)
    return hits


def use_ability(
    battle: Battle, user: Entity, ability: Ability, target: Entity | None, aimed: tuple[int, int] | None
) -> None:
    """R-7 then R-9/R-10: check the difficulty, then land the ability. The charge and cooldown
    were already spent by the action."""
    rules = battle.rules
    misfire: Entity | None = None
    chance = check_chance(user, ability.difficulty, rules)
    if _below_one(chance):
        passed = check_roll(battle, user, chance)
        outcome = None
        if not passed:
            outcome = failure_outcome(battle.rng, rules.checks)
            if outcome is Failure.self:
                misfire = user
            elif outcome is Failure.random:
                living = sorted(active_combatants(battle), key=cid)
                misfire = living[battle.rng.randrange(len(living))]
        battle.emit(ev.Check(cid(user), "difficulty", _float(chance), passed, outcome.value if outcome else None, ability.name))
        if not passed and misfire is None:
            return  # fizzle: nothing happens
    if misfire is not None:
        targets = [misfire]
        aimed = pos(misfire)
    else:
        targets = affected(battle, user, ability, target, aimed)
    single = ability.target in (Target.ally, Target.enemy) and misfire is None
    for victim in targets:
        if comp(victim, Presence) not in (Presence.active, Presence.fled):
            continue
        _land(battle, user, ability, victim, check=single and team(victim) != team(user), aimed=aimed)


def _land(battle: Battle, user: Entity, ability: Ability, victim: Entity, *, check: bool, aimed) -> None:
    if ability.kind is AbilityKind.damage:
        if not strike(battle, user, victim, ability=ability, check_accuracy=check, aimed=aimed):
            return
    elif check and is_harmful(ability):
        # a targeted spell at an enemy needs an accuracy check even when it does no damage.
        hit = True
        if not auto_hits(battle, user, victim):  # melee on the immobile hits without a check
            chance = chance_to_hit(battle, user, victim, fled=comp(victim, Presence) is Presence.fled)
            hit = check_roll(battle, user, chance)
            battle.emit(ev.Check(cid(user), "accuracy", _float(chance), hit, ability=ability.name, target=cid(victim)))
        battle.emit(ev.Attacked(cid(user), cid(victim), ability.name, ability.difficulty.value, hit, False, list(aimed) if aimed else None))
        if not hit:
            return
    for spec in ability.effects:
        if comp(victim, Presence) is not Presence.active:
            return
        if _below_one(spec.chance):
            landed = check_roll(battle, user, spec.chance)
            battle.emit(ev.Check(cid(user), "effect", _float(spec.chance), landed, ability=ability.name, target=cid(victim)))
            if not landed:
                continue
        heal_amount = None
        if spec.effect == "heal" and spec.magnitude <= 0:
            heal_amount = whole(rolled_attack(battle, user) * strike_multiplier(battle, ability))
        apply_effect(
            battle, victim, spec.effect, duration=spec.duration, magnitude=spec.magnitude,
            source=user, stat=spec.stat, gradual=spec.gradual, heal_amount=heal_amount,
        )
