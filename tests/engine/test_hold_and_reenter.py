"""The GM's tracker acts in the engine (`engine.overrides`): Hold takes a combatant out of the
turn order, the one acting too (Foundry's tracker, Improved Initiative); ReEnter brings it back
anywhere; a held turn taken up again the same round is not begun twice (R-10: its effects tick
once). Each act logs what it changed, from → to, and replays."""

from __future__ import annotations

from dataclasses import replace

from fractions import Fraction

from engine_kit import EXAMPLE, character, enemy_def, make_battle

from horizon_tui.engine import overrides as ov
from horizon_tui.engine.actions import Attack, Impossible, Move, end_turn
from horizon_tui.engine.battle import comp, effects, hp, ident, put
from horizon_tui.engine.components import TurnState
from horizon_tui.engine.narrate import describe
from horizon_tui.engine.runner import Input, begin, override, replay, submit


def _battle(started: bool = True):
    """Three GM-played combatants: Ann (fastest), Bo, and a grunt the GM plays too."""
    ann = character("Ann", attributes=dict(EXAMPLE, perception=60))
    bo = character("Bo", attributes=dict(EXAMPLE, perception=40))
    battle = make_battle(party=[(ann, (1, 2), "gm"), (bo, (1, 4), "gm")], enemies=[(enemy_def(), (6, 2))], seed=5)
    from horizon_tui.engine.components import Controller

    grunt = battle["grunt"]
    put(grunt, Controller, replace(comp(grunt, Controller), kind="gm"))
    if started:
        begin(battle)
    return battle


def _current(battle) -> str:
    return ident(battle.current).id


def test_hold_the_acting_combatant_then_reenter_it_after_the_next():
    battle = _battle()
    first, second, third = battle.order
    assert _current(battle) == first
    outcome = override(battle, ov.Hold(first))
    assert not isinstance(outcome, Impossible)
    assert battle.order == [second, third] and _current(battle) == second  # the turn passed on
    assert ov.held(battle) == [first]
    hold = outcome.events[0]
    assert (hold.type, hold.what, hold.value) == ("override", "hold", "1st → held")
    # it re-enters right after the one acting now: it acts next, in the same round
    outcome = override(battle, ov.ReEnter(first, 1))
    assert outcome.events[0].value == "held → 2nd"
    assert battle.order == [second, first, third] and _current(battle) == second
    round_now = battle.round
    end_turn(battle)
    assert _current(battle) == first and battle.round == round_now


def test_a_held_turn_taken_up_again_ticks_its_effects_once():
    """Bleeding ticks at a turn's start (R-10): Ann held after her turn began and re-entered the
    same round bleeds once, not twice, and her bleeding is counted off once, at that turn's end."""
    battle = _battle()
    ann = battle.order[0]
    override(battle, ov.AddEffect(ann, "bleeding", 3, Fraction(2)))
    # round 2: Ann's turn begins with the bleed
    for _ in range(3):
        end_turn(battle)
    assert _current(battle) == ann and battle.round == 2
    health = hp(battle[ann]).hp
    left = effects(battle[ann]).get("bleeding").turns_left
    override(battle, ov.Hold(ann))
    override(battle, ov.ReEnter(ann, battle.index + 1))
    end_turn(battle)  # Bo's turn ends: Ann takes up her held turn
    assert _current(battle) == ann and battle.round == 2
    assert hp(battle[ann]).hp == health  # no second bleed
    assert effects(battle[ann]).get("bleeding").turns_left == left  # counted off at the end, not at the hold
    end_turn(battle)
    assert effects(battle[ann]).get("bleeding").turns_left == left - 1


def test_hold_refuses_after_acting_and_for_one_that_has_had_its_turn():
    battle = _battle()
    first, second, _ = battle.order
    assert not isinstance(submit(battle, Move(first, (5, 2)), auto_end=False), Impossible)
    assert not comp(battle[first], TurnState).acted  # a step is not an action: it could still be held
    assert not isinstance(submit(battle, Attack(first, "grunt"), auto_end=False), Impossible)
    refused = override(battle, ov.Hold(first))
    assert isinstance(refused, Impossible) and "has acted this turn" in refused.reason
    end_turn(battle)
    refused = override(battle, ov.Hold(first))
    assert isinstance(refused, Impossible) and "had its turn this round" in refused.reason
    assert isinstance(override(battle, ov.ReEnter(second, 0)), Impossible)  # not held
    assert [e for e in battle.log if e.type == "override"] == []


def test_a_waiting_combatant_held_and_reentered_before_the_current_acts_next_round():
    battle = _battle()
    first, second, third = battle.order
    override(battle, ov.Hold(third))
    assert battle.order == [first, second] and _current(battle) == first
    override(battle, ov.ReEnter(third, 0))  # before the one acting: from the next round on
    assert battle.order == [third, first, second] and _current(battle) == first


def test_tracker_acts_log_from_and_to_and_replay():
    battle = _battle(started=False)
    inputs: list[Input] = []
    begin(battle)
    first, second, third = battle.order
    events = [*override(battle, ov.Reorder(third, 1), inputs).events,
              *override(battle, ov.SetController(second, "ai"), inputs).events,
              *override(battle, ov.AdjustHealth(second, -1), inputs).events]
    values = [(e.what, e.value) for e in events if e.type == "override"]
    top = hp(battle[second]).max_hp
    assert values == [("initiative", "3rd → 2nd"), ("controller", "GM → AI"), ("health", f"{top} → {top - 1}")]
    assert hp(battle[second]).hp == top - 1
    assert "(3rd → 2nd)" in describe(battle, events[0])
    assert isinstance(override(battle, ov.SetController(second, "ai")), Impossible)  # already the AI's
    assert not isinstance(override(battle, ov.AdjustHealth(second, 1000), inputs), Impossible)  # capped
    assert hp(battle[second]).hp == top
    override(battle, ov.Hold(first), inputs)
    override(battle, ov.ReEnter(first, 2), inputs)
    again = _battle(started=False)
    replay(again, inputs)
    assert again.order == battle.order
    assert [e.to_json() for e in again.log] == [e.to_json() for e in battle.log]
