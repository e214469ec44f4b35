"""The battle world: one tcod-ecs registry per battle, its random source, its event log.

The `Battle` object owns everything a battle needs so it travels whole (several SSH players share
one process: no module globals). Systems live in sibling modules and take the battle as their
first argument; this module holds the world, its queries, set-up (R-6 loadouts), turn order (R-8)
and the end of battle (R-14).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from itertools import compress
from operator import itemgetter
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar

import attrs
import tcod.ecs
from tcod.ecs.callbacks import _on_component_changed_callbacks as _ON_CHANGED
from tcod.ecs.query import _touch_component

from horizon_tui.content.ai_profiles import AiProfiles, cached_ai_profiles, profiles_path
from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.encounters import EnemyDef
from horizon_tui.content.models import Character, Difficulty
from horizon_tui.content.ruleset import Ruleset
from horizon_tui.engine import events as ev
from horizon_tui.engine.battlefield import Battlefield
from horizon_tui.engine.components import (
    AttackCache, Charges, Controller, Cooldowns, Effects, FreeActions, Gear, Health, Identity, Loadout, Memory,
    Position, Presence, Stats, StatBonus, Tally, Team, TurnState, Vitals,
)
from horizon_tui.rules import progression
from horizon_tui.rules.character import attack_formula_text, build
from horizon_tui.rules.combat import armor_reduction, attack_formula, with_armor_speed
from horizon_tui.rules.dice import parse_dice
from horizon_tui.rules.validation import effective_loadout
from horizon_tui.rules.turns import movement_cells

if TYPE_CHECKING:
    from horizon_tui.engine.encounter import EncounterSetup

Entity = tcod.ecs.Entity
T = TypeVar("T")
PARTY, ENEMIES = "party", "enemies"


class BattleError(Exception):
    """A battle that can't be formed (raised before it starts, never during play)."""


@attrs.define(eq=False)
class Battle:
    registry: tcod.ecs.Registry
    rng: random.Random
    battlefield: Battlefield
    rules: Ruleset
    seed: int
    encounter: str
    log: list[ev.Event] = attrs.field(factory=list)
    order: list[str] = attrs.field(factory=list)  # combatant ids in turn order
    index: int = -1  # whose turn in `order`
    round: int = 0
    result: ev.Result | None = None
    by_id: dict[str, Entity] = attrs.field(factory=dict)
    occupancy: dict[tuple[int, int], str] = attrs.field(factory=dict)  # who stands where, O(1)
    listeners: list[Callable[[ev.Event], None]] = attrs.field(factory=list)
    enemy_defs: dict[str, EnemyDef] = attrs.field(factory=dict)  # for companions joining mid-battle
    active: dict[str, Entity] = attrs.field(factory=dict)  # those present and able, in spawn order
    # `active` by the side each fights for now (its Team), spawn order within a side: who is on
    # which side is asked every turn (targets, allies, the end of battle), and changes only when
    # someone falls, flees, joins or changes sides (`set_presence`, `set_team`).
    sides: dict[str, dict[str, Entity]] = attrs.field(factory=dict)
    forced: dict[str, bool] = attrs.field(factory=dict)  # a GM-forced result for a combatant's next check
    ai_profiles: AiProfiles | None = None  # data/ai.toml, what the AI plays (engine.ai)
    memo: dict[Any, Any] = attrs.field(factory=dict, repr=False)  # derived data the AI reuses, never state
    placements: int = 0  # how many times anyone was placed: sight can't change without it (turns.update_sight)
    active_version: int = 0  # how many times `active` changed (set_presence): `cells` is rebuilt after
    _cells: ActiveCells | None = attrs.field(default=None, init=False, repr=False)  # `cells()`' index, derived

    # --- the log ------------------------------------------------------------------------------

    def emit(self, cls: type[ev.Event], **fields: Any) -> ev.Event:
        event = cls(round=self.round, seq=len(self.log) + 1, **fields)
        self.log.append(event)
        if self.listeners:  # none in a simulated battle
            for listener in self.listeners:
                listener(event)
        return event

    # --- queries --------------------------------------------------------------------------------

    def __getitem__(self, combatant_id: str) -> Entity:
        return self.by_id[combatant_id]

    def combatants(self) -> Iterator[Entity]:
        return iter(self.by_id.values())

    @property
    def over(self) -> bool:
        return self.result is not None

    @property
    def current(self) -> Entity | None:
        if self.result is not None or not 0 <= self.index < len(self.order):
            return None
        return self.by_id[self.order[self.index]]

    def at(self, xy: tuple[int, int]) -> Entity | None:
        cid = self.occupancy.get(xy)
        return None if cid is None else self.by_id[cid]

    def next_id(self, base: str) -> str:
        stem = "-".join("".join(c if c.isalnum() else " " for c in base.lower()).split()) or "unit"
        cid, n = stem, 1
        while cid in self.by_id:
            n += 1
            cid = f"{stem}-{n}"
        return cid

    def set_presence(self, e: Entity, presence: Presence) -> None:
        """The only writer of Presence, keeping the index of active combatants."""
        put(e, Presence, presence)
        self.active_version += 1
        if presence is Presence.active:
            if next(reversed(self.by_id)) == e.uid and e.uid not in self.active:
                self.active[e.uid] = e  # the newest combatant (set-up, a joining one): spawn order kept
            else:
                self.active[cid(e)] = e
                self.active = {k: self.by_id[k] for k in self.by_id if k in self.active}
        else:
            self.active.pop(cid(e), None)
        self._index_sides()

    def set_team(self, e: Entity, side: str) -> None:
        """The only writer of Team after set-up (R-10 domination), keeping `sides`."""
        put(e, Team, Team(side))
        self._index_sides()

    def _index_sides(self) -> None:
        table = self.registry._components_by_entity  # noqa: SLF001 - `team`, inlined
        sides: dict[str, dict[str, Entity]] = {}
        for k, e in self.active.items():
            sides.setdefault(table[e][Team].name, {})[k] = e
        self.sides = sides

    # --- placement (the only writer of Position and the occupancy index) ------------------------

    def place(self, entity: Entity, xy: tuple[int, int] | None) -> None:
        self.placements += 1
        old = entity.registry._components_by_entity[entity].get(Position)  # noqa: SLF001
        if old is not None and self.occupancy.get(old.xy) == ident(entity).id:
            del self.occupancy[old.xy]
        index = self._cells
        if index is not None and index.version == self.active_version:
            index.moved(entity, xy)
        if xy is None:
            entity.components.pop(Position, None)
            return
        put(entity, Position, Position(*xy))
        self.occupancy[xy] = ident(entity).id

    def cells(self) -> ActiveCells:
        """The active combatants' cells as one array, in spawn order (`ActiveCells`): kept by
        `place`, rebuilt after `active` changes."""
        index = self._cells
        if index is None or index.version != self.active_version:
            index = self._cells = ActiveCells(self)
        return index


class ActiveCells:
    """Where the active combatants stand, in spawn order (`battle.active`): derived from their
    Position components, never state. Sight asks which of them stand in a field of view
    (`sideview.in_view`) after nearly every move; `seen_in(view)` answers for all of them at
    once in C (an item getter of their cells and `itertools.compress`), where a loop over every
    combatant grew with their number. `Battle.place` (the only writer of Position) keeps it; a
    change of who is active (`set_presence`) has `Battle.cells` build it anew."""

    __slots__ = ("version", "slot", "units", "cells", "width", "off_map", "_getter")

    def __init__(self, battle: Battle) -> None:
        field = battle.battlefield
        self.version = battle.active_version
        self.width = field.width
        self.off_map = field.width * field.height  # a cell no view has (`Battlefield.fov_flat`)
        order = list(battle.active.values())
        self.slot = {e: i for i, e in enumerate(order)}
        table = battle.registry._components_by_entity  # noqa: SLF001
        at = [table[e].get(Position) for e in order]
        self.units = [(e, -1, -1) if p is None else (e, p.x, p.y) for e, p in zip(order, at)]  # (unit, x, y)
        self.cells = [self.off_map if p is None else p.y * self.width + p.x for p in at]
        self._getter: Callable[[bytes], Any] | None = None

    def moved(self, e: Entity, xy: tuple[int, int] | None) -> None:
        i = self.slot.get(e)
        if i is None:
            return
        if xy is None:
            self.units[i], self.cells[i] = (e, -1, -1), self.off_map
        else:
            self.units[i], self.cells[i] = (e, xy[0], xy[1]), xy[1] * self.width + xy[0]
        self._getter = None

    def seen_in(self, view: bytes) -> list[tuple[Entity, int, int]]:
        """(unit, x, y) of those whose cell `view` (`Battlefield.fov_flat`) sees, in spawn order."""
        getter = self._getter
        if getter is None:
            cells = self.cells
            if len(cells) > 1:
                getter = self._getter = itemgetter(*cells)
            else:
                return [u for u, c in zip(self.units, cells) if view[c]]
        return list(compress(self.units, getter(view)))


# --- component accessors (short names keep the systems readable) ------------------------------


def comp(e: Entity, key: type[T]) -> T:
    """Read a component. `comp(entity, key)` builds a view and walks inheritance on every
    read (~3 µs); battles read components ~10⁵ times, and we use no inheritance, so read the
    registry's table directly (~0.1 µs). Writes still go through `entity.components`.
    tests/engine/test_world.py checks this agrees with the public API."""
    return e.registry._components_by_entity[e][key]  # noqa: SLF001


def put(e: Entity, key: type[T], value: T) -> None:
    """Write a component. `entity.components[key] = value` builds a view object on every write
    (~4 µs, a tenth of a battle's time); this does what its `__setitem__` does (both tables,
    the queries when the component is new, the change callbacks) without the view.
    tests/engine/test_ai.py checks this agrees with the public API."""
    registry = e.registry
    held = registry._components_by_entity[e]  # noqa: SLF001
    old = held.get(key)
    if old is None:
        _touch_component(registry, key)
    held[key] = value
    registry._components_by_type[key][e] = value  # noqa: SLF001
    if _ON_CHANGED:  # `_on_component_changed`, inlined: usually none registered at all
        callbacks = _ON_CHANGED.get(key)
        if callbacks:
            for callback in callbacks:
                callback(e, old, value)


def ident(e: Entity) -> Identity:
    return e.registry._components_by_entity[e][Identity]  # noqa: SLF001 - `comp`, inlined (hot)


def cid(e: Entity) -> str:
    return e.uid  # type: ignore[return-value]  # entities are made with their combatant id as uid


def team(e: Entity) -> str:
    return e.registry._components_by_entity[e][Team].name  # noqa: SLF001


def pos(e: Entity) -> tuple[int, int]:
    p = e.registry._components_by_entity[e][Position]  # noqa: SLF001 - `comp(e, Position).xy`, inlined (hot)
    return (p.x, p.y)


def hp(e: Entity) -> Health:
    return e.registry._components_by_entity[e][Health]  # noqa: SLF001


def stats(e: Entity) -> Stats:
    return e.registry._components_by_entity[e][Stats]  # noqa: SLF001


def gear(e: Entity) -> Gear:
    return e.registry._components_by_entity[e][Gear]  # noqa: SLF001


def presence(e: Entity) -> Presence:
    return e.registry._components_by_entity[e][Presence]  # noqa: SLF001


def is_active(e: Entity) -> bool:
    return e.registry._components_by_entity[e][Presence] is Presence.active  # noqa: SLF001


def effects(e: Entity) -> Effects:
    return e.registry._components_by_entity[e][Effects]  # noqa: SLF001


def active_combatants(battle: Battle) -> list[Entity]:
    return list(battle.active.values())


def enemies_of(battle: Battle, e: Entity) -> list[Entity]:
    """Active combatants of the other sides, in spawn order (`battle.sides`: no scan)."""
    side = e.registry._components_by_entity[e][Team].name  # noqa: SLF001 - `team`, inlined (the AI asks often)
    others = [members for name, members in battle.sides.items() if name != side]
    if len(others) == 1:
        return list(others[0].values())
    if not others:
        return []
    return [o for o in battle.active.values() if team(o) != side]  # several other sides: spawn order across them


def allies_of(battle: Battle, e: Entity, *, include_self: bool = True) -> list[Entity]:
    """Active combatants of its side (itself too, if active, unless `include_self` is False), in spawn order."""
    members = battle.sides.get(e.registry._components_by_entity[e][Team].name)  # noqa: SLF001
    if members is None:
        return []
    if include_self:
        return list(members.values())
    return [o for o in members.values() if o is not e]


def is_immobile(e: Entity) -> bool:
    """Stunned or knocked down (R-9: melee hits it without a check)."""
    fx = effects(e)
    return fx.has("stun") or fx.has("knockdown")


def is_downed(e: Entity) -> bool:
    return effects(e).has("knockdown")


# --- derived numbers ------------------------------------------------------------------------


def current_attributes(e: Entity) -> dict[str, int]:
    """Attribute totals less what disease has taken (R-10), never below 0."""
    attributes = dict(comp(e, Vitals).attributes)
    for effect in effects(e).active:
        if effect.effect == "disease" and effect.applied:
            names = [effect.stat] if effect.stat else list(attributes)
            for name in names:
                attributes[name] = max(0, attributes[name] - effect.applied)
    return attributes


def recompute_stats(battle: Battle, e: Entity) -> None:
    """R-2 from current attributes, plus species and passive modifiers and buffs; armor's
    speed penalty (R-9). Health's maximum follows; current health is kept within it."""
    from horizon_tui.rules.stats import derived_stats

    g = gear(e)
    flat: dict[str, Fraction] = dict(g.character.species.bonuses.stats)
    loadout = comp(e, Loadout)
    for name in loadout.slotted:
        ability = g.character.ability(name)
        if ability is None or not ability.is_passive:
            continue
        if ability.is_fixed or name in loadout.active_passives:
            for stat, amount in ability.modifiers.items():
                flat[stat] = flat.get(stat, Fraction(0)) + amount
    bonus = e.registry._components_by_entity[e].get(StatBonus)  # noqa: SLF001
    if bonus is not None:
        for stat, amount in bonus.flat.items():
            flat[stat] = flat.get(stat, Fraction(0)) + amount
    for effect in effects(e).active:
        if effect.effect == "buff" and effect.stat:
            flat[effect.stat] = flat.get(effect.stat, Fraction(0)) + effect.magnitude
    attributes = current_attributes(e)
    armor = armor_reduction(g.armor, battle.rules)
    health_scale = battle.rules.derived_stats.health_scale
    key = (tuple(attributes.items()), tuple(flat.items()), armor, health_scale)
    found = _STATS_MEMO.get(key)  # pure in its key: shared across battles (see _ATTACK_MEMO)
    if found is None:
        if len(_STATS_MEMO) >= _ATTACK_MEMO_LIMIT:
            _STATS_MEMO.clear()
        values = with_armor_speed(derived_stats(attributes, flat, health_scale=health_scale), armor)
        found = _STATS_MEMO[key] = MappingProxyType(values)
    # Shared by every combatant with these numbers, across battles, and read-only: the memos of
    # attack_for_roll and attacks.chance_to_hit take its identity for the numbers.
    values = found
    put(e, Stats, Stats(values))
    put(e, AttackCache, AttackCache())
    max_hp = max(1, int(values["health"]))
    health = e.registry._components_by_entity[e].get(Health)  # noqa: SLF001
    if health is None:
        put(e, Health, Health(max_hp, max_hp))
    elif health.max_hp != max_hp:
        put(e, Health, Health(health.hp, max_hp))
        if health.hp > max_hp:
            # Health above the lowered maximum (disease, R-10) is lost through the log like any loss.
            from horizon_tui.engine.effects import deal_damage

            deal_damage(battle, e, health.hp - max_hp, "max_hp")


def movement_budget(battle: Battle, e: Entity) -> int:
    """R-8: floor(speed) cells, at least 1; armor (in Stats) and slow (R-10) applied."""
    held = e.registry._components_by_entity[e]  # noqa: SLF001 - `effects` and `stats`, inlined
    fx, values, turns = held[Effects], held[Stats].values, battle.rules.turns
    slow = fx.get("slow") if fx.active else None
    # Pure in the stats (shared, never written: their identity stands for them), the rules and
    # a slow's magnitude (as its two integers): asked at every turn's start, kept across battles
    # as the other memos here.
    key = (id(values), id(turns)) if slow is None else (id(values), id(turns), slow.magnitude.as_integer_ratio())
    found = _MOVE_MEMO.get(key)
    if found is None or found[0] is not values or found[1] is not turns:
        if len(_MOVE_MEMO) >= _ATTACK_MEMO_LIMIT:
            _MOVE_MEMO.clear()
        cells = movement_cells(values["speed"], turns.min_move) if slow is None else \
            movement_cells(values["speed"], turns.min_move, slow.magnitude)
        found = _MOVE_MEMO[key] = (values, turns, cells)
    return found[2]


def typical_attack(e: Entity) -> Fraction:
    """The normal attack damage a difficulty check weighs (R-7)."""
    cache = comp(e, AttackCache)
    if cache.typical is None:
        dice = gear(e).weapon_dice
        low, high = attack_for_roll(e, dice.minimum), attack_for_roll(e, dice.maximum)
        # Pure in the two attacks, which come from the shared memo of attack_for_roll (their
        # identity stands for them): kept across battles, as that memo is.
        key = (id(low), id(high))
        found = _TYPICAL_MEMO.get(key)
        if found is None or found[0] is not low or found[1] is not high:
            from horizon_tui.rules.checks import check_attack_value

            if len(_TYPICAL_MEMO) >= _ATTACK_MEMO_LIMIT:
                _TYPICAL_MEMO.clear()
            found = _TYPICAL_MEMO[key] = (low, high, check_attack_value(low, high))
        cache.typical = found[2]
    return cache.typical


def check_chance(e: Entity, difficulty: Difficulty, rules: Ruleset) -> Fraction:
    """R-7 for this combatant now (cached with its attack until its stats change)."""
    cache = comp(e, AttackCache).check_chances
    chance = cache.get(difficulty)
    if chance is None:
        typical, level = typical_attack(e), ident(e).level
        # Pure in these (the typical attack a shared object, as above): a memo across battles.
        key = (id(typical), difficulty, level, id(rules))
        found = _CHECK_MEMO.get(key)
        if found is None or found[0] is not typical or found[1] is not rules:
            from horizon_tui.rules.checks import difficulty_check_chance  # here: a hit is asked ~10⁴ times a battle

            if len(_CHECK_MEMO) >= _ATTACK_MEMO_LIMIT:
                _CHECK_MEMO.clear()
            found = _CHECK_MEMO[key] = (typical, rules, difficulty_check_chance(typical, difficulty, level, rules))
        chance = cache[difficulty] = found[2]
    return chance


# The formula is pure in its text, the roll, the stats and the attributes: the same numbers come
# back battle after battle (the simulator forms thousands), so evaluations are shared across
# battles here, not only per combatant. A memo of a pure function, not state; bounded.
_ATTACK_MEMO: dict[tuple, tuple] = {}
_STATS_MEMO: dict[tuple, MappingProxyType[str, Fraction]] = {}
_MOVE_MEMO: dict[tuple, tuple] = {}  # movement_budget's without slow: (stats values, turn rules, cells)
_TYPICAL_MEMO: dict[tuple, tuple] = {}  # typical_attack's: (low attack, high attack, typical)
_CHECK_MEMO: dict[tuple, tuple] = {}  # check_chance's: (typical attack, rules, chance)
_ATTACK_MEMO_LIMIT = 50_000


def attack_for_roll(e: Entity, roll: int) -> Fraction:
    """R-9: the normal attack damage for one weapon roll, through the formula in force. Cached
    per combatant until its stats change (the formula is pure in the roll and the stats)."""
    cache = comp(e, AttackCache).by_roll
    value = cache.get(roll)
    if value is None:
        from horizon_tui.rules.combat import normal_attack

        formula, values, attributes = gear(e).formula, stats(e).values, current_attributes(e)
        # Stats values are shared and never written (recompute_stats): their identity stands for them.
        key = (id(formula), roll, id(values), tuple(attributes.items()))
        found = _ATTACK_MEMO.get(key)
        if found is None or found[0] is not formula or found[1] is not values:
            if len(_ATTACK_MEMO) >= _ATTACK_MEMO_LIMIT:
                _ATTACK_MEMO.clear()
            found = _ATTACK_MEMO[key] = (formula, values, normal_attack(formula, roll, values, attributes))
        value = found[2]
        cache[roll] = value
    return value


# --- set-up -----------------------------------------------------------------------------------


def _spawn(
    battle: Battle,
    character: Character,
    *,
    name: str,
    kind: str,
    side: str,
    level: int,
    xy: tuple[int, int],
    controller: Controller,
    xp_value: int = 0,
    glyph: str | None = None,
    owner: str | None = None,
    hand_set: dict[str, Fraction] | None = None,
    ally: bool = False,
) -> Entity:
    rules = battle.rules
    b = build(character, rules)
    species = character.species
    combatant_id = battle.next_id(name)
    e = battle.registry[combatant_id]
    put(e, Identity, Identity(
        id=combatant_id, name=name, kind=kind, base_team=side,
        glyph=(glyph or name[:1])[:1], level=level, xp_value=xp_value, owner=owner, ally=ally,
    ))
    put(e, Team, Team(side))
    put(e, Gear, Gear(
        character=character, weapon=character.weapon, armor=character.armor,
        weapon_dice=parse_dice(character.weapon.damage),
        formula=attack_formula(attack_formula_text(character, rules)),
        crit_immune=species.features.crit_immune,
        immunities=frozenset(species.features.effect_immunities),
        sight_radius=species.features.sight_radius or 0,
        terrain_costs=dict(species.features.terrain_costs),
    ))
    put(e, Vitals, Vitals(dict(b.attributes)))
    put(e, Effects, Effects())
    slotted = tuple(a.name for a in effective_loadout(character))
    put(e, Loadout, Loadout(slotted))
    put(e, Charges, Charges(progression.charges(level, rules)))
    put(e, Cooldowns, Cooldowns({}))
    put(e, Memory, Memory(origin=xy))
    put(e, FreeActions, FreeActions(progression.free_action_points(level, rules)))
    put(e, Controller, controller)
    put(e, TurnState, TurnState())
    put(e, Tally, Tally())
    battle.by_id[combatant_id] = e
    battle.set_presence(e, Presence.active)
    recompute_stats(battle, e)
    if hand_set:
        derived = stats(e)
        put(e, StatBonus, StatBonus({k: Fraction(v) - derived[k] for k, v in hand_set.items() if k in derived.values}))
        e.components.pop(Health)  # so it starts at the maximum the bonus gives (no loss logged)
        recompute_stats(battle, e)
    battle.place(e, xy)
    return e


def combatant_summary(e: Entity) -> dict[str, Any]:
    i, h = ident(e), hp(e)
    x, y = pos(e)
    return {"id": i.id, "name": i.name, "team": team(e), "hp": h.hp, "max_hp": h.max_hp, "x": x, "y": y}


@attrs.frozen
class PartyMember:
    character: Character
    controller: str = "ai"  # player | ai | gm
    hand_set: dict[str, Fraction] = attrs.field(factory=dict)  # as EnemyDef.hand_set (an allied NPC)
    level: int | None = None  # an allied NPC's own level; a character's comes from its points
    ally: bool = False  # an allied NPC, not a player character: it takes no share of the XP


def create_battle(
    setup: EncounterSetup,
    party: list[PartyMember],
    seed: int,
    catalogue: Catalogue,
    enemy_defs: dict[str, EnemyDef] | None = None,
    enemy_controller: str = "ai",
    ai_profiles: AiProfiles | None = None,
) -> Battle:
    """Form a battle: place the party and the enemies, refuse what can't be (BattleError).
    `ai_profiles` given: those, not the catalogue folder's file (a sweep's worker on another machine)."""
    from horizon_tui.engine import turns
    from horizon_tui.rules.validation import loadout_problems

    rules = catalogue.rules
    if not party:
        raise BattleError("a battle needs at least one party member")
    if len(party) > len(setup.party_start):
        raise BattleError(
            f"{setup.source}: party_start: {len(party)} party members but only "
            f"{len(setup.party_start)} start cells"
        )
    for member in party:
        problems = loadout_problems(member.character, rules, member.character.name, level=member.level)
        if problems:
            raise BattleError("; ".join(str(p) for p in problems))
    profiles = ai_profiles or cached_ai_profiles(profiles_path(catalogue.root))
    wanted = {d.ai for d, _, _ in setup.enemies}
    if any(m.controller == "ai" for m in party):
        wanted.add(Controller("ai").profile)  # the party's AI plays the default profile
    unknown = sorted(name for name in wanted if name not in profiles)
    if unknown:
        raise BattleError(f"{setup.source}: unknown AI profile(s) {', '.join(unknown)}; {profiles.source} has "
                          f"{', '.join(profiles.names())}")
    battle = Battle(
        registry=tcod.ecs.Registry(), rng=random.Random(seed), battlefield=setup.battlefield,
        rules=rules, seed=seed, encounter=setup.id, enemy_defs=dict(enemy_defs or {}), ai_profiles=profiles,
    )
    for member, xy in zip(party, setup.party_start):
        level = member.level if member.level is not None else build(member.character, rules).level
        _spawn(
            battle, member.character, name=member.character.name, kind="character", side=PARTY,
            level=level, xy=xy, controller=Controller(member.controller), hand_set=member.hand_set, ally=member.ally,
        )
    for definition, xy, name in setup.enemies:
        _spawn(
            battle, definition.character, name=name, kind="enemy", side=ENEMIES,
            level=definition.level, xy=xy, xp_value=definition.xp, glyph=definition.glyph,
            controller=Controller(
                enemy_controller, definition.ai, definition.targeting, definition.flee_below
            ),
            hand_set=definition.hand_set,
        )
    battle.emit(
        ev.BattleStart, seed=seed, encounter=setup.id,
        combatants=[combatant_summary(e) for e in battle.combatants()],
    )
    turns.prepare_loadouts(battle)
    turns.roll_initiative(battle)
    return battle


def spawn_companion(battle: Battle, owner: Entity, definition: EnemyDef) -> Entity | None:
    """R-10: a companion joins beside its owner and acts right after it."""
    from horizon_tui.engine.turns import free_cell_near

    xy = free_cell_near(battle, pos(owner))
    if xy is None:
        return None
    owner_ident = ident(owner)
    controller = comp(owner, Controller)
    e = _spawn(
        battle, definition.character, name=f"{definition.character.name} ({owner_ident.name})",
        kind="companion", side=team(owner), level=definition.level, xy=xy,
        controller=Controller(
            "ai" if controller.kind == "ai" else controller.kind, definition.ai, definition.targeting
        ),
        glyph=definition.glyph, owner=owner_ident.id,
    )
    battle.emit(ev.Join, combatant=combatant_summary(e), owner=owner_ident.id)
    return e


def spend_charge(e: Entity, difficulty: Difficulty) -> bool:
    """Use one charge of a difficulty (R-6); difficulty I is unlimited. False if none is left."""
    left = charge_left(e, difficulty)
    if left is None:
        return True
    if left <= 0:
        return False
    pools = dict(comp(e, Charges).pools)
    pools[difficulty] = left - 1
    put(e, Charges, Charges(pools))
    return True


def check_roll(battle: Battle, actor: Entity, chance: Fraction) -> bool:
    """Every chance a combatant rolls goes through here: a GM may have forced its next result
    (a forced result draws nothing from the random source, and is itself a recorded input)."""
    if battle.forced:  # usually none: no look-up
        forced = battle.forced.pop(actor.uid, None)
        if forced is not None:
            return forced
    # rules.checks.roll_chance, with the chance as two integers instead of Fraction arithmetic
    # (the same draws and results: one roll below the numerator out of the denominator).
    numerator, denominator = chance.as_integer_ratio()
    if numerator >= denominator:
        return True
    if numerator <= 0:
        return False
    return battle.rng.randrange(denominator) < numerator


def charge_left(e: Entity, difficulty: Difficulty) -> int | None:
    """Charges of a difficulty left; None for difficulty I (unlimited, R-5)."""
    if difficulty is Difficulty.I:
        return None
    return comp(e, Charges).pools.get(difficulty, 0)
