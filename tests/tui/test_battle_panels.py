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
from horizon_tui.ui.battle.panels import enemies_text
from horizon_tui.ui.battle.view import glyph_map


def test_the_gms_list_gives_no_distance_to_the_one_acting():
    rebuild, _ = make_rebuild(seed=3)
    battle = rebuild([])
    me = battle.current
    text = enemies_text(build(battle, Viewer.gm()), glyph_map(battle)).plain
    line = next(ln for ln in text.splitlines() if ident(me).name in ln)
    assert "away" not in line and "adjacent" not in line  # was "-1 away": R-11's distance to itself
    assert " away" in text or "adjacent" in text  # the others keep theirs


def test_a_seats_battle_summary_lists_only_whom_it_may_know():
    """The summary at the end of a table's battle: the grunt Ann's eyes never saw is not in
    her player's rows (it was: every combatant, named, with its damage)."""
    battle = ann_bo_and_a_grunt()
    ann = Viewer.seat("party", ["ann"])
    session = BattleInProgress(battle, "test", [], [])
    assert [row[0] for row in summary_rows(session, build(battle, ann, Journal(ann)))] == ["Ann", "Bo"]
    assert [row[0] for row in summary_rows(session, build(battle, Viewer.gm()))] == ["Ann", "Bo", "Grunt"]
