"""R-13 sight and hide through `engine.sideview`: what a side may know, the same for the AI, the
player's map and targeting."""

from __future__ import annotations

from fractions import Fraction

from engine_kit import character, enemy_def, give_turn
from horizon_tui.engine import ai
from horizon_tui.engine.actions import Attack, Impossible, Move, Success, perform
from horizon_tui.engine.components import ActiveEffect, Effects
from horizon_tui.engine.battle import comp, put
from horizon_tui.engine.sideview import hidden_from, sees, side_view, targetable
from horizon_tui.engine.targeting import attack_preview

WALLED = [  # a pocket at the bottom left, with a door at (3, 2)
    ".........",
    ".........",
    "###.#....",
    "....#....",
    "....#....",
]


def _hide(e):
    put(e, Effects, Effects((ActiveEffect("hidden", 3, Fraction(0)),)))


def test_r13_a_hidden_enemy_is_absent_from_what_the_party_sees_and_can_target(new_battle):
    battle = new_battle(party=[(character("Hero"), (2, 2))],
                        enemies=[(enemy_def(), (3, 2)), (enemy_def("scout", glyph="s"), (5, 2), "Scout")])
    hero, grunt = give_turn(battle, "hero"), battle["grunt"]
    assert [u.id for u in side_view(battle, "party").units] == ["hero", "grunt", "scout"]
    assert [e.uid for e in targetable(battle, hero)] == ["grunt", "scout"]  # nearest first
    _hide(grunt)
    assert hidden_from(grunt, "party") and not hidden_from(grunt, "enemies") and not hidden_from(grunt, None)
    view = side_view(battle, "party")
    assert [u.id for u in view.units] == ["hero", "scout"] and view.unit_at((3, 2)) is None
    assert [e.uid for e in targetable(battle, hero)] == ["scout"]
    assert not sees(battle, hero, grunt) and sees(battle, hero, battle["scout"])
    assert attack_preview(battle, hero, (3, 2)).target is None  # the cursor finds no one there
    assert perform(battle, Attack("hero", "grunt")) == Impossible("no one to target there")
    assert ai.visible_enemies(battle, hero) == [battle["scout"]]  # the AI the same
    # its own side and the game master still see it
    assert "grunt" in [u.id for u in side_view(battle, "enemies").units]
    assert "grunt" in [u.id for u in side_view(battle, None).units]


def test_r13_the_players_map_does_not_draw_a_hidden_enemy(new_battle):
    import tcod.console

    from horizon_tui.engine.readmodel import build
    from horizon_tui.engine.viewer import Viewer
    from horizon_tui.ui.battle.view import draw

    battle = new_battle(party=[(character("Hero"), (2, 2))], enemies=[(enemy_def(), (3, 2))])
    field = battle.battlefield
    console = tcod.console.Console(field.width, field.height, order="C")
    draw(console, battle, build(battle, Viewer.of_side("party")))
    assert chr(console.rgb["ch"][2, 3]) == "g"
    _hide(battle["grunt"])
    draw(console, battle, build(battle, Viewer.of_side("party")))
    assert chr(console.rgb["ch"][2, 3]) == "."


def test_r13_side_view_units_carry_position_health_and_effects_with_turns_left(new_battle):
    battle = new_battle(party=[(character("Hero"), (1, 1))], enemies=[(enemy_def(), (7, 1))])
    put(battle["grunt"], Effects, Effects((ActiveEffect("poison", 2, Fraction(5)),)))
    grunt = side_view(battle, "party").unit("grunt")
    assert (grunt.position, grunt.hp, grunt.max_hp) == ((7, 1), grunt.max_hp, grunt.max_hp)
    assert [(f.name, f.turns_left, f.magnitude) for f in grunt.effects] == [("poison", 2, 5.0)]


def test_r13_remembered_cells_keep_what_the_side_saw_from_where_it_stood(new_battle):
    battle = new_battle(rows=WALLED, party=[(character("Hero"), (1, 4))], enemies=[(enemy_def(), (8, 0))])
    give_turn(battle, "hero")
    before = side_view(battle, "party")
    assert isinstance(perform(battle, Move("hero", (3, 1)), auto_end=False), Success)  # out through the door
    after = side_view(battle, "party")
    assert (before.visible & ~after.visible).any()  # the pocket is out of sight now…
    assert after.remembered[before.visible].all() and after.remembered[after.visible].all()  # …and remembered
    assert not after.remembered[4, 5]  # behind the wall from both: never seen


def test_r13_the_start_is_remembered_without_a_look_taken_there(new_battle):
    """A battle replayed from its inputs (a resumed save) has no look taken at the start: what
    its side saw from where it started is still remembered (found by hand: the map of a resumed
    run forgot the start's corner)."""
    battle = new_battle(rows=WALLED, party=[(character("Hero"), (1, 4))], enemies=[(enemy_def(), (8, 0))])
    start = battle.battlefield.fov((1, 4), 0)
    give_turn(battle, "hero")
    assert isinstance(perform(battle, Move("hero", (3, 1)), auto_end=False), Success)  # nobody looked before
    after = side_view(battle, "party")
    assert (start & ~after.visible).any() and after.remembered[start].all()


def test_in_view_is_every_other_active_combatant_on_a_cell_its_view_sees_all_battle_long() -> None:
    """`in_view` reads the battle's index of cells (`Battle.cells`, kept by `place`, rebuilt when
    someone falls, flees or joins): at every turn of whole battles it is the plain loop over
    every active combatant's Position."""
    from pathlib import Path

    from horizon_tui.engine.forming import create_battle
    from horizon_tui.tools.battle_command import prepare
    from horizon_tui.engine.components import Gear, Position
    from horizon_tui.engine.runner import begin
    from horizon_tui.engine.sideview import in_view

    party = sorted((Path(__file__).resolve().parents[2] / "examples" / "party").glob("*.toml"))
    catalogue, enemies, setup, members = prepare("standard", party, 0)
    checked = 0
    for seed in range(3):
        battle = create_battle(setup, members, seed, catalogue, enemies)
        begin(battle)
        field = battle.battlefield
        while not battle.over:
            for viewer in list(battle.active.values()):
                at = comp(viewer, Position)
                view = field.fov(at.xy, comp(viewer, Gear).sight_radius)
                expected = [(o, comp(o, Position).x, comp(o, Position).y)
                            for o in battle.active.values()
                            if o is not viewer and view[comp(o, Position).y, comp(o, Position).x]]
                assert in_view(battle, viewer) == expected
                checked += 1
            ai.take_turn(battle, battle.current)
    assert checked > 500
