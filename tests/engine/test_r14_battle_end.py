"""R-14 the end of a battle: one side gone, the round cap's draw, XP shared by those standing."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine_kit import character, enemy_def, events, give_turn, rules_with, setup
from horizon_tui.engine import runner
from horizon_tui.engine.actions import Attack, Impossible, Move, Wait, perform
from horizon_tui.engine.battle import hp
from horizon_tui.engine.forming import PartyMember, create_battle
from horizon_tui.engine.effects import apply_effect, deal_damage
from horizon_tui.engine.persist import BattleInProgress, session_from_dict, session_to_dict
from horizon_tui.errors import DataError

SEALED = ["...#...", "...#...", "...#..."]  # two rooms with no way between


def finish_off(battle, attacker, target):
    """Bring `target` to 1 health and stun it, then a melee blow is a sure kill."""
    deal_damage(battle, battle[target], hp(battle[target]).hp - 1, "test")
    apply_effect(battle, battle[target], "stun", duration=1, magnitude=Fraction(0), source=None)
    give_turn(battle, attacker)
    return perform(battle, Attack(attacker, target))


def two_on_two(new_battle):
    return new_battle(party=[(character("Ann"), (3, 2)), (character("Bo"), (3, 4))],
                      enemies=[(enemy_def(xp=20), (4, 2), "Grunt 1"), (enemy_def(xp=20), (4, 4), "Grunt 2")])


def test_r14_the_battle_ends_when_one_side_has_nobody_left(new_battle):
    battle = two_on_two(new_battle)
    deal_damage(battle, battle["grunt-1"], 10_000, "test")
    assert not battle.over  # its side still has Grunt 2
    finish_off(battle, "bo", "grunt-2")
    assert battle.over  # at once, not when the turn ends
    result = battle.log[-1]
    assert result.type == "result" and result.winner == "party" and result.rounds == battle.round == 1
    assert perform(battle, Wait("bo")) == Impossible("the battle is over")


def test_r14_fleeing_counts_as_gone(new_battle):
    battle = new_battle(party=[(character("Ann"), (0, 2))], enemies=[(enemy_def(), (8, 2))])
    give_turn(battle, "ann")
    perform(battle, Move("ann", (-1, 2)))
    assert battle.over and battle.log[-1].winner == "enemies"
    assert battle.log[-1].xp == {"Ann": 0}


def test_r14_xp_is_shared_equally_by_the_characters_standing(new_battle):
    battle = two_on_two(new_battle)
    deal_damage(battle, battle["grunt-1"], 10_000, "test")
    finish_off(battle, "bo", "grunt-2")
    assert battle.log[-1].xp == {"Ann": 20, "Bo": 20}  # 2 × 20 XP, 2 standing


def test_r14_an_unconscious_character_gets_no_share(new_battle):
    battle = two_on_two(new_battle)
    deal_damage(battle, battle["bo"], 10_000, "test")
    assert events(battle, "defeated")[-1].state == "unconscious"
    deal_damage(battle, battle["grunt-2"], 10_000, "test")
    finish_off(battle, "ann", "grunt-1")
    assert battle.log[-1].xp == {"Ann": 40, "Bo": 0}


def test_r14_an_allied_npc_takes_no_share_and_the_save_keeps_it_an_ally(catalogue):
    """R-14: four player characters beside an allied NPC share a 40 XP pool: 10 each, none to the
    ally (it took a fifth, 8 each, and the GM tool dropped its 8). A saved battle keeps the ally."""

    names = ["Ann", "Bo", "Cy", "Di"]
    party = [PartyMember(character(n), "ai") for n in names] + [PartyMember(character("Tamsin"), "gm", level=2, ally=True)]
    grunt = enemy_def(xp=40)
    s = setup(["......", "......", "......"], [(2, 1), (0, 0), (0, 1), (0, 2), (1, 0)], [(grunt, (3, 1), "Grunt")])
    battle = create_battle(s, party, 1, catalogue, {grunt.id: grunt})
    finish_off(battle, "ann", "grunt")
    assert battle.log[-1].xp == {"Ann": 10, "Bo": 10, "Cy": 10, "Di": 10}
    data = session_to_dict(BattleInProgress(battle, "test", party), catalogue)
    assert [m.get("ally", False) for m in data["party"]] == [False, False, False, False, True]
    data["party"][4]["ally"] = "yes"
    with pytest.raises(DataError, match="party.4.ally"):
        session_from_dict(data, catalogue, {grunt.id: grunt}, "save.json", setup=s)


def test_r14_fled_enemies_give_no_xp(new_battle):
    battle = new_battle(party=[(character("Ann"), (3, 2))],
                        enemies=[(enemy_def(xp=20), (4, 2), "Grunt 1"), (enemy_def(xp=30), (8, 2), "Grunt 2")])
    give_turn(battle, "grunt-2")
    perform(battle, Move("grunt-2", (9, 2)))
    finish_off(battle, "ann", "grunt-1")
    assert battle.log[-1].winner == "party" and battle.log[-1].xp == {"Ann": 20}


def test_r14_the_round_cap_ends_in_a_draw(new_battle, catalogue):
    capped = rules_with(catalogue, round_cap=3)
    battle = new_battle(SEALED, party=[(character("Ann"), (0, 1))], enemies=[(enemy_def(), (6, 1))],
                        catalogue=capped)
    runner.play_out(battle)
    result = battle.log[-1]
    assert (result.type, result.winner, result.rounds) == ("result", "draw", 3)
    assert [e.round for e in events(battle, "round")] == [1, 2, 3]
    assert result.xp == {"Ann": 0}
