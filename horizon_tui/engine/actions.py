"""Actions: one path for players, the AI and the GM.

Each action is a callable frozen, slotted dataclass: `action(battle)` checks legality and returns `Success`
(with the events it caused) or `Impossible` (with the reason a player would read). Game-rule
refusals never raise. `perform` runs one for the combatant whose turn it is and ends the turn
when it is spent. The hot ones (`Move`, `Attack`, `UseAbility`) and `perform` are resolved in
`engine.resolve` (compiled); this module stays plain Python, since the converter that saves and
loads actions reads their field types, which a compiled class doesn't keep.
"""

from __future__ import annotations

from dataclasses import dataclass, field as data_field, replace

from fractions import Fraction

import attrs

from horizon_tui.content.models import Ability
from horizon_tui.engine import events as ev
from horizon_tui.engine.battle import (
    Battle, Entity, check_roll, cid, comp, current_attributes, effects, enemies_of, gear, ident,
    put, spend_charge, stats,
)
from horizon_tui.engine.components import FreeActions, Gear, Loadout
from horizon_tui.engine.effects import apply_effect, deal_damage, recompute_stats
from horizon_tui.engine.resolve import (
    Impossible, Outcome, Success, attack, blocked_for, edge_distances, end_turn, first_step_affordable,
    move, move_costs, perform, spend_turn, target_problem, use, wait,
)
from horizon_tui.engine.turns import check_end
from horizon_tui.engine.usability import charge_refusal, free_action_refusal, turn_refusal
from horizon_tui.rules.checks import contest_chance
from horizon_tui.rules.numbers import whole


@dataclass(frozen=True, slots=True)
class Move:
    """Move toward a cell along the cheapest path (R-8). A cell just outside the battlefield
    from an edge cell means fleeing. With `partial`, go as far as the movement allows."""

    actor: str
    to: tuple[int, int]
    partial: bool = False
    # The cheapest path to `to` when the mover already has one (the AI found it walking toward
    # something further: a prefix of a cheapest path is a cheapest path). Not an input: never saved.
    via: tuple[tuple[int, int], ...] | None = data_field(default=None, compare=False, repr=False)

    def __call__(self, battle: Battle) -> Outcome:
        return move(battle, self.actor, self.to, self.partial, self.via)


@dataclass(frozen=True, slots=True)
class Attack:
    """A normal attack (difficulty I): unlimited, no slot (R-5, R-9)."""

    actor: str
    target: str

    def __call__(self, battle: Battle) -> Outcome:
        return attack(battle, self.actor, self.target)


@dataclass(frozen=True, slots=True)
class UseAbility:
    """Use a slotted ability (R-6): a charge of its difficulty, then its cooldown."""

    actor: str
    ability: str
    target: str | None = None
    at: tuple[int, int] | None = None

    def __call__(self, battle: Battle) -> Outcome:
        return use(battle, self.actor, self.ability, self.target, self.at)


@dataclass(frozen=True, slots=True)
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
        spend_turn(battle, e)
        slotted = tuple(self.add if n == self.remove else n for n in loadout.slotted)
        put(e, Loadout, Loadout(slotted, loadout.active_passives - {self.remove}))
        battle.emit(ev.Swapped(cid(e), self.remove, self.add))
        recompute_stats(battle, e)
        return Success(battle.log[start:])


@dataclass(frozen=True, slots=True)
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
        spend_turn(battle, e)
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


@dataclass(frozen=True, slots=True)
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
            problem = target_problem(battle, e, target, reach)
            if problem:
                return Impossible(problem)
        start = len(battle.log)
        spend_turn(battle, e)
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


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class Wait:
    """End the turn (R-8: waiting is an action too). A frightened combatant 'hides' this way."""

    actor: str

    def __call__(self, battle: Battle) -> Outcome:
        return wait(battle, self.actor)


Action = Move | Attack | UseAbility | Swap | TogglePassive | FreeAction | InventAbility | Wait
ACTION_TYPES: dict[str, type] = {cls.__name__: cls for cls in (Move, Attack, UseAbility, Swap, TogglePassive, FreeAction, InventAbility, Wait)}


__all__ = [
    "Action", "Attack", "FreeAction", "Impossible", "InventAbility", "Move", "Outcome", "Success", "Swap",
    "TogglePassive", "UseAbility", "Wait", "perform", "end_turn", "blocked_for", "edge_distances",
    "first_step_affordable", "move_costs", "ACTION_TYPES",
]
