"""R-6 abilities: slots and loadouts, pooled charges, cooldowns, passives, swaps, companions."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine_kit import ability, character, enemy_def, events, give_turn, make_battle, next_turn_of
from horizon_tui.content.models import Difficulty
from horizon_tui.engine.actions import Impossible, Success, Swap, TogglePassive, UseAbility, Wait, perform
from horizon_tui.engine.battle import BattleError, cid, comp, ident, pos, stats, team
from horizon_tui.engine.components import Charges, Loadout, TurnState

II, III = Difficulty.II, Difficulty.III
CLEAVE = ability("Cleave", "II", target="enemy")
FOCUS = ability("Focus", "II", kind="effect", target="self",
                effects=[{"effect": "buff", "stat": "accuracy", "magnitude": 2, "duration": 1}])
BASH = ability("Bash", "III", target="enemy")
KICK = ability("Kick", "II", target="enemy")
IRON_SKIN = ability("Iron Skin", "II", kind="passive", replaceable=False, modifiers={"evasion": 2})
STONE_WARD = ability("Stone Ward", "II", kind="passive", modifiers={"evasion": 3})


def duel(hero, seed=1, **kwargs):
    """The hero beside a grunt on an open field."""
    return make_battle(party=[(hero, (3, 2))], enemies=[(enemy_def(), (4, 2))], seed=seed, **kwargs)


def test_r6_loadout_over_the_slot_count_is_refused_before_battle():
    # level 2: 3 slots
    hero = character("Hero", abilities=[CLEAVE, FOCUS, BASH, KICK])
    with pytest.raises(BattleError, match=r"4 abilities slotted .* level 2 has 3 slots"):
        duel(hero)


def test_r6_a_non_replaceable_passive_takes_a_slot_even_when_not_listed():
    hero = character("Hero", abilities=[IRON_SKIN, CLEAVE, FOCUS, BASH], loadout=["Cleave", "Focus", "Bash"])
    with pytest.raises(BattleError, match=r"4 abilities slotted \(1 of them non-replaceable passives\)"):
        duel(hero)


def test_r6_passives_over_the_charges_are_refused():
    # level 2 has 1 charge of IV: two IV passives can't both hold one
    wards = [ability(f"Ward {n}", "IV", kind="passive", replaceable=False) for n in (1, 2)]
    with pytest.raises(BattleError, match=r"2 passives of difficulty IV .* 1 charges of IV"):
        duel(character("Hero", abilities=wards))


def test_r6_each_use_spends_a_charge_of_its_difficulty_and_none_left_is_refused(new_battle):
    hero = character("Hero", abilities=[CLEAVE, FOCUS])
    battle = new_battle(party=[(hero, (3, 2))], enemies=[(enemy_def(), (4, 2))])
    e = give_turn(battle, "hero")
    assert comp(e, Charges).pools[II] == 3  # level 2
    plan = [("Cleave", "grunt", 2), ("Focus", None, 1), ("Cleave", "grunt", 0)]  # alternate: cooldowns
    for name, target, left in plan:
        before = len(battle.log)
        outcome = perform(battle, UseAbility("hero", name, target=target))
        assert isinstance(outcome, Success), outcome
        used = events(battle, "ability", before)
        assert [(u.ability, u.difficulty, u.charges_left) for u in used] == [(name, "II", left)]
        assert comp(e, Charges).pools[II] == left
        perform(battle, Wait("hero"))
        next_turn_of(battle, "hero")
    outcome = perform(battle, UseAbility("hero", "Focus"))
    assert outcome == Impossible("no charges of II left")
    assert comp(e, Charges).pools[II] == 0  # never below 0
    assert not comp(e, TurnState).acted  # a refusal costs nothing


def test_r6_cooldown_difficulty_ii_refused_next_own_turn_and_ready_the_one_after(new_battle):
    battle = new_battle(party=[(character("Hero", abilities=[FOCUS]), (1, 1))], enemies=[(enemy_def(), (7, 3))])
    e = give_turn(battle, "hero")
    t = comp(e, TurnState).own_turns
    assert perform(battle, UseAbility("hero", "Focus")).events[0].cooldown == 1  # II: 1 own turn
    perform(battle, Wait("hero"))

    next_turn_of(battle, "hero")
    assert comp(e, TurnState).own_turns == t + 1
    assert perform(battle, UseAbility("hero", "Focus")) == Impossible("cooling down: 1 turn left")
    perform(battle, Wait("hero"))

    next_turn_of(battle, "hero")
    assert comp(e, TurnState).own_turns == t + 2
    assert isinstance(perform(battle, UseAbility("hero", "Focus")), Success)


def test_r6_non_replaceable_passive_reserves_a_charge_and_its_modifiers_apply(new_battle):
    plain = new_battle(party=[(character("Plain"), (3, 2))], enemies=[(enemy_def(), (5, 2))])
    battle = new_battle(party=[(character("Hero", abilities=[IRON_SKIN, CLEAVE]), (3, 2))],
                        enemies=[(enemy_def(), (5, 2))])
    hero = battle["hero"]
    assert comp(hero, Charges).pools[II] == 2  # level 2 has 3; one held by Iron Skin
    assert comp(plain["plain"], Charges).pools[II] == 3
    assert stats(plain["plain"])["evasion"] == Fraction("19.1")
    assert stats(hero)["evasion"] == Fraction("21.1")  # +2 from the passive
    assert comp(hero, Loadout).slotted == ("Iron Skin", "Cleave")
    assert not events(battle, "check")  # always works: no activation check


def test_r6_replaceable_passive_above_the_level_rolls_an_activation_check(new_battle):
    """Level 2, difficulty III (check dropped at 3): chance = mean normal attack ÷ 150 (R-7)."""
    ward = ability("Stone Ward", "III", kind="passive", modifiers={"evasion": 3})
    outcomes = {}
    for seed in range(20):
        battle = new_battle(party=[(character("Hero", abilities=[ward]), (3, 2))], enemies=[(enemy_def(), (5, 2))],
                            seed=seed)
        (check,) = events(battle, "check")
        assert (check.kind, check.ability, check.actor) == ("activation", "Stone Ward", "hero")
        # longsword 1d8: normal attack 90.55 … 97.55, mean 94.05 (R-9 with the example's stats)
        assert check.chance == float(Fraction("94.05") / 150)
        hero = battle["hero"]
        assert comp(hero, Charges).pools[III] == 1  # the charge is held either way
        active = "Stone Ward" in comp(hero, Loadout).active_passives
        assert active == check.success
        assert stats(hero)["evasion"] == Fraction("19.1") + (3 if active else 0)
        if not check.success:
            assert check.outcome == "fizzle"
        outcomes.setdefault(check.success, seed)
    assert set(outcomes) == {True, False}


def test_r6_swap_costs_the_turn_and_cannot_remove_a_fixed_passive(new_battle):
    hero = character("Hero", abilities=[IRON_SKIN, CLEAVE, FOCUS, KICK], loadout=["Cleave", "Focus"])
    battle = new_battle(party=[(hero, (3, 2))], enemies=[(enemy_def(), (5, 2))])
    e = give_turn(battle, "hero")
    assert perform(battle, UseAbility("hero", "Kick", target="grunt")) == Impossible("Kick is not slotted")
    outcome = perform(battle, Swap("hero", remove="Cleave", add="Kick"))
    assert isinstance(outcome, Success)
    (swap,) = events(battle, "swap")
    assert (swap.actor, swap.removed, swap.added) == ("hero", "Cleave", "Kick")
    assert comp(e, Loadout).slotted == ("Iron Skin", "Kick", "Focus")
    assert comp(e, TurnState).acted  # the turn's action is spent
    assert perform(battle, UseAbility("hero", "Focus")) == Impossible("already acted this turn")
    perform(battle, Wait("hero"))
    next_turn_of(battle, "hero")
    assert perform(battle, Swap("hero", remove="Iron Skin", add="Cleave")) == Impossible(
        "Iron Skin is a non-replaceable passive and can't be removed")
    assert perform(battle, Swap("hero", remove="Kick", add="Focus")) == Impossible("Focus is already slotted")


def test_r6_toggle_passive_off_and_on_costs_the_turn_and_a_charge_to_switch_on(new_battle):
    hero = character("Hero", abilities=[STONE_WARD, IRON_SKIN])
    battle = new_battle(party=[(hero, (1, 1))], enemies=[(enemy_def(), (7, 3))])
    e = give_turn(battle, "hero")
    assert comp(e, Loadout).active_passives == {"Stone Ward"}  # activated before battle
    assert comp(e, Charges).pools[II] == 1  # 3 − Stone Ward − Iron Skin
    assert stats(e)["evasion"] == Fraction("19.1") + 3 + 2
    assert perform(battle, TogglePassive("hero", "Iron Skin")) == Impossible(
        "Iron Skin is non-replaceable: it always works")

    assert isinstance(perform(battle, TogglePassive("hero", "Stone Ward")), Success)
    (toggle,) = events(battle, "toggle")
    assert (toggle.ability, toggle.active) == ("Stone Ward", False)
    assert comp(e, TurnState).acted
    assert comp(e, Loadout).active_passives == frozenset()
    assert stats(e)["evasion"] == Fraction("19.1") + 2
    perform(battle, Wait("hero"))

    next_turn_of(battle, "hero")
    assert isinstance(perform(battle, TogglePassive("hero", "Stone Ward")), Success)
    assert events(battle, "toggle")[-1].active is True
    assert comp(e, Charges).pools[II] == 0  # switching on holds a charge again
    assert stats(e)["evasion"] == Fraction("19.1") + 5
    perform(battle, Wait("hero"))
    next_turn_of(battle, "hero")
    perform(battle, TogglePassive("hero", "Stone Ward"))  # off again
    perform(battle, Wait("hero"))
    next_turn_of(battle, "hero")
    assert perform(battle, TogglePassive("hero", "Stone Ward")) == Impossible("no charges of II left")


def test_r6_companion_passive_spawns_an_ally_beside_its_owner_acting_right_after_it(new_battle):
    wolf = enemy_def("wolf", character("Wolf", weapon="dagger", attributes={
        "physical": 4, "agility": 8, "perception": 6, "cognition": 1, "faith": 1, "beauty": 0}), glyph="w")
    hero = character("Hero", abilities=[ability("Wolf Friend", "II", kind="companion", companion="wolf")])
    battle = new_battle(party=[(hero, (4, 2))], enemies=[(enemy_def(), (8, 0)), (enemy_def(), (8, 4))],
                        enemy_defs={"wolf": wolf})
    (join,) = events(battle, "join")
    companion = battle[join.combatant["id"]]
    assert join.owner == "hero" and ident(companion).owner == "hero" and ident(companion).kind == "companion"
    assert team(companion) == "party"
    hx, hy = pos(battle["hero"])
    cx, cy = pos(companion)
    assert max(abs(cx - hx), abs(cy - hy)) == 1  # beside its owner
    assert battle.order.index(cid(companion)) == battle.order.index("hero") + 1
    assert comp(battle["hero"], Charges).pools[II] == 2  # a passive: it holds a charge
    next_turn_of(battle, "hero")
    perform(battle, Wait("hero"))
    assert battle.current is companion  # acts right after its owner
