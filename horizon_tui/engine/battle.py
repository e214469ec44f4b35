"""The battle world: one component store per battle, its random source, its event log.

The `Battle` object owns everything a battle needs so it travels whole (several SSH players share
one process: no module globals). Entities are combatant ids (`Entity`, a handle carrying its id
and its battle's `World`); each component (engine.components) is a mutable slotted class held in
the battle's store for its type, keyed by the id. Only the writers in this module change a store
or a component (`put`, `drop`, `Battle.place`, `Battle.set_presence`, `Battle.set_team`, and the
writer functions below); tests/engine/test_writers.py scans the source for any other write.
Systems live in sibling modules and take the battle as their first argument; this module holds
the world, its queries, set-up (R-6 loadouts), turn order (R-8) and the end of battle (R-14).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from fractions import Fraction
from types import MappingProxyType
from typing import Any, TypeVar, cast

from dataclasses import dataclass, field

from horizon_tui.content.ai_profiles import AiProfiles
from horizon_tui.content.encounters import EnemyDef
from horizon_tui.content.models import Difficulty
from horizon_tui.content.ruleset import Ruleset
from horizon_tui.engine import events as ev
from horizon_tui.engine.battlefield import Battlefield
from horizon_tui.engine.components import (
    COMPONENTS, AttackCache, Charges, Cooldowns, Effects, Gear, Health, Identity, Loadout, Memory, Position, Presence,
    Stats, StatBonus, Tally, Team, TurnState, Vitals,
)
from horizon_tui.rules.checks import check_attack_value, difficulty_check_chance, roll_chance
from horizon_tui.rules.combat import armor_reduction, normal_attack, with_armor_speed
from horizon_tui.rules.stats import derived_stats
from horizon_tui.rules.turns import movement_cells

T = TypeVar("T")
E = TypeVar("E", bound=ev.Event)
PARTY, ENEMIES = "party", "enemies"


class World:
    """A battle's components: one store (combatant id → component) per component type."""

    __slots__ = ("stores", "identities", "gears", "stats", "healths", "presences", "turn_states")

    def __init__(self) -> None:
        self.stores: dict[type, dict[str, Any]] = {key: {} for key in COMPONENTS}
        # The stores the accessors below read most, by name as well (the same dicts, never
        # replaced): one lookup by id, not one by type and then one by id. (Team, Position and
        # Effects are read through what the `Entity` carries.)
        self.identities: dict[str, Identity] = self.stores[Identity]
        self.gears: dict[str, Gear] = self.stores[Gear]
        self.stats: dict[str, Stats] = self.stores[Stats]
        self.healths: dict[str, Health] = self.stores[Health]
        self.presences: dict[str, Presence] = self.stores[Presence]
        self.turn_states: dict[str, TurnState] = self.stores[TurnState]

    def store(self, key: type[T]) -> dict[str, T]:
        found = self.stores.get(key)
        if found is None:
            found = self.stores[key] = {}
        return found


class Entity:
    """A combatant: its id, and the world whose stores hold its components. One per combatant
    per battle (`Battle.by_id`), so identity is equality.

    It also carries what the systems ask of it most (its side, whether it is active, its
    Effects, its cell), read without a lookup in the stores: derived, kept by `put` (and
    `Battle.place`) as those components are written (the stores stay the components' one home)."""

    __slots__ = ("uid", "world", "side", "present", "fx", "cell")

    def __init__(self, uid: str, world: World) -> None:
        self.uid = uid
        self.world = world
        self.side = ""  # its Team's name
        self.present = False  # its Presence is active
        self.fx = _NO_EFFECTS  # its Effects
        self.cell: Any = None  # its Position's (x, y), None while unplaced (kept by `Battle.place`)

    def __repr__(self) -> str:
        return f"Entity({self.uid!r})"


_NO_EFFECTS = Effects()  # an Entity's before its Effects are put (set-up puts them first thing)


class BattleError(Exception):
    """A battle that can't be formed (raised before it starts, never during play)."""


@dataclass(eq=False, slots=True)
class Battle:
    world: World
    rng: random.Random
    battlefield: Battlefield
    rules: Ruleset
    seed: int
    encounter: str
    log: list[ev.Event] = field(default_factory=list)
    order: list[str] = field(default_factory=list)  # combatant ids in turn order
    index: int = -1  # whose turn in `order`
    round: int = 0
    result: ev.Result | None = None
    by_id: dict[str, Entity] = field(default_factory=dict)
    occupancy: dict[tuple[int, int], str] = field(default_factory=dict)  # who stands where, O(1)
    listeners: list[Callable[[ev.Event], None]] = field(default_factory=list)
    enemy_defs: dict[str, EnemyDef] = field(default_factory=dict)  # for companions joining mid-battle
    active: dict[str, Entity] = field(default_factory=dict)  # those present and able, in spawn order
    # `active` by the side each fights for now (its Team), spawn order within a side: who is on
    # which side is asked every turn (targets, allies, the end of battle), and changes only when
    # someone falls, flees, joins or changes sides (`set_presence`, `set_team`).
    sides: dict[str, dict[str, Entity]] = field(default_factory=dict)
    forced: dict[str, bool] = field(default_factory=dict)  # a GM-forced result for a combatant's next check
    # a turn the GM held after it began (overrides.Hold): combatant id → the round; taken up again
    # when it re-enters that round, without beginning twice (its effects ticked once)
    held_turns: dict[str, int] = field(default_factory=dict)
    ai_profiles: AiProfiles | None = None  # data/ai.toml, what the AI plays (engine.ai)
    memo: dict[Any, Any] = field(default_factory=dict, repr=False)  # derived data the AI reuses, never state
    # The memo's per-combatant entries asked every step, by combatant id (no key tuple to build,
    # hash and compare): `sight.in_view`'s pass, `turns.update_sight`'s last look, `ai._plan`'s
    # plan, `resolve.move_costs`' costs. Derived, never state, as the memo.
    views: dict[str, Any] = field(default_factory=dict, repr=False)
    looks: dict[str, Any] = field(default_factory=dict, repr=False)
    plans: dict[str, Any] = field(default_factory=dict, repr=False)
    step_costs: dict[str, Any] = field(default_factory=dict, repr=False)
    sightings: dict[str, SideSightings] = field(default_factory=dict, repr=False)  # `side_sightings`, derived
    placements: int = 0  # how many times anyone was placed: sight can't change without it (turns.update_sight)
    active_version: int = 0  # how many times `active` changed (set_presence): `cells` is rebuilt after
    _cells: ActiveCells | None = field(default=None, init=False, repr=False)  # `cells()`' index, derived

    # --- the log ------------------------------------------------------------------------------

    def emit(self, event: E) -> E:
        """Record an event: the log's only writer, which stamps its round and place in the log."""
        event.round = self.round
        event.seq = len(self.log) + 1
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
        sides: dict[str, dict[str, Entity]] = {}
        for k, e in self.active.items():
            sides.setdefault(team(e), {})[k] = e
        for name, members in sides.items():
            kept = self.sides.get(name)
            if kept is not None and kept.keys() == members.keys():
                sides[name] = kept  # a side nobody joined or left keeps its index: what is derived from it stays good
        self.sides = sides

    # --- placement (the only writer of Position and the occupancy index) ------------------------

    def place(self, entity: Entity, xy: tuple[int, int] | None) -> None:
        self.placements += 1
        old = find(entity, Position)
        if old is not None and self.occupancy.get(old.xy) == entity.uid:
            del self.occupancy[old.xy]
        index = self._cells
        if index is not None and index.version == self.active_version:
            index.moved(entity, xy)
        if xy is None:
            drop(entity, Position)
            entity.cell = None
            return
        put(entity, Position, Position(xy[0], xy[1]))
        entity.cell = (xy[0], xy[1])
        self.occupancy[xy] = entity.uid

    def cells(self) -> ActiveCells:
        """The active combatants' cells as one array, in spawn order (`ActiveCells`): kept by
        `place`, rebuilt after `active` changes."""
        index = self._cells
        if index is None or index.version != self.active_version:
            index = self._cells = ActiveCells(self)
        return index


class SideSightings:
    """Where one side last saw each foe, as merging its active members' `Memory.last_known` in
    spawn order gives it: for each foe, the word of the last member (spawn order) that has seen
    it. Derived, never state: built from the members' memories when asked (`side_sightings`),
    then kept by `remember` as they learn, until the side's members change (`Battle.sides` is
    rebuilt then). `ai._hunt` asks it on every turn with no enemy in sight, where merging every
    ally's memory each time grew with the square of the combatants."""

    __slots__ = ("members", "rank", "latest", "owner")

    def __init__(self, members: dict[str, Entity]) -> None:
        self.members = members  # the `Battle.sides` entry it was built from: stale once that is replaced
        self.rank: dict[str, int] = {}
        # foe → where, and foe → the rank (spawn order) of the member whose word that is. Cells as
        # plain objects (`Any`): typed as tuples, the compiled core would unpack and rebuild each one.
        self.latest: dict[str, Any] = {}
        self.owner: dict[str, int] = {}
        for rank, (uid, ally) in enumerate(members.items()):
            self.rank[uid] = rank
            known = comp(ally, Memory).last_known
            self.latest.update(known)  # in spawn order: the last member's word stays, as merging gives
            self.owner.update(dict.fromkeys(known, rank))

    def learned(self, uid: str, news: dict[str, Any]) -> None:
        rank = self.rank[uid]
        owner, latest = self.owner, self.latest
        for foe in news:
            if owner.get(foe, -1) <= rank:
                latest[foe] = news[foe]
                owner[foe] = rank

    def last_seen(self, foe: str) -> Any:
        """The cell (x, y) where the side last saw `foe`, or None."""
        return self.latest.get(foe)


class ActiveCells:
    """Where the active combatants stand, in spawn order (`battle.active`): derived from their
    Position components, never state. Sight asks which of them stand in a field of view
    (`sideview.in_view`) after nearly every move; `seen_in(view)` reads their cells in the
    view's bytes, compiled (a few instructions a combatant). `Battle.place` (the only writer of Position) keeps it; a
    change of who is active (`set_presence`) has `Battle.cells` build it anew."""

    __slots__ = ("version", "slot", "units", "cells", "width", "off_map")

    def __init__(self, battle: Battle) -> None:
        field = battle.battlefield
        self.version = battle.active_version
        self.width = field.width
        self.off_map = field.width * field.height  # a cell no view has (`Battlefield.fov_flat`)
        order = list(battle.active.values())
        self.slot = {e: i for i, e in enumerate(order)}
        at = [find(e, Position) for e in order]
        # (unit, x, y), kept as objects (`Any`): typed as tuples, the compiled core would unpack and
        # rebuild each one it hands on
        self.units: list[Any] = [(e, -1, -1) if p is None else (e, p.x, p.y) for e, p in zip(order, at)]
        self.cells = [self.off_map if p is None else p.y * self.width + p.x for p in at]

    def moved(self, e: Entity, xy: tuple[int, int] | None) -> None:
        i = self.slot.get(e)
        if i is None:
            return
        if xy is None:
            self.units[i], self.cells[i] = (e, -1, -1), self.off_map
        else:
            self.units[i], self.cells[i] = (e, xy[0], xy[1]), xy[1] * self.width + xy[0]

    def seen_in(self, view: bytes, but: Entity | None = None) -> list[tuple[Entity, int, int]]:
        """(unit, x, y) of those whose cell `view` (`Battlefield.fov_flat`) sees, in spawn order,
        `but` left out (a viewer, whose own cell its view always holds)."""
        units, cells = self.units, self.cells
        found = []
        for i in range(len(cells)):
            if view[cells[i]] and units[i][0] is not but:
                found.append(units[i])
        return found


# --- component accessors (short names keep the systems readable) ------------------------------


def comp(e: Entity, key: type[T]) -> T:
    """Read a component (KeyError if it has none: every combatant has the core ones)."""
    return e.world.stores[key][e.uid]  # type: ignore[no-any-return]


def find(e: Entity, key: type[T]) -> T | None:
    """Read a component most combatants lack (TempHealth, StatBonus), or None."""
    store = e.world.stores.get(key)
    return None if store is None else store.get(e.uid)


def put(e: Entity, key: type[T], value: T) -> None:
    """Write a component: the writer every other writer goes through (see the module). Keeps
    what the entity carries of its Team, Presence and Effects."""
    e.world.store(key)[e.uid] = value
    if key is Team:
        e.side = cast(Team, value).name
    elif key is Presence:
        e.present = value is Presence.active
    elif key is Effects:
        e.fx = cast(Effects, value)


def drop(e: Entity, key: type) -> None:
    """Take a component away (an unplaced combatant's Position, a spent TempHealth)."""
    e.world.store(key).pop(e.uid, None)


# --- writers in place: the components written every turn or blow keep their object, their
# fields change (no new object, no dict copied); nothing keeps these by identity.


def set_turn_state(e: Entity, own_turns: int, movement_left: int, acted: bool) -> None:
    """The only writer of TurnState after set-up: its turn count, movement left and whether it acted."""
    state = e.world.turn_states[e.uid]
    state.own_turns = own_turns
    state.movement_left = movement_left
    state.acted = acted


def remember(battle: Battle, e: Entity, news: dict[str, Any]) -> None:
    """The only writer of where a combatant last saw each one it has seen (`Memory.last_known`, and
    so R-11's "seen at least once", `Memory.seen`): in place, its side's sightings kept with it."""
    comp(e, Memory).last_known.update(news)
    side = team(e)
    sightings = battle.sightings.get(side)
    if sightings is not None and sightings.members is battle.sides.get(side):
        sightings.learned(e.uid, news)


def side_sightings(battle: Battle, side: str) -> SideSightings:
    """Where `side` last saw each foe (`SideSightings`), kept between turns."""
    members = battle.sides.get(side, {})
    sightings = battle.sightings.get(side)
    if sightings is None or sightings.members is not members:
        sightings = battle.sightings[side] = SideSightings(members)
    return sightings


def set_hp(e: Entity, value: int) -> None:
    """Its health now (damage, healing, a GM's hand): the maximum stays (`refresh_stats` moves it)."""
    health = e.world.healths[e.uid]
    health.hp = value


def count_damage(target: Entity, amount: int, attacker: Entity | None, key: str) -> None:
    """The end-of-battle tally of a blow: taken by `target`, dealt by `attacker` under `key`
    (an ability's name, or "normal attack"). A blow that turned on its own user (R-7's failed
    check) is taken, not dealt: the summary's "Dealt" is what one did to others."""
    tallies: dict[str, Tally] = target.world.stores[Tally]
    tallies[target.uid].damage_taken += amount
    if attacker is not None and attacker.uid != target.uid:
        tally = tallies[attacker.uid]
        tally.damage_dealt += amount
        tally.by_ability[key] = tally.by_ability.get(key, 0) + amount


def count_effect(source: Entity) -> None:
    """The tally of a harmful effect `source` put on someone."""
    tally: Tally = source.world.stores[Tally][source.uid]
    tally.effects_applied += 1


def set_ready_at(e: Entity, ability: str, own_turn: int | None) -> None:
    """An ability's cooldown (R-6): usable again from this own-turn number; None: ready now (a GM
    clearing it)."""
    cooldowns: Cooldowns = e.world.stores[Cooldowns][e.uid]
    if own_turn is None:
        cooldowns.ready_at.pop(ability, None)
    else:
        cooldowns.ready_at[ability] = own_turn


def set_charges(e: Entity, difficulty: Difficulty, left: int) -> None:
    """Charges of a difficulty left (R-6), as a GM sets them (`spend_charge` takes one)."""
    comp(e, Charges).pools[difficulty] = left


def ident(e: Entity) -> Identity:
    return e.world.identities[e.uid]


def cid(e: Entity) -> str:
    return e.uid


def team(e: Entity) -> str:
    return e.side


def pos(e: Entity) -> tuple[int, int]:
    cell = e.cell
    if cell is None:
        raise KeyError(e.uid)  # unplaced: as its (missing) Position would say
    return cell


def hp(e: Entity) -> Health:
    return e.world.healths[e.uid]


def stats(e: Entity) -> Stats:
    return e.world.stats[e.uid]


def gear(e: Entity) -> Gear:
    return e.world.gears[e.uid]


def presence(e: Entity) -> Presence:
    return e.world.presences[e.uid]


def is_active(e: Entity) -> bool:
    return e.present


def effects(e: Entity) -> Effects:
    return e.fx


def turn_state(e: Entity) -> TurnState:
    return e.world.turn_states[e.uid]


def active_combatants(battle: Battle) -> list[Entity]:
    return list(battle.active.values())


def enemies_of(battle: Battle, e: Entity) -> list[Entity]:
    """Active combatants of the other sides, in spawn order (`battle.sides`: no scan)."""
    side = team(e)
    others = [members for name, members in battle.sides.items() if name != side]
    if len(others) == 1:
        return list(others[0].values())
    if not others:
        return []
    return [o for o in battle.active.values() if team(o) != side]  # several other sides: spawn order across them


def allies_of(battle: Battle, e: Entity, *, include_self: bool = True) -> list[Entity]:
    """Active combatants of its side (itself too, if active, unless `include_self` is False), in spawn order."""
    members = battle.sides.get(team(e))
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

def refresh_stats(battle: Battle, e: Entity) -> int:
    """R-2 from current attributes, plus species and passive modifiers and buffs; armor's
    speed penalty (R-9). Health's maximum follows. Returns the health above a lowered maximum
    (disease, R-10), which the caller loses through the log (effects.recompute_stats)."""
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
    bonus = find(e, StatBonus)
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
        found = _STATS_MEMO[key] = MappingProxyType(
            with_armor_speed(derived_stats(attributes, flat, health_scale=health_scale), armor))
    # Shared by every combatant with these numbers, across battles, and read-only: the memos of
    # attack_for_roll and attacks.chance_to_hit take its identity for the numbers.
    values = found
    put(e, Stats, Stats(values))
    put(e, AttackCache, AttackCache())
    max_hp = max(1, int(values["health"]))
    health = find(e, Health)
    if health is None:
        put(e, Health, Health(max_hp, max_hp))
    elif health.max_hp != max_hp:
        put(e, Health, Health(health.hp, max_hp))
        return max(0, health.hp - max_hp)
    return 0


def movement_budget(battle: Battle, e: Entity) -> int:
    """R-8: floor(speed) cells, at least 1; armor (in Stats) and slow (R-10) applied."""
    fx, values, turns = effects(e), stats(e).values, battle.rules.turns
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


def combatant_summary(e: Entity) -> dict[str, Any]:
    i, h = ident(e), hp(e)
    x, y = pos(e)
    return {"id": i.id, "name": i.name, "team": team(e), "hp": h.hp, "max_hp": h.max_hp, "x": x, "y": y}


def spend_charge(e: Entity, difficulty: Difficulty) -> bool:
    """Use one charge of a difficulty (R-6); difficulty I is unlimited. False if none is left."""
    left = charge_left(e, difficulty)
    if left is None:
        return True
    if left <= 0:
        return False
    set_charges(e, difficulty, left - 1)
    return True


def check_roll(battle: Battle, actor: Entity, chance: Fraction) -> bool:
    """Every chance a combatant rolls goes through here: a GM may have forced its next result
    (a forced result draws nothing from the random source, and is itself a recorded input)."""
    if battle.forced:  # usually none: no look-up
        forced = battle.forced.pop(actor.uid, None)
        if forced is not None:
            return forced
    return roll_chance(chance, battle.rng)


def charge_left(e: Entity, difficulty: Difficulty) -> int | None:
    """Charges of a difficulty left; None for difficulty I (unlimited, R-5)."""
    if difficulty is Difficulty.I:
        return None
    return comp(e, Charges).pools.get(difficulty, 0)
