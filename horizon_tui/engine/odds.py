"""The numbers a player decides with, per target, before confirming an attack or an ability:
the hit chance (R-9), the damage range on a hit (R-9's order of damage over the weapon's lowest
and highest roll, armor included), the chance and range of a critical, a heal's range, and each
effect's chance (R-10, none against an immunity). The same functions the actions apply
(`attacks.strike`, `attacks._land`), so what is shown is what can happen; the screens only format it.
"""

from __future__ import annotations

from fractions import Fraction

import attrs

from horizon_tui.content.models import Ability, AbilityKind, Target
from horizon_tui.engine.attacks import as_short_blade, strike_multiplier, affected, auto_hits, chance_to_hit, is_harmful
from horizon_tui.engine.battle import Battle, Entity, attack_for_roll, cid, gear, ident, is_downed, stats, team
from horizon_tui.engine.readmodel import ReadModel
from horizon_tui.engine.sight import hidden_from
from horizon_tui.rules.combat import armor_reduction, crit_chance, damage
from horizon_tui.rules.numbers import whole


@attrs.frozen
class EffectOdds:
    effect: str
    chance: Fraction  # that it lands once the ability has hit; 0 against an immunity
    duration: int
    immune: bool = False


@attrs.frozen
class TargetOdds:
    id: str
    name: str
    hit: Fraction | None  # the accuracy check's chance; None when there is none (it lands)
    damage: tuple[int, int] | None  # lowest, highest on a hit without a critical
    crit: Fraction  # chance of a critical on a hit (1 against a downed target)
    crit_damage: tuple[int, int] | None
    heal: tuple[int, int] | None = None
    effects: tuple[EffectOdds, ...] = ()


def _range(user: Entity, target: Entity, multiplier: Fraction, critical: bool, battle: Battle) -> tuple[int, int]:
    dice = gear(user).weapon_dice
    worn = gear(target).armor
    armor = Fraction(0) if worn is None else armor_reduction(worn, battle.rules)
    ends = [damage(attack_for_roll(user, roll), multiplier=multiplier, critical=critical, armor=armor,
                   attack=battle.rules.attack) for roll in (dice.minimum, dice.maximum)]
    return min(ends), max(ends)


def _crit(battle: Battle, user: Entity, target: Entity, ability: Ability | None) -> Fraction:
    if gear(target).crit_immune:
        return Fraction(0)
    if is_downed(target):
        return Fraction(1)  # a downed target always takes critical damage
    weapon = gear(user).weapon
    if ability is None:
        return crit_chance(stats(user)["accuracy"], weapon, battle.rules.attack)
    if ability.crit:
        return crit_chance(stats(user)["accuracy"], as_short_blade(weapon), battle.rules.attack)
    return Fraction(0)


def _hit(battle: Battle, user: Entity, target: Entity) -> Fraction | None:
    return None if auto_hits(battle, user, target) else chance_to_hit(battle, user, target)


def attack_odds(battle: Battle, user: Entity, target: Entity) -> TargetOdds:
    """A normal attack on `target` (R-9)."""
    crit = _crit(battle, user, target, None)
    one = Fraction(1)
    return TargetOdds(
        ident(target).id, ident(target).name, _hit(battle, user, target),
        _range(user, target, one, False, battle) if crit < 1 else None, crit,
        _range(user, target, one, True, battle) if crit > 0 else None,
    )


def ability_odds(battle: Battle, user: Entity, ability: Ability, target: Entity) -> TargetOdds:
    """`ability` landing on `target`: as `attacks._land` applies it. A single-target harmful
    ability on an enemy takes the accuracy check; areas and lines don't (R-9 [H])."""
    single = ability.target in (Target.ally, Target.enemy)
    checked = single and team(target) != team(user) and is_harmful(ability)
    hit = _hit(battle, user, target) if checked else None
    multiplier = strike_multiplier(battle, ability)
    dealt = crit_dealt = None
    crit = Fraction(0)
    if ability.kind is AbilityKind.damage:
        crit = _crit(battle, user, target, ability)
        dealt = _range(user, target, multiplier, False, battle) if crit < 1 else None
        crit_dealt = _range(user, target, multiplier, True, battle) if crit > 0 else None
    heal = None
    shown = []
    immunities = gear(target).immunities
    for spec in ability.effects:
        if spec.effect == "heal":
            if spec.magnitude > 0:
                heal = (whole(spec.magnitude), whole(spec.magnitude))
            else:
                dice = gear(user).weapon_dice
                low, high = sorted(whole(attack_for_roll(user, roll) * multiplier)
                                   for roll in (dice.minimum, dice.maximum))
                heal = (low, high)
        immune = spec.effect in immunities
        shown.append(EffectOdds(spec.effect, Fraction(0) if immune else Fraction(spec.chance), spec.duration, immune))
    return TargetOdds(ident(target).id, ident(target).name, hit, dealt, crit, crit_dealt, heal, tuple(shown))


def touched(battle: Battle, user: Entity, ability: Ability, cell: tuple[int, int],
            known: ReadModel | None = None) -> list[Entity]:
    """Everyone an area or a line aimed at `cell` would land on (no misfire), as the action
    chooses them (`attacks.affected`), that the viewer may know (`known`, its read model: not
    those in the dark or hidden, R-13); without it, those not hidden from `user`'s side."""
    found = affected(battle, user, ability, battle.at(cell), cell)
    if known is not None:
        return [e for e in found if known.unit(cid(e)) is not None]
    side = team(user)
    return [e for e in found if not hidden_from(e, side)]
