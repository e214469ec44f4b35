"""The battlefield's input modes without Textual: every direction key moves (or moves the
cursor, the same way in every cursor mode), the edge asks, impossible actions are refused at the
key before any cursor opens (R-6 usability, R-13 free actions)."""

from __future__ import annotations

from dataclasses import replace

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
from engine_kit import ability, character, enemy_def, give_turn, make_battle  # noqa: E402

from horizon_tui.engine.actions import Attack, Move, Success, UseAbility, Wait, perform  # noqa: E402
from horizon_tui.engine.battle import comp, pos, put  # noqa: E402
from horizon_tui.engine.components import Cooldowns, Loadout, TurnState  # noqa: E402
from horizon_tui.engine.readmodel import Reader  # noqa: E402
from horizon_tui.engine.viewer import Viewer  # noqa: E402
from horizon_tui.ui.battle.modes import (  # noqa: E402
    DIRECTIONS, Act, LookMode, MoveMode, Stay, Switch, TargetMode, TravelMode,
)
from horizon_tui.play.keymap import BATTLE_KEYS, DIRECTION_IDS  # noqa: E402

def _known(battle):
    """The party's read model of `battle`, as the screen gives its modes."""
    reader = Reader(Viewer.of_side("party"))
    return lambda: reader.model(battle)


HEAL = ability("Mend", "II", "effect", target="self", effects=[{"effect": "heal", "chance": 1, "magnitude": 50}])
BOLT = ability("Bolt", "III", "damage", target="enemy")


def _battle(hero_at=(4, 2), foe_at=(8, 4), weapon="longsword"):
    battle = make_battle(party=[(character("Hero", weapon=weapon, abilities=[HEAL, BOLT]), hero_at, "player")],
                         enemies=[(enemy_def("foe"), foe_at)])
    give_turn(battle, "hero")
    return battle, battle["hero"]


@pytest.mark.parametrize("direction", sorted(DIRECTIONS))
def test_each_direction_steps_one_cell_that_way(direction):
    battle, hero = _battle()
    outcome = MoveMode(battle, _known(battle)).on_key(direction, hero)
    dx, dy = DIRECTIONS[direction]
    assert outcome == Act(Move("hero", (4 + dx, 2 + dy)))


def test_every_direction_has_arrows_vi_keys_and_both_numpads():
    keys = {c.id: set(c.keys) for c in BATTLE_KEYS}
    expected = {"up": {"up", "k", "8", "kp_8"}, "down": {"down", "j", "2", "kp_2"},
                "left": {"left", "h", "4", "kp_4"}, "right": {"right", "l", "6", "kp_6"},
                "up_left": {"home", "y", "7", "kp_7"}, "up_right": {"pageup", "u", "9", "kp_9"},
                "down_left": {"end", "b", "1", "kp_1"}, "down_right": {"pagedown", "n", "3", "kp_3"}}
    for binding_id, name in DIRECTION_IDS.items():
        assert keys[binding_id] >= expected[name]
    # no bare digit does anything but move (or wait, numpad 5): a numpad press never casts
    digits = {k for c in BATTLE_KEYS for k in c.keys if k.isdigit()}
    assert {c.id for c in BATTLE_KEYS if set(c.keys) & digits} == {*DIRECTION_IDS, "battle.wait"}


def test_a_bump_on_an_enemy_attacks_it():
    battle, hero = _battle(foe_at=(5, 2))
    assert MoveMode(battle, _known(battle)).on_key("right", hero) == Act(Attack("hero", "grunt"))


def test_stepping_off_the_edge_asks_first_and_says_it_is_a_defeat():
    battle, hero = _battle(hero_at=(0, 2))
    outcome = MoveMode(battle, _known(battle)).on_key("left", hero)
    assert isinstance(outcome, Act) and outcome.action == Move("hero", (-1, 2))
    assert outcome.ask.startswith("Flee the battle? It counts as a defeat:") and "no XP" in outcome.ask


def test_cursor_modes_move_with_the_same_keys_and_stop_at_the_edge():
    battle, hero = _battle(hero_at=(1, 1))
    for mode in (LookMode(battle, _known(battle), hero, (1, 1)), TravelMode(battle, _known(battle), hero),
                 TargetMode.for_attack(battle, _known(battle), hero)):
        mode.cursor = (1, 1)
        for key in ("up", "up", "left", "left"):
            assert mode.on_key(key, hero) == Stay()
        assert mode.cursor == (0, 0)  # one step each way, then the edge holds it
        for key in ("down_right", "right", "down"):
            mode.on_key(key, hero)
        assert mode.cursor == (2, 2)
        assert mode.on_key("cancel", hero) == Switch(None)


def test_look_is_not_a_direction_key_and_opens_on_the_character():
    battle, hero = _battle()
    outcome = MoveMode(battle, _known(battle)).on_key("look", hero)
    assert isinstance(outcome, Switch) and isinstance(outcome.mode, LookMode) and outcome.mode.cursor == (4, 2)
    keys = {c.id: c.keys for c in BATTLE_KEYS}
    assert not set(keys["battle.look"]) & {k for i in DIRECTION_IDS for k in keys[i]}


def test_travel_walks_to_the_cursor():
    battle, hero = _battle()
    outcome = MoveMode(battle, _known(battle)).on_key("travel", hero)
    travel = outcome.mode
    for key in ("right", "right", "down"):
        travel.on_key(key, hero)
    assert travel.on_key("confirm", hero) == Act(Move("hero", (6, 3), partial=True))


def test_r6_a_cooling_ability_is_refused_at_the_key_and_spends_nothing():
    battle, hero = _battle()
    slot = list(comp(hero, Loadout).slotted)
    number = slot.index("Bolt") + 1
    put(hero, Cooldowns, Cooldowns({"Bolt": comp(hero, TurnState).own_turns + 2}))
    before = len(battle.log)
    outcome = MoveMode(battle, _known(battle)).on_key(f"ability{number}", hero)
    assert isinstance(outcome, Stay) and outcome.refused and "cooling down: 2 turns left" in outcome.say
    assert len(battle.log) == before


def test_r6_a_heal_at_full_health_is_refused_at_the_key():
    battle, hero = _battle()
    number = list(comp(hero, Loadout).slotted).index("Mend") + 1
    outcome = MoveMode(battle, _known(battle)).on_key(f"ability{number}", hero)
    assert isinstance(outcome, Stay) and outcome.refused and "full health" in outcome.say


def test_after_acting_attack_and_abilities_are_refused_at_the_key():
    battle, hero = _battle(foe_at=(5, 2))
    perform(battle, Attack("hero", "grunt"))
    assert comp(hero, TurnState).acted
    mode = MoveMode(battle, _known(battle))
    attack = mode.on_key("attack", hero)
    assert isinstance(attack, Stay) and attack.refused and "already acted" in attack.say
    number = list(comp(hero, Loadout).slotted).index("Bolt") + 1
    assert "already acted" in mode.on_key(f"ability{number}", hero).say


def test_an_attack_no_target_could_take_is_refused_with_the_reason():
    battle, hero = _battle(foe_at=(8, 4))  # a longsword reaches 0 cells (R-11)
    outcome = MoveMode(battle, _known(battle)).on_key("attack", hero)
    assert isinstance(outcome, Stay) and outcome.refused and "out of range" in outcome.say


def test_targeting_opens_on_the_nearest_target_and_confirm_attacks_it():
    battle, hero = _battle(foe_at=(5, 3))
    outcome = MoveMode(battle, _known(battle)).on_key("attack", hero)
    assert isinstance(outcome, Switch) and outcome.mode.cursor == (5, 3)
    assert outcome.mode.on_key("confirm", hero) == Act(Attack("hero", "grunt"))


def test_a_slot_key_never_spends_a_charge_in_one_press_a_second_key_confirms():
    """shift+N opened a self ability's use at once (`@` is Crawl's status key): now it opens the
    slot's targeting on the user, and enter or the same key again uses it."""
    from horizon_tui.engine.battle import hp

    battle, hero = _battle()
    hero_hp = hp(hero)
    put(hero, type(hero_hp), type(hero_hp)(hero_hp.hp - 100, hero_hp.max_hp))
    number = list(comp(hero, Loadout).slotted).index("Mend") + 1
    opened = MoveMode(battle, _known(battle)).on_key(f"ability{number}", hero)
    assert isinstance(opened, Switch) and opened.mode.cursor == (4, 2)
    assert opened.mode.on_key(f"ability{number}", hero) == Act(UseAbility("hero", "Mend"))
    assert opened.mode.on_key("confirm", hero) == Act(UseAbility("hero", "Mend"))
    battle, hero = _battle(foe_at=(5, 3))  # within Bolt's reach
    bolt = list(comp(hero, Loadout).slotted).index("Bolt") + 1
    aimed = MoveMode(battle, _known(battle)).on_key(f"ability{bolt}", hero)
    assert isinstance(aimed, Switch)
    assert aimed.mode.on_key(f"ability{bolt}", hero) == Act(UseAbility("hero", "Bolt", target="grunt"))
    assert MoveMode(battle, _known(battle)).on_key("wait", hero) == Act(Wait("hero"))


def test_not_the_players_turn_only_look_works():
    battle, hero = _battle()
    assert MoveMode(battle, _known(battle)).on_key("up", None) == Stay()
    assert isinstance(MoveMode(battle, _known(battle)).on_key("look", None), Switch)
    assert pos(hero) == (4, 2)


def test_looking_while_an_enemy_acts_visits_only_whom_the_side_sees():
    """Tab in look mode, not on one's own turn, used to visit everyone (the GM's sight): the foe
    behind the wall too, naming it and showing where it stands."""
    rows = ["....#....", "....#....", "....#...."]
    battle = make_battle(rows, party=[(character("Hero"), (1, 1), "player")], enemies=[(enemy_def("foe"), (7, 1))])
    give_turn(battle, "grunt")
    outcome = MoveMode(battle, _known(battle)).on_key("look", None)
    assert isinstance(outcome, Switch)
    look = outcome.mode
    assert look.cursor == (0, 0)  # not where the unseen foe acts
    seen = set()
    for _ in range(4):
        look.on_key("next", None)
        seen.add(look.cursor)
    assert seen == {(1, 1)}


# --- auto-fight (Tab in move mode; in a cursor it stays "next target") ---------------------------


def test_tab_attacks_the_nearest_enemy_in_reach():
    from horizon_tui.ui.battle.modes import AutoFight

    battle, hero = _battle(foe_at=(5, 3))
    assert MoveMode(battle, _known(battle), auto=AutoFight()).on_key("next", hero) == Act(Attack("hero", "grunt"))


def test_tab_walks_toward_an_enemy_out_of_reach_then_ends_the_turn_when_it_can_do_neither():
    from horizon_tui.ui.battle.modes import AutoFight

    battle, hero = _battle(hero_at=(0, 2), foe_at=(8, 2))
    auto = AutoFight()
    outcome = MoveMode(battle, _known(battle), auto=auto).on_key("next", hero)
    assert outcome == Act(Move("hero", (7, 2), partial=True))  # the free cell beside it, nearest the hero
    put(hero, TurnState, _spent_movement(hero))
    assert MoveMode(battle, _known(battle), auto=auto).on_key("next", hero) == Act(Wait("hero"))


def _spent_movement(hero):

    return replace(comp(hero, TurnState), movement_left=0)


def test_tab_after_an_archers_shot_ends_the_turn_where_she_shot_from():
    """Found by hand: Tab shot from 5 squares, and the next Tab walked the archer to the foe's side
    (movement was left after the action). R-11: a longbow (45) reaches every cell of this field."""
    from horizon_tui.ui.battle.modes import AutoFight

    battle, archer = _battle(hero_at=(1, 2), foe_at=(7, 2), weapon="longbow")
    auto = AutoFight()
    shot = MoveMode(battle, _known(battle), auto=auto).on_key("next", archer)
    assert shot == Act(Attack("hero", "grunt"))
    assert isinstance(perform(battle, shot.action), Success) and comp(archer, TurnState).movement_left > 0
    assert MoveMode(battle, _known(battle), auto=auto).on_key("next", archer) == Act(Wait("hero"))
    assert pos(archer) == (1, 2)


def test_tab_hides_one_who_is_afraid():
    """R-10 fear allows no attack and no step toward the foe: Tab walked the afraid one toward it
    (a move the engine refuses, press after press); it ends the turn, hiding."""
    from fractions import Fraction

    from horizon_tui.engine.effects import apply_effect
    from horizon_tui.ui.battle.modes import AutoFight

    battle, hero = _battle(hero_at=(1, 2), foe_at=(7, 2))
    apply_effect(battle, hero, "fear", duration=2, magnitude=Fraction(0), source=battle["grunt"])
    hides = MoveMode(battle, _known(battle), auto=AutoFight()).on_key("next", hero)
    assert hides == Act(Wait("hero"))
    assert [e.reason for e in perform(battle, hides.action).events] == ["hides"]


def test_tab_refuses_below_the_players_health_threshold_and_spends_nothing():

    from horizon_tui.engine.components import Health
    from horizon_tui.engine.battle import hp
    from horizon_tui.ui.battle.modes import AutoFight

    battle, hero = _battle(foe_at=(5, 3))
    put(hero, Health, replace(hp(hero), hp=hp(hero).max_hp // 4))
    outcome = MoveMode(battle, _known(battle), auto=AutoFight(stop=0.3)).on_key("next", hero)
    assert isinstance(outcome, Stay) and outcome.refused and "below 30 %" in outcome.say
    assert MoveMode(battle, _known(battle), auto=AutoFight(stop=0.2)).on_key("next", hero) == Act(Attack("hero", "grunt"))
    # found by hand: "(auto_fight_stop in keymap.toml" ended the line at 80 columns, "fight by hand" cut off
    put(hero, Health, Health(12_345, 99_999))
    long = MoveMode(battle, _known(battle), auto=AutoFight(stop=0.3)).on_key("next", hero)
    assert "fight by hand" in long.say and len(long.say) <= 80, long.say


def test_tab_stops_once_when_a_new_enemy_comes_into_view():
    from horizon_tui.ui.battle.modes import AutoFight

    battle = make_battle(party=[(character("Hero"), (4, 2), "player")],
                         enemies=[(enemy_def("foe"), (5, 3)), (enemy_def("foe"), (8, 0), "Late")])
    give_turn(battle, "hero")
    hero = battle["hero"]
    auto = AutoFight(seen={"grunt"})  # the last press saw only the first foe
    again = MoveMode(battle, _known(battle), auto=auto).on_key("next", hero)
    assert isinstance(again, Stay) and again.refused and again.say == "Auto-fight: Tab again fights on — Late just came into view"
    assert isinstance(MoveMode(battle, _known(battle), auto=auto).on_key("next", hero), Act)  # said once: Tab again fights on


def test_tab_stops_once_when_someone_unseen_hits():
    from fractions import Fraction

    from horizon_tui.engine import events as ev
    from horizon_tui.engine.effects import apply_effect
    from horizon_tui.ui.battle.modes import AutoFight

    battle = make_battle(party=[(character("Hero"), (4, 2), "player")],
                         enemies=[(enemy_def("foe"), (5, 3)), (enemy_def("foe"), (8, 0), "Lurker")])
    give_turn(battle, "hero")
    hero = battle["hero"]
    auto = AutoFight()
    assert isinstance(MoveMode(battle, _known(battle), auto=auto).on_key("next", hero), Act)
    lurker = battle["lurker"]
    apply_effect(battle, lurker, "hidden", duration=5, magnitude=Fraction(0), source=lurker)  # R-13: hidden from the party
    battle.emit(ev.Damaged("hero", 5, 100, "lurker"))
    refused = MoveMode(battle, _known(battle), auto=auto).on_key("next", hero)
    assert isinstance(refused, Stay) and refused.refused and "something unseen hit Hero" in refused.say
    assert isinstance(MoveMode(battle, _known(battle), auto=auto).on_key("next", hero), Act)


def test_tab_in_a_cursor_is_still_next_target():
    battle, hero = _battle(foe_at=(5, 3))
    look = LookMode(battle, _known(battle), hero, (4, 2))
    assert look.on_key("next", hero) == Stay() and look.cursor == (5, 3)


def test_tab_ends_the_turn_when_not_even_a_step_toward_the_enemy_is_left():
    """One movement left and rough ground (2 a step) all round: Tab answered "too far: 4 movement
    needed, 1 left" press after press instead of ending the turn (found in a run by hand)."""
    from horizon_tui.ui.battle.modes import AutoFight

    rough = [",,,,,,,,,"] * 5
    battle = make_battle(rows=rough, party=[(character("Hero"), (0, 2), "player")], enemies=[(enemy_def(), (8, 2))])
    hero = give_turn(battle, "hero")
    put(hero, TurnState, replace(comp(hero, TurnState), movement_left=1))
    assert MoveMode(battle, _known(battle), auto=AutoFight()).on_key("next", hero) == Act(Wait("hero"))
    put(hero, TurnState, replace(comp(hero, TurnState), movement_left=2))  # one step: it walks
    assert MoveMode(battle, _known(battle), auto=AutoFight()).on_key("next", hero) == Act(
        Move("hero", (7, 2), partial=True))


def test_tab_ends_the_turn_when_the_only_step_left_is_onto_an_ally():
    """Found by hand at a GM's table: one movement left and an ally on the first step toward the
    enemy, Tab answered "someone is standing in the way" press after press (an ally may be passed,
    not stood on, R-8)."""
    from horizon_tui.ui.battle.modes import AutoFight

    battle = make_battle(party=[(character("Hero"), (0, 2), "player"), (character("Friend"), (1, 2), "player")],
                         enemies=[(enemy_def(), (8, 2))])
    hero = give_turn(battle, "hero")
    put(hero, TurnState, replace(comp(hero, TurnState), movement_left=1))
    assert MoveMode(battle, _known(battle), auto=AutoFight()).on_key("next", hero) == Act(Wait("hero"))
    put(hero, TurnState, replace(comp(hero, TurnState), movement_left=2))  # past the friend: it walks
    walked = MoveMode(battle, _known(battle), auto=AutoFight()).on_key("next", hero)
    assert walked == Act(Move("hero", (7, 2), partial=True))
    assert isinstance(perform(battle, walked.action, auto_end=False), Success)
