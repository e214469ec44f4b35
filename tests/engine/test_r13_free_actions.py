"""R-13 free actions: the stock solo menu, a GM's ruling, inventing an ability; each costs a point."""

from __future__ import annotations

from fractions import Fraction

from engine_kit import character, enemy_def, events, give_turn
from horizon_tui.content.models import Ability, AbilityKind, Difficulty
from horizon_tui.engine import ai
from horizon_tui.engine.actions import Attack, FreeAction, Impossible, InventAbility, Success, Swap, Wait, perform
from horizon_tui.engine.battle import comp, effects, gear, stats
from horizon_tui.engine.components import FreeActions, Loadout, TurnState


def duel(new_battle, seed=1, hero=None):
    return new_battle(party=[(hero or character("Hero"), (3, 2))], enemies=[(enemy_def(), (4, 2))], seed=seed)


def stock(new_battle, name, seed):
    battle = duel(new_battle, seed)
    give_turn(battle, "hero")
    start = len(battle.log)
    target = None if name == "hide" else "grunt"
    outcome = perform(battle, FreeAction("hero", stock=name, target=target))
    assert isinstance(outcome, Success), outcome
    return battle, start


def test_r13_shove_knocks_down_with_its_stated_chance_spending_a_point_and_the_turn(new_battle):
    seen = set()
    for seed in range(10):
        battle, start = stock(new_battle, "shove", seed)
        hero = battle["hero"]
        (free,) = events(battle, "free_action", start)
        assert (free.actor, free.target, free.points_left) == ("hero", "grunt", 1)  # level 2: 2 points
        assert comp(hero, FreeActions).points == 1 and comp(hero, TurnState).acted
        (check,) = events(battle, "check", start)
        assert (check.kind, check.chance) == ("free_action", 0.5)
        assert effects(battle["grunt"]).has("knockdown") == check.success
        seen.add(check.success)
    assert seen == {True, False}


def test_r13_throw_dirt_blinds(new_battle):
    for seed in range(10):
        battle, start = stock(new_battle, "throw dirt", seed)
        (check,) = events(battle, "check", start)
        assert check.chance == 0.6
        if check.success:
            (effect,) = events(battle, "effect", start)
            assert (effect.target, effect.effect, effect.duration) == ("grunt", "blindness", 2)
            return
    raise AssertionError("no seed of 10 landed the dirt")


def test_r13_hide_makes_untargetable_until_it_acts(new_battle):
    for seed in range(10):
        battle, start = stock(new_battle, "hide", seed)
        (check,) = events(battle, "check", start)
        # stealth 11.2 against the grunt's perception 6: 11.2 ÷ 17.2
        assert check.chance == float(Fraction("11.2") / Fraction("17.2"))
        if check.success:
            break
    else:
        raise AssertionError("no seed of 10 hid the hero")
    assert effects(battle["hero"]).has("hidden")
    grunt = give_turn(battle, "grunt")
    assert perform(battle, Attack("grunt", "hero")) == Impossible("no one to target there")
    ai.take_turn(battle, grunt)
    assert not [e for e in events(battle, "attack") if e.actor == "grunt"]  # the AI doesn't see it either
    give_turn(battle, "hero")
    perform(battle, Attack("hero", "grunt"))
    assert not effects(battle["hero"]).has("hidden")  # acting reveals it
    assert [e.effect for e in events(battle, "effect") if e.ended] == ["hidden"]


def test_r13_no_points_left_is_refused(new_battle):
    battle = duel(new_battle)
    for _ in range(2):
        give_turn(battle, "hero")
        assert isinstance(perform(battle, FreeAction("hero", stock="shove", target="grunt")), Success)
    give_turn(battle, "hero")
    assert perform(battle, FreeAction("hero", stock="shove", target="grunt")) == Impossible(
        "no free-action points left")
    assert not comp(battle["hero"], TurnState).acted
    assert perform(battle, FreeAction("hero", stock="juggle", target="grunt")) == Impossible(
        "no free-action points left")


def test_r13_unknown_stock_action_names_the_stock_ones(new_battle):
    battle = duel(new_battle)
    give_turn(battle, "hero")
    assert perform(battle, FreeAction("hero", stock="juggle", target="grunt")) == Impossible(
        "no free action 'juggle'; the stock ones are shove, throw dirt, hide")


def test_r13_gm_adjudicated_free_action_certain_or_on_a_stated_chance(new_battle):
    battle = duel(new_battle)
    give_turn(battle, "hero")
    start = len(battle.log)
    beam = FreeAction("hero", target="grunt", description="brings the rotten beam down", effect="stun", duration=1)
    assert isinstance(perform(battle, beam), Success)
    (free,) = events(battle, "free_action", start)
    assert free.description == "brings the rotten beam down"
    assert not events(battle, "check", start)  # certain: no roll
    assert effects(battle["grunt"]).has("stun")
    assert perform(battle, Wait("hero")).events == []  # already acted: nothing more to log

    give_turn(battle, "hero")
    start = len(battle.log)
    rocks = FreeAction("hero", target="grunt", description="kicks loose rocks down the slope", effect="damage",
                       magnitude=Fraction(40), chance=Fraction(3, 10))
    perform(battle, rocks)
    (check,) = events(battle, "check", start)
    assert (check.kind, check.chance) == ("free_action", 0.3)
    assert [(d.amount, d.source) for d in events(battle, "damage", start)] == ([(40, "hero")] if check.success else [])
    assert comp(battle["hero"], FreeActions).points == 0
    assert perform(battle, FreeAction("hero", target="grunt", description="nothing")) in (
        Impossible("already acted this turn"), Impossible("no free-action points left"))


def test_r13_a_free_action_needs_an_effect(new_battle):
    battle = duel(new_battle)
    give_turn(battle, "hero")
    assert perform(battle, FreeAction("hero", target="grunt", description="shouts")) == Impossible(
        "a free action needs an effect (the GM's ruling)")


def test_r13_inventing_an_ability_costs_a_point(new_battle):
    battle = duel(new_battle, hero=character("Hero", abilities=[{"name": "Cleave", "difficulty": "II",
                                                                 "kind": "damage"}]))
    hero = give_turn(battle, "hero")
    riposte = Ability(name="Riposte", difficulty=Difficulty.II, kind=AbilityKind.damage)
    start = len(battle.log)
    assert isinstance(perform(battle, InventAbility("hero", riposte)), Success)
    (free,) = events(battle, "free_action", start)
    assert (free.description, free.points_left) == ("invents Riposte", 1)
    assert gear(hero).character.ability("Riposte") == riposte
    assert perform(battle, InventAbility("hero", riposte)) == Impossible(
        "Hero already knows an ability called 'Riposte'")
    assert isinstance(perform(battle, Swap("hero", remove="Cleave", add="Riposte")), Success)
    assert comp(hero, Loadout).slotted == ("Riposte",)
    assert stats(hero)["evasion"] == Fraction("19.1")
