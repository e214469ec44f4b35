"""A run: a chain of fights on one seed, from depth 1 until the party falls (or wins the last depth).

A run is a value (`Run`); each step returns a new one: `start_run`, `depth_offers` (what the
depth offers), `form_fight` (the chosen fight as a battle, with what earlier fights left on the
party put back as its first recorded inputs), `after_fight` (the result, XP and level-ups), `rest`.
Every random choice comes from the run's seed through `run_seed(seed, what, depth)`, so a run
with the same choices replays exactly. No Textual here.
"""

from __future__ import annotations

import datetime
import hashlib
import random
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs

from horizon_tui.campaign.carry import capture, carried_overrides
from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.characters import character_from_dict, character_to_dict
from horizon_tui.content.encounters import EnemyDef
from horizon_tui.content.models import Character
from horizon_tui.content.ruleset import CampaignRules
from horizon_tui.engine import events as ev
from horizon_tui.engine.battle import Battle, comp, ident
from horizon_tui.engine.forming import PartyMember, create_battle
from horizon_tui.engine.components import Presence, Tally
from horizon_tui.engine.encounter import EncounterSetup, load_encounter
from horizon_tui.engine.narrate import CARRIED
from horizon_tui.engine.persist import BattleInProgress
from horizon_tui.engine.runner import begin, override
from horizon_tui.errors import DataError, Problem
from horizon_tui.content.run_rules import RunRules
from horizon_tui.rules.character import build
from horizon_tui.rules.numbers import whole
from horizon_tui.tools.sweep.policy import SweepPolicy, spend_xp

MAX_PARTY = 6
DOWN_BEFORE = "the last fight's wounds"  # a morgue's cause for one who came into a fight already down
CARRY_ALL = CampaignRules(carry_health=True, carry_effects=True, carry_charges=True, carry_cooldowns=True)
SCHEMA = 1


def run_seed(seed: int, what: str, depth: int = 0) -> int:
    """The seed of one random choice of a run (a depth's offers, a fight's battle): a hash of the
    run's seed, what is chosen and the depth, never of anything else."""
    digest = hashlib.blake2b(f"run/{seed}/{what}/{depth}".encode(), digest_size=4).digest()
    return int.from_bytes(digest, "big") & 0x7FFFFFFF


def daily_seed(day: datetime.date | None = None) -> int:
    """Today's seed (UTC): the same for everyone on every host on that day."""
    day = day or datetime.datetime.now(datetime.UTC).date()
    return run_seed(0, f"daily {day.isoformat()}")


@attrs.frozen
class RunMember:
    character: Character
    controller: str = "player"  # player | ai
    source: str | None = None  # the character file it came from (the app's)
    state: dict[str, Any] | None = None  # what the last fight left (campaign.carry.capture's shape)
    dead: bool = False

    @property
    def name(self) -> str:
        return self.character.name

    @property
    def down(self) -> bool:
        return self.dead or (self.state is not None and self.state.get("presence") != "active")


@attrs.frozen
class Offer:
    encounter: str  # an id from the catalogue's encounters/
    name: str
    strength: int  # rated member-levels (party_level × party_size)
    reward: int  # the XP of every enemy (R-14's pool when all are defeated)
    enemies: int


@attrs.frozen
class Run:
    id: str
    seed: int
    members: tuple[RunMember, ...]
    depth: int = 1  # the depth being fought (the one reached, once the run is over)
    fights: tuple[dict[str, Any], ...] = ()
    rested: bool = False  # the rest before this depth's fight was taken
    daily: str | None = None  # the day (ISO) of a daily seed
    permadeath: bool = True  # False: practice, the characters are kept whatever happens
    pace: str = "source"
    version: str = ""
    started: str = ""
    fight: str | None = None  # the encounter being fought at this depth, if a fight is in progress
    over: bool = False
    won: bool = False
    cause_of_death: str = ""

    @property
    def score(self) -> int:
        """XP earned over the run (R-14's shares, summed): ranks runs that reached the same depth."""
        return sum(sum(f.get("xp", {}).values()) for f in self.fights)

    @property
    def standing(self) -> list[RunMember]:
        return [m for m in self.members if not m.down]

    def member(self, name: str) -> RunMember | None:
        return next((m for m in self.members if m.name == name), None)


def start_run(members: Sequence[RunMember], seed: int, *, run_id: str, daily: str | None = None,
              permadeath: bool = True, pace: str = "source", version: str = "", started: str = "") -> Run:
    if not 1 <= len(members) <= MAX_PARTY:
        raise ValueError(f"a run takes one to {MAX_PARTY} characters, not {len(members)}")
    names = [m.name for m in members]
    if len(set(names)) != len(names):
        raise ValueError("two characters in the party have the same name: rename one first")
    return Run(run_id, seed, tuple(members), daily=daily, permadeath=permadeath, pace=pace, version=version,
               started=started)


# --- a depth's offers -----------------------------------------------------------------------------


def party_strength(run: Run, rules) -> int:
    """The standing members' levels, summed (R-4's level from points bought)."""
    return sum(build(m.character, rules).level for m in run.standing) or 1


def rated_encounters(catalogue: Catalogue, enemies: dict[str, EnemyDef]) -> list[Offer]:
    """The catalogue's encounters that a sweep has rated, easiest first (unrated ones can't be
    placed on the curve and are left out)."""
    offers = []
    for path in sorted((catalogue.root / "encounters").glob("*.toml")):
        setup = load_encounter(path.stem, catalogue, enemies)
        if setup.rating is None:
            continue
        offers.append(_offer(setup))
    return sorted(offers, key=lambda o: (o.strength, o.encounter))


def _offer(setup: EncounterSetup) -> Offer:
    strength = setup.rating.party_level * setup.rating.party_size if setup.rating else 0
    return Offer(setup.id, setup.name, strength, sum(d.xp for d, _, _ in setup.enemies), len(setup.enemies))


def depth_offers(run: Run, rated: Sequence[Offer], rules, run_rules: RunRules) -> list[Offer]:
    """Two or three encounters for this depth: of the rated ones nearest the depth's target
    strength (one more than offered), a seeded draw; easiest first."""
    if not rated:
        return []
    target = run_rules.ratio(run.depth) * party_strength(run, rules)
    nearest = sorted(rated, key=lambda o: (abs(o.strength - target), o.strength, o.encounter))
    pool = nearest[:run_rules.offers + 1]
    chosen = random.Random(run_seed(run.seed, "offers", run.depth)).sample(pool, min(run_rules.offers, len(pool)))
    return sorted(chosen, key=lambda o: (o.strength, o.encounter))


# --- a fight --------------------------------------------------------------------------------------


def party_members(run: Run) -> list[PartyMember]:
    """The members who go into the next fight: everyone not dead (one down since the last fight
    enters down, as carried)."""
    return [PartyMember(m.character, m.controller) for m in run.members if not m.dead]


def fight_seed(run: Run) -> int:
    return run_seed(run.seed, "fight", run.depth)


def form_fight(run: Run, encounter: str | Path, catalogue: Catalogue, enemies: dict[str, EnemyDef],
               party: list[PartyMember] | None = None, setup: EncounterSetup | None = None,
               seed: int | None = None) -> BattleInProgress:
    """The depth's fight, begun, with what earlier fights left on each member as its first recorded
    inputs (so it replays from its seed and inputs). `seed`: another battle of it (a win chance's
    estimate); default, the depth's own. Raises DataError / BattleError."""
    party = party if party is not None else party_members(run)
    setup = setup or load_encounter(str(encounter), catalogue, enemies)
    battle = create_battle(setup, party, fight_seed(run) if seed is None else seed, catalogue, enemies)
    begin(battle)
    session = BattleInProgress(battle, str(encounter), party)
    carried = {m.name: m.state for m in run.members if m.state is not None and not m.dead}
    for change in carried_overrides(carried, battle, CARRY_ALL):
        if battle.over:
            break
        override(battle, _with_reason(change), session.inputs)
    return session


def _with_reason(change):
    return attrs.evolve(change, reason=CARRIED) if hasattr(change, "reason") else change


def fight_record(battle: Battle, encounter: str, name: str, depth: int) -> dict[str, Any]:
    """What the morgue keeps of one fight: result, kills and damage by ability per member, who fell
    and to what."""
    result = battle.result
    assert result is not None
    names = {ident(e).id: ident(e).name for e in battle.combatants()}
    party = {ident(e).id for e in battle.combatants() if ident(e).kind == "character"}
    last_blow: dict[str, tuple[str, str | None]] = {}  # target id -> (source id, ability)
    last_attack: dict[tuple[str, str], str | None] = {}  # (actor, target) -> ability
    kills: dict[str, list[str]] = defaultdict(list)
    fell: dict[str, str] = {}
    for event in battle.log:
        if isinstance(event, ev.Attacked) and event.target is not None:
            last_attack[event.actor, event.target] = event.ability
        elif isinstance(event, ev.Damaged) and event.amount > 0:
            last_blow[event.target] = (event.source, last_attack.get((event.source, event.target)))
        elif isinstance(event, ev.Override) and event.what == "starts with health" and event.value == 0:
            last_blow[event.target] = (DOWN_BEFORE, None)  # carried in down: no blow of this fight
        elif isinstance(event, ev.Defeated):
            source, ability = last_blow.get(event.target, ("", None))
            if event.target in party:
                killer = names.get(source, source or "something unseen")
                fell[names[event.target]] = f"{killer} ({ability or 'normal attack'})" if source in names else killer
            elif source in party:
                kills[names[source]].append(names.get(event.target, event.target))
    damage = {ident(e).name: dict(sorted(comp(e, Tally).by_ability.items()))
              for e in battle.combatants() if ident(e).id in party}
    return {"depth": depth, "encounter": encounter, "name": name, "seed": battle.seed, "winner": result.winner,
            "rounds": result.rounds, "xp": dict(result.xp), "kills": dict(kills), "damage": damage, "fell": fell}


def after_fight(run: Run, battle: Battle, encounter: str, name: str, rules, policy: SweepPolicy,
                max_depth: int) -> tuple[Run, list[str]]:
    """The run after the depth's fight: each member's state carried, XP earned and spent (R-4,
    by the character's own spread of points), the fight recorded; a lost fight (or a draw at the
    round cap) ends the run. Also returns what to tell the player (level-ups)."""
    record = fight_record(battle, encounter, name, run.depth)
    states = capture(battle)
    news: list[str] = []
    members = []
    for m in run.members:
        if m.dead:
            members.append(m)
            continue
        state = states.get(m.name, m.state)
        character = m.character
        gained = record["xp"].get(m.name, 0)
        if gained:
            before = build(character, rules).level
            character = spend_xp(attrs.evolve(character, xp=character.xp + gained), rules, policy)
            grown = build(character, rules)
            if grown.level > before:
                news.append(f"{m.name} reaches level {grown.level}.")
            if state is not None:  # health as it was; the maximum the points bought (the next fight's, a rest's)
                state = dict(state, max_hp=whole(grown.stats["health"]))
        dead = state is not None and state.get("presence") == Presence.dead.value
        members.append(attrs.evolve(m, character=character, state=state, dead=dead))
    run = attrs.evolve(run, members=tuple(members), fights=run.fights + (record,), fight=None)
    winner = record["winner"]
    if winner != "party":
        cause = "; ".join(f"{who} fell to {what}" for who, what in record["fell"].items())
        if winner == "draw":
            cause = "the fight dragged on to the round cap" + (f" ({cause})" if cause else "")
        return attrs.evolve(run, over=True, cause_of_death=cause or f"defeated by {name}"), news
    if run.depth >= max_depth:
        return attrs.evolve(run, over=True, won=True), news
    return attrs.evolve(run, depth=run.depth + 1, rested=False), news


def rest(run: Run, run_rules: RunRules) -> tuple[Run, list[str]]:
    """The one rest between two depths: each living member gets back `rest_health` of its maximum
    health (one who was down gets up with that much), and `rest_turns` pass for effects and
    cooldowns (R-10's durations keep counting; charges stay spent, R-6)."""
    if run.rested:
        raise ValueError("the party has rested since the last fight: the next rest comes after the next fight")
    if run.over or run.fight is not None:
        raise ValueError("no rest now: " + ("the run is over" if run.over else "a fight is in progress"))
    news = []
    members = []
    for m in run.members:
        if m.dead or m.state is None:
            members.append(m)
            continue
        state = dict(m.state)
        before = int(state["hp"])
        state["hp"] = min(int(state["max_hp"]), before + round(run_rules.rest_health * int(state["max_hp"])))
        if state["hp"] > 0:
            state["presence"] = "active"
        state["effects"] = [dict(fx, turns=int(fx["turns"]) - run_rules.rest_turns) for fx in state.get("effects", [])
                            if int(fx["turns"]) > run_rules.rest_turns]
        state["cooldowns"] = {name: int(n) - run_rules.rest_turns for name, n in state.get("cooldowns", {}).items()
                              if int(n) > run_rules.rest_turns}
        if state["hp"] != before:
            news.append(f"{m.name}: health {before} → {state['hp']} of {state['max_hp']}")
        members.append(attrs.evolve(m, state=state))
    return attrs.evolve(run, members=tuple(members), rested=True), news


# --- as plain data (storage keeps dicts) ----------------------------------------------------------


def run_to_dict(run: Run, catalogue: Catalogue) -> dict[str, Any]:
    data = attrs.asdict(run, recurse=False)
    data["members"] = [dict(attrs.asdict(m, recurse=False), character=character_to_dict(m.character, catalogue))
                       for m in run.members]
    data["fights"] = list(run.fights)
    data["schema"] = SCHEMA
    return data


def run_from_dict(data: dict[str, Any], catalogue: Catalogue, file: str = "<run>") -> Run:
    """A stored run; DataError (naming the file and key) if it can't be read as one."""
    try:
        members = tuple(RunMember(character_from_dict(m["character"], catalogue, f"{file}: members.{i}.character"),
                                  str(m.get("controller", "player")), m.get("source"), m.get("state"),
                                  bool(m.get("dead", False)))
                        for i, m in enumerate(data["members"]))
        fields = {f.name for f in attrs.fields(Run)} - {"members", "fights"}
        return Run(members=members, fights=tuple(data.get("fights", ())),
                   **{k: v for k, v in data.items() if k in fields})
    except DataError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise DataError([Problem(file, "run", f"not a run as Horizon saves one ({type(exc).__name__}: {exc})")]) from None


def paced_catalogue(catalogue: Catalogue, pace) -> Catalogue:
    """The catalogue a run's fights use: the rules with the pace's R-2 health and R-9 damage knobs
    (house rules: `[derived_stats] health_scale`, `[attack] damage_scale`)."""
    rules = catalogue.rules
    if (pace.health_scale, pace.damage_scale) == (rules.derived_stats.health_scale, rules.attack.damage_scale):
        return catalogue
    rules = attrs.evolve(rules, derived_stats=attrs.evolve(rules.derived_stats, health_scale=pace.health_scale),
                         attack=attrs.evolve(rules.attack, damage_scale=pace.damage_scale))
    return catalogue.with_rules(rules)
