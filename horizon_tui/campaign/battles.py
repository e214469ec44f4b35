"""The campaign's battle in progress, kept in the campaign itself so that one undo log covers it.

A battle is its set-up (encounter, party, seed, the house rules it started under) and the inputs
given so far (`engine.persist`'s save format); the live `Battle` is rebuilt from that by replay
whenever the campaign steps back. No Textual here.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import attrs

from horizon_tui.campaign import carry
from horizon_tui.engine.components import Presence
from horizon_tui.rules.numbers import percent_text
from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.characters import character_from_dict, character_to_dict
from horizon_tui.content.encounters import EnemyDef, encounter_path, read_encounter_file
from horizon_tui.content.models import ATTRIBUTES
from horizon_tui.content.ruleset import Ruleset
from horizon_tui.engine import events as ev
from horizon_tui.engine import mapgen
from horizon_tui.engine.battle import BattleError, comp, effects, hp, ident, is_active
from horizon_tui.engine.forming import PartyMember, create_battle
from horizon_tui.engine.battlefield import Battlefield
from horizon_tui.engine.encounter import EncounterSetup, load_encounter
from horizon_tui.engine.overrides import SetController
from horizon_tui.engine.persist import (
    BattleInProgress, hand_set_from_dict, hand_set_to_dict, session_from_dict, session_to_dict,
)
from horizon_tui.engine.runner import begin, override, run_ai
from horizon_tui.errors import DataError
from horizon_tui.campaign.model import Campaign, Npc, npc_character, rounds_text  # npc_character: also the NPC sheet's
from horizon_tui.rules.rating import guide_points

RulesFor = Callable[[dict], Ruleset]


def battle_catalogue(base: Catalogue, rules: Ruleset) -> Catalogue:
    return base if rules is base.rules else base.with_rules(rules)


def start_battle(
    campaign: Campaign, encounter: str | Path, members: list[str], base: Catalogue, rules_for: RulesFor,
    enemies: dict[str, EnemyDef], *, seed: int | None = None, mapless: bool = False,
) -> tuple[Campaign, BattleInProgress]:
    """Form the battle with the chosen party members under the campaign's rules; the party is
    played by the GM for the players (controller "player"), the enemies by their AI. Raises
    DataError or BattleError when it can't be formed."""
    if campaign.battle is not None:
        raise ValueError("a battle is in progress already: finish or abandon it first")
    if not members:
        raise ValueError("pick at least one party member")
    catalogue = battle_catalogue(base, rules_for(campaign.rules))
    party = []
    for name in members:
        member = campaign.member(name)
        if member is None:
            raise ValueError(f"no party member called {name}")
        party.append(PartyMember(member.character, "player"))
    if seed is None:
        rng, campaign = campaign.rng()
        seed = rng.randrange(2**31)
    setup = load_encounter(str(encounter), catalogue, enemies)
    battle = create_battle(setup, party, seed, catalogue, enemies)
    begin(battle)
    session = BattleInProgress(battle, str(encounter), party)
    carry_in(campaign, session, catalogue.rules)
    if mapless:
        mapless_controllers(session)
    run_ai(battle)  # the record holds the battle at a decision, as a replay leaves it (persist)
    record = dict(session_to_dict(session, catalogue), name=setup.name, rules=copy.deepcopy(campaign.rules))
    if mapless:
        record["mapless"] = True
    return attrs.evolve(campaign, battle=record), session


def with_inputs(campaign: Campaign, session: BattleInProgress, base: Catalogue, rules_for: RulesFor,
                extra: dict[str, EnemyDef] | None = None) -> Campaign:
    """The campaign with the battle's inputs as they are now (after an action or an override);
    `extra`: an enemy type the GM defined for this battle, kept so its `Reinforce` replays."""
    record = campaign.battle
    assert record is not None
    catalogue = battle_catalogue(base, rules_for(record.get("rules") or {}))
    run_ai(session.battle)  # to the next decision, as a replay does: the record must replay to here
    fresh = session_to_dict(session, catalogue)
    record = dict(record, inputs=fresh["inputs"], log_length=fresh["log_length"], last_event=fresh["last_event"],
                  log_sha256=fresh["log_sha256"])
    if extra:
        record["extra_enemies"] = {**dict(record.get("extra_enemies") or {}),
                                   **{key: enemy_to_dict(d, catalogue) for key, d in extra.items()}}
    return attrs.evolve(campaign, battle=record)


def session_from_record(
    record: dict[str, Any], base: Catalogue, rules_for: RulesFor, enemies: dict[str, EnemyDef], file: str = "<campaign>"
) -> BattleInProgress:
    """Rebuild the battle by replaying its inputs, then the AI's turns up to the next decision (as
    `engine.persist.load_session` does). DataError if the record can't be read or no longer replays.

    A battle placed by hand (`start_placed_battle`) keeps its map and placements in the record
    (`placed`): its set-up is rebuilt from them instead of from an encounter file."""
    catalogue = battle_catalogue(base, rules_for(record.get("rules") or {}))
    setup = None
    if record.get("placed") is not None:
        setup = placed_setup(record["placed"], catalogue, enemies, file)
    if record.get("extra_enemies"):
        enemies = {**enemies, **extra_enemies_from_record(record, catalogue, file)}
    return session_from_dict(record, catalogue, enemies, file, setup)


# --- combatants joining mid-fight: the catalogue's enemy types, an NPC, or a quick stat line ---------


def enemy_to_dict(definition: EnemyDef, catalogue: Catalogue) -> dict[str, Any]:
    return {"character": character_to_dict(definition.character, catalogue), "level": definition.level,
            "xp": definition.xp, "ai": definition.ai, "targeting": definition.targeting, "glyph": definition.glyph,
            "hand_set": hand_set_to_dict(definition.hand_set)}


def extra_enemies_from_record(record: dict[str, Any], catalogue: Catalogue, file: str = "<campaign>") -> dict[str, EnemyDef]:
    """The enemy types the GM defined during this battle (an NPC, a quick stat line), by id, so
    that a `Reinforce` of one replays."""
    found = {}
    for key, item in dict(record.get("extra_enemies") or {}).items():
        where = f"battle.extra_enemies.{key}"
        try:
            character = character_from_dict(item["character"], catalogue, f"{file}: {where}")
            found[str(key)] = EnemyDef(id=str(key), character=character, level=int(item["level"]), xp=int(item["xp"]),
                                       ai=str(item["ai"]), targeting=str(item["targeting"]),
                                       glyph=str(item.get("glyph", "")), hand_set=hand_set_from_dict(item.get("hand_set", {})))
        except (KeyError, TypeError, ValueError, ZeroDivisionError) as exc:
            raise DataError.one(file, where, f"missing or of the wrong type ({exc})") from None
    return found


def quick_enemy(name: str, level: int, health: int, weapon: str, catalogue: Catalogue,
                enemies: dict[str, EnemyDef] | None = None, xp: int = 0) -> EnemyDef:
    """A combatant from a quick stat line (name, level, health, weapon): R-4's guide for the
    catalogue, 42 + 10·(level − 2) attribute points (32 at level 1), spread evenly over the five
    fighting attributes, and the health the GM gave. ValueError saying what is wrong."""
    rules = catalogue.rules
    if not name.strip():
        raise ValueError("a combatant needs a name")
    if level < 1:
        raise ValueError("a level is 1 or more")
    if health < 1:
        raise ValueError("health is 1 or more")
    if weapon not in catalogue.weapons:
        raise ValueError(f"no weapon {weapon!r}; known: {', '.join(sorted(catalogue.weapons))}")
    points = guide_points(level, rules)
    fighting = [a for a in ATTRIBUTES if a != "beauty"]
    if points < len(fighting):
        raise ValueError(f"R-4's guide gives a level-{level} enemy {points} attribute points under these house "
                         f"rules: too few to fight with; choose a higher level")
    attributes = {a: points // len(fighting) + (1 if i < points % len(fighting) else 0) for i, a in enumerate(fighting)}
    npc = Npc(name=name.strip(), level=level, attributes=rules.creation.attribute_minimums | attributes, health=health,
              weapon=weapon, xp=xp)  # beauty, not a fighting attribute, at its R-1 minimum
    return attrs.evolve(npc_enemy(npc, catalogue, enemies), id=f"quick:{name.strip()}")


def mapless_controllers(session: BattleInProgress) -> None:
    """A fight without a map (the tracker alone, distances ruled by the GM): the GM plays every
    enemy, so no AI walks the hidden map; recorded as inputs, so a replay agrees."""
    battle = session.battle
    for e in list(battle.combatants()):
        if ident(e).kind != "character" and not battle.over:
            override(battle, SetController(ident(e).id, "gm", "a fight without a map"), session.inputs)


# --- NPCs as combatants, and battles placed by hand on a map ----------------------------------------


def npc_hand_set(npc: Npc) -> dict[str, Fraction]:
    """The stats the GM set by hand on the NPC (health, willpower), which it starts a battle with."""
    found: dict[str, Fraction] = {}
    if npc.health is not None:
        found["health"] = Fraction(npc.health)
    if npc.willpower is not None:
        found["willpower"] = Fraction(npc.willpower)
    return found


def npc_enemy(npc: Npc, catalogue: Catalogue, enemies: dict[str, EnemyDef] | None = None) -> EnemyDef:
    """The NPC as an enemy definition (its level, XP, AI profile, targeting, hand-set stats)."""
    character = npc_character(npc, catalogue, enemies)
    return EnemyDef(id=f"npc:{npc.name}", character=character, level=npc.level, xp=npc.xp, ai=npc.ai,
                    targeting=npc.targeting, glyph=npc.name[:1].lower(), hand_set=npc_hand_set(npc))


def map_battlefield(spec: dict[str, Any], catalogue: Catalogue, enemies: dict[str, EnemyDef]) -> Battlefield:
    """The battlefield of a map spec: `{"encounter": id or path}` (that encounter's map, without its
    enemies) or `{"generator", "width", "height", "seed"}`. ValueError saying what is wrong."""
    if "encounter" in spec:
        try:
            return load_encounter(str(spec["encounter"]), catalogue, enemies).battlefield
        except DataError as exc:
            raise ValueError(str(exc.problems[0])) from None
    generator = str(spec.get("generator", ""))
    if generator not in mapgen.GENERATORS:
        raise ValueError(f"a map is an encounter id or a generator: {', '.join(mapgen.GENERATORS)}")
    width, height, seed = int(spec["width"]), int(spec["height"]), int(spec.get("seed", 0))
    largest = catalogue.rules.turns.max_size
    for side in (width, height):
        if not mapgen.MIN_SIZE <= side <= largest:
            raise ValueError(f"a generated map is {mapgen.MIN_SIZE}–{largest} cells a side, not {side}")
    return mapgen.generate(generator, width, height, seed)


def placement_refusal(battlefield: Battlefield, cell: tuple[int, int], occupied: dict[tuple[int, int], str]) -> str | None:
    """Why a unit can't stand on this cell (off the map, a wall, someone there), or None."""
    x, y = cell
    if not battlefield.in_bounds(cell):
        return f"[{x}, {y}] is off the {battlefield.width}×{battlefield.height} map"
    if not battlefield.is_walkable(cell):
        return f"[{x}, {y}] is a wall"
    if cell in occupied:
        return f"[{x}, {y}] is taken by {occupied[cell]}"
    return None


def placed_setup(placed: dict[str, Any], catalogue: Catalogue, enemies: dict[str, EnemyDef],
                 file: str = "<campaign>") -> EncounterSetup:
    """The in-memory set-up of a battle placed by hand, from its record: the map spec, the party's
    cells (members, then allied NPCs) and the hostile NPCs as enemies on their cells."""
    try:
        battlefield = map_battlefield(placed["map"], catalogue, enemies)
        party_start = [(int(x), int(y)) for x, y in placed["party_start"]]
        hostile = []
        for index, item in enumerate(placed.get("enemies", [])):
            character = character_from_dict(item["character"], catalogue, f"{file}: battle.placed.enemies.{index}")
            definition = EnemyDef(id=str(item["id"]), character=character, level=int(item["level"]),
                                  xp=int(item["xp"]), ai=str(item["ai"]), targeting=str(item["targeting"]),
                                  glyph=str(item.get("glyph", "")),
                                  hand_set=hand_set_from_dict(item.get("hand_set", {})))
            hostile.append((definition, (int(item["at"][0]), int(item["at"][1])), str(item["name"])))
    except (ValueError, ZeroDivisionError) as exc:
        raise DataError.one(file, "battle.placed", str(exc)) from None
    except (KeyError, TypeError) as exc:
        raise DataError.one(file, f"battle.placed.{str(exc).strip(chr(39))}", "missing or of the wrong type") from None
    occupied: dict[tuple[int, int], str] = {}
    for cell, what in [(c, "a party member") for c in party_start] + [(c, n) for _, c, n in hostile]:
        problem = placement_refusal(battlefield, cell, occupied)
        if problem:
            raise DataError.one(file, "battle.placed", problem)
        occupied[cell] = what
    return EncounterSetup(
        id="placed", name=str(placed.get("name", "A battle on a map")), description="", difficulty="normal",
        xp=sum(d.xp for d, _, _ in hostile), notes="", battlefield=battlefield, enemies=hostile,
        party_start=party_start, source="(placed by the GM)",
    )


def distinct_glyphs(units: list[tuple[str, str]]) -> list[str]:
    """A map glyph for each (name, side), no two alike even told apart by case (Morwen and Marta
    were both M): the first letter of the name not taken yet, else a digit; capitals for the party,
    small letters for its foes."""
    taken: set[str] = set()
    glyphs = []
    for name, side in units:
        letters = [c for c in name if c.isalpha()]
        glyph = next((c for c in letters if c.lower() not in taken),
                     next((d for d in "123456789" if d not in taken), "?"))
        taken.add(glyph.lower())
        glyphs.append(glyph.upper() if side == "party" else glyph.lower())
    return glyphs


PLACES = {"caves": "in the caves", "rooms": "in the halls", "open": "in the open"}  # mapgen.GENERATORS, in words


def map_name(spec: dict[str, Any], foes: list[str] | tuple[str, ...] = (), root: Path | None = None) -> str:
    """A placed fight's title, as the players' recap tells it: the encounter's own name for an
    encounter's map ("Goblin Ambush"), else whom the party fought and where ("Against Grukk and
    Mayor Oswin in the caves"); without foes, the map ("The caves, 16×12")."""
    if "encounter" in spec:
        try:
            encounter, _ = read_encounter_file(encounter_path(str(spec["encounter"]), root))
            return str(encounter.name) or Path(str(spec["encounter"])).stem
        except (DataError, OSError, ValueError):
            return Path(str(spec["encounter"])).stem.replace("_", " ").capitalize()
    place = PLACES.get(str(spec.get("generator")), f"on a {spec.get('generator')} map")
    if foes:
        names = list(foes)
        who = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        return f"Against {who} {place}"
    return f"{place.removeprefix('in ').capitalize()}, {spec.get('width')}×{spec.get('height')}"


def start_placed_battle(
    campaign: Campaign, map_spec: dict[str, Any], placements: list[tuple[str, str, tuple[int, int]]], base: Catalogue,
    rules_for: RulesFor, enemies: dict[str, EnemyDef], *, seed: int | None = None,
) -> tuple[Campaign, BattleInProgress]:
    """A battle the GM builds by hand: `placements` are (kind "member" or "npc", name, cell). Party
    members fight for the players (controller "player"); an NPC on the party's side joins the party
    as a GM-played character; an NPC against it is an enemy, played by its AI or by the GM. The
    record keeps the map spec and the placements, so the set-up is rebuilt without any file.
    ValueError with the reason when it can't be formed."""
    if campaign.battle is not None:
        raise ValueError("a battle is in progress already: finish or abandon it first")
    catalogue = battle_catalogue(base, rules_for(campaign.rules))
    battlefield = map_battlefield(map_spec, catalogue, enemies)
    members: list[tuple[PartyMember, tuple[int, int]]] = []
    allies: list[tuple[PartyMember, tuple[int, int]]] = []
    hostile: list[tuple[Npc, tuple[int, int]]] = []
    occupied: dict[tuple[int, int], str] = {}
    for kind, name, cell in placements:
        cell = (int(cell[0]), int(cell[1]))
        problem = placement_refusal(battlefield, cell, occupied)
        if problem:
            raise ValueError(f"{name}: {problem}")
        occupied[cell] = name
        if kind == "member":
            member = campaign.member(name)
            if member is None:
                raise ValueError(f"no party member called {name}")
            members.append((PartyMember(member.character, "player"), cell))
        else:
            npc = campaign.npc(name)
            if npc is None:
                raise ValueError(f"no NPC called {name}")
            if npc.dead:
                raise ValueError(f"{name} died in an earlier fight")
            if npc.combat_side() == "party":
                allies.append((PartyMember(npc_character(npc, catalogue, enemies), "gm", npc_hand_set(npc), npc.level,
                                           ally=True), cell))
            else:
                hostile.append((npc, cell))
    if not members:
        raise ValueError("place at least one party member")
    if not hostile:
        raise ValueError("place at least one NPC against the party (an NPC is hostile unless friendly or an ally)")
    placed = {
        "name": map_name(map_spec, list(dict.fromkeys(npc.name for npc, _ in hostile)), base.root), "map": dict(map_spec),
        "party_start": [list(cell) for _, cell in members + allies],
        "enemies": [
            {"id": d.id, "name": npc.name, "at": list(cell), "character": character_to_dict(d.character, catalogue),
             "level": d.level, "xp": d.xp, "ai": d.ai, "targeting": d.targeting, "glyph": d.glyph,
             "hand_set": hand_set_to_dict(d.hand_set)}
            for npc, cell in hostile for d in [npc_enemy(npc, catalogue, enemies)]
        ],
    }
    setup = placed_setup(placed, catalogue, enemies)
    party = [m for m, _ in members + allies]
    if seed is None:
        rng, campaign = campaign.rng()
        seed = rng.randrange(2**31)
    try:
        battle = create_battle(setup, party, seed, catalogue, enemies)
    except BattleError as exc:
        raise ValueError(str(exc)) from None
    begin(battle)
    session = BattleInProgress(battle, "placed", party)
    carry_in(campaign, session, catalogue.rules)
    for npc, _ in hostile:  # GM-played hostile NPCs: handed over as recorded inputs, so a replay agrees
        if npc.controller == "gm":
            target = next(ident(e).id for e in battle.combatants()
                          if ident(e).kind == "enemy" and ident(e).name == npc.name)
            override(battle, SetController(target, "gm", "a GM-played NPC"), session.inputs)
    run_ai(battle)  # the record holds the battle at a decision, as a replay leaves it (persist)
    record = dict(session_to_dict(session, catalogue), name=setup.name, rules=copy.deepcopy(campaign.rules),
                  placed=placed)
    return attrs.evolve(campaign, battle=record), session


def carry_in(campaign: Campaign, session: BattleInProgress, rules: Ruleset) -> None:
    """What the last fights left on the party (campaign.carry), as the battle's first recorded inputs."""
    for change in carry.opening_overrides(campaign, session.battle, rules):
        if session.battle.over:
            break
        override(session.battle, change, session.inputs)
    if session.battle.over:
        raise ValueError("everyone picked is down since the last fight: rest first, or pick others")


def summary(session: BattleInProgress, name: str) -> dict[str, Any]:
    """What the session log keeps of a battle: the result, who fell, the rulings and overrides."""
    battle = session.battle
    names = {e_id: ident(e).name for e_id, e in battle.by_id.items()}
    n = lambda cid: names.get(cid, cid or "?")  # noqa: E731
    defeated, fled, rulings, overrides, tracker, joined, revived = [], [], [], [], [], [], []
    log = battle.log
    for index, event in enumerate(log):
        if isinstance(event, ev.Defeated):
            if not is_active(battle.by_id[event.target]):  # one revived later is not among the defeated
                defeated.append(n(event.target) + (" (unconscious)" if event.state == "unconscious" else ""))
        elif isinstance(event, ev.Fled):
            fled.append(n(event.target))
        elif isinstance(event, ev.FreeActionEvent):
            check = next((e for e in log[index + 1:index + 3] if isinstance(e, ev.Check) and e.kind == "free_action"), None)
            target = f" on {n(event.target)}" if event.target and event.target != event.actor else ""
            outcome = (f", {percent_text(check.chance)}: {'worked' if check.success else 'failed'}" if check else ", certain")
            rulings.append(f"{n(event.actor)}: “{event.description}”{target}{outcome}")
        elif isinstance(event, ev.Override):
            value = "" if event.value is None else f" {event.value}"
            reason = f" ({event.reason})" if event.reason else ""
            line = f"{event.what}{value} on {n(event.target)}{reason}"
            if event.what == "joins":
                joined.append(n(event.target))
            elif event.what == "revive":
                revived.append(n(event.target))
            if event.what in TRACKER_KEYS or event.reason in BOOKKEEPING:
                tracker.append(line)  # the tracker's own keys and set-up: the GM's log only
            else:
                overrides.append(line)
    result = battle.result
    party = {}

    for e in battle.combatants():
        if ident(e).kind == "character":
            presence = comp(e, Presence)
            party[ident(e).name] = (f"{max(0, hp(e).hp)}/{hp(e).max_hp}" if presence is Presence.active
                                    else presence.value)
    return {
        "name": name, "encounter": session.encounter, "seed": battle.seed,
        "winner": result.winner if result else None, "rounds": result.rounds if result else battle.round,
        "xp": dict(result.xp) if result else {}, "defeated": defeated, "fled": fled, "party": party,
        "free_actions": rulings, "overrides": overrides, "tracker": tracker,
        "joined": [name for name in joined if not _still_hidden(battle, name)], "revived": revived,
        "hidden": [name for name in joined if _still_hidden(battle, name)],
    }


# Overrides that are the tracker's bookkeeping, not a GM's hand on the fight: kept in the GM's log,
# never in the players' recap nor counted as an override.
TRACKER_KEYS = frozenset({"initiative", "initiative value", "controller", "joins", "hold", "re-enter"})
BOOKKEEPING = frozenset({"carried from the last fight", "a fight without a map", "a GM-played NPC", "revealed"})


def _still_hidden(battle, name: str) -> bool:
    return any(ident(e).name == name and effects(e).get("hidden") is not None for e in battle.combatants())


def finish_battle(campaign: Campaign, session: BattleInProgress) -> Campaign:
    """The battle leaves the campaign and goes into the session log with its result."""
    record = campaign.battle or {}
    data = summary(session, str(record.get("name", session.encounter)))
    won = {"party": "the party wins", "enemies": "the enemies win", "draw": "a draw", None: "abandoned"}[data["winner"]]
    text = f"Battle: {data['name']} — {won} after {rounds_text(data['rounds'])}"
    if data["xp"]:
        text += "; XP " + ", ".join(f"{k} {v}" for k, v in data["xp"].items())

    campaign = carry.after_battle(attrs.evolve(campaign, battle=None), session.battle)
    campaign = campaign.logged("battle", text, **data)
    dead = [n for n in carry.fallen_npcs(session.battle, campaign)]
    if dead:
        campaign = campaign.logged("npc", "Fallen for good: " + ", ".join(dead), dead=dead)
    return campaign
