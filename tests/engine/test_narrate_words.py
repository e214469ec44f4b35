"""The log's words say what was rolled and what it meant (`engine.narrate`): R-7's difficulty check
(not "Grey Wolf 2 masters Rending Bite (66.8%)"), and an effect that didn't take hold (not "Rot
Touch … hits." and then nothing)."""

from __future__ import annotations

from engine_kit import ability, character, enemy_def, make_battle
from horizon_tui.engine import events as ev
from horizon_tui.engine.narrate import describe

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
