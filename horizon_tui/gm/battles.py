"""The campaign's battle in progress, kept in the campaign itself so that one undo log covers it.

A battle is its set-up (encounter, party, seed, the house rules it started under) and the inputs
given so far (`engine.persist`'s save format); the live `Battle` is rebuilt from that by replay
whenever the campaign steps back. No Textual here.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.encounters import EnemyDef
from horizon_tui.content.ruleset import Ruleset
from horizon_tui.engine import events as ev
from horizon_tui.engine.battle import PartyMember, create_battle, ident
from horizon_tui.engine.encounter import load_encounter
from horizon_tui.engine.persist import BattleSession, session_from_dict, session_to_dict
from horizon_tui.engine.runner import begin
from horizon_tui.gm.campaign import Campaign

RulesFor = Callable[[dict], Ruleset]


def battle_catalogue(base: Catalogue, rules: Ruleset) -> Catalogue:
    return base if rules is base.rules else base.with_rules(rules)


def start_battle(
    campaign: Campaign, encounter: str | Path, members: list[str], base: Catalogue, rules_for: RulesFor,
    enemies: dict[str, EnemyDef], *, seed: int | None = None,
) -> tuple[Campaign, BattleSession]:
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
    session = BattleSession(battle, str(encounter), party)
    record = dict(session_to_dict(session, catalogue), name=setup.name, rules=copy.deepcopy(campaign.rules))
    return attrs.evolve(campaign, battle=record), session


def with_inputs(campaign: Campaign, session: BattleSession, base: Catalogue, rules_for: RulesFor) -> Campaign:
    """The campaign with the battle's inputs as they are now (after an action or an override)."""
    record = campaign.battle
    assert record is not None
    catalogue = battle_catalogue(base, rules_for(record.get("rules") or {}))
    fresh = session_to_dict(session, catalogue)
    return attrs.evolve(campaign, battle=dict(record, inputs=fresh["inputs"], log_length=fresh["log_length"],
                                              last_event=fresh["last_event"], log_sha256=fresh["log_sha256"]))


def session_from_record(
    record: dict[str, Any], base: Catalogue, rules_for: RulesFor, enemies: dict[str, EnemyDef], file: str = "<campaign>"
) -> BattleSession:
    """Rebuild the battle by replaying its inputs, then the AI's turns up to the next decision (as
    `engine.persist.load_session` does). DataError if the record can't be read or no longer replays."""
    catalogue = battle_catalogue(base, rules_for(record.get("rules") or {}))
    return session_from_dict(record, catalogue, enemies, file)


def summary(session: BattleSession, name: str) -> dict[str, Any]:
    """What the session log keeps of a battle: the result, who fell, the rulings and overrides."""
    battle = session.battle
    names = {e_id: ident(e).name for e_id, e in battle.by_id.items()}
    n = lambda cid: names.get(cid, cid or "?")  # noqa: E731
    defeated, fled, rulings, overrides = [], [], [], []
    log = battle.log
    for index, event in enumerate(log):
        if isinstance(event, ev.Defeated):
            defeated.append(n(event.target) + (" (unconscious)" if event.state == "unconscious" else ""))
        elif isinstance(event, ev.Fled):
            fled.append(n(event.target))
        elif isinstance(event, ev.FreeActionEvent):
            check = next((e for e in log[index + 1:index + 3] if isinstance(e, ev.Check) and e.kind == "free_action"), None)
            target = f" on {n(event.target)}" if event.target and event.target != event.actor else ""
            outcome = (f", {check.chance:.0%}: {'worked' if check.success else 'failed'}" if check else ", certain")
            rulings.append(f"{n(event.actor)}: “{event.description}”{target}{outcome}")
        elif isinstance(event, ev.Override):
            value = "" if event.value is None else f" {event.value}"
            reason = f" ({event.reason})" if event.reason else ""
            overrides.append(f"{event.what}{value} on {n(event.target)}{reason}")
    result = battle.result
    party = {}
    from horizon_tui.engine.battle import comp, hp
    from horizon_tui.engine.components import Presence

    for e in battle.combatants():
        if ident(e).kind == "character":
            presence = comp(e, Presence)
            party[ident(e).name] = (f"{max(0, hp(e).hp)}/{hp(e).max_hp}" if presence is Presence.active
                                    else presence.value)
    return {
        "name": name, "encounter": session.encounter, "seed": battle.seed,
        "winner": result.winner if result else None, "rounds": result.rounds if result else battle.round,
        "xp": dict(result.xp) if result else {}, "defeated": defeated, "fled": fled, "party": party,
        "free_actions": rulings, "overrides": overrides,
    }


def finish_battle(campaign: Campaign, session: BattleSession) -> Campaign:
    """The battle leaves the campaign and goes into the session log with its result."""
    record = campaign.battle or {}
    data = summary(session, str(record.get("name", session.encounter)))
    won = {"party": "the party wins", "enemies": "the enemies win", "draw": "a draw", None: "abandoned"}[data["winner"]]
    text = f"Battle: {data['name']} — {won} after {data['rounds']} rounds"
    if data["xp"]:
        text += "; XP " + ", ".join(f"{k} {v}" for k, v in data["xp"].items())
    return attrs.evolve(campaign, battle=None).logged("battle", text, **data)
