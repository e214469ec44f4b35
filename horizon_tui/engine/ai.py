"""The AI: behaviour profiles as data (`data/ai.toml`, `content.ai_profiles`), played with the
same actions as players through `perform`.

A turn walks the combatant's profile from the top. A rule whose `when` holds and that can do
something does it: a rule that only moves hands the turn back to the top of the list (from the
new cell, with the movement left); the first rule that spends the turn's action wins, and after
it only `after_attack` rules may still move. Each rule fires at most once a turn; the turn always
ends (Wait). Chance in a rule (`chance`) rolls on the battle's random source.

It never cheats on sight: it targets only enemies in its field of view now (`visible_enemies`),
else heads where its side last saw one (`Memory.last_known`), else crosses the field (`_hunt`).
Each decision makes at most one path search or one distance map; fields of view are cached by
the battlefield.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np

from horizon_tui.content.ai_profiles import Condition, Profile, Rule, cached_ai_profiles, profiles_path
from horizon_tui.content.models import NEGATIVE_EFFECTS, AbilityKind, Target
from horizon_tui.engine.actions import Attack, FreeAction, Move, UseAbility, Wait
from horizon_tui.engine.resolve import Impossible, blocked_for, move_costs, perform
from horizon_tui.engine.attacks import auto_hits, chance_to_hit, line_cells
from horizon_tui.engine.battle import (
    Battle, Entity, allies_of, check_chance, cid, comp, effects, enemies_of, gear, hp, is_active, pos, side_sightings,
    team, turn_state, typical_attack,
)
from horizon_tui.engine.battlefield import UNREACHABLE
from horizon_tui.engine.sight import hidden_from, in_view
from horizon_tui.engine.usability import ability_ready, ability_refusal
from horizon_tui.engine.components import Controller, Loadout, Memory, TurnState
from horizon_tui.rules.checks import roll_chance
from horizon_tui.rules.creation import ability_multiplier
from horizon_tui.rules.ranges import ability_range, distance, weapon_range

_HEALING = frozenset({"heal", "regeneration"})


# --- what it sees and whom it picks --------------------------------------------------------------


def visible_enemies(battle: Battle, e: Entity) -> list[Entity]:
    """Enemies in `e`'s field of view now, hidden ones left out (R-13)."""
    side = team(e)
    return [other for other, _, _ in in_view(battle, e)  # the sight pass this placement's look already made
            if team(other) != side and not hidden_from(other, side)]


def choose_target(battle: Battle, e: Entity, candidates: list[Entity]) -> Entity | None:
    """Target choice as data (the enemy file's `targeting`): the weakest (least health), the most
    dangerous (highest typical attack) or the last attacker, else the nearest; ties to the lesser
    id. Loops, not `min` with a key: a key function is a Python call per candidate."""
    if not candidates:
        return None
    how = comp(e, Controller).targeting
    best: Entity | None = None
    if how == "weakest":
        low = 0
        for o in candidates:
            health = hp(o).hp
            if best is None or health < low or (health == low and cid(o) < cid(best)):
                best, low = o, health
        return best
    if how == "dangerous":
        high = Fraction(0)
        for o in candidates:
            attack = typical_attack(o)
            if best is None or attack > high or (attack == high and cid(o) > cid(best)):
                best, high = o, attack
        return best
    if how == "last_attacker":
        last = comp(e, Memory).last_attacker
        for o in candidates:
            if cid(o) == last:
                return o
    here = pos(e)
    near = 0
    for o in candidates:
        cells = distance(here, pos(o))
        if best is None or cells < near or (cells == near and cid(o) < cid(best)):
            best, near = o, cells
    return best


def profile_of(battle: Battle, e: Entity) -> Profile:
    profiles = battle.ai_profiles or cached_ai_profiles(profiles_path(None))
    name = comp(e, Controller).profile
    return profiles[name] if name in profiles else profiles["brute"]


def _share_below(e: Entity, value: Fraction) -> bool:
    """Its health is below this share of its maximum (in whole numbers: no Fraction arithmetic)."""
    h = hp(e)
    numerator, denominator = value.as_integer_ratio()
    return h.hp * denominator < numerator * h.max_hp


def _share_above(e: Entity, value: Fraction) -> bool:
    h = hp(e)
    numerator, denominator = value.as_integer_ratio()
    return h.hp * denominator > numerator * h.max_hp


class Mind:
    """What one combatant knows during its turn; the view is recomputed when it moves."""

    __slots__ = ("battle", "e", "actor", "_at", "_seen", "_target", "_stamp", "_active", "_help", "_reach", "harm")

    def __init__(self, battle: Battle, e: Entity, harm: list[Harm] | None = None) -> None:
        self.battle, self.e, self.actor = battle, e, e.uid
        self.harm = harm  # its harmful kit (`harmful_kit`), when the caller has it at hand
        self._at: tuple[int, int] | None = None
        self._seen: list[Entity] = []
        self._active: list[Entity] = []
        self._target: Entity | None = None
        self._stamp: int | None = None  # battle.placements when it last looked
        self._help: dict[str, list] | None = None
        self._reach: int | None = None

    def _look(self) -> None:
        stamp = self.battle.placements
        if stamp == self._stamp:
            return  # nobody was placed since: nothing to see anew
        self._stamp = stamp
        here = pos(self.e)
        if here != self._at:
            self._at = here
            self._seen = self._active = visible_enemies(self.battle, self.e)
            self._target = choose_target(self.battle, self.e, self._seen)
        else:
            self._active = [o for o in self._seen if is_active(o)]  # someone fell or fled

    def seen(self) -> list[Entity]:
        if self.battle.placements != self._stamp:  # `_look`'s own test, inlined (asked often)
            self._look()
        return self._active

    def target(self) -> Entity | None:
        if self.battle.placements != self._stamp:
            self._look()
        target = self._target
        if target is not None and not is_active(target):
            self._at = self._stamp = None  # it fell or fled: look again
            self._look()
        return self._target

    def reach(self) -> int:
        """Its normal attack's range (R-11), looked up once a turn."""
        if self._reach is None:
            self._reach = weapon_range(gear(self.e).weapon, self.battle.rules)
        return self._reach

    def helping(self) -> dict[str, list]:
        """Its helping abilities by kind (`helping_kit`), looked up once a turn."""
        if self._help is None:
            self._help = helping_kit(self.battle, self.e)
        return self._help

    @property
    def acting(self) -> bool:
        """The turn is still ours to play."""
        battle = self.battle  # `battle.current is e and not battle.over`, inlined (asked every step)
        if battle.result is not None or not 0 <= battle.index < len(battle.order):
            return False
        return battle.by_id[battle.order[battle.index]] is self.e

    def state(self) -> TurnState:
        return turn_state(self.e)

    def perform(self, action) -> bool:
        return not isinstance(perform(self.battle, action, auto_end=False), Impossible)


def holds(mind: Mind, condition: Condition) -> bool:
    """Whether a rule's `when` holds now."""
    e, when = mind.e, condition.when
    if when in ("alone", "with_allies"):
        alone = not allies_of(mind.battle, e, include_self=False)
        return alone if when == "alone" else not alone
    value = condition.value
    if value is None:  # the profile loader gives every other condition a number
        raise ValueError(f"condition {when!r} without a value")
    if when == "health_below":
        return _share_below(e, value)
    if when == "ally_health_below":
        return any(_share_below(a, value) for a in allies_of(mind.battle, e))
    if when in ("target_health_above", "target_health_below"):
        target = mind.target()
        if target is None:
            return False
        return _share_above(target, value) if when == "target_health_above" else _share_below(target, value)
    if when == "enemy_within":
        # `distance <= value` in whole numbers: a distance is an int, so this is `<= floor(value)`
        # (`value` is a Fraction or an int), without a Fraction comparison per enemy.
        limit, here = value.numerator // value.denominator, pos(e)
        return any(distance(here, pos(o)) <= limit for o in mind.seen())
    raise ValueError(f"unknown condition {when!r}")  # the profile loader refuses these


# --- the turn --------------------------------------------------------------------------------------


def take_turn(battle: Battle, e: Entity) -> None:
    """Play one whole turn for `e` by its profile, ending it."""
    actor = cid(e)
    try:
        fx = effects(e)
        if fx.active:  # most combatants carry no effect at all
            if fx.has("fear"):
                _afraid(battle, e)
                return
            if fx.has("blindness"):
                return  # R-10: it can't pick a target; its stumble already happened
        plan = _plan(battle, e)
        _play(Mind(battle, e, plan[3]), plan)
    finally:
        if battle.current is e and not battle.over:
            perform(battle, Wait(actor))


class Step:
    """A rule made ready to play: its function, its condition, whether chance is involved."""

    __slots__ = ("rule", "run", "condition", "chance", "after_attack", "flee", "needs")

    def __init__(self, rule: Rule) -> None:
        self.rule, self.run, self.condition = rule, RULES[rule.do], rule.condition
        self.chance = rule.chance if rule.chance < 1 else None
        self.after_attack = rule.after_attack
        self.flee = rule.do == "flee" and (rule.when is None or rule.when == "health_below")
        # A helping rule can't act without an ability of its kind: no need to weigh its `when`.
        self.needs = {"heal_ally": "heal", "cleanse_ally": "cleanse", "buff_ally": "buff"}.get(rule.do)


def _steps(battle: Battle, rules: list[Rule]) -> list[Step]:
    """A profile's rules made ready: pure in them (the loaded profiles' own list), so kept across
    battles."""
    found = _STEPS.get(id(rules))
    if found is None or found[0] is not rules:
        if len(_STEPS) >= _KIT_LIMIT:
            _STEPS.clear()
        found = _STEPS[id(rules)] = (rules, [Step(rule) for rule in rules])
    return found[1]


_STEPS: dict[int, tuple] = {}  # _steps', by the identity of a profile's list of rules


def _own_flee(battle: Battle, flee_below: float | None) -> Condition | None:
    """An enemy file's own `flee_below`, as the condition its profile's flee rule then takes
    (the same for the whole battle: made once)."""
    if flee_below is None:
        return None
    key = ("flee below", flee_below)
    found = battle.memo.get(key)
    if found is None:
        found = battle.memo[key] = Condition("health_below", Fraction(str(flee_below)))
    return found


Plan = tuple[int, list[tuple], list[tuple], list | None]  # (steps, before its action, after it, harmful kit): _plan


def _plan(battle: Battle, e: Entity) -> Plan:
    """Its profile's rules made ready to walk, once per battle and combatant (its Controller,
    loadout and the battle's profiles don't change during a turn), not every turn: each step as
    (index, condition, chance, run, rule), its own flee condition in place of the flee rule's,
    in two lists: before its action and after it (`after_attack`). A helping rule without a roll
    and without an ability of its kind (`helping_kit`, pure in the loadout) can never act: left out."""
    controller, loadout, g = comp(e, Controller), comp(e, Loadout), gear(e)
    found = battle.plans.get(e.uid)
    if found is None or found[0] is not controller or found[1] is not battle.ai_profiles \
            or found[2] is not loadout or found[3] is not g:
        plan = _make_plan(_steps(battle, profile_of(battle, e).rules), _own_flee(battle, controller.flee_below),
                          helping_kit(battle, e), harmful_kit(battle, e))
        found = battle.plans[e.uid] = (controller, battle.ai_profiles, loadout, g, plan)
    return found[4]


def _make_plan(steps: list[Step], own_flee: Condition | None, kit: dict[str, list], harm: list | None = None) -> Plan:
    before: list[tuple] = []
    after: list[tuple] = []
    for index, step in enumerate(steps):
        if step.needs is not None and step.chance is None and not kit[step.needs]:
            continue
        condition = own_flee if step.flee and own_flee is not None else step.condition
        (after if step.after_attack else before).append((index, condition, step.chance, step.run, step.rule))
    return len(steps), before, after, harm


def play_rules(mind: Mind, rules: list[Rule]) -> None:
    """Walk `rules` for the mind's combatant (its own turn), as `take_turn` walks its profile's."""
    battle, e = mind.battle, mind.e
    _play(mind, _make_plan(_steps(battle, rules), _own_flee(battle, comp(e, Controller).flee_below),
                           helping_kit(battle, e)))


def _play(mind: Mind, plan: Plan) -> None:
    count, before, after, _ = plan
    fired = [False] * count
    rng = mind.battle.rng
    while mind.acting:
        for index, condition, chance, run, rule in (after if mind.state().acted else before):
            if fired[index]:
                continue
            if condition is not None and not holds(mind, condition):
                continue
            if chance is not None and not roll_chance(chance, rng):
                continue
            if run(mind, rule):
                fired[index] = True
                break
        else:
            return


# --- rules that act --------------------------------------------------------------------------------


def _attack(mind: Mind, rule: Rule) -> bool:
    target = mind.target()
    if target is None:
        return False
    battle, e = mind.battle, mind.e
    here, there = pos(e), pos(target)
    cells = distance(here, there)
    if cells > mind.reach():
        return False
    if cells > 0 and not battle.battlefield.line_of_sight(here, there):
        return False
    return mind.perform(Attack(mind.actor, target.uid))


class Harm:
    """A slotted harmful ability with what doesn't change during the battle worked out once:
    its multiplier (R-5, or a GM's), its reach on a target seen before or not (R-11)."""

    __slots__ = ("ability", "name", "difficulty", "rank", "multiplier", "target", "reach_seen", "reach_unseen",
                 "sight_free", "damages", "negatives", "_base", "_passes", "_products")

    def __init__(self, battle: Battle, e: Entity, ability) -> None:
        rules, weapon = battle.rules, gear(e).weapon
        self.ability, self.name, self.difficulty = ability, ability.name, ability.difficulty
        self.rank = ability.difficulty.rank
        self.multiplier = ability_multiplier(ability, rules)
        self.target = ability.target
        self.reach_seen = ability_range(ability, weapon, rules, target_seen=True)
        self.reach_unseen = ability_range(ability, weapon, rules, target_seen=False)
        self.sight_free = self.reach_seen >= rules.ranges.mage_non_damaging  # R-11: 50 cells, no sight needed
        self.damages = ability.kind is AbilityKind.damage
        self.negatives = tuple((s.effect, s.chance) for s in ability.effects if s.effect in NEGATIVE_EFFECTS)
        self._base: tuple[Fraction, Fraction] | None = None  # (check chance, multiplier × it)
        self._passes: tuple[Fraction, Fraction, bool] | None = None  # (check chance, min chance, chance >= min)
        self._products: dict[tuple[int, int], tuple] = {}  # `scaled`'s: (value, factor, value × factor)

    def passes(self, chance: Fraction, min_chance: Fraction) -> bool:
        """`chance >= min_chance`, kept while both are the same objects (as `base_value`)."""
        found = self._passes
        if found is None or found[0] is not chance or found[1] is not min_chance:
            found = self._passes = (chance, min_chance, not chance < min_chance)
        return found[2]

    def base_value(self, chance: Fraction) -> Fraction:
        """Multiplier × the check's chance (R-7), kept while the chance object is the same one
        (check chances are cached until the combatant's stats change)."""
        if self._base is None or self._base[0] is not chance:
            self._base = (chance, self.multiplier * chance)
        return self._base[1]

    def scaled(self, value: Fraction, factor) -> Fraction:
        """`value × factor`, kept while both are the same objects: the chances are cached objects
        (hit chances in `attacks`' memo, the checks' until the stats change), so the same products
        come back turn after turn, and exact Fraction arithmetic is slow."""
        key = (id(value), id(factor))
        found = self._products.get(key)
        if found is None or found[0] is not value or found[1] is not factor:
            if len(self._products) >= 64:
                self._products.clear()
            found = self._products[key] = (value, factor, value * factor)
        return found[2]


def harmful_kit(battle: Battle, e: Entity) -> list[Harm]:
    """Its slotted abilities that can hurt an enemy (damage, or an effect), worked out once per
    character, loadout and rules and kept across battles (what a `Harm` holds is pure in them)."""
    g, slotted, rules = gear(e), comp(e, Loadout).slotted, battle.rules
    character = g.character
    key = (id(character), slotted, id(rules), id(g.weapon))
    found = _HARM_KITS.get(key)
    if found is None or found[0] is not character or found[1] is not rules or found[2] is not g.weapon:
        kit = []
        for name in slotted:
            ability = character.ability(name)
            if ability is None or ability.is_passive or ability.target not in (Target.enemy, Target.area, Target.line):
                continue
            if ability.kind is not AbilityKind.damage and not ability.effects:
                continue
            kit.append(Harm(battle, e, ability))
        if len(_HARM_KITS) >= _KIT_LIMIT:
            _HARM_KITS.clear()
        found = _HARM_KITS[key] = (character, rules, g.weapon, kit)
    return found[3]


_HARM_KITS: dict[tuple, tuple] = {}  # harmful_kit's, across battles (a memo of what is pure in its key)
_HELP_KITS: dict[tuple, tuple] = {}  # helping_kit's
_KIT_LIMIT = 4096


def expected_value(battle: Battle, e: Entity, harm: Harm, target: Entity, seen: list[Entity],
                   hit: Fraction | None = None, check: Fraction | None = None) -> Fraction:
    """What an ability is worth on `target` now: its multiplier × the chance its difficulty check
    passes (R-7) × the chance it hits (single targets, R-9) × the enemies it would catch (areas
    and lines). An ability that only puts effects on is worth its multiplier × the best chance
    among the effects the target lacks and isn't immune to (nothing, if none)."""
    value = harm.base_value(check if check is not None else check_chance(e, harm.difficulty, battle.rules))
    if not harm.damages:
        immune = gear(target).immunities
        fx = effects(target)
        useful = [chance for effect, chance in harm.negatives if effect not in immune and not fx.has(effect)]
        if not useful:
            return _NOTHING
        value = harm.scaled(value, max(useful))
    if harm.target is Target.enemy:
        if hit is None:
            hit = _CERTAIN if auto_hits(battle, e, target) else chance_to_hit(battle, e, target)
        value = harm.scaled(value, hit)
    elif harm.target is Target.area:
        (cx, cy), radius = pos(target), harm.ability.radius or 0
        value = harm.scaled(value, sum(1 for o in seen if max(abs(pos(o)[0] - cx), abs(pos(o)[1] - cy)) <= radius))
    elif harm.target is Target.line:
        cells = set(line_cells(battle, pos(e), pos(target), harm.ability.length or 0))
        value = harm.scaled(value, sum(1 for o in seen if pos(o) in cells))
    return value


_CERTAIN = Fraction(1)  # one object for "it hits", so `Harm.scaled` recognises it
_NOTHING = Fraction(0)


def ability_options(
    battle: Battle, e: Entity, target: Entity, *, min_chance: Fraction = Fraction(1, 2),
    strong: Callable[[object], bool] | None = None, seen: list[Entity] | None = None, kit: list[Harm] | None = None,
) -> list:
    """Usable harmful abilities that reach `target` from here, best first: those with charges
    and off cooldown (R-6) whose check (R-7) passes with at least `min_chance`, and strong ones
    only where `strong(ability)` allows. `kit`: its `harmful_kit`, if the caller has it."""
    if kit is None:
        kit = harmful_kit(battle, e)
    if not kit:
        return []
    rules = battle.rules
    seen = seen if seen is not None else [target]
    here, there = pos(e), pos(target)
    cells = distance(here, there)
    seen_once = cid(target) in comp(e, Memory).seen
    sight: bool | None = None
    hit: Fraction | None = None
    options = []
    for harm in kit:
        if not ability_ready(e, harm.ability):
            continue  # not slotted, no charges of that difficulty left, or cooling down (R-6)
        check = check_chance(e, harm.difficulty, rules)
        if not harm.passes(check, min_chance):
            continue
        if strong is not None and not strong(harm.ability):
            continue
        if harm.target is not Target.line:
            if cells > (harm.reach_seen if seen_once else harm.reach_unseen):
                continue
            if cells > 0 and not (seen_once and harm.sight_free):
                if sight is None:
                    sight = battle.battlefield.line_of_sight(here, there)
                if not sight:
                    continue
        if harm.target is Target.enemy and hit is None:
            hit = _CERTAIN if auto_hits(battle, e, target) else chance_to_hit(battle, e, target)
        value = expected_value(battle, e, harm, target, seen, hit, check)
        if value.numerator > 0:  # `value > 0` (a Fraction's denominator is positive), without Fraction's comparison
            options.append((value, harm.rank, harm.name, harm.ability))
    if len(options) > 1:
        options.sort(key=lambda o: o[:3], reverse=True)
    return [o[3] for o in options]


def _use_best_ability(mind: Mind, rule: Rule) -> bool:
    target = mind.target()
    if target is None:
        return False
    strong = None
    if rule.save_strong_for is not None:
        worthy = holds(mind, rule.save_strong_for)
        floor = rule.strong_from.rank
        strong = lambda ability: worthy or ability.difficulty.rank < floor  # noqa: E731
    for ability in ability_options(mind.battle, mind.e, target, min_chance=rule.min_chance, strong=strong,
                                   seen=mind.seen(), kit=mind.harm):
        if _use(mind.battle, mind.e, ability, target):
            return True
    return False


def _use(battle: Battle, e: Entity, ability, target: Entity) -> bool:
    if ability.target in (Target.enemy, Target.ally):
        action = UseAbility(cid(e), ability.name, target=cid(target))
    elif ability.target is Target.self:
        action = UseAbility(cid(e), ability.name)
    else:
        action = UseAbility(cid(e), ability.name, at=pos(target))
    return not isinstance(perform(battle, action, auto_end=False), Impossible)


_HELP_KINDS = {"heal": _HEALING, "cleanse": frozenset({"cleanse"}), "buff": frozenset({"buff"})}


def helping_kit(battle: Battle, e: Entity) -> dict[str, list]:
    """Its slotted abilities for an ally or itself, by what they do (heal, cleanse, buff), worked
    out once per character and loadout and kept across battles (as `harmful_kit`)."""
    character, slotted = gear(e).character, comp(e, Loadout).slotted
    key = (id(character), slotted)
    found = _HELP_KITS.get(key)
    if found is None or found[0] is not character:
        kit: dict[str, list] = {kind: [] for kind in _HELP_KINDS}
        for name in slotted:
            ability = character.ability(name)
            if ability is None or ability.is_passive or ability.target not in (Target.ally, Target.self, Target.area):
                continue
            for kind, wanted in _HELP_KINDS.items():
                if any(s.effect in wanted for s in ability.effects):
                    kit[kind].append(ability)
        if len(_HELP_KITS) >= _KIT_LIMIT:
            _HELP_KITS.clear()
        found = _HELP_KITS[key] = (character, kit)
    return found[1]


def _helping(mind: Mind, rule: Rule, kind: str) -> list:
    """Slotted, usable abilities of a kind (heal, cleanse, buff), for an ally or itself."""
    battle, e = mind.battle, mind.e
    return [ability for ability in mind.helping()[kind]
            if not ability_refusal(battle, e, ability.name)
            and check_chance(e, ability.difficulty, battle.rules) >= rule.min_chance]


def _reaches(battle: Battle, e: Entity, ability, patient: Entity) -> bool:
    if ability.target is Target.self:
        return patient is e
    here, there = pos(e), pos(patient)
    if patient is e:
        return True
    seen = cid(patient) in comp(e, Memory).seen
    reach = ability_range(ability, gear(e).weapon, battle.rules, target_seen=seen)
    if distance(here, there) > reach:
        return False
    if ability.target is Target.ally and reach >= battle.rules.ranges.mage_non_damaging and seen:
        return True
    return distance(here, there) <= 0 or battle.battlefield.line_of_sight(here, there)


def _help(mind: Mind, abilities: list, patients: list[Entity], *, walk: bool = True,
          fits: Callable[[object, Entity], bool] = lambda ability, patient: True) -> bool:
    """Use the first ability that reaches (and `fits`) the first patient it can; else walk toward
    the first patient (one path search) and try once more from there."""
    battle, e = mind.battle, mind.e
    for patient in patients:
        for ability in abilities:
            if fits(ability, patient) and _reaches(battle, e, ability, patient) and _use(battle, e, ability, patient):
                return True
    if not walk or not patients or mind.state().movement_left <= 0:
        return False
    patient = patients[0]
    seen = cid(patient) in comp(e, Memory).seen
    reaches = [ability_range(a, gear(e).weapon, battle.rules, target_seen=seen)
               for a in abilities if a.target is not Target.self and fits(a, patient)]
    if not reaches or not _approach(battle, e, pos(patient), max(reaches), patient):
        return False
    _help(mind, abilities, patients, walk=False, fits=fits)
    return True  # it moved at least: the turn goes on from the top


def _heal_ally(mind: Mind, rule: Rule) -> bool:
    """Heal the most hurt ally (itself included) below the rule's share of health."""
    threshold = rule.value if rule.when == "ally_health_below" and rule.value is not None else Fraction(1)
    patients = [a for a in allies_of(mind.battle, mind.e) if _share_below(a, threshold)]
    if not patients:
        return False
    abilities = _helping(mind, rule, "heal")
    if not abilities:
        return False
    patients.sort(key=lambda a: (Fraction(hp(a).hp, hp(a).max_hp), cid(a)))
    # A heal at once first; regeneration on a patient that already regenerates is wasted.
    abilities.sort(key=lambda a: not any(s.effect == "heal" for s in a.effects))

    def fits(ability, patient: Entity) -> bool:
        return any(s.effect == "heal" for s in ability.effects) or not effects(patient).has("regeneration")

    return _help(mind, abilities, patients, fits=fits)


def _burden(a: Entity) -> int:
    """The turns of harmful effects (`NEGATIVE_EFFECTS`) it still carries."""
    return sum(fx.turns_left for fx in effects(a).active if fx.effect in NEGATIVE_EFFECTS)


def _cleanse_ally(mind: Mind, rule: Rule) -> bool:
    # A module-level `_burden`, not a nested function: compiled, a nested one and the sort's key
    # closing over it make a reference cycle each call, left for the garbage collector.
    patients = [a for a in allies_of(mind.battle, mind.e) if _burden(a) > 0]
    if not patients:
        return False
    abilities = _helping(mind, rule, "cleanse")
    patients.sort(key=lambda a: (-_burden(a), cid(a)))
    return bool(abilities) and _help(mind, abilities, patients)


def _buff_ally(mind: Mind, rule: Rule) -> bool:
    """Bless the ally nearest the enemies it sees (the front) that has no buff yet."""
    seen = mind.seen()
    if not seen:
        return False
    abilities = _helping(mind, rule, "buff")
    if not abilities:
        return False
    patients = [a for a in allies_of(mind.battle, mind.e) if not effects(a).has("buff")]

    def front(a: Entity) -> tuple[int, str]:
        return (min(distance(pos(a), pos(o)) for o in seen), cid(a))

    patients.sort(key=front)
    return _help(mind, abilities, patients, walk=False)


# --- rules that move -------------------------------------------------------------------------------


def _reachable(battle: Battle, e: Entity) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple]:
    """Cells it can end its move on this turn (x, y, cost), from one distance map of the square
    its movement can reach (returned too: `_move_to` walks it back)."""
    state = comp(e, TurnState)
    me = cid(e)
    x0, y0, window = battle.battlefield.moves_within(pos(e), blocked_for(battle, e), state.movement_left,
                                                     **move_costs(battle, e))
    ok = window <= state.movement_left
    h, w = window.shape
    for (x, y), who in battle.occupancy.items():
        if who != me and 0 <= x - x0 < w and 0 <= y - y0 < h:
            ok[y - y0, x - x0] = False
    ys, xs = np.nonzero(ok)
    cost = window[ys, xs]
    return xs + x0, ys + y0, cost, (x0, y0, window)


def _move_to(mind: Mind, cell: tuple[int, int], dist: tuple[int, int, np.ndarray]) -> bool:
    """Move to a cell `_reachable` offered, along a cheapest path read off its distance map: from
    the cell, each lowest neighbour is a cheapest way in, down to the mover's own cell (0).
    Only while a diagonal step costs what a straight one does (R-8): else the lowest neighbour
    may not be the way in, and `Move` searches its own path."""
    if mind.battle.rules.turns.diagonal_cost != 1:
        return mind.perform(Move(mind.actor, cell))
    via = tuple(mind.battle.battlefield.walk_back(*dist, cell))  # from the first step to the cell
    return mind.perform(Move(mind.actor, cell, via=via))


def _gap(xs: np.ndarray, ys: np.ndarray, foes: list[Entity]) -> np.ndarray:
    """R-11 distance from each cell to the nearest of `foes`."""
    if not foes:
        return np.full(xs.shape, UNREACHABLE, dtype=np.int64)
    at = np.array([pos(o) for o in foes], dtype=np.int64)  # one array op per step for all foes, not per foe
    cells = np.maximum(np.abs(xs[:, None] - at[:, 0]), np.abs(ys[:, None] - at[:, 1]))
    return cells.min(axis=1) - 1


def _keep_range(mind: Mind, rule: Rule) -> bool:
    """Step away from enemies nearer than `min` cells. With a weapon that reaches that far, only to
    cells from which the target stays in reach and in sight, if there are any (an archer
    retreating from melee); else simply as far as `min` allows (a healer leaving the front)."""
    battle, e = mind.battle, mind.e
    seen = mind.seen()
    want = rule.min or 0
    if not seen or mind.state().movement_left <= 0:
        return False
    here = pos(e)
    if min(distance(here, pos(o)) for o in seen) >= want:
        return False
    xs, ys, cost, dist = _reachable(battle, e)
    gap = np.minimum(_gap(xs, ys, seen), want)
    target = mind.target()
    shot = np.zeros(xs.shape, dtype=bool)
    reach = weapon_range(gear(e).weapon, battle.rules)
    if target is not None and reach >= want:  # a weapon that can still hit from `min` cells away
        tx, ty = pos(target)
        in_reach = np.maximum(np.abs(xs - tx), np.abs(ys - ty)) - 1 <= reach
        view = battle.battlefield.fov((tx, ty), gear(e).sight_radius)  # symmetric: it sees us, we see it
        shot = in_reach & view[ys, xs]
    # Best first: keeps the shot, then the most room up to `min`, then the cheapest, then (y, x).
    order = np.lexsort((xs, ys, cost, -gap, ~shot))
    field = battle.battlefield
    for i in order:
        cell = (int(xs[i]), int(ys[i]))
        if shot[i] and distance(cell, (tx, ty)) > 0 and not field.line_of_sight(cell, (tx, ty)):
            continue  # shadowcasting sees it, the Bresenham line an attack needs doesn't
        # Its own cell costs nothing: if it comes first, no cell is better.
        return cell != here and _move_to(mind, cell, dist)
    return False


def _withdraw(mind: Mind, rule: Rule) -> bool:
    """Fall back as far from the enemies it sees as the movement left allows."""
    battle, e = mind.battle, mind.e
    seen = mind.seen()
    if not seen or mind.state().movement_left <= 0:
        return False
    xs, ys, cost, dist = _reachable(battle, e)
    gap = _gap(xs, ys, seen)
    order = np.lexsort((xs, ys, cost, -gap))
    best = order[0]
    cell = (int(xs[best]), int(ys[best]))
    here = pos(e)
    if cell == here or gap[best] <= min(distance(here, pos(o)) for o in seen):
        return False
    return _move_to(mind, cell, dist)


def _approach_rule(mind: Mind, rule: Rule) -> bool:
    target = mind.target()
    if target is None:
        return False
    battle, e = mind.battle, mind.e
    reach = rule.stop_at if rule.stop_at is not None else mind.reach()
    here, there = pos(e), pos(target)
    cells = distance(here, there)
    if cells <= reach and (cells <= 0 or battle.battlefield.line_of_sight(here, there)):
        return False
    return _approach(battle, e, there, reach, target)


def _approach(battle: Battle, e: Entity, goal: tuple[int, int], reach: int, target: Entity | None,
              *, fixed_goal: bool = False) -> bool:
    """Walk the cheapest path toward `goal`, stopping once within `reach` with a clear line.
    True if it moved. A `fixed_goal` (one asked for battle after battle: crossing the field)
    walks down the battlefield's kept map toward it when no unit stands on this turn's part
    of that path, and searches (A*) otherwise."""
    field = battle.battlefield
    state = comp(e, TurnState)
    if state.movement_left <= 0:
        return False
    costs = move_costs(battle, e)
    difficult, terrain, diagonal = costs.difficult_cost, costs.terrain_costs, costs.diagonal_cost
    blocked = blocked_for(battle, e)
    here = pos(e)
    path = None
    if fixed_goal:
        path = field.downhill(here, goal, difficult_cost=difficult, terrain_costs=terrain, diagonal_cost=diagonal,
                              first=state.movement_left)
        if blocked and path:
            stops = set(blocked)
            if any(xy in stops for xy in path if xy != goal):
                path = None
    if path is None:
        # Every step costs at least 1: this turn's walk is within the first `movement_left` steps.
        path = field.path(here, goal, blocked, difficult_cost=difficult, terrain_costs=terrain, diagonal_cost=diagonal,
                          first=state.movement_left)
    if not path:
        return False
    stop = None
    spent = 0
    gx, gy = goal
    for index, (xy, cost) in enumerate(zip(path, field.step_costs(path, difficult, terrain, start=here,
                                                                  diagonal_cost=diagonal))):
        if xy == goal:
            break
        spent += cost
        if xy in battle.occupancy:
            continue
        if spent > state.movement_left:
            break
        stop = index
        if distance(xy, goal) <= reach and (reach == 0 or field.line_of_sight(xy, goal)):
            break
    if stop is None:
        return False
    move = Move(cid(e), path[stop], partial=True, via=tuple(path[:stop + 1]))
    return not isinstance(perform(battle, move, auto_end=False), Impossible)


def _hunt_rule(mind: Mind, rule: Rule) -> bool:
    if mind.seen():
        return False
    return _hunt(mind.battle, mind.e)


def _hunt(battle: Battle, e: Entity) -> bool:
    """No enemy in sight: go where the side last saw one, else cross the field."""
    # The side's latest word on each foe: the last ally's (spawn order) that knows where it is
    # (`side_sightings`, kept as they learn: merging every ally's memory here grew with the square
    # of the combatants).
    sightings = side_sightings(battle, team(e))
    live = [xy for xy in (sightings.last_seen(foe.uid) for foe in enemies_of(battle, e)) if xy is not None]
    here = pos(e)
    if live:
        goal = min(live, key=lambda xy: (distance(here, xy), xy))
    else:
        # Nobody seen yet: cross the field, toward the mirror of where it started, and back.
        origin = comp(e, Memory).origin or here
        field = battle.battlefield
        far = (field.width - 1 - origin[0], field.height - 1 - origin[1])
        goal = origin if distance(here, far) <= 2 else far
        if not field.is_walkable(goal):
            key = ("walkable near", goal)  # the terrain never changes: once per battle
            if key not in battle.memo:
                battle.memo[key] = _nearest_walkable(battle, goal)
            goal = battle.memo[key]
            if goal is None:
                return False
        return _approach(battle, e, goal, 0, None, fixed_goal=True)
    return _approach(battle, e, goal, 0, None)


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


def _flee(mind: Mind, rule: Rule | None) -> bool:
    """R-8 [H]: walk to the nearest edge (one distance map) and step off it: fled."""
    battle, e = mind.battle, mind.e
    if mind.state().movement_left <= 0:
        return False
    field = battle.battlefield
    if field.is_edge(pos(e)):
        return _step_off(mind)
    goal = _flight_goal(battle, e)
    if goal is None:
        return False  # cut off from every edge: it fights on
    if not mind.perform(Move(mind.actor, goal, partial=True)):
        return False
    if mind.acting and field.is_edge(pos(e)) and mind.state().movement_left > 0:
        _step_off(mind)
    return True


def _flight_goal(battle: Battle, e: Entity) -> tuple[int, int] | None:
    """The edge cell its flight heads for (`Battlefield.nearest_edge`): others' cells blocked and
    never the goal; None when it is cut off from every edge."""
    me = cid(e)
    taken = {cell for cell, who in battle.occupancy.items() if who != me}
    costs = move_costs(battle, e)
    return battle.battlefield.nearest_edge(pos(e), blocked_for(battle, e), taken, difficult_cost=costs.difficult_cost,
                                           terrain_costs=costs.terrain_costs, diagonal_cost=costs.diagonal_cost)


def _step_off(mind: Mind) -> bool:
    x, y = pos(mind.e)
    field = mind.battle.battlefield
    for dx, dy in ((-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (1, -1), (-1, 1), (1, 1)):
        cell = (x + dx, y + dy)
        if not field.in_bounds(cell):
            return mind.perform(Move(mind.actor, cell))
    return False


def _afraid(battle: Battle, e: Entity) -> None:
    """R-10 fear, as the AI plays it: flee towards the nearest edge along its path and leave the
    battlefield there (R-8); when it can't get anywhere (no movement left, hemmed in, cut off
    from every edge), hide. No dice: the same battle plays the same way."""
    if not _flee(Mind(battle, e), None):
        perform(battle, FreeAction(cid(e), stock="hide"), auto_end=False)


RULES: dict[str, Callable[[Mind, Rule], bool]] = {
    "flee": _flee,
    "heal_ally": _heal_ally,
    "cleanse_ally": _cleanse_ally,
    "buff_ally": _buff_ally,
    "keep_range": _keep_range,
    "use_best_ability": _use_best_ability,
    "attack": _attack,
    "approach": _approach_rule,
    "withdraw": _withdraw,
    "hunt": _hunt_rule,
}
