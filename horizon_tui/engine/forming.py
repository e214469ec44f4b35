"""Forming a battle (R-6, R-8): the party and the enemies placed, passives and companions readied
before the first turn, initiative rolled. Above the world (engine.battle), effects and turns, so
that none of them needs this module."""

from __future__ import annotations

import random
from fractions import Fraction
import attrs

from horizon_tui.content.ai_profiles import AiProfiles, cached_ai_profiles, profiles_path
from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.encounters import EnemyDef
from horizon_tui.content.models import Character
from horizon_tui.engine import events as ev
from horizon_tui.engine.battle import (
    ENEMIES, PARTY, Battle, BattleError, Entity, World, check_chance, check_roll, cid, combatant_summary, comp, drop, gear,
    ident, pos, put, spend_charge, stats, team,
)
from horizon_tui.engine.components import (
    Charges, Controller, Cooldowns, Effects, FreeActions, Gear, Health, Identity, Loadout, Memory, Presence, StatBonus,
    Tally, Team, TurnState, Vitals,
)
from horizon_tui.engine.effects import recompute_stats
from horizon_tui.engine.turns import free_cell_near, roll_initiative
from horizon_tui.rules import progression
from horizon_tui.rules.character import attack_formula_text, build
from horizon_tui.rules.combat import attack_formula
from horizon_tui.rules.dice import parse_dice
from horizon_tui.rules.validation import effective_loadout, loadout_problems

from horizon_tui.engine.encounter import EncounterSetup, with_start_cells


def spawn_combatant(
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
    e = Entity(combatant_id, battle.world)
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
        drop(e, Health)  # so it starts at the maximum the bonus gives (no loss logged)
        recompute_stats(battle, e)
    battle.place(e, xy)
    return e


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
    rules = catalogue.rules
    if not party:
        raise BattleError("a battle needs at least one party member")
    setup = with_start_cells(setup, len(party))  # a party larger than the map's start cells
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
        world=World(), rng=random.Random(seed), battlefield=setup.battlefield,
        rules=rules, seed=seed, encounter=setup.id, enemy_defs=dict(enemy_defs or {}), ai_profiles=profiles,
    )
    for member, xy in zip(party, setup.party_start):
        level = member.level if member.level is not None else build(member.character, rules).level
        spawn_combatant(
            battle, member.character, name=member.character.name, kind="character", side=PARTY,
            level=level, xy=xy, controller=Controller(member.controller), hand_set=member.hand_set, ally=member.ally,
        )
    for definition, xy, name in setup.enemies:
        spawn_combatant(
            battle, definition.character, name=name, kind="enemy", side=ENEMIES,
            level=definition.level, xy=xy, xp_value=definition.xp, glyph=definition.glyph,
            controller=Controller(
                enemy_controller, definition.ai, definition.targeting, definition.flee_below
            ),
            hand_set=definition.hand_set,
        )
    battle.emit(ev.BattleStart(seed, setup.id, [combatant_summary(e) for e in battle.combatants()]))
    prepare_loadouts(battle)
    roll_initiative(battle)
    return battle


def spawn_companion(battle: Battle, owner: Entity, definition: EnemyDef) -> Entity | None:
    """R-10: a companion joins beside its owner and acts right after it."""
    xy = free_cell_near(battle, pos(owner))
    if xy is None:
        return None
    owner_ident = ident(owner)
    controller = comp(owner, Controller)
    e = spawn_combatant(
        battle, definition.character, name=f"{definition.character.name} ({owner_ident.name})",
        kind="companion", side=team(owner), level=definition.level, xy=xy,
        controller=Controller(
            "ai" if controller.kind == "ai" else controller.kind, definition.ai, definition.targeting
        ),
        glyph=definition.glyph, owner=owner_ident.id,
    )
    battle.emit(ev.Join(combatant_summary(e), owner_ident.id))
    return e


def prepare_loadouts(battle: Battle) -> None:
    """R-6 before battle: non-replaceable passives reserve a charge and always work;
    replaceable ones are activated, holding a charge, with a difficulty check when their
    difficulty is above the level (R-7). Companions are passives that bring an ally."""
    for e in list(battle.combatants()):
        g = gear(e)
        loadout = comp(e, Loadout)
        active = set()
        for name in loadout.slotted:
            ability = g.character.ability(name)
            if ability is None or not ability.is_passive:
                continue
            if not spend_charge(e, ability.difficulty):
                continue  # validation refuses this; a GM-edited pool may still run dry
            working = True
            if not ability.is_fixed:
                chance = check_chance(e, ability.difficulty, battle.rules)
                if chance < 1:
                    working = check_roll(battle, e, chance)
                    battle.emit(ev.Check(cid(e), "activation", float(chance), working, None if working else "fizzle", name))
                if working:
                    active.add(name)
            if working and ability.companion:
                definition = battle.enemy_defs.get(ability.companion)
                if definition is None:
                    raise BattleError(f"{ident(e).name}: companion {ability.companion!r} is not in the enemy catalogue")
                spawn_companion(battle, e, definition)
        if active or loadout.active_passives:  # else nothing its stats depend on changed
            put(e, Loadout, Loadout(loadout.slotted, frozenset(active)))
            recompute_stats(battle, e)
