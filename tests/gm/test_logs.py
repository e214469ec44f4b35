"""Two logs: the GM's full log and the players' recap (no overrides, no tracker keys, no
hidden rolls or NPC statistics); an undone action leaves both; chances half-up everywhere."""

from __future__ import annotations

import re

from fractions import Fraction

from horizon_tui.content.encounters import load_enemies
from horizon_tui.engine import overrides as ov
from horizon_tui.engine.battle import ident, team
from horizon_tui.engine.runner import override
from horizon_tui.campaign import battles
from horizon_tui.campaign import changes
from horizon_tui.campaign.export import gm_markdown, session_markdown
from horizon_tui.rules.numbers import percent_text


def test_tracker_keys_are_not_overrides_and_the_recap_hides_the_gms_side(session, catalogue):
    enemies = load_enemies(catalogue)
    campaign, live = battles.start_battle(session.campaign, "goblin_ambush", ["Brakka", "Iriel"], catalogue,
                                          session.rules_for, enemies, seed=3)
    session.apply(lambda c: campaign, "battle")
    battle = live.battle
    brakka = next(ident(e).id for e in battle.combatants() if ident(e).name == "Brakka")
    foe = next(ident(e).id for e in battle.active.values() if team(e) == "enemies")
    override(battle, ov.Reorder(brakka, 0), live.inputs)  # tracker keys
    override(battle, ov.SetInitiative(foe, 3), live.inputs)
    override(battle, ov.SetController(foe, "gm"), live.inputs)
    cell = battles.quick_enemy("Lurker", 2, 30, "dagger", catalogue, enemies)
    battle.enemy_defs[cell.id] = cell
    spot = ov.revive_cell(battle, foe)
    override(battle, ov.Reinforce(cell.id, spot, "enemies", "Lurker", True), live.inputs)  # hidden to the end
    override(battle, ov.SetHealth(brakka, 0, "crushed"), live.inputs)  # a real override
    override(battle, ov.Revive(brakka, 5, ov.revive_cell(battle, brakka), "a potion"), live.inputs)
    foes = tuple(ident(e).id for e in battle.active.values() if team(e) == "enemies")
    override(battle, ov.Damage(foes, 10_000, "the roof"), live.inputs)
    session.apply(lambda c: battles.finish_battle(c, live), "battle ends")
    data = session.campaign.log[-1].data
    kinds = [o.split(" on ")[0] for o in data["overrides"]]
    assert kinds[:2] == ["set health 0", "revive 5"] and set(kinds[2:]) == {"damage 10000"}
    assert {t.split(" ")[0] for t in data["tracker"]} == {"initiative", "controller", "joins"}
    recap, full = session_markdown(session.campaign), gm_markdown(session.campaign)
    assert "Back on their feet: Brakka" in recap and "override" not in recap and "crushed" not in recap
    assert "Brakka (unconscious)" not in recap  # revived: not among the defeated
    assert "Lurker" not in recap.split("Defeated")[0]  # still hidden: never named as joining
    assert "override: set health 0 on Brakka (crushed)" in full
    assert re.search(r"tracker: initiative \d+(st|nd|rd|th) → 1st on Brakka", full)  # what changed, from → to


def test_an_undone_roll_or_check_leaves_both_logs(session):
    session.apply(lambda c: changes.roll_dice(c, "1d20")[0], "roll")
    assert "1d20 =" in gm_markdown(session.campaign) and "1d20" not in session_markdown(session.campaign)
    session.undo()
    assert "1d20 =" not in gm_markdown(session.campaign)
    plan = changes.plan_check(session.campaign, "Iriel", "Mayor Oswin", "charm", 0, session.rules)
    session.apply(lambda c: changes.roll_check(c, plan, "Please.", session.rules)[0], "check")
    assert "Mayor Oswin" in session_markdown(session.campaign)
    session.undo()
    assert "Please." not in session_markdown(session.campaign) and "Please." not in gm_markdown(session.campaign)


def test_chances_are_shown_half_up_to_one_decimal():
    """52.5 % is 52.5% everywhere (it showed as 52 % in one place and 53 % in another)."""
    assert percent_text(Fraction(21, 40)) == "52.5%"
    assert percent_text(Fraction(1, 3)) == "33.3%" and percent_text(Fraction(2, 3)) == "66.7%"
    assert percent_text(1) == "100%" and percent_text(Fraction(1, 2000)) == "0.1%"


def test_table_talk_is_in_both_logs_and_whispers_only_in_the_gms(session):
    from horizon_tui.table.talk import TalkRoom

    room = TalkRoom(seed=5)
    seats = {"mira": "gm", "alice": "player"}
    said = [room.say("alice", "player", "Watch the *door* <b>now</b> [link](x)", 0.0, seats),
            room.say("alice", "player", "/w I keep the ring", 1.0, seats),
            room.say("alice", "player", "/roll 2d6+3", 2.0, seats),
            room.say("mira", "gm", "/sroll 1d20", 3.0, seats)]
    for line in said:
        session.apply(lambda c, line=line: changes.log_talk(c, line.to_dict()), "talk")
    roll = said[2]
    recap, full = session_markdown(session.campaign), gm_markdown(session.campaign)
    assert "### At the table" in recap
    assert r"- alice: Watch the \*door\* \<b\>now\</b\> \[link\](x)" in recap  # as typed, never rendered
    assert f"- alice rolls 2d6 + 3: \\[{roll.faces[0]}, {roll.faces[1]}\\] = {roll.total}" in recap
    assert "ring" not in recap and "secretly" not in recap
    assert "*talk* — alice → GM: I keep the ring" in full and "*talk* — GM rolls secretly 1d20" in full
