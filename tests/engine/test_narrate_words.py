"""The log's words say what was rolled and what it meant (`engine.narrate`): R-7's difficulty check
(not "Grey Wolf 2 masters Rending Bite (66.8%)"), and an effect that didn't take hold (not "Rot
Touch … hits." and then nothing)."""

from __future__ import annotations

from fractions import Fraction

from engine_kit import ability, character, enemy_def, give_turn, make_battle
from horizon_tui.engine import events as ev
from horizon_tui.engine import overrides
from horizon_tui.engine.actions import Success, UseAbility, perform
from horizon_tui.engine.narrate import CARRIED, describe
from horizon_tui.engine.runner import begin, override

ROT_TOUCH = ability("Rot Touch", "III", "effect", target="enemy",
                    effects=[{"effect": "disease", "chance": 0.6, "duration": 3, "magnitude": 2, "stat": "physical"}])


def _battle():
    acolyte = enemy_def("acolyte", character("Acolyte", abilities=[ROT_TOUCH]))
    return make_battle(party=[(character("Ann"), (1, 1))], enemies=[(acolyte, (3, 1))])


def test_r7_a_difficulty_check_says_it_was_rolled_for_an_ability_above_the_level_and_what_came_of_it():
    battle = _battle()
    passed = ev.Check(actor="acolyte", kind="difficulty", chance=0.668, success=True, ability="Rot Touch")
    assert describe(battle, passed) == (
        "Acolyte passes the difficulty check for Rot Touch, above its level (66.8% chance): it works.")
    fizzled = ev.Check(actor="acolyte", kind="difficulty", chance=0.668, success=False, outcome="fizzle",
                       ability="Rot Touch")
    assert describe(battle, fizzled) == (
        "Acolyte fails the difficulty check for Rot Touch, above its level (66.8% chance): it fizzles.")
    astray = ev.Check(actor="acolyte", kind="difficulty", chance=0.5, success=False, outcome="random",
                      ability="Rot Touch")
    assert describe(battle, astray).endswith("(50% chance): it flies astray.")


def test_an_effect_that_does_not_take_hold_is_said_with_its_chance():
    battle = _battle()
    missed = ev.Check(actor="acolyte", kind="effect", chance=0.6, success=False, ability="Rot Touch", target="ann")
    assert describe(battle, missed) == "Rot Touch's disease doesn't take hold on Ann (60% chance)."
    took = ev.Check(actor="acolyte", kind="effect", chance=0.6, success=True, ability="Rot Touch", target="ann")
    assert describe(battle, took) is None  # the effect's own line follows: "Ann suffers disease …"
    hidden = describe(battle, missed, frozenset({"ann"}))
    assert hidden == "Rot Touch's disease doesn't take hold on someone unseen (60% chance)."


def test_an_ability_with_no_attack_line_is_said_to_be_used(new_battle):
    """A skeleton's Death Rattle (an area's fear) left only "Sefa suffers fear" in the log: who
    did it, with what, was never said. With an attack line, that line names it, once."""
    rattle = ability("Death Rattle", "I", "effect", target="area", radius=2,
                     effects=[{"effect": "fear", "chance": 1, "duration": 1}])
    bone = enemy_def("bone", character("Bone", abilities=[rattle, ROT_TOUCH]))
    battle = new_battle(party=[(character("Ann"), (1, 1))], enemies=[(bone, (2, 1))])
    give_turn(battle, "bone")
    start = len(battle.log)
    assert isinstance(perform(battle, UseAbility("bone", "Death Rattle", at=(2, 1)), auto_end=False), Success)
    said = [describe(battle, e) for e in battle.log[start:]]
    assert said[0] == "Bone uses Death Rattle." and "Ann suffers fear (1 turn left)." in said
    give_turn(battle, "bone")
    start = len(battle.log)
    assert isinstance(perform(battle, UseAbility("bone", "Rot Touch", target="ann"), auto_end=False), Success)
    said = [line for line in (describe(battle, e) for e in battle.log[start:]) if line]
    assert not any(line == "Bone uses Rot Touch." for line in said)
    assert sum("Rot Touch" in line and "uses" in line for line in said) == 1  # "uses Rot Touch on Ann and …"


def test_a_state_carried_from_the_last_fight_is_said_as_the_characters_not_as_a_gms_act(new_battle):
    """A run's next fight opened with "GM: starts with health on Sefa — carried from the last
    fight." in a game with no GM, and never said how much."""
    battle = new_battle(party=[(character("Ann", abilities=[ROT_TOUCH]), (1, 1))],
                        enemies=[(enemy_def(), (4, 1))])
    begin(battle)
    start = len(battle.log)
    for change in (overrides.StartHealth("ann", 133, CARRIED), overrides.SetCharges("ann", "III", 1, CARRIED),
                   overrides.AddEffect("ann", "bleeding", 2, Fraction(20), None, CARRIED),
                   overrides.SetCooldown("ann", "Rot Touch", 1, CARRIED)):
        assert isinstance(override(battle, change), Success), change
    said = [line for line in (describe(battle, e) for e in battle.log[start:]) if line]
    assert "Ann starts with 133 health, carried from the last fight." in said
    assert "Ann has 1 charge of III left, carried from the last fight." in said
    assert "Ann is still under bleeding (2 turns left), carried from the last fight." in said
    assert "Ann waits 1 more turn for Rot Touch, carried from the last fight." in said
    assert not any(line.startswith("GM:") for line in said)
    assert isinstance(override(battle, overrides.StartHealth("ann", 100, "")), Success)
    assert describe(battle, battle.log[-1]).startswith("GM: starts with health on Ann")  # a GM's own act
