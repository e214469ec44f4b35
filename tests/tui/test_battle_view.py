"""The battlefield's rendering: console drawing, fog of war, and the per-row Strip cache."""

from __future__ import annotations

import attrs
import numpy as np
import tcod.console

from horizon_tui.content.characters import character_from_dict
from horizon_tui.content.encounters import EnemyDef
from horizon_tui.engine.battle import pos
from horizon_tui.engine.forming import PartyMember, create_battle
from horizon_tui.engine.battlefield import Battlefield, Terrain
from horizon_tui.engine.encounter import EncounterSetup
from horizon_tui.engine.readmodel import ReadModel, build
from horizon_tui.engine.viewer import Viewer
from horizon_tui.ui.battle import view
from horizon_tui.ui.battle.view import ACTIVE_BG, TEAM_COLOURS, Overlay, StripCache, draw

ATTRIBUTES = {"physical": 10, "agility": 10, "perception": 10, "cognition": 6, "faith": 5, "beauty": 1}


def _known(battle, visible=None, remembered=None, current=None) -> ReadModel:
    """The party's read model, or one with a hand-made sight (`visible`): only the units on
    those cells, as the engine would give it."""
    known = build(battle, Viewer.of_side("party"))
    if visible is None:
        return attrs.evolve(known, current=current)
    return attrs.evolve(known, visible=visible, current=current,
                        remembered=visible if remembered is None else remembered,
                        units=tuple(u for u in known.units if visible[u.position[1], u.position[0]]))


def _battle(catalogue):
    rows = ["##########",
            "#........#",
            "#...#....#",
            "#...#....#",
            "#........#",
            "##########"]

    def person(name):
        return character_from_dict({"name": name, "species": "human", "weapon": "longsword",
                                    "attributes": ATTRIBUTES}, catalogue)

    orc = EnemyDef("orc", person("Orc"), 2, 20, glyph="o")
    setup = EncounterSetup(id="t", name="T", description="", difficulty="normal", xp=20, notes="",
                           battlefield=Battlefield.from_rows(rows), enemies=[(orc, (7, 2), "Orc")],
                           party_start=[(2, 2)], source="<test>")
    return create_battle(setup, [PartyMember(person("Hero"), "player")], 1, catalogue, {})


def test_draw_shows_terrain_team_colours_and_the_active_combatant(catalogue):
    battle = _battle(catalogue)
    console = tcod.console.Console(10, 6, order="C")
    draw(console, battle, _known(battle, current="hero"))
    rgb = console.rgb
    assert chr(rgb["ch"][0, 0]) == "#"
    assert chr(rgb["ch"][2, 2]) == "H"
    assert tuple(rgb["fg"][2, 2]) == TEAM_COLOURS["party"]
    assert tuple(rgb["bg"][2, 2]) == ACTIVE_BG


def test_fog_of_war_hides_an_enemy_out_of_sight_and_unknown_cells(catalogue):
    battle = _battle(catalogue)
    console = tcod.console.Console(10, 6, order="C")
    visible = np.zeros((6, 10), dtype=bool)
    visible[2, 1:4] = True  # the hero sees only a sliver
    draw(console, battle, _known(battle, visible, np.zeros_like(visible)))
    assert chr(console.rgb["ch"][2, 7]) == " "  # the orc's cell: unknown, so blank
    remembered = np.ones_like(visible)
    draw(console, battle, _known(battle, visible, remembered))
    assert chr(console.rgb["ch"][2, 7]) == "."  # remembered floor, but no orc drawn there


def test_overlay_marks_the_cursor_and_the_area(catalogue):
    battle = _battle(catalogue)
    console = tcod.console.Console(10, 6, order="C")
    visible = np.ones((6, 10), dtype=bool)
    draw(console, battle, _known(battle, visible), overlay=Overlay(area=[(5, 4)], cursor=(6, 4)))
    assert tuple(console.rgb["bg"][4, 6]) != tuple(console.rgb["bg"][4, 1])
    assert tuple(console.rgb["bg"][4, 5]) != tuple(console.rgb["bg"][4, 1])


def test_strips_group_runs_of_one_colour_and_match_the_text(catalogue):
    battle = _battle(catalogue)
    console = tcod.console.Console(10, 6, order="C")
    draw(console, battle, _known(battle))
    cache = StripCache()
    strip = cache.row(console, 2)
    text = "".join(segment.text for segment in strip)
    assert text == "".join(chr(c) for c in console.rgb["ch"][2])
    assert strip.cell_length == 10
    assert len(list(strip)) < 10  # runs are merged, not one segment per cell


def test_only_changed_rows_are_rebuilt(catalogue):
    battle = _battle(catalogue)
    console = tcod.console.Console(10, 6, order="C")
    visible = np.ones((6, 10), dtype=bool)
    cache = StripCache()
    draw(console, battle, _known(battle, visible))
    for y in range(6):
        cache.row(console, y)
    assert cache.rebuilt == 6
    hero = battle["hero"]
    battle.place(hero, (2, 4))  # one combatant moves two rows down
    draw(console, battle, _known(battle, visible))
    for y in range(6):
        cache.row(console, y)
    assert cache.rebuilt == 6 + 2  # rows 2 and 4 only
    assert pos(hero) == (2, 4)


def test_terrain_is_painted_lit_remembered_or_unknown_cell_by_cell():
    """Whole cells gathered from one table (`view._paint_terrain`) are the cells the palette says,
    the alpha bytes untouched, for every terrain in every state of sight."""
    rng = np.random.default_rng(7)
    terrain = rng.integers(0, len(Terrain), (9, 11)).astype(np.uint8)
    visible = rng.random((9, 11)) > 0.5
    remembered = visible | (rng.random((9, 11)) > 0.5)
    console = tcod.console.Console(11, 9, order="C")
    view._paint_terrain(console.rgb, terrain, visible, remembered)  # noqa: SLF001 - the painter itself
    lit = {Terrain.FLOOR: view.FLOOR_LIT, Terrain.WALL: view.WALL_LIT, Terrain.DIFFICULT: view.ROUGH_LIT}
    dim = {Terrain.FLOOR: view.FLOOR_DIM, Terrain.WALL: view.WALL_DIM, Terrain.DIFFICULT: view.ROUGH_DIM}
    for y in range(9):
        for x in range(11):
            t = Terrain(int(terrain[y, x]))
            glyph, fg, bg = ((view.GLYPHS[t], lit[t], view.BG_LIT) if visible[y, x] else
                             (view.GLYPHS[t], dim[t], view.BG_DIM) if remembered[y, x] else (ord(" "), (0, 0, 0), view.BG_NONE))
            cell = console.rgba[y, x]
            assert (int(cell["ch"]), tuple(cell["fg"]), tuple(cell["bg"])) == (glyph, (*fg, 255), (*bg, 255))
