"""GM overrides through the engine: each logs an `override` event, changes exactly what
it says, and replays from a save."""

from __future__ import annotations

from fractions import Fraction

from engine_kit import EXAMPLE, ability, character, enemy_def, give_turn, make_battle

from horizon_tui.engine import overrides as ov
from horizon_tui.engine.actions import Attack, Impossible
from horizon_tui.engine.battle import charge_left, comp, effects, hp, pos
from horizon_tui.engine.components import Charges, Controller, Cooldowns, Presence
from horizon_tui.content.models import Difficulty
from horizon_tui.engine.runner import Input, begin, override, replay, run_ai, submit
from horizon_tui.engine.usability import cooldown_left


def _battle(seed: int = 3):
    hero = character("Hero", attributes=dict(EXAMPLE, perception=40))  # acts first
    return make_battle(party=[(hero, (1, 2), "gm")], enemies=[(enemy_def(), (2, 2))], seed=seed)


def _overrides(battle):
    return [e for e in battle.log if e.type == "override"]


def test_set_health_logs_an_override_then_the_damage_it_means():
    battle = _battle()
    begin(battle)
    outcome = override(battle, ov.SetHealth("grunt", 100, reason="the bridge fell on it"))
    assert not isinstance(outcome, Impossible)
    assert hp(battle["grunt"]).hp == 100
    kinds = [e.type for e in outcome.events]
    assert kinds[:2] == ["override", "damage"]
    assert _overrides(battle)[0].reason == "the bridge fell on it"


def test_set_health_to_zero_fells_and_ends_the_battle():
    battle = _battle()
    begin(battle)
    override(battle, ov.SetHealth("grunt", 0))
    assert battle.result is not None and battle.result.winner == "party"


def test_health_charges_and_cooldowns_are_written_in_place_by_their_writers():
    """The GM's hand changes a component as play does (battle.set_hp, set_charges, set_ready_at):
    the same Health, Charges and Cooldowns objects, their numbers changed; R-6: a cooldown of 2
    refuses the user's next 2 own turns, a reset none."""
    hero = character("Hero", attributes=dict(EXAMPLE, perception=40), abilities=[ability("Bash", "III", target="enemy")])
    battle = make_battle(party=[(hero, (1, 2), "gm")], enemies=[(enemy_def(), (2, 2))], seed=3)
    begin(battle)
    grunt, hero = battle["grunt"], battle["hero"]
    health, charges, cooldowns = hp(grunt), comp(hero, Charges), comp(hero, Cooldowns)
    override(battle, ov.SetHealth("grunt", 120))
    override(battle, ov.SetCharges("hero", "III", 1))
    override(battle, ov.SetCooldown("hero", "Bash", 2))
    assert hp(grunt) is health and health.hp == 120
    assert comp(hero, Charges) is charges and charge_left(hero, Difficulty.III) == 1
    assert comp(hero, Cooldowns) is cooldowns and cooldown_left(battle, hero, "Bash") == 2
    override(battle, ov.ResetCooldown("hero", "Bash"))
    assert comp(hero, Cooldowns) is cooldowns and cooldown_left(battle, hero, "Bash") == 0


def test_effects_charges_cooldowns_and_moves():
    battle = _battle()
    begin(battle)
    override(battle, ov.AddEffect("grunt", "slow", 2, Fraction(50)))
    assert effects(battle["grunt"]).get("slow").magnitude == 50
    override(battle, ov.RemoveEffect("grunt", "slow"))
    assert effects(battle["grunt"]).get("slow") is None
    override(battle, ov.SetCharges("hero", "II", 0))
    assert charge_left(battle["hero"], Difficulty.II) == 0
    assert isinstance(override(battle, ov.SetCharges("hero", "I", 3)), Impossible)
    override(battle, ov.Teleport("hero", (1, 4)))
    assert pos(battle["hero"]) == (1, 4)
    assert isinstance(override(battle, ov.Teleport("hero", (2, 2))), Impossible)  # occupied
    override(battle, ov.SetController("grunt", "gm"))
    assert comp(battle["grunt"], Controller).kind == "gm"
    assert len(_overrides(battle)) == 5  # the two refused ones log nothing


def test_a_forced_check_decides_the_next_roll_without_drawing_from_the_random_source():
    battle = _battle()
    begin(battle)
    state = battle.rng.getstate()
    override(battle, ov.ForceCheck("hero", False, reason="the GM rules a slip"))
    submit(battle, Attack("hero", "grunt"), auto_end=False)
    checks = [e for e in battle.log if e.type == "check" and e.kind == "accuracy"]
    assert checks[-1].success is False
    attack = [e for e in battle.log if e.type == "attack"][-1]
    assert attack.hit is False
    # the forced miss drew nothing; only the AI-free path ran, so the state is unchanged
    assert battle.rng.getstate() == state


def test_overrides_replay_from_recorded_inputs():
    battle = _battle(seed=11)
    inputs: list[Input] = []
    begin(battle)
    override(battle, ov.SetHealth("grunt", 50), inputs)
    override(battle, ov.ForceCheck("hero", True), inputs)
    submit(battle, Attack("hero", "grunt"), inputs)
    run_ai(battle)
    again = _battle(seed=11)
    replay(again, inputs)
    run_ai(again)
    assert [e.to_json() for e in again.log] == [e.to_json() for e in battle.log]


def test_starting_down_on_its_own_turn_passes_the_turn(new_battle):
    """A run's next fight: Morwen ended the last one down and rolled the first turn; her carried
    health 0 left the turn hers, and the AI, asked to play a combatant with no cell, crashed (the
    win chance read "<class 'horizon_tui.engine.components.Position'>")."""
    battle = new_battle(party=[(character("Ann"), (1, 1)), (character("Bo"), (1, 3))],
                        enemies=[(enemy_def(), (6, 2))])
    begin(battle)
    give_turn(battle, "ann")
    assert isinstance(override(battle, ov.StartHealth("ann", 0, "carried from the last fight")), ov.Success)
    assert comp(battle["ann"], Presence) is Presence.unconscious and battle.current is not battle["ann"]
    run_ai(battle)  # played to the end: no one without a cell is asked to act
    assert battle.over
