"""R-10 effects, and the only two functions that change health (`deal_damage`, `restore_health`).

Negative effects: bleeding, poison, disease, stun, blindness, slow, fear, domination, knockdown.
Positive: heal, regeneration, buff, cleanse.

R-10's duration model, the one for every lasting effect, positive and negative, whether it blocks
actions, deals damage or changes stats: **a duration N covers exactly the affected combatant's
next N own turns.** It is in force from the moment it lands until the end of the Nth of them; at
the start of each covered turn it ticks (`tick_effects`: bleeding and poison hurt, regeneration
heals, a gradual disease takes its share; stun, knockdown and fear govern that turn, slow its
movement), and at the end of each covered turn one is counted off (`expire_turn_effects`), the
last ending it. `ActiveEffect.turns_left` is that count — the covered turns still to come, the one
in progress included — and it is what the log ("N turns left") and every screen show. One that
lands during its holder's own turn covers from the next one (`from_turn`). Heal and cleanse act
at once and last no turns.
"""

from __future__ import annotations

from dataclasses import replace

from fractions import Fraction


from horizon_tui.content.models import NEGATIVE_EFFECTS
from horizon_tui.engine import events as ev
from horizon_tui.engine.battle import (
    Battle, Entity, cid, comp, count_damage, count_effect, effects, find, hp, ident, is_active, put, refresh_stats,
    set_hp, team,
)
from horizon_tui.engine.components import (
    ActiveEffect, Effects, Gear, Memory, Presence, TempHealth, TurnState,
)
from horizon_tui.rules.numbers import whole

# Effects whose numbers change the stats (recompute when they start or end).
_STAT_EFFECTS = frozenset({"disease", "buff"})


def deal_damage(battle: Battle, target: Entity, amount: int, source: str, ability: str | None = None) -> None:
    """Take `amount` health; at 0 or below an enemy dies and a player character falls
    unconscious (R-9). Emits `damage`, then `defeated` if it fell."""
    amount = max(0, int(amount))
    shield = find(target, TempHealth)  # usually absent
    if shield is not None and amount:
        absorbed = min(shield.points, amount)  # temporary health goes first (a GM's grant)
        put(target, TempHealth, TempHealth(shield.points - absorbed))
        amount -= absorbed
    new = hp(target).hp - amount
    set_hp(target, new)
    battle.emit(ev.Damaged(cid(target), amount, new, source))
    attacker = battle.by_id.get(source)
    count_damage(target, amount, attacker, ability or "normal attack")
    if attacker is not None:
        memory = comp(target, Memory)
        if memory.last_attacker != source:
            put(target, Memory, Memory(memory.last_known, source, memory.origin))
    if new <= 0 and comp(target, Presence) in (Presence.active, Presence.fled):
        defeat(battle, target)  # a fled target can still fall to a bow's shot


def defeat(battle: Battle, target: Entity) -> None:
    state = "unconscious" if ident(target).kind == "character" else "dead"
    battle.set_presence(target, Presence(state))
    battle.place(target, None)
    battle.emit(ev.Defeated(cid(target), state))


def restore_health(battle: Battle, target: Entity, amount: int, source: str) -> None:
    """Heal, never above the maximum (R-10)."""
    health = hp(target)
    before = health.hp
    new = min(health.max_hp, before + max(0, int(amount)))
    set_hp(target, new)
    battle.emit(ev.Healed(cid(target), new - before, new, source))


def _set(target: Entity, active: tuple[ActiveEffect, ...]) -> None:
    put(target, Effects, Effects(active))


def apply_effect(
    battle: Battle,
    target: Entity,
    effect: str,
    *,
    duration: int,
    magnitude: Fraction,
    source: Entity | None,
    stat: str | None = None,
    gradual: bool = False,
    heal_amount: int | None = None,
) -> bool:
    """Put an effect on a combatant (R-10). Returns False if it is immune."""
    source_id = cid(source) if source is not None else None
    if not is_active(target):
        return False
    if effect in comp(target, Gear).immunities:
        battle.emit(ev.EffectEvent(cid(target), effect, source=source_id, resisted=True))
        return False
    magnitude = Fraction(magnitude)
    if effect == "heal":
        amount = heal_amount if heal_amount is not None else whole(magnitude)
        restore_health(battle, target, amount, source_id or cid(target))
        return True
    if effect == "cleanse":
        _cleanse(battle, target)
        return True
    current = effects(target).active
    # A new dose replaces the old one of the same effect (no stacking), keeping the longer.
    kept = tuple(e for e in current if e.effect != effect)
    old = effects(target).get(effect)
    own = comp(target, TurnState).own_turns
    new = ActiveEffect(
        effect=effect, turns_left=max(duration, _turns_after_this(battle, target, old, own)), magnitude=magnitude,
        source=source_id, stat=stat, gradual=gradual,
        applied=old.applied if (old and effect == "disease") else 0, from_turn=own + 1,
    )
    if effect == "disease" and not gradual:
        new = replace(new, applied=whole(magnitude))  # all at once
    _set(target, kept + (new,))
    battle.emit(ev.EffectEvent(cid(target), effect, new.turns_left, float(magnitude), source_id))
    if effect == "domination" and source is not None and team(source) != team(target):
        battle.set_team(target, team(source))
        battle.emit(ev.SideChange(cid(target), team(source)))
    if source is not None and effect in NEGATIVE_EFFECTS:
        count_effect(source)
    if effect in _STAT_EFFECTS:
        recompute_stats(battle, target)
    return True


def _cleanse(battle: Battle, target: Entity) -> None:
    """R-10 cleanse ends one negative effect: the one with the most turns left."""
    negatives = [e for e in effects(target).active if e.effect in NEGATIVE_EFFECTS]
    if negatives:
        worst = max(negatives, key=lambda e: (e.turns_left, e.effect))
        end_effect(battle, target, worst)


def end_effect(battle: Battle, target: Entity, effect: ActiveEffect) -> None:
    _set(target, tuple(e for e in effects(target).active if e is not effect))
    battle.emit(ev.EffectEvent(cid(target), effect.effect, ended=True))
    if effect.effect == "domination":
        base = ident(target).base_team
        if team(target) != base:
            battle.set_team(target, base)
            battle.emit(ev.SideChange(cid(target), base))
    if effect.effect in _STAT_EFFECTS:
        recompute_stats(battle, target)  # disease: the attributes come back


def _turns_after_this(battle: Battle, target: Entity, effect: ActiveEffect | None, own: int) -> int:
    """The own turns `effect` covers after the one in progress (R-10)."""
    if effect is None:
        return 0
    covering_now = battle.current is target and effect.from_turn <= own
    return effect.turns_left - 1 if covering_now else effect.turns_left


def tick_effects(battle: Battle, target: Entity) -> None:
    """Start of a covered turn (R-10): bleeding and poison hurt, regeneration heals, a gradual
    disease takes another share (what is left spread evenly over the covered turns left, this
    one included, rounded up). The count goes down at the turn's end (`expire_turn_effects`)."""
    for effect in list(effects(target).active):
        if not is_active(target):
            return
        if effect.effect in ("bleeding", "poison"):
            deal_damage(battle, target, whole(effect.magnitude), effect.source or effect.effect)
        elif effect.effect == "regeneration":
            restore_health(battle, target, whole(effect.magnitude), effect.source or cid(target))
        elif effect.effect == "disease" and effect.gradual:
            remaining = whole(effect.magnitude) - effect.applied
            take = -(-remaining // max(1, effect.turns_left)) if remaining > 0 else 0
            if take:
                _replace(target, effect, replace(effect, applied=effect.applied + take))
                recompute_stats(battle, target)


def expire_turn_effects(battle: Battle, target: Entity) -> None:
    """End of the holder's own turn (R-10): each effect that covered it counts one off; the one
    whose last covered turn this was ends. Effects that landed during this turn cover from the next."""
    own = comp(target, TurnState).own_turns
    for effect in list(effects(target).active):
        if effect.from_turn > own:
            continue
        current = _find(target, effect.effect)
        if current is None:
            continue
        if current.turns_left <= 1:
            end_effect(battle, target, current)
        else:
            _replace(target, current, replace(current, turns_left=current.turns_left - 1))


def _find(target: Entity, name: str) -> ActiveEffect | None:
    return effects(target).get(name)


def _replace(target: Entity, old: ActiveEffect, new: ActiveEffect) -> None:
    _set(target, tuple(new if e is old else e for e in effects(target).active))


def recompute_stats(battle: Battle, e: Entity) -> None:
    """R-2 from current attributes, plus species and passive modifiers and buffs; armor's speed
    penalty (R-9); health's maximum follows, and health above a lowered maximum (disease, R-10) is
    lost through the log like any loss."""
    excess = refresh_stats(battle, e)
    if excess:
        deal_damage(battle, e, excess, "max_hp")
