"""R-8 turn order and movement: initiative + 1d6, the movement budget, terrain, enemies, the edge."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engine_kit import EXAMPLE, character, enemy_def, events, give_turn, rules_with
from horizon_tui.engine import runner
from horizon_tui.engine.actions import Impossible, Move, Success, perform
from horizon_tui.engine.battle import comp, current_attributes, movement_budget, pos, stats
from horizon_tui.engine.components import Presence, TurnState
from horizon_tui.engine.effects import apply_effect
from horizon_tui.engine.resolve import move_costs

CORRIDOR = ["#########", "..,,.....", "#########"]  # difficult ground at x = 2, 3


def test_r8_initiative_is_the_stat_plus_1d6_highest_first(new_battle):
    for seed in range(5):
        battle = new_battle(
            party=[(character("Ann"), (0, 0)), (character("Bo", attributes={**EXAMPLE, "perception": 14,
                                                                              "cognition": 2}), (0, 1))],
            enemies=[(enemy_def(), (8, 4), "Grunt 1"), (enemy_def(), (8, 3), "Grunt 2")], seed=seed,
        )
        (initiative,) = events(battle, "initiative")
        for entry in initiative.order:
            assert 1 <= entry["roll"] <= 6
            assert entry["total"] == float(stats(battle[entry["id"]])["initiative"] + entry["roll"])
        totals = [entry["total"] for entry in initiative.order]
        assert totals == sorted(totals, reverse=True)
        assert battle.order == [entry["id"] for entry in initiative.order]
    assert stats(battle["ann"])["initiative"] == Fraction("11.7")  # R-2's worked example


def test_r8_initiative_ties_go_to_the_higher_agility(new_battle):
    # both have initiative 7.7: 0.2×agility + 0.8×perception = 6, plus cognition 6 and faith 5
    steady = character("Steady", attributes={**EXAMPLE, "agility": 6, "perception": 6})
    swift = character("Swift", attributes={**EXAMPLE, "agility": 10, "perception": 5})
    ties = 0
    for seed in range(40):
        battle = new_battle(party=[(steady, (0, 0)), (swift, (0, 1))], enemies=[(enemy_def(), (8, 4))], seed=seed)
        assert stats(battle["steady"])["initiative"] == stats(battle["swift"])["initiative"] == Fraction("7.7")
        rolls = {e["id"]: e["roll"] for e in events(battle, "initiative")[0].order}
        if rolls["steady"] == rolls["swift"]:
            ties += 1
            assert battle.order.index("swift") < battle.order.index("steady")
            assert current_attributes(battle["swift"])["agility"] > current_attributes(battle["steady"])["agility"]
    assert ties >= 3


def test_r8_movement_budget_is_floor_speed_with_armor_and_slow_at_least_one(new_battle):
    slowpoke = {"physical": 1, "agility": 1, "perception": 20, "cognition": 10, "faith": 1, "beauty": 9}
    battle = new_battle(party=[
        (character("Plain"), (0, 0)),
        (character("Armored", armor="cuir_bouilli"), (0, 1)),  # class 8: −15% speed
        (character("Mired", armor="cuir_bouilli"), (0, 2)),
        (character("Stuck"), (0, 3)),
        (character("Slowpoke", attributes=slowpoke), (0, 4)),
    ], enemies=[(enemy_def(), (8, 4))])
    apply_effect(battle, battle["mired"], "slow", duration=2, magnitude=Fraction(50), source=battle["grunt"])
    apply_effect(battle, battle["stuck"], "slow", duration=2, magnitude=Fraction(100), source=battle["grunt"])
    expected = {
        "plain": 5,  # speed 5.5
        "armored": 4,  # 5.5 × 0.85 = 4.675
        "mired": 2,  # 4.675 × 0.5 = 2.3375
        "stuck": 1,  # 0, but at least 1
        "slowpoke": 1,  # speed 0.6
    }
    assert stats(battle["armored"])["speed"] == Fraction("4.675")
    assert stats(battle["slowpoke"])["speed"] == Fraction("0.6")
    for who, budget in expected.items():
        assert movement_budget(battle, battle[who]) == budget, who
        start = len(battle.log)
        give_turn(battle, who)
        assert events(battle, "turn", start)[0].movement == budget, who
        assert comp(battle[who], TurnState).movement_left == budget


def test_r8_difficult_ground_costs_two(new_battle):
    battle = new_battle(CORRIDOR, party=[(character("Hero"), (0, 1))], enemies=[(enemy_def(), (8, 1))])
    hero = give_turn(battle, "hero")
    # (1,1) 1 + (2,1) 2 + (3,1) 2 + (4,1) 1 = 6 > 5
    assert perform(battle, Move("hero", (4, 1))) == Impossible("too far: 6 movement needed, 5 left")
    outcome = perform(battle, Move("hero", (3, 1)), auto_end=False)
    assert isinstance(outcome, Success)
    (move,) = events(battle, "move")
    assert move.path == [[1, 1], [2, 1], [3, 1]] and move.cost == 5
    assert pos(hero) == (3, 1) and comp(hero, TurnState).movement_left == 0


def test_r8_partial_move_stops_where_the_movement_runs_out(new_battle):
    battle = new_battle(CORRIDOR, party=[(character("Hero"), (0, 1))], enemies=[(enemy_def(), (8, 1))])
    hero = give_turn(battle, "hero")
    perform(battle, Move("hero", (6, 1), partial=True), auto_end=False)
    assert pos(hero) == (3, 1)  # 1 + 2 + 2 = 5; the next step would be the sixth point


def test_r8_cannot_move_through_an_enemy_but_through_an_ally(new_battle):
    battle = new_battle(CORRIDOR, party=[(character("Hero"), (4, 1)), (character("Pal"), (5, 1))],
                        enemies=[(enemy_def(), (6, 1))])
    give_turn(battle, "hero")
    assert perform(battle, Move("hero", (7, 1))) == Impossible("no way there")
    assert perform(battle, Move("hero", (6, 1))) == Impossible("someone is standing there")
    battle2 = new_battle(CORRIDOR, party=[(character("Hero"), (0, 1)), (character("Pal"), (1, 1))],
                         enemies=[(enemy_def(), (8, 1))])
    hero = give_turn(battle2, "hero")
    assert isinstance(perform(battle2, Move("hero", (2, 1)), auto_end=False), Success)  # past Pal
    assert pos(hero) == (2, 1) and pos(battle2["pal"]) == (1, 1)


def test_r8_stepping_off_the_edge_is_fleeing(new_battle):
    battle = new_battle(party=[(character("Hero"), (0, 2)), (character("Pal"), (4, 2))],
                        enemies=[(enemy_def(), (8, 2))])
    give_turn(battle, "pal")
    assert perform(battle, Move("pal", (4, -1))) == Impossible("to flee, step off the battlefield from its edge")
    give_turn(battle, "hero")
    start = len(battle.log)
    outcome = perform(battle, Move("hero", (-1, 2)))
    assert isinstance(outcome, Success) and outcome.ends_turn
    assert [e.type for e in battle.log[start:start + 2]] == ["move", "fled"]
    assert events(battle, "fled")[0].target == "hero"
    hero = battle["hero"]
    assert comp(hero, Presence) is Presence.fled
    assert (0, 2) not in battle.occupancy and "hero" not in battle.active
    assert not battle.over  # Pal still stands
    assert battle.current is not hero


def test_r8_a_diagonal_step_costs_the_rules_diagonal_cost(new_battle, catalogue):
    """R-8 [H] "diagonal steps cost 1" is `turns.diagonal_cost` in data/rules.toml. Hero (5
    movement) from (0, 0) to (3, 3): three diagonal steps cost 3 by default; at 2 a diagonal
    costs 2 and the cheapest way is 6 > 5; (2, 2) costs 4, or (3, 2) 5 (two diagonals, one straight)."""
    assert catalogue.rules.turns.diagonal_cost == 1
    battle = new_battle(party=[(character("Hero"), (0, 0))], enemies=[(enemy_def(), (8, 4))])
    give_turn(battle, "hero")
    perform(battle, Move("hero", (3, 3)), auto_end=False)
    assert events(battle, "move")[0].cost == 3
    dear = rules_with(catalogue, diagonal_cost=2)
    battle = new_battle(party=[(character("Hero"), (0, 0))], enemies=[(enemy_def(), (8, 4))], catalogue=dear)
    hero = give_turn(battle, "hero")
    assert perform(battle, Move("hero", (3, 3))) == Impossible("too far: 6 movement needed, 5 left")
    perform(battle, Move("hero", (3, 2)), auto_end=False)
    (move,) = events(battle, "move")
    assert move.cost == 5 and pos(hero) == (3, 2) and comp(hero, TurnState).movement_left == 0
    # a partial move toward (4, 4) (8 points whichever way) stops where the points run out: every
    # step costs 1 or 2, so it spends 4 or 5 of its 5 and keeps the rest
    battle = new_battle(party=[(character("Hero"), (0, 0))], enemies=[(enemy_def(), (8, 4))], catalogue=dear)
    hero = give_turn(battle, "hero")
    perform(battle, Move("hero", (4, 4), partial=True), auto_end=False)
    (move,) = events(battle, "move")
    assert move.cost in (4, 5) and comp(hero, TurnState).movement_left == 5 - move.cost
    assert move.cost == battle.battlefield.path_cost([tuple(xy) for xy in move.path], 2, start=(0, 0), diagonal_cost=2)


def test_r8_battles_play_out_with_dearer_diagonals(new_battle, catalogue):
    """The AI's every walk (approach, keep range, withdraw, flee, cross the field) prices steps
    the same way Move does: with diagonals at 2, no move it makes is refused and none costs more
    than the turn's movement."""
    dear = rules_with(catalogue, diagonal_cost=2)
    for seed in range(4):
        battle = new_battle(["." * 12] * 8, party=[(character("Ann"), (0, 0)), (character("Bo"), (0, 7))],
                            enemies=[(enemy_def(), (11, 3), "Grunt 1"), (enemy_def(), (11, 5), "Grunt 2")],
                            seed=seed, catalogue=dear)
        at = {cid: pos(e) for cid, e in battle.by_id.items()}
        runner.play_out(battle)
        assert battle.over
        budgets, moves = {}, 0
        for event in battle.log:
            if event.type == "turn":
                budgets[event.actor] = event.movement
            elif event.type == "move" and battle.battlefield.in_bounds(tuple(event.path[-1])):
                walk = [tuple(xy) for xy in event.path]
                assert event.cost == battle.battlefield.path_cost(walk, 2, start=at[event.actor], diagonal_cost=2)
                assert event.cost <= budgets[event.actor]
                budgets[event.actor] -= event.cost
                at[event.actor] = walk[-1]
                moves += 1
        assert moves >= 4


def test_r8_move_costs_are_the_rules_and_species_costs_as_keywords(new_battle, catalogue):
    """R-8: what a combatant's steps cost, as the searches take it: difficult ground 2 and a
    diagonal 2 (these rules), its species' own terrain costs; `**costs` passes the three."""
    dear = rules_with(catalogue, diagonal_cost=2)
    battle = new_battle(CORRIDOR, party=[(character("Hero"), (0, 1))], enemies=[(enemy_def(), (8, 1))], catalogue=dear)
    costs = move_costs(battle, battle["hero"])
    assert (costs.difficult_cost, costs.diagonal_cost) == (2, 2)
    assert dict(**costs) == {"difficult_cost": 2, "terrain_costs": costs.terrain_costs, "diagonal_cost": 2}
    assert battle.battlefield.path_cost([(1, 1), (2, 1), (3, 1)], start=(0, 1), **costs) == 5
    with pytest.raises(KeyError):
        costs["speed"]
