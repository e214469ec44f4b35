"""The battle screen's side panel as the GM sees it (side None): the one acting is listed too."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "table"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
from engine_kit import ann_bo_and_a_grunt
from table_kit import make_rebuild

from horizon_tui.engine.battle import ident
from horizon_tui.engine.persist import BattleInProgress
from horizon_tui.engine.readmodel import Journal, build
from horizon_tui.engine.viewer import Viewer
from horizon_tui.ui.battle.flow import summary_rows
from horizon_tui.ui.battle.panels import distance_words, enemies_text, unit_text
from horizon_tui.ui.battle.view import glyph_map


def test_the_gms_list_gives_no_distance_to_the_one_acting():
    rebuild, _ = make_rebuild(seed=3)
    battle = rebuild([])
    me = battle.current
    text = enemies_text(build(battle, Viewer.gm()), glyph_map(battle)).plain
    line = next(ln for ln in text.splitlines() if ident(me).name in ln)
    assert "square" not in line and "adjacent" not in line  # was "-1 away": R-11's distance to itself
    assert " squares" in text or "adjacent" in text  # the others keep theirs


def test_distances_are_squares_as_a_roguelike_player_counts_them():
    """R-11 counts the cells between (0: adjacent); the panel says "adjacent", "2 squares" — never
    "1 away" for a foe with one cell between."""
    assert [distance_words(d) for d in (0, 1, 2, 9)] == ["adjacent", "2 squares", "3 squares", "10 squares"]
    rebuild, _ = make_rebuild(seed=3)
    view = build(rebuild([]), Viewer.gm())
    text = enemies_text(view, glyph_map(rebuild([]))).plain
    assert " away" not in text
    for u in view.foes():
        if u.distance is not None:
            assert f"{u.name[:16]} {distance_words(u.distance)}" in text


def test_look_says_how_far_the_one_looked_at_is():
    rebuild, _ = make_rebuild(seed=3)
    battle = rebuild([])
    view = build(battle, Viewer.gm())
    other = next(u for u in view.foes() if u.distance is not None)
    assert f"· {distance_words(other.distance)}" in unit_text(battle, other, current=False, detailed=True).plain
    me = next(u for u in view.foes() if u.distance is None)  # the one acting: no distance to itself
    assert "square" not in unit_text(battle, me, current=True, detailed=True).plain.splitlines()[0]


def test_a_seats_battle_summary_lists_only_whom_it_may_know():
    """The summary at the end of a table's battle: the grunt Ann's eyes never saw is not in
    her player's rows (it was: every combatant, named, with its damage)."""
    battle = ann_bo_and_a_grunt()
    ann = Viewer.seat("party", ["ann"])
    session = BattleInProgress(battle, "test", [], [])
    assert [row[0] for row in summary_rows(session, build(battle, ann, Journal(ann)))] == ["Ann", "Bo"]
    assert [row[0] for row in summary_rows(session, build(battle, Viewer.gm()))] == ["Ann", "Bo", "Grunt"]


def test_the_top_line_leaves_out_the_dead():
    """Issue 29: a dead enemy stayed on the top (initiative) line."""
    from types import SimpleNamespace

    from horizon_tui.engine.components import Presence
    from horizon_tui.ui.battle.screen import BattleScreen

    rebuild, _ = make_rebuild(seed=3)
    battle = rebuild([])
    dead = next(e for e in battle.active.values() if e is not battle.current)
    battle.set_presence(dead, Presence.dead)
    line = BattleScreen._initiative_text(SimpleNamespace(glyphs={}), build(battle, Viewer.gm())).plain
    assert ident(dead).name not in line and ident(battle.current).name in line


def test_the_enemy_panel_lists_the_nearest_first():
    rebuild, _ = make_rebuild(seed=3)
    battle = rebuild([])
    view = build(battle, Viewer.gm())
    text = enemies_text(view, glyph_map(battle)).plain
    lines = [ln for ln in text.splitlines() if ln.endswith(("adjacent", "squares"))]
    far = [int(ln.rsplit(" ", 2)[-2]) if ln.endswith("squares") else 1 for ln in lines]
    assert len(far) > 2 and far == sorted(far)
