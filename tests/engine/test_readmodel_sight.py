"""Enemies coming into view and going out of sight, in the viewer's log (`engine.readmodel`'s
journal, `engine.narrate.sight_change`): one line per change of sight, said when it happens, for
that viewer only, several of a kind grouped ("Two Grunts come into view.")."""

from __future__ import annotations

from engine_kit import character, enemy_def, give_turn
from horizon_tui.engine.actions import Move, Success, perform
from horizon_tui.engine.narrate import sight_change
from horizon_tui.engine.readmodel import Reader
from horizon_tui.engine.viewer import Viewer
from horizon_tui.rules.texts import plural

GAP = [  # a wall with a gap on the middle row: the grunts beyond it are seen only from the gap
    "....#....",
    "....#....",
    ".........",
    "....#....",
    "....#....",
]
ANN = Viewer.seat("party", ["ann"])


def _ann_and_two_grunts(new_battle, second=(7, 0)):
    grunt = enemy_def()
    battle = new_battle(rows=GAP, party=[(character("Ann"), (1, 0))],
                        enemies=[(grunt, (6, 0), "Grunt 1"), (grunt, second, "Grunt 2")], seed=3)
    give_turn(battle, "ann")
    return battle


def _said(reader: Reader, battle, before: int) -> list[str]:
    return [line.text for line in reader.model(battle).lines[before:] if line.event == "sight"]


def _step(battle, who: str, to: tuple[int, int]) -> None:
    done = perform(battle, Move(who, to), auto_end=False)
    assert isinstance(done, Success), done


def test_enemies_coming_into_view_are_said_once_grouped_by_kind(new_battle):
    battle = _ann_and_two_grunts(new_battle)
    reader = Reader(ANN)
    start = len(reader.model(battle).lines)
    assert reader.model(battle).foes() == () and _said(reader, battle, 0) == []
    _step(battle, "ann", (2, 1))
    assert _said(reader, battle, start) == []  # nothing seen yet
    _step(battle, "ann", (4, 2))  # in the gap: both come into view at once
    assert _said(reader, battle, start) == ["Two Grunts come into view."]
    assert {u.id for u in reader.model(battle).foes()} == {"grunt-1", "grunt-2"}
    _step(battle, "ann", (5, 2))  # still seen: no line per step
    assert _said(reader, battle, start) == ["Two Grunts come into view."]


def test_losing_sight_of_enemies_the_viewer_walked_away_from(new_battle):
    battle = _ann_and_two_grunts(new_battle)
    reader = Reader(ANN)
    reader.model(battle)
    _step(battle, "ann", (4, 2))
    before = len(reader.model(battle).lines)
    _step(battle, "ann", (2, 2))  # back from the gap: their cells are out of Ann's sight
    assert _said(reader, battle, before) == ["Two Grunts are out of sight."]
    gm = Reader(Viewer.gm())  # the GM sees everyone: no such lines
    assert [line for line in gm.model(battle).lines if line.event == "sight"] == []


def test_an_enemy_walking_out_of_a_seen_cell_moves_out_of_sight(new_battle):
    battle = _ann_and_two_grunts(new_battle, second=(7, 1))
    reader = Reader(ANN)
    assert reader.model(battle).foes() == ()
    _step(battle, "ann", (2, 2))  # sees (7, 1) through the gap, not (6, 0)
    assert _said(reader, battle, 0) == ["Grunt 2 comes into view."]
    before = len(reader.model(battle).lines)
    give_turn(battle, "grunt-2")
    _step(battle, "grunt-2", (7, 0))  # out of Ann's sight; where it stood she still sees
    assert _said(reader, battle, before) == ["Grunt 2 moves out of sight."]
    assert Reader(Viewer.seat("party", ["ann"])).model(battle).foes() == ()


def test_the_sight_sentences_group_by_kind_and_name_one_of_a_kind():
    known = {"w1": ("Grey Wolf", "Grey Wolf 1"), "w2": ("Grey Wolf", "Grey Wolf 2"), "g": ("Goblin", "Goblin 1")}
    assert sight_change(known, ["w1", "w2", "g"], [], []) == ["Two Grey Wolves and Goblin 1 come into view."]
    assert sight_change(known, ["g"], ["w1"], ["w2"]) == [
        "Goblin 1 comes into view.", "Grey Wolf 1 moves out of sight.", "Grey Wolf 2 is out of sight."]
    assert sight_change(known, [], [], []) == []


def test_plurals_of_the_catalogues_names():
    assert [plural(n) for n in ("Grey Wolf", "Skeleton Spearman", "Huldra Enchantress", "Goblin", "Human")] == [
        "Grey Wolves", "Skeleton Spearmen", "Huldra Enchantresses", "Goblins", "Humans"]
