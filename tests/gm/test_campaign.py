"""The GM tool's services without a screen: campaign files, daily limits, undo, house rules in
battle, settlement reactions, XP, the Markdown export."""

from __future__ import annotations

import json
from fractions import Fraction

import attrs
import pytest

from horizon_tui.content.models import Ability, AbilityKind, Difficulty, Target
from horizon_tui.engine.battle import BattleError, comp, ident
from horizon_tui.engine.components import Charges, Loadout
from horizon_tui.engine.overrides import SetHealth
from horizon_tui.engine.runner import override
from horizon_tui.errors import DataError
from horizon_tui.campaign import battles
from horizon_tui.campaign import house_rules
from horizon_tui.campaign import changes as campaign_changes
from horizon_tui.campaign.model import Npc
from horizon_tui.campaign.export import export, gm_markdown, session_markdown
from horizon_tui.campaign.initiative import Reorder, delay_position, ready_position, tracker_rows
from horizon_tui.campaign.campaign_files import decode
from horizon_tui.storage import schema
from tests.gm.conftest import current, stored


def check(session, character, npc, text="I ask nicely.", kind="persuasion", modifier=0, override_reason=""):
    plan = campaign_changes.plan_check(session.campaign, character, npc, kind, modifier, session.rules)
    session.apply(lambda c: campaign_changes.roll_check(c, plan, text, session.rules, override_reason)[0], "check")
    return session.campaign.log[-1]


def more_npcs(session, n):
    for i in range(n):
        session.apply(lambda c, i=i: campaign_changes.save_npc(c, None, Npc(f"Villager {i}")), "npc")


# --- files ---------------------------------------------------------------------------------------


def test_a_campaign_round_trips_through_the_database_exactly(session, store):
    loaded = store.load(session.slug).campaign
    assert loaded == session.campaign
    assert stored(session) == current(session)
    assert [m.name for m in loaded.party] == ["Brakka", "Iriel", "Morwen", "Sefa"]
    assert loaded.npc("Grukk").checkable is False
    assert json.loads(current(session))["kind"] == "horizon-campaign"
    assert decode(current(session), store.catalogue) == loaded


def test_several_campaigns_live_side_by_side_and_names_are_unique(store, session):
    store.create("The Sunken Coast")
    assert {e.name for e in store.entries()} == {"Lantern Road", "The Sunken Coast"}
    with pytest.raises(ValueError, match="exists already"):
        store.create("lantern road")
    assert store.find("LANTERN ROAD") == session.slug == "lantern-road"


def test_a_campaign_whose_stored_state_went_bad_is_reported_and_kept_as_it_is(session, store):
    with store.repository.database.writing() as conn:
        conn.execute(schema.campaign_snapshots.update().values(state="{ not json"))
    with pytest.raises(DataError) as caught:
        store.load(session.slug)
    assert str(store.repository.database.file) in str(caught.value) and "snapshot 0" in str(caught.value)
    assert "Lantern Road" in {e.name for e in store.entries()}  # still listed: opening says what is wrong
    with store.repository.database.reading() as conn:
        assert conn.execute(schema.campaign_snapshots.select()).first().state == "{ not json"


def test_a_change_the_campaign_could_not_be_opened_with_again_is_not_saved(session, store):
    """By hand: a 200,000-character NPC note saved a campaign that never opened again (a text is
    at most files.text_length, 100,000). The write is read back as opening reads it: refused."""
    import attrs

    before = stored(session)
    npc = session.campaign.npcs[0]
    with pytest.raises(DataError) as caught:
        session.apply(lambda c: campaign_changes.save_npc(c, npc.name, attrs.evolve(npc, notes="n" * 200_000)), "notes")
    assert "a text of 200,000 characters; at most 100,000" in str(caught.value)
    assert stored(session) == before == current(session)
    assert store.load(session.slug).campaign == session.campaign


def test_every_change_is_saved_at_once_as_one_journal_row(session, store):
    head = store.repository.load(session.slug).head
    session.apply(campaign_changes.advance_day, "day")
    assert stored(session) == current(session)
    assert store.repository.load(session.slug).head == head + 1
    row = store.repository.change(session.slug, head + 1)
    assert row.after == {"day": 2} and row.before == {"day": 1} and [line["kind"] for line in row.log_added] == ["day"]


# --- R-12 daily limits ---------------------------------------------------------------------------


def test_a_fifth_check_in_a_day_is_refused_and_an_override_is_recorded_with_its_reason(session):
    more_npcs(session, 4)
    for i in range(4):
        check(session, "Iriel", f"Villager {i}")
    plan = campaign_changes.plan_check(session.campaign, "Iriel", "Mayor Oswin", "charm", 0, session.rules)
    assert plan.refusal and "4 checks today" in plan.refusal
    before = stored(session)
    with pytest.raises(ValueError, match="limit is 4 per day"):
        session.apply(lambda c: campaign_changes.roll_check(c, plan, "One more try.", session.rules)[0], "check")
    assert stored(session) == before == current(session)  # refused: nothing changed, nothing saved
    entry = check(session, "Iriel", "Mayor Oswin", "One more try.", "charm",
                  override_reason="the mayor asked to see her again")
    assert entry.data["override"] == "the mayor asked to see her again"
    assert "GM override: the mayor asked" in entry.text
    assert campaign_changes.checks_today(session.campaign, "Iriel") == 5


def test_one_check_per_npc_per_character_per_day_and_the_next_day_resets_the_limits(session):
    check(session, "Iriel", "Mayor Oswin")
    refusal = campaign_changes.plan_check(session.campaign, "Iriel", "Mayor Oswin", "charm", 0, session.rules).refusal
    assert "already tried Mayor Oswin today" in refusal
    assert campaign_changes.plan_check(session.campaign, "Brakka", "Mayor Oswin", "charm", 0, session.rules).refusal is None
    session.apply(campaign_changes.advance_day, "day")
    assert campaign_changes.plan_check(session.campaign, "Iriel", "Mayor Oswin", "charm", 0, session.rules).refusal is None


def test_checks_need_a_checkable_npc_roleplay_and_a_modifier_within_bounds(session):
    with pytest.raises(ValueError, match="can't be swayed"):
        campaign_changes.plan_check(session.campaign, "Iriel", "Grukk", "charm", 0, session.rules)
    with pytest.raises(ValueError, match=r"-4…4"):
        campaign_changes.plan_check(session.campaign, "Iriel", "Mayor Oswin", "charm", 5, session.rules)
    plan = campaign_changes.plan_check(session.campaign, "Iriel", "Mayor Oswin", "charm", 0, session.rules)
    with pytest.raises(ValueError, match="roleplay"):
        campaign_changes.roll_check(session.campaign, plan, "   ", session.rules)


def test_the_odds_shown_before_the_roll_are_r12s_and_the_roll_is_the_campaigns(session):
    plan = campaign_changes.plan_check(session.campaign, "Iriel", "Mayor Oswin", "persuasion", 2, session.rules)
    # Iriel: cognition 6 → score 12; Oswin's willpower 0.5·3 + 0.5·4 + 0.2·5 + 5·6 = 34.5 → 17.25.
    assert plan.score == 12 and float(plan.willpower) == 34.5
    wins = sum(1 for a in range(1, 21) for d in range(1, 21) if a + 12 + 2 >= d + 17.25)
    assert plan.chance * 400 == wins
    entry = check(session, "Iriel", "Mayor Oswin", "The lanterns went out when your cousin came.", modifier=2)
    again = campaign_changes.roll_check(attrs.evolve(session.campaign, draws=session.campaign.draws - 1, log=session.campaign.log[:-1]),
                                plan, "The lanterns went out when your cousin came.", session.rules)[1]
    assert again.attacker_die == entry.data["attacker_die"]  # seeded: the same draw, the same die


def test_settlement_reactions_roll_for_uncommon_species_and_move_that_days_checks_there(session):
    session.apply(lambda c: campaign_changes.roll_reactions(c, "Millbrook", session.rules)[0], "reactions")
    reactions = session.campaign.today("reaction")
    assert sorted(e.data["character"] for e in reactions) == ["Brakka", "Sefa"]  # the humans are common
    assert all(e.data["modifier"] in (-2, 0, 2) for e in reactions)
    session.apply(lambda c: campaign_changes.roll_reactions(c, "millbrook", session.rules)[0], "again")
    assert len(session.campaign.today("reaction")) == 2  # rolled once per day and place
    brakka = next(e for e in reactions if e.data["character"] == "Brakka").data["modifier"]
    plan = campaign_changes.plan_check(session.campaign, "Brakka", "Mayor Oswin", "intimidation", 1, session.rules, "Millbrook")
    assert plan.settlement_modifier == brakka
    elsewhere = campaign_changes.plan_check(session.campaign, "Brakka", "Mayor Oswin", "intimidation", 1, session.rules)
    assert elsewhere.settlement_modifier == 0


# --- undo ----------------------------------------------------------------------------------------


def test_undo_restores_the_exact_previous_state_one_action_at_a_time(session, store):
    states = [current(session)]
    check(session, "Iriel", "Mayor Oswin", "Please.")
    states.append(current(session))
    session.apply(lambda c: campaign_changes.award_xp(c, {"Iriel": 400}, "quest"), "xp")
    states.append(current(session))
    iriel = session.campaign.member("Iriel").character
    from horizon_tui.rules.character import buy_point

    bought = iriel
    for _ in range(10):
        bought = buy_point(bought, "cognition", session.rules)
    session.apply(lambda c: campaign_changes.update_character(c, "Iriel", bought, session.rules), "level up")
    assert session.campaign.log[-1].kind == "level_up" and "reaches level 3" in session.campaign.log[-1].text
    states.append(current(session))
    session.apply(campaign_changes.advance_day, "day")
    for expected in reversed(states):
        assert session.undo() is not None
        assert current(session) == expected
        assert stored(session) == expected
    assert session.undo() is None


# --- house rules ---------------------------------------------------------------------------------


def test_rules_are_checked_as_edited(session):
    data = session.defaults
    assert house_rules.problems(data) == []
    assert any("allowed: 0 to 100 (ranges.slots" in p for p in house_rules.problems(house_rules.set_cell(data, ("levels", 1, "charges", "II"), "-1")))
    assert any("thresholds must rise" in p for p in house_rules.problems(
        house_rules.set_cell(data, ("difficulties", "IV", "threshold"), "100")))
    assert any("whole number" in p for p in house_rules.problems(house_rules.set_cell(data, ("levels", 0, "slots"), "2.5")))
    with pytest.raises(ValueError):
        house_rules.set_cell(data, ("levels", 0, "slots"), "many")
    assert any("add up to 1" in p for p in house_rules.problems(
        house_rules.set_cell(data, ("species", "reaction_admirer"), "0.5")))
    assert house_rules.set_cell(data, ("levels", 0, "slots"), "3e0")["levels"][0]["slots"] == 3


def test_a_huge_number_typed_into_a_rules_cell_is_refused_at_once(session):
    """By hand: "1e999999999" typed into the rules editor pinned a CPU (Decimal made an integer of
    a billion digits at every keystroke). A child process, so a regression fails instead of hanging."""
    import subprocess
    import sys

    script = ("from horizon_tui.campaign import house_rules\n"
              "for text in ('1e999999999', '9' * 5000, '-1e-999999999'):\n"
              "    try:\n"
              "        house_rules.parse_cell(text, 2)\n"
              "    except ValueError as exc:\n"
              "        print(exc)\n")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    lines = result.stdout.splitlines()
    assert result.returncode == 0 and len(lines) == 3, result.stderr
    assert "exponent" in lines[0] and "at most 40 digits" in lines[1]


def test_a_campaign_keeps_only_its_differences_and_two_campaigns_differ(session, store):
    from tests.gm.conftest import make_campaign

    data = house_rules.set_cell(session.defaults, ("levels", 1, "slots"), "4")
    changes = house_rules.diff(session.defaults, data)
    assert changes == [("levels.2.slots", 3, 4)]
    overrides = house_rules.overrides(session.defaults, data)
    assert house_rules.merge(session.defaults, overrides) == data
    session.apply(lambda c: campaign_changes.set_rules(c, overrides, changes), "rules")
    other = make_campaign(store, "Other Road")
    assert session.rules.level_row(2).slots == 4 and other.rules.level_row(2).slots == 3
    reopened = store.load(session.slug).campaign
    assert session.rules_for(reopened.rules).level_row(2).slots == 4


def test_a_rules_edit_changes_the_next_battles_slot_counts(session, catalogue):
    from horizon_tui.content.encounters import load_enemies

    enemies = load_enemies(catalogue)
    morwen = session.campaign.member("Morwen").character
    extra = Ability(name="Kindle", difficulty=Difficulty.II, kind=AbilityKind.damage, target=Target.enemy)
    morwen = attrs.evolve(morwen, abilities=[*morwen.abilities, extra], loadout=[*morwen.loadout, "Kindle"])
    session.apply(lambda c: campaign_changes.update_character(c, "Morwen", morwen, session.rules), "4 slotted")
    with pytest.raises(BattleError, match="3 slots"):
        battles.start_battle(session.campaign, "goblin_ambush", ["Morwen"], catalogue, session.rules_for, enemies, seed=1)
    data = house_rules.set_cell(session.defaults, ("levels", 1, "slots"), "4")
    data = house_rules.set_cell(data, ("levels", 1, "charges", "II"), "5")
    session.apply(lambda c: campaign_changes.set_rules(c, house_rules.overrides(session.defaults, data),
                                               house_rules.diff(session.defaults, data)), "rules")
    _, fight = battles.start_battle(session.campaign, "goblin_ambush", ["Morwen"], catalogue, session.rules_for,
                                    enemies, seed=1)
    e = fight.battle["morwen"]
    assert len(comp(e, Loadout).slotted) == 4
    assert comp(e, Charges).pools[Difficulty.II] == 5


# --- battles in the campaign ---------------------------------------------------------------------


def test_a_battle_lives_in_the_campaign_and_replays_with_overrides_and_reordering(session, catalogue):
    from horizon_tui.content.encounters import load_enemies

    enemies = load_enemies(catalogue)
    campaign, fight = battles.start_battle(session.campaign, "goblin_ambush", ["Iriel", "Brakka"], catalogue,
                                           session.rules_for, enemies, seed=7)
    session.apply(lambda c: campaign, "battle")
    battle = fight.battle
    last = battle.order[-1]
    assert override(battle, Reorder(last, 0, "ambush"), fight.inputs).__class__.__name__ == "Success"
    assert battle.order[0] == last and battle.current is not None
    goblin = next(i for i in battle.order if ident(battle[i]).base_team == "enemies")
    override(battle, SetHealth(goblin, 1, "a trap"), fight.inputs)
    session.apply(lambda c: battles.with_inputs(c, fight, catalogue, session.rules_for), "inputs")
    rebuilt = battles.session_from_record(session.campaign.battle, catalogue, session.rules_for, enemies)
    assert rebuilt.battle.order == battle.order
    assert [e.to_json() for e in rebuilt.battle.log] == [e.to_json() for e in battle.log]
    rows = tracker_rows(rebuilt.battle)
    assert [r.id for r in rows] == battle.order and sum(r.state == "current" for r in rows) == 1
    waiting = [r.id for r in rows if r.state == "waiting"]
    if waiting:
        assert isinstance(ready_position(battle, waiting[-1]), int)
    assert isinstance(delay_position(battle, ident(battle.current).id), str)  # its turn has begun
    session.apply(lambda c: battles.finish_battle(c, fight), "abandon")
    assert session.campaign.battle is None
    entry = session.campaign.log[-1]
    assert entry.kind == "battle" and "set health 1" in " ".join(entry.data["overrides"])


# --- experience ------------------------------------------------------------------------------------


def test_xp_is_shared_as_r14_or_given_by_hand_and_who_can_buy_points_follows(session):
    assert campaign_changes.split_xp(100, ["A", "B", "C"]) == {"A": 33, "B": 33, "C": 33}
    names = [m.name for m in session.campaign.party]
    session.apply(lambda c: campaign_changes.award_xp(c, campaign_changes.split_xp(100, names), "the toll road"), "xp")
    assert {m.character.xp for m in session.campaign.party} == {25}
    assert campaign_changes.can_buy(session.campaign, session.rules)["Iriel"] == 2  # 10 + 15 XP
    session.apply(lambda c: campaign_changes.award_xp(c, {"Iriel": 300}), "xp")
    assert campaign_changes.can_buy(session.campaign, session.rules)["Iriel"] == 10  # 325 XP: 10 + 15 + … + 55 (R-4)
    with pytest.raises(ValueError, match="has only"):
        campaign_changes.award_xp(session.campaign, {"Brakka": -26})


# --- the session log -------------------------------------------------------------------------------


def test_the_exported_markdown_holds_the_days_checks_and_battle_results(session, catalogue, tmp_path):
    from horizon_tui.content.encounters import load_enemies

    check(session, "Iriel", "Mayor Oswin", "The lanterns went dark the week your cousin took the toll.")
    enemies = load_enemies(catalogue)
    campaign, fight = battles.start_battle(session.campaign, "goblin_ambush", ["Brakka"], catalogue,
                                           session.rules_for, enemies, seed=3)
    session.apply(lambda c: campaign, "battle")
    for e in list(fight.battle.combatants()):
        if ident(e).base_team == "enemies":
            override(fight.battle, SetHealth(ident(e).id, 0, "the bridge gives way"), fight.inputs)
    assert fight.battle.result.winner == "party"
    session.apply(lambda c: battles.finish_battle(c, fight), "battle ends")
    session.apply(lambda c: campaign_changes.award_xp(c, dict(fight.battle.result.xp), "Goblin Ambush"), "xp")
    text = session_markdown(session.campaign)
    assert "## Day 1" in text
    assert "**Iriel → Mayor Oswin**: persuasion" in text
    assert "> The lanterns went dark the week your cousin took the toll." in text
    assert "Goblin Ambush — the party wins after 1 round" in text
    # the players' recap: no overrides, no NPC numbers (totals, odds); the GM's log has them
    assert "set health 0 on" not in text and "the bridge gives way" not in text and "odds" not in text
    assert "XP: Brakka +" in text
    full = gm_markdown(session.campaign)
    assert "override: set health 0 on" in full and "the bridge gives way" in full and "odds " in full
    path = export(tmp_path, session.campaign)
    assert path.name == "lantern-road-day-1.md" and path.read_text(encoding="utf-8") == text
    session.apply(campaign_changes.advance_day, "day")
    assert "Nothing recorded" in session_markdown(session.campaign)
    assert "Mayor Oswin" in session_markdown(session.campaign, [1, 2])


def test_decode_names_the_problem(store):
    with pytest.raises(DataError, match="not a campaign"):
        decode(b'{"kind": "horizon-battle"}', store.catalogue, "x.json")


def test_the_house_switch_makes_the_per_npc_limit_the_whole_tables(session):
    """R-12 with dialogue.per_npc_scope = "table": once anyone tried Oswin today, nobody else may."""
    session.apply(lambda c: campaign_changes.set_rules(c, {"dialogue": {"per_npc_scope": "table"}},
                                               [("dialogue.per_npc_scope", "character", "table")]), "rules")
    assert session.rules.dialogue.per_npc_scope == "table"
    check(session, "Iriel", "Mayor Oswin")
    refusal = campaign_changes.plan_check(session.campaign, "Brakka", "Mayor Oswin", "charm", 0, session.rules).refusal
    assert refusal and "for the whole table" in refusal
    session.apply(campaign_changes.advance_day, "day")
    assert campaign_changes.plan_check(session.campaign, "Brakka", "Mayor Oswin", "charm", 0, session.rules).refusal is None


def test_an_npcs_species_bonuses_count_outside_battle_too(session, catalogue):
    """R-3: a dwarf NPC's bonuses (data/species/dwarf.toml: physical +1, health +40, willpower +5)
    are in its numbers and in the odds of a dialogue check against it (R-12), as in battle. R-2:
    the physical point adds 0.5 willpower and 40 health, so +5.5 willpower and +80 health."""
    dwarf = Npc("Thrain", level=2, race="dwarf", attributes={"physical": 3, "agility": 4, "perception": 3, "cognition": 5, "faith": 6, "beauty": 5})
    human = Npc("Tam", level=2, race="human", attributes={"physical": 3, "agility": 4, "perception": 3, "cognition": 5, "faith": 6, "beauty": 5})
    assert dwarf.effective_willpower(catalogue) == human.effective_willpower(catalogue) + Fraction(11, 2)
    assert dwarf.effective_health(catalogue) == human.effective_health(catalogue) + 80
    for npc in (dwarf, human):
        session.apply(lambda c, n=npc: campaign_changes.save_npc(c, None, n), "npc")
    odds = {n: campaign_changes.plan_check(session.campaign, "Iriel", n, "persuasion", 0, session.rules,
                                   catalogue=catalogue).willpower for n in ("Thrain", "Tam")}
    assert odds["Thrain"] == odds["Tam"] + Fraction(11, 2)
