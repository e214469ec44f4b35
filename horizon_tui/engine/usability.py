"""R-6 "can this be used now": the one check the actions, the AI, the player's and the GM's
screens and the simulator all ask. None means usable; otherwise a short reason in words.

What an action then asks of its target (range, sight, side) stays with the action
(`actions.UseAbility`); this answers only what holds whatever the target: the turn, the slot,
the charges (R-5, R-6), the cooldown (R-6) and, for an ability that only heals, whether anyone
it could reach needs it.
"""

from __future__ import annotations

from horizon_tui.content.models import Ability, Difficulty, Target
from horizon_tui.engine.battle import Battle, Entity, allies_of, charge_left, comp, effects, gear, hp, turn_state
from horizon_tui.engine.components import Charges, Cooldowns, FreeActions, Loadout, TurnState

_HEALS = frozenset({"heal"})


def turn_refusal(battle: Battle, actor: Entity) -> str | None:
    """What stops any action this turn: already acted, or afraid (R-10 fear: it may only flee
    towards the nearest edge, hide or wait)."""
    if comp(actor, TurnState).acted:
        return "already acted this turn"
    if effects(actor).has("fear"):
        return "afraid: it can only flee towards the nearest edge, hide or wait"
    return None


def cooldown_left(battle: Battle, actor: Entity, ability_name: str) -> int:
    """R-6: how many more of `actor`'s own turns `ability_name` is refused for its cooldown,
    counted exactly as `ability_refusal` enforces it: the turn in progress counts if it is the
    actor's and its action is not yet spent; otherwise the count starts with its next turn.

    Worked: a difficulty-III ability (cooldown 2) used on own turn 5 is ready from own turn 8;
    right after its use (turn 5, action spent) 2 turns are left — turns 6 and 7 — and at the
    start of turn 6, 2 are left too (6 and 7), at turn 7 one, at turn 8 none."""
    ready = comp(actor, Cooldowns).ready_at.get(ability_name, 0)
    return max(0, ready - _first_usable_turn(battle, actor))


def ready_at_after(battle: Battle, actor: Entity, turns: int) -> int:
    """The `Cooldowns.ready_at` that leaves `turns` for `cooldown_left` (its inverse): a GM's
    "cooling down for 2 more turns", or a cooldown carried into the next fight."""
    return _first_usable_turn(battle, actor) + max(0, turns)


def _first_usable_turn(battle: Battle, actor: Entity) -> int:
    """The first of `actor`'s own turns still to come on which it could act: the one in progress
    if its action is not yet spent, else the next."""
    state = comp(actor, TurnState)
    if battle.current is actor and not state.acted:
        return state.own_turns
    return state.own_turns + 1


def charge_refusal(actor: Entity, difficulty: Difficulty) -> str | None:
    """R-5/R-6: a use (or a passive switched on) needs a charge of its difficulty; I is unlimited."""
    left = charge_left(actor, difficulty)
    if left is not None and left <= 0:
        return f"no charges of {difficulty.value} left"
    return None


def ability_ready(actor: Entity, ability: Ability) -> bool:
    """Whether `ability_state_refusal` has nothing to say (slotted, not a passive, a charge of its
    difficulty left, off cooldown: R-5, R-6), as a yes or no without the words — the AI asks it
    for every ability it weighs, many times a turn."""
    _, name, passive, difficulty, unlimited = _facts(ability)
    if passive or name not in comp(actor, Loadout).slotted:
        return False
    if not unlimited and comp(actor, Charges).pools.get(difficulty, 0) <= 0:
        return False
    return comp(actor, Cooldowns).ready_at.get(name, 0) <= turn_state(actor).own_turns


def _facts(ability: Ability) -> tuple[Ability, str, bool, Difficulty, bool]:
    """(the ability, its name, whether it is a passive, its difficulty, whether that is I: no
    charge needed), read once per ability: it is a frozen object of the catalogue, and reading
    its attributes (`is_passive` a property) from compiled code costs more than the rest of
    `ability_ready`. Kept by identity across battles, as the AI's kits."""
    found = _FACTS.get(id(ability))
    if found is None or found[0] is not ability:
        if len(_FACTS) >= 4096:
            _FACTS.clear()
        found = _FACTS[id(ability)] = (ability, ability.name, ability.is_passive, ability.difficulty,
                                       ability.difficulty is Difficulty.I)
    return found


_FACTS: dict[int, tuple[Ability, str, bool, Difficulty, bool]] = {}  # _facts', by the ability's identity


def ability_state_refusal(battle: Battle, actor: Entity, ability: Ability) -> str | None:
    """The R-6 part of `ability_refusal` for an ability object: slot, passive, charges, cooldown
    (not the turn), in words."""
    if ability_ready(actor, ability):
        return None
    if ability.name not in comp(actor, Loadout).slotted:
        return f"{ability.name} is not slotted"
    if ability.is_passive:
        return f"{ability.name} is a passive: it works by being slotted"
    problem = charge_refusal(actor, ability.difficulty)
    if problem:
        return problem
    ready = comp(actor, Cooldowns).ready_at.get(ability.name, 0)
    own = comp(actor, TurnState).own_turns
    if ready > own:
        turns = ready - own
        return f"cooling down: {turns} turn{'s' if turns != 1 else ''} left"
    return None


def ability_refusal(battle: Battle, actor: Entity, ability_name: str) -> str | None:
    """Why `actor` can't use `ability_name` now (R-6), or None when it can."""
    ability = gear(actor).character.ability(ability_name)
    if ability is None:
        return f"doesn't know {ability_name!r}"
    problem = turn_refusal(battle, actor) or ability_state_refusal(battle, actor, ability)
    if problem:
        return problem
    if _only_heals(ability) and not any(hp(a).hp < hp(a).max_hp for a in _patients(battle, actor, ability)):
        return "full health: nothing to heal"
    return None


def free_action_refusal(battle: Battle, actor: Entity) -> str | None:
    """Why `actor` can't take a free action now (R-13), or None. A frightened combatant may
    still hide (the `hide` stock action), so fear is the action's own business."""
    if comp(actor, TurnState).acted:
        return "already acted this turn"
    if comp(actor, FreeActions).points <= 0:
        return "no free-action points left"
    return None


def _only_heals(ability: Ability) -> bool:
    return bool(ability.effects) and all(s.effect in _HEALS for s in ability.effects) and not ability.deals_damage


def _patients(battle: Battle, actor: Entity, ability: Ability) -> list[Entity]:
    if ability.target is Target.self:
        return [actor]
    return allies_of(battle, actor)


__all__ = [
    "ability_ready", "ability_refusal", "ability_state_refusal", "charge_refusal", "cooldown_left", "free_action_refusal",
    "ready_at_after", "turn_refusal",
]
