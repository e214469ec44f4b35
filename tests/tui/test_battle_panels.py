"""The battle screen's side panel as the GM sees it (side None): the one acting is listed too."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "table"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
from engine_kit import ann_bo_and_a_grunt, character, enemy_def, give_turn, make_battle
from table_kit import make_rebuild

from horizon_tui.engine.battle import ident
from horizon_tui.engine.persist import BattleInProgress
from horizon_tui.engine.readmodel import Journal, build
from horizon_tui.engine.viewer import Viewer
from horizon_tui.ui.battle.flow import summary_rows
from horizon_tui.ui.battle.panels import distance_words, enemies_text, shown_window, unit_text
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
            assert f"{u.name[:17]} {distance_words(u.distance)}" in text


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


def _five_grunts_in_sight():
    grunts = [(enemy_def(glyph="g"), (x, 3), f"Grunt {x}") for x in range(4, 9)]
    battle = make_battle(party=[(character("Ann"), (1, 1))], enemies=grunts)
    give_turn(battle, "ann")
    return battle, build(battle, Viewer.of_side("party"))


def test_the_window_of_enemies_follows_the_focus():
    """Two lines an enemy, one for the heading's end, one per "more" hint."""
    assert shown_window(5, None, None) == (0, 5) and shown_window(5, 12, 4) == (0, 5)  # 2 + 2×5 lines
    assert shown_window(5, 7, None) == (0, 2) and shown_window(5, 7, 1) == (0, 2)
    assert shown_window(5, 8, 3) == (2, 4) and shown_window(5, 8, 4) == (3, 5)  # "↑ N more" takes a line
    assert shown_window(5, 0, 4) == (4, 5)  # never less than one


def test_more_enemies_than_fit_scroll_with_the_cursor_and_say_how_many_more():
    battle, view = _five_grunts_in_sight()
    foes = view.foes_nearest_first()
    assert len(foes) == 5
    glyphs = glyph_map(battle)
    text = enemies_text(view, glyphs, lines=7).plain
    assert text.startswith("In sight (5)") and "+3 more (; look, tab)" in text
    assert foes[0].name in text and foes[1].name in text and foes[2].name not in text and "↑" not in text
    text = enemies_text(view, glyphs, lines=8, focus=foes[3].id).plain  # the cursor on the fourth
    assert "↑ 2 more, nearer" in text and foes[3].name in text and foes[1].name not in text
    assert "+1 more" in text
    assert "more" not in enemies_text(view, glyphs).plain  # room enough: all of them, no hint


async def test_at_80x24_many_enemies_leave_the_slots_in_view_and_say_how_many_more(saves, catalogue):
    from horizon_tui.ui.battle.screen import BattleScreen
    from horizon_tui.ui.player.app import create_app

    grunts = [(enemy_def(glyph="g"), (x, y), f"Grunt {x}{y}") for x in (5, 7) for y in (1, 2, 3)]
    battle = make_battle(party=[(character("Ann"), (1, 2), "player")], enemies=grunts)
    give_turn(battle, "ann")
    screen = BattleScreen(BattleInProgress(battle, "test", [], []))
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        app.push_screen(screen)
        await pilot.pause()
        await pilot.pause()
        side, slots = screen.query_one("#battle-side"), screen.query_one("#slots")
        listed = str(screen.query_one("#enemies").render())
        assert listed.startswith("In sight (6)") and "more (; look, tab)" in listed
        assert slots.region.bottom <= side.region.bottom and "Abilities" in str(slots.render())
        await pilot.press("semicolon")  # look; tab on to the farthest: the list follows the cursor
        for _ in range(6):
            await pilot.press("tab")
        under = screen.known().unit_at(screen.cursor)
        assert under is not None and under.name in str(screen.query_one("#enemies").render())


def test_the_catalogues_longest_names_fit_whole_in_the_panel():
    """"Skeleton Spearma 2 squares": the panel cut the catalogue's 17-letter names."""
    battle = make_battle(party=[(character("Ann"), (1, 1))], enemies=[(enemy_def(), (3, 1), "Skeleton Spearman")])
    give_turn(battle, "ann")
    text = enemies_text(build(battle, Viewer.of_side("party")), glyph_map(battle)).plain
    assert "Skeleton Spearman 2 squares" in text and max(len(line) for line in text.splitlines()) <= 31
