"""R-10 effects: the nine negative ones, the positive ones, immunity. A duration N covers the
affected combatant's next N own turns; effects tick at the start of each (test_r10_durations.py
counts every effect for durations 1, 2 and 3)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from engine_kit import EXAMPLE, ability, character, enemy_def, events, give_turn, own_turn
from horizon_tui.engine import ai, runner
from horizon_tui.engine.actions import Attack, Impossible, Move, Success, UseAbility, Wait, edge_distances, perform
from horizon_tui.engine.battle import (
    cid, comp, current_attributes, effects, hp, is_downed, is_immobile, movement_budget, pos, stats, team,
)
from horizon_tui.engine.battlefield import UNREACHABLE
from horizon_tui.engine.components import Presence, TurnState
from horizon_tui.engine.narrate import describe
from horizon_tui.engine.resolve import _fear_refusal
from horizon_tui.engine.effects import apply_effect, deal_damage
from horizon_tui.rules.ranges import distance

CLUB = {"name": "Test club", "kind": "one_handed", "damage": "1d1+3"}  # normal attack 93.55


def put(battle, who, effect, duration=1, magnitude=0, source="grunt", **keys):
    src = battle[source] if source else None
    return apply_effect(battle, battle[who], effect, duration=duration, magnitude=Fraction(magnitude),
                        source=src, **keys)


def duel(new_battle, hero=None, **kwargs):
    """The hero beside a grunt, a friend nearby."""
    return new_battle(party=[(hero or character("Hero"), (3, 2)), (character("Pal"), (1, 1))],
                      enemies=[(enemy_def(), (4, 2))], **kwargs)


def test_r10_bleeding_loses_its_magnitude_each_turn_for_its_duration(new_battle):
    battle = duel(new_battle)
    put(battle, "hero", "bleeding", duration=2, magnitude=20)
    (applied,) = events(battle, "effect")
    assert (applied.target, applied.effect, applied.duration, applied.magnitude, applied.source) == (
        "hero", "bleeding", 2, 20, "grunt")
    for turn, left in ((1, 670), (2, 650), (3, 650)):
        start = len(battle.log)
        own_turn(battle, "hero")
        damage = [d for d in events(battle, "damage", start) if d.target == "hero"]
        if turn < 3:
            assert [(d.target, d.amount, d.hp, d.source) for d in damage] == [("hero", 20, left, "grunt")]
        else:
            assert damage == []
        assert hp(battle["hero"]).hp == left
        assert effects(battle["hero"]).has("bleeding") == (turn < 2)
    assert [e.effect for e in events(battle, "effect") if e.ended] == ["bleeding"]


def test_r10_poison_is_separate_from_bleeding(new_battle):
    battle = duel(new_battle)
    put(battle, "hero", "bleeding", duration=1, magnitude=20)
    put(battle, "hero", "poison", duration=2, magnitude=15)
    start = len(battle.log)
    own_turn(battle, "hero")
    assert [d.amount for d in events(battle, "damage", start)] == [20, 15]
    assert [e.effect for e in events(battle, "effect", start) if e.ended] == ["bleeding"]  # after its one turn
    assert effects(battle["hero"]).has("poison") and hp(battle["hero"]).hp == 655
    start = len(battle.log)
    own_turn(battle, "hero")
    assert [d.amount for d in events(battle, "damage", start)] == [15]
    assert not effects(battle["hero"]).active


def test_r10_disease_lowers_attributes_and_derived_stats_and_restores_them(new_battle):
    battle = duel(new_battle)
    hero = battle["hero"]
    put(battle, "hero", "disease", duration=2, magnitude=2, stat="physical")  # all at once
    assert current_attributes(hero)["physical"] == 8
    assert stats(hero)["strength"] == Fraction("16.5")  # 2 × 8 + 0.1 × 5
    assert hp(hero).max_hp == 610  # 690 − 2 × 40
    during = [own_turn(battle, "hero", lambda e: current_attributes(e)["physical"]) for _ in range(3)]
    assert during == [8, 8, 10]  # its two turns, then restored
    assert [e.effect for e in events(battle, "effect") if e.ended] == ["disease"]
    assert current_attributes(hero) == EXAMPLE
    assert stats(hero)["strength"] == Fraction("20.5") and hp(hero).max_hp == 690


def test_r10_disease_on_every_attribute_lowers_max_health(new_battle):
    battle = duel(new_battle)
    hero = battle["hero"]
    put(battle, "hero", "disease", duration=1, magnitude=3)
    assert current_attributes(hero) == {"physical": 7, "agility": 7, "perception": 7, "cognition": 3, "faith": 2,
                                        "beauty": 0}  # never below 0
    assert hp(hero).max_hp == 451  # 40×7 + 10×7 + 8×7 + 5×3 + 15×2
    # the health above the new maximum is lost through the log, like any other loss
    assert [(d.target, d.amount, d.hp, d.source) for d in events(battle, "damage")] == [("hero", 239, 451, "max_hp")]
    assert hp(hero).hp == 451
    assert own_turn(battle, "hero", lambda e: hp(e).max_hp) == 451  # in force through its one turn
    assert current_attributes(hero) == EXAMPLE and hp(hero).max_hp == 690


def test_r10_gradual_disease_takes_some_points_each_turn(new_battle):
    battle = duel(new_battle)
    hero = battle["hero"]
    put(battle, "hero", "disease", duration=3, magnitude=5, stat="agility", gradual=True)
    assert current_attributes(hero)["agility"] == 10  # nothing yet

    def look(e):
        fx = effects(e).get("disease")
        assert current_attributes(e)["agility"] == 10 - fx.applied
        assert stats(e)["evasion"] == Fraction("19.1") - Fraction("1.5") * fx.applied
        return fx.applied

    taken = [own_turn(battle, "hero", look) for _ in range(3)]
    assert taken == [2, 4, 5]  # ⌈5/3⌉, then ⌈3/2⌉, then the last; it ends with the third turn
    assert current_attributes(hero)["agility"] == 10 and stats(hero)["evasion"] == Fraction("19.1")


def test_r10_stun_skips_the_turn(new_battle):
    battle = duel(new_battle)
    put(battle, "hero", "stun", duration=1)
    start = len(battle.log)
    give_turn(battle, "hero")
    waits = events(battle, "wait", start)
    assert [(w.actor, w.reason) for w in waits] == [("hero", "stunned")]
    assert battle.current is not battle["hero"]  # the turn passed by itself
    assert not [e for e in battle.log[start:] if e.type in ("move", "attack") and e.actor == "hero"]
    give_turn(battle, "hero")
    assert battle.current is battle["hero"]  # stunned for one turn only


def test_r10_blindness_stumbles_to_a_free_neighbour_and_forbids_chosen_targets(new_battle):
    rows = ["######", "#....#", "######"]
    battle = new_battle(rows, party=[(character("Hero", abilities=[ability("Cleave")]), (2, 1)),
                                     (character("Pal"), (4, 1))],
                        enemies=[(enemy_def(), (3, 1))])
    put(battle, "hero", "blindness", duration=1)
    start = len(battle.log)
    hero = give_turn(battle, "hero")
    (stumble,) = events(battle, "move", start)
    assert stumble.forced and stumble.path == [[1, 1]]  # the only free cell beside it
    assert pos(hero) == (1, 1) and comp(hero, TurnState).movement_left == 0
    assert perform(battle, Attack("hero", "grunt")) == Impossible("Hero is blinded and can't pick a target")
    assert isinstance(perform(battle, UseAbility("hero", "Cleave", target="grunt")), Impossible)
    perform(battle, Wait("hero"))
    assert [e.effect for e in events(battle, "effect", start) if e.ended] == ["blindness"]  # after its turn


def test_r10_blindness_draws_the_stumble_from_the_free_neighbours(new_battle):
    cells = set()
    for seed in range(12):
        battle = duel(new_battle, seed=seed)
        before = dict(battle.occupancy)
        put(battle, "hero", "blindness", duration=1)
        hero = give_turn(battle, "hero")
        cells.add(pos(hero))
        assert distance(pos(hero), (3, 2)) == 0 and pos(hero) not in before
    assert len(cells) > 2  # random among the free neighbours


def test_r10_slow_reduces_speed_by_its_magnitude_in_percent(new_battle):
    battle = duel(new_battle)
    put(battle, "hero", "slow", duration=1, magnitude=50)
    start = len(battle.log)
    own_turn(battle, "hero")
    assert events(battle, "turn", start)[0].movement == 2  # 5.5 × 0.5 = 2.75
    assert movement_budget(battle, battle["hero"]) == 5


FIELD_10 = ["." * 10] * 10  # a 10×10 open field


def afraid_at_3_5(new_battle, rows=FIELD_10, controller="player"):
    """Hero afraid at (3, 5) on a 10×10 field, the grunt (its fear's source) far off at (8, 8)."""
    battle = new_battle(rows=rows, party=[(character("Hero"), (3, 5), controller)], enemies=[(enemy_def(), (8, 8))])
    put(battle, "hero", "fear", duration=2)
    return battle


def test_r10_fear_flees_only_towards_the_nearest_edge_and_off_it(new_battle):
    # R-10 fear: at (3, 5) on 10×10 the nearest edge is 3 steps west (x=0; north 5, south 4, east 6).
    battle = afraid_at_3_5(new_battle)
    hero = give_turn(battle, "hero")
    assert edge_distances(battle, hero)[5, 3] == 3
    assert perform(battle, Attack("hero", "grunt")) == Impossible(
        "afraid: it can only flee towards the nearest edge, hide or wait")
    # East ends 4 steps from an edge, farther than the 3 it started at: refused, nothing moves.
    assert perform(battle, Move("hero", (4, 5))) == Impossible(
        "Hero is afraid and can only flee towards the nearest edge (3 steps away): 4,5 is 4 steps from it")
    assert pos(hero) == (3, 5)
    assert isinstance(perform(battle, Move("hero", (2, 5)), auto_end=False), Success)  # west: 2 steps
    # One step from the edge, a step back is refused in the singular.
    assert isinstance(perform(battle, Move("hero", (1, 5)), auto_end=False), Success)
    assert perform(battle, Move("hero", (2, 5))) == Impossible(
        "Hero is afraid and can only flee towards the nearest edge (1 step away): 2,5 is 2 steps from it")
    assert isinstance(perform(battle, Move("hero", (0, 5)), auto_end=False), Success)  # on the edge: 0
    start = len(battle.log)
    assert isinstance(perform(battle, Move("hero", (-1, 5))), Success)  # off it by R-8: fled
    assert comp(hero, Presence) is Presence.fled
    assert [e.target for e in events(battle, "fled", start)] == ["hero"]
    assert "Hero flees the battlefield." in [describe(battle, e) for e in battle.log[start:]]


def test_r10_fear_allows_a_move_that_keeps_its_distance_from_the_edge(new_battle):
    battle = afraid_at_3_5(new_battle)
    hero = give_turn(battle, "hero")
    assert isinstance(perform(battle, Move("hero", (3, 3)), auto_end=False), Success)  # along x=3: still 3
    assert pos(hero) == (3, 3)


def test_r10_fear_edge_distance_is_chebyshev_in_the_open_and_walks_around_walls(new_battle):
    battle = afraid_at_3_5(new_battle)
    far = edge_distances(battle, battle["hero"])
    open_cells = [(x, y) for y in range(10) for x in range(10) if (x, y) != (8, 8)]  # the grunt's blocks
    assert all(far[y, x] == min(x, y, 9 - x, 9 - y) for x, y in open_cells) and far[8, 8] == UNREACHABLE
    # A wall down x=1 cuts off the west edge: from (3, 5) the nearest is now the south, 4 steps.
    walled = afraid_at_3_5(new_battle, rows=[".#" + "." * 8] * 10)
    far = edge_distances(walled, walled["hero"])
    assert far[5, 3] == 4 and far[5, 2] == 4  # (2, 5): 2 to the west border, but the walk is 4 south
    give_turn(walled, "hero")
    assert isinstance(perform(walled, Move("hero", (3, 7)), auto_end=False), Success)  # south: 2


def test_r10_edge_distances_follow_the_blocked_cells(new_battle):
    # The other side's cells are blocked: the grunt's (8, 8) is cut off while it stands there,
    # 1 step from the edge once it stands elsewhere.
    battle = afraid_at_3_5(new_battle)
    hero = battle["hero"]
    assert edge_distances(battle, hero)[8, 8] == UNREACHABLE
    battle.place(battle["grunt"], (7, 7))
    moved = edge_distances(battle, hero)
    assert moved[8, 8] == 1 and moved[7, 7] == UNREACHABLE


def test_r10_fear_refusal_is_the_whole_edge_maps_comparison(new_battle):
    """R-10: a move is refused exactly when `edge_distances` (the whole field's map) puts its end
    farther from the nearest edge than its start, with those two numbers in the words, on random
    fields with walls, difficult ground and enemies (blocked), ends on the edge included. The
    check reads the end first and needs no search from the start when the end is no farther than
    the start's steps to the border (a floor under its edge distance): both ways are tried.
    Worked: from (3, 5) on open 10×10 ground, (4, 5) is 4 steps from the edge, the start 3."""
    rng = np.random.default_rng(10)
    shortcut = searched = refused = 0
    for _ in range(6):
        rows = ["".join(rng.choice(list("....,#"), 12)) for _ in range(11)]
        free = [(x, y) for y, row in enumerate(rows) for x, glyph in enumerate(row) if glyph != "#"]
        picks = [free[i] for i in rng.choice(len(free), 5, replace=False)]
        battle = new_battle(rows=rows, party=[(character("Hero"), picks[0])],
                            enemies=[(enemy_def(), cell) for cell in picks[1:]])
        hero, field = battle["hero"], battle.battlefield
        for here in (free[i] for i in rng.choice(len(free), 12, replace=False)):
            if here in picks[1:]:
                continue
            battle.place(hero, here)
            far = edge_distances(battle, hero)
            before = int(far[here[1], here[0]])
            for end in (free[i] for i in rng.choice(len(free), 15, replace=False)):
                after = int(far[end[1], end[0]])
                expected = None if field.is_edge(end) or after <= before else (
                    f"Hero is afraid and can only flee towards the nearest edge ({before} "
                    f"step{'s' * (before != 1)} away): {end[0]},{end[1]} is {after} step{'s' * (after != 1)} from it")
                assert _fear_refusal(battle, hero, here, end) == expected
                refused += expected is not None
                if not field.is_edge(end):
                    shortcut += after <= field.steps_to_border(here)
                    searched += after > field.steps_to_border(here)
    assert refused > 100 and shortcut > 100 and searched > 100
    battle = afraid_at_3_5(new_battle)
    assert _fear_refusal(battle, battle["hero"], (3, 5), (4, 5)) == (
        "Hero is afraid and can only flee towards the nearest edge (3 steps away): 4,5 is 4 steps from it")


def test_r10_feared_ai_flees_to_the_nearest_edge_and_leaves(new_battle):
    battle = afraid_at_3_5(new_battle, controller="ai")
    hero = give_turn(battle, "hero")
    ai.take_turn(battle, hero)
    assert [m.path[-1] for m in events(battle, "move") if m.actor == "hero"] == [[0, 2], [-1, 2]]
    assert comp(hero, Presence) is Presence.fled
    assert [e.target for e in events(battle, "fled")] == ["hero"]
    assert not [e for e in events(battle, "attack") if e.actor == "hero"]


def test_r10_feared_ai_hides_when_it_cannot_flee(new_battle):
    rows = ["." * 10] * 4 + ["..###....."] + ["..#.#....."] + ["..###....."] + ["." * 10] * 3
    battle = afraid_at_3_5(new_battle, rows=rows, controller="ai")  # walled in at (3, 5)
    hero = give_turn(battle, "hero")
    ai.take_turn(battle, hero)
    assert pos(hero) == (3, 5) and not events(battle, "move")
    (hid,) = events(battle, "free_action")  # the `hide` stock action: a stealth roll, won or lost
    assert (hid.actor, hid.target, hid.description.startswith("Slip out of sight")) == ("hero", "hero", True)
    assert [(c.actor, c.kind) for c in events(battle, "check")] == [("hero", "free_action")]


def test_r10_domination_switches_side_for_its_duration_and_back(new_battle):
    battle = new_battle(party=[(character("Hero"), (3, 2), "player"), (character("Pal"), (4, 2), "player")],
                        enemies=[(enemy_def(), (8, 4))])
    put(battle, "hero", "domination", duration=1)
    assert team(battle["hero"]) == "enemies"
    assert [(s.target, s.team) for s in events(battle, "side")] == [("hero", "enemies")]
    give_turn(battle, "hero")
    assert not runner.needs_input(battle)  # the dominated fight for the dominator, played by the AI
    runner.run_ai(battle, max_turns=1)
    assert [e.target for e in events(battle, "attack") if e.actor == "hero"] == ["pal"]
    assert [(s.target, s.team) for s in events(battle, "side")] == [("hero", "enemies"), ("hero", "party")]
    assert team(battle["hero"]) == "party" and not effects(battle["hero"]).active


def test_r10_knockdown_costs_the_next_turn_and_counts_as_downed(new_battle):
    battle = duel(new_battle)
    put(battle, "hero", "knockdown")
    hero = battle["hero"]
    assert is_downed(hero) and is_immobile(hero)
    start = len(battle.log)
    give_turn(battle, "hero")
    assert [e.type for e in battle.log[start:]] == ["turn", "get_up", "effect", "turn"]
    assert battle.log[start + 2].ended and events(battle, "get_up", start)[0].actor == "hero"
    assert not is_downed(hero) and battle.current is not hero


def test_r10_heal_restores_health_never_above_the_maximum(new_battle):
    battle = duel(new_battle)
    deal_damage(battle, battle["hero"], 50, "grunt")
    put(battle, "hero", "heal", magnitude=80, source="pal")
    (heal,) = events(battle, "heal")
    assert (heal.target, heal.amount, heal.hp, heal.source) == ("hero", 50, 690, "pal")


def test_r10_heal_ability_restores_normal_attack_times_multiplier(new_battle):
    mend = ability("Mend", "II", kind="effect", target="ally", effects=[{"effect": "heal"}])
    battle = new_battle(party=[(character("Medic", weapon=CLUB, abilities=[mend]), (3, 2)), (character("Pal"), (2, 2))],
                        enemies=[(enemy_def(), (8, 4))])
    deal_damage(battle, battle["pal"], 300, "grunt")
    give_turn(battle, "medic")
    assert isinstance(perform(battle, UseAbility("medic", "Mend", target="pal")), Success)
    (heal,) = events(battle, "heal")
    assert (heal.target, heal.amount, heal.hp) == ("pal", 140, 530)  # 93.55 × 1.5 = 140.325 → 140


def test_r10_regeneration_restores_its_magnitude_each_turn(new_battle):
    battle = duel(new_battle)
    deal_damage(battle, battle["hero"], 100, "grunt")
    put(battle, "hero", "regeneration", duration=2, magnitude=30, source="pal")
    amounts = []
    for _ in range(3):
        start = len(battle.log)
        own_turn(battle, "hero")
        amounts += [h.amount for h in events(battle, "heal", start) if h.target == "hero"]
    assert amounts == [30, 30] and hp(battle["hero"]).hp == 650


def test_r10_buff_changes_a_stat_for_its_duration(new_battle):
    battle = duel(new_battle)
    put(battle, "hero", "buff", duration=1, magnitude=5, stat="evasion", source="pal")
    assert stats(battle["hero"])["evasion"] == Fraction("24.1")
    assert own_turn(battle, "hero", lambda e: stats(e)["evasion"]) == Fraction("24.1")  # in force on its turn
    assert stats(battle["hero"])["evasion"] == Fraction("19.1")


def test_r10_cleanse_ends_a_negative_effect(new_battle):
    battle = duel(new_battle)
    put(battle, "hero", "bleeding", duration=3, magnitude=10)
    put(battle, "hero", "poison", duration=1, magnitude=10)
    put(battle, "hero", "buff", duration=3, magnitude=1, stat="evasion", source="pal")
    start = len(battle.log)
    put(battle, "hero", "cleanse", source="pal")
    assert [(e.effect, e.ended) for e in events(battle, "effect", start)] == [("bleeding", True)]  # most turns left
    assert sorted(e.effect for e in effects(battle["hero"]).active) == ["buff", "poison"]


def test_r10_species_immunity_resists_the_effect(new_battle):
    golemish = {"name": "Clay-born", "features": {"effect_immunities": ["poison"]}}
    battle = duel(new_battle, hero=character("Hero", species=golemish))
    assert put(battle, "hero", "poison", duration=3, magnitude=50) is False
    assert put(battle, "hero", "bleeding", duration=1, magnitude=5) is True
    resisted = [e for e in events(battle, "effect") if e.resisted]
    assert [(e.target, e.effect, e.source) for e in resisted] == [("hero", "poison", "grunt")]
    assert [e.effect for e in effects(battle["hero"]).active] == ["bleeding"]


def test_r10_an_ability_lands_its_effect_with_duration_and_magnitude(new_battle):
    venom = ability("Venom Strike", "II", effects=[{"effect": "poison", "duration": 3, "magnitude": 12}])
    battle = duel(new_battle, hero=character("Hero", abilities=[venom]))
    put(battle, "grunt", "stun", duration=2, source="hero")  # a sure hit in melee
    give_turn(battle, "hero")
    start = len(battle.log)
    perform(battle, UseAbility("hero", "Venom Strike", target="grunt"))
    (effect,) = events(battle, "effect", start)
    assert (effect.target, effect.effect, effect.duration, effect.magnitude, effect.source) == (
        "grunt", "poison", 3, 12, "hero")
    assert cid(battle["grunt"]) == "grunt" and effects(battle["grunt"]).get("poison").turns_left == 3
