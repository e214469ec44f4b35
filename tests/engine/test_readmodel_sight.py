"""Enemies coming into view and going out of sight, in the viewer's log (`engine.readmodel`'s
journal, `engine.narrate.sight_change`): one line per change of sight, said when it happens, for
that viewer only, several of a kind grouped ("Two Grunts come into view.")."""

from __future__ import annotations

from engine_kit import GRUNT, character, enemy_def, give_turn
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


# --- each line with the sight of its moment ------------------------------------------------------
# The journal writes lines when the change is read, after a whole turn; each is narrated with what
# the viewer saw when its event happened, not with what it sees at the end of the turn.


def test_the_blow_that_fells_the_only_eyes_names_the_one_who_struck(new_battle):
    """Found by hand: "Someone unseen attacks Iriel" for the spearman in plain view beside her,
    because she fell to the blow and a side with nobody standing sees nothing."""
    from fractions import Fraction

    from horizon_tui.engine.actions import Attack
    from horizon_tui.engine.battle import hp, put
    from horizon_tui.engine.components import Health
    from horizon_tui.engine.effects import apply_effect

    battle = new_battle(party=[(character("Iriel"), (2, 2))], enemies=[(enemy_def(), (3, 2), "Grunt")], seed=3)
    iriel = battle["iriel"]
    put(iriel, Health, Health(1, hp(iriel).max_hp))
    apply_effect(battle, iriel, "knockdown", duration=1, magnitude=Fraction(0), source=battle["grunt"])  # it hits
    reader = Reader(Viewer.of_side("party"))
    before = len(reader.model(battle).lines)
    give_turn(battle, "grunt")
    _done(perform(battle, Attack("grunt", "iriel"), auto_end=False))
    said = reader.model(battle).log_text()[before:]
    assert "Grunt attacks Iriel and critically hits!" in said and "Iriel falls unconscious." in said
    assert not any("unseen" in line for line in said)
    assert said[-1].startswith("The enemies win")  # not then "Grunt is out of sight.": the fight is over


def test_one_who_strikes_in_sight_and_runs_off_is_named_for_the_blow(new_battle):
    battle = new_battle(rows=GAP, party=[(character("Ann"), (3, 2))], enemies=[(enemy_def(), (4, 2), "Grunt")],
                        seed=3)
    reader = Reader(ANN)
    before = len(reader.model(battle).lines)
    give_turn(battle, "grunt")
    from horizon_tui.engine.actions import Attack

    _done(perform(battle, Attack("grunt", "ann"), auto_end=False))
    _step(battle, "grunt", (5, 0))  # behind the wall: out of Ann's sight
    said = reader.model(battle).log_text()[before:]
    struck = [line for line in said if line.endswith(("hits.", "misses.", "critically hits!"))]
    assert struck and struck[0].startswith("Grunt attacks Ann"), said
    assert said[-1] == "Grunt moves out of sight."
    assert reader.model(battle).foes() == ()  # unseen now: only its blow, struck in sight, is named


def test_one_who_strikes_unseen_and_then_comes_into_view_stays_unseen_for_the_blow(new_battle):
    """The other way round: an archer shoots from beyond an ooze's short sight (its species' sight
    radius, 6) and then walks into it; its shot, from the dark, names no one."""
    from horizon_tui.engine.actions import Attack

    archer = enemy_def("archer", character("Archer", weapon="longbow", attributes=GRUNT))
    battle = new_battle(rows=["." * 14] * 5, party=[(character("Ann", species="ooze"), (2, 2))],
                        enemies=[(archer, (10, 2), "Archer")], seed=3)
    reader = Reader(ANN)
    assert reader.model(battle).foes() == ()
    before = len(reader.model(battle).lines)
    give_turn(battle, "archer")
    _done(perform(battle, Attack("archer", "ann"), auto_end=False))
    _step(battle, "archer", (7, 2))
    assert [u.name for u in reader.model(battle).foes()] == ["Archer"]  # in sight now
    said = reader.model(battle).log_text()[before:]
    struck = [line for line in said if line.endswith(("hits.", "misses.", "critically hits!"))]
    assert struck and struck[0].startswith("Someone unseen attacks Ann"), said
    assert said[0] == "Archer comes into view."


def _done(outcome) -> None:
    assert isinstance(outcome, Success), outcome
