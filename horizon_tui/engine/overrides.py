"""GM overrides: the game master's hand on a running battle.

Each is a callable attrs class like the actions, applied at any moment (not only on the target's
turn) through `runner.override`, which records it as an input so the battle still replays. Each
logs an `override` event first, then whatever it caused (damage, heal, effects, a fall).
"""

from __future__ import annotations

from fractions import Fraction

import attrs

from horizon_tui.content.models import EFFECTS, Difficulty
from horizon_tui.engine import events as ev
from horizon_tui.engine.actions import Impossible, Outcome, Success
from horizon_tui.engine.battle import Battle, cid, comp, effects, gear, hp, is_active
from horizon_tui.engine.components import Charges, Controller, Cooldowns, Health, Presence
from horizon_tui.engine.effects import apply_effect, deal_damage, end_effect, restore_health
from horizon_tui.engine.turns import check_end, update_sight

CONTROLLERS = ("player", "ai", "gm")


def _start(battle: Battle, target: str, what: str, value, reason: str) -> int | Impossible:
    if battle.over:
        return Impossible("the battle is over")
    if target not in battle.by_id:
        return Impossible(f"no combatant {target!r}")
    start = len(battle.log)
    battle.emit(ev.Override, target=target, what=what, value=value, reason=reason)
    return start


@attrs.frozen
class SetHealth:
    """Set health to a number (0 or less fells it; above the maximum is capped)."""

    target: str
    hp: int
    reason: str = ""

    def __call__(self, battle: Battle) -> Outcome:
        start = _start(battle, self.target, "set health", self.hp, self.reason)
        if isinstance(start, Impossible):
            return start
        e = battle[self.target]
        if comp(e, Presence) is not Presence.active:
            return Success(battle.log[start:])
        current = hp(e)
        wanted = min(self.hp, current.max_hp)
        if wanted < current.hp:
            deal_damage(battle, e, current.hp - wanted, "gm")
        elif wanted > current.hp:
            restore_health(battle, e, wanted - current.hp, "gm")
        check_end(battle)
        return Success(battle.log[start:])


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
        if e is None or effects(e).get(self.effect) is None:
            return Impossible(f"{self.target} is not under {self.effect}")
        start = _start(battle, self.target, f"remove {self.effect}", None, self.reason)
        if isinstance(start, Impossible):
            return start
        end_effect(battle, e, effects(e).get(self.effect))
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
        pools = dict(comp(e, Charges).pools)
        pools[difficulty] = self.charges
        e.components[Charges] = Charges(pools)
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
        ready = dict(comp(e, Cooldowns).ready_at)
        ready.pop(self.ability, None)
        e.components[Cooldowns] = Cooldowns(ready)
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
        to = tuple(self.to)
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
        battle.emit(ev.Move, actor=cid(e), path=[list(to)], cost=0, forced=True, reason="gm")
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
        start = _start(battle, self.target, "controller", self.kind, self.reason)
        if isinstance(start, Impossible):
            return start
        e = battle[self.target]
        e.components[Controller] = attrs.evolve(comp(e, Controller), kind=self.kind)
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
        if battle.order.index(self.target) == position:
            return Impossible("it is already there")
        start = len(battle.log)
        current = battle.order[battle.index] if 0 <= battle.index < len(battle.order) else None
        battle.emit(ev.Override, target=self.target, what="initiative", value=position + 1, reason=self.reason)
        order = [c for c in battle.order if c != self.target]
        order.insert(position, self.target)
        battle.order = order
        if current is not None:
            battle.index = order.index(current)
        return Success(battle.log[start:])


OVERRIDE_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (SetHealth, AddEffect, RemoveEffect, SetCharges, ResetCooldown, ForceCheck, Teleport,
                SetController, Reorder)
}

__all__ = [*OVERRIDE_TYPES, "OVERRIDE_TYPES", "CONTROLLERS", "Health"]
