"""The per-viewer read model (`engine.readmodel`): what one viewer may know, built once per change,
and its log narrated when the events happen and kept (R-13's sight throughout)."""

from __future__ import annotations

from engine_kit import character, enemy_def, give_turn
from horizon_tui.engine import overrides
from horizon_tui.engine.actions import Move, Success, perform
from horizon_tui.engine.readmodel import Journal, Reader, build
from horizon_tui.engine.runner import override
from horizon_tui.engine.viewer import Viewer

SPLIT = [  # two rooms, a wall between them: Ann on the left, Bo and the grunt on the right
    "....#....",
    "....#....",
    "....#....",
    "....#....",
    "....#....",
]
ANN = Viewer.seat("party", ["ann"])


def _two_rooms(new_battle):
    return new_battle(rows=SPLIT, party=[(character("Ann"), (1, 2)), (character("Bo"), (6, 0))],
                      enemies=[(enemy_def(), (7, 4))])


def test_the_viewers_say_who_looks():
    assert Viewer.gm().sees_all and Viewer.gm().side is None
    assert Viewer.of_side("party") == Viewer("party", None, "side")
    assert ANN.eyes == {"ann"} and ANN.role == "seat"
    assert Viewer.seat("party", []).eyes is None  # a seat with no characters: the side's eyes
    assert Viewer.spectator().side == "party" and Viewer.spectator().eyes is None


def test_a_seat_knows_only_what_its_characters_see(new_battle):
    battle = _two_rooms(new_battle)
    give_turn(battle, "ann")
    seat = build(battle, ANN)
    assert [u.id for u in seat.units] == ["ann", "bo"]
    assert [i.id for i in seat.initiative] == [cid for cid in battle.order if cid != "grunt"]
    assert seat.targets["attack"] == () and seat.current == "ann" and seat.acting == "Ann"
    assert not seat.visible[4, 7] and seat.unit_at((7, 4)) is None
    party = build(battle, Viewer.of_side("party"))  # Bo sees the grunt for the whole side
    assert party.targets["attack"] == ("grunt",) and party.unit("grunt").distance == 5  # R-11 from Ann
    assert party.unit("grunt").kind_name == "Grunt" and party.foes() == (party.unit("grunt"),)
    gm = build(battle, Viewer.gm())
    assert gm.visible.all() and gm.foes() == gm.units  # the GM's list holds everyone


def test_an_enemys_turn_offers_a_player_nothing_to_pick(new_battle):
    battle = _two_rooms(new_battle)
    give_turn(battle, "grunt")
    party = build(battle, Viewer.of_side("party"))
    assert party.current == "grunt" and party.targets["attack"] == () and party.targets["ally"] == ()
    assert set(party.targets["look"]) == {"ann", "bo"}
    seat = build(battle, ANN)
    assert seat.current is None and seat.acting == "Someone unseen"  # not named, not placed


def test_the_opening_line_never_counts_the_unseen(new_battle):
    battle = _two_rooms(new_battle)
    seat = build(battle, ANN, Journal(ANN))
    assert seat.log_text()[0] == "The battle begins: Ann, Bo."
    assert build(battle, Viewer.gm(), Journal(Viewer.gm())).log_text()[0] == "The battle begins: Ann, Bo, Grunt."


def test_a_gm_act_on_someone_unseen_reaches_a_player_only_by_what_they_see(new_battle):
    battle = _two_rooms(new_battle)
    give_turn(battle, "bo")
    readers = {v: Reader(v) for v in (ANN, Viewer.of_side("party"), Viewer.spectator(), Viewer.gm())}
    for r in readers.values():
        r.model(battle)
    before = {v: len(r.model(battle).lines) for v, r in readers.items()}
    assert isinstance(override(battle, overrides.AddEffect("grunt", "hidden", 3)), Success)
    assert isinstance(override(battle, overrides.Teleport("grunt", (8, 4))), Success)
    assert isinstance(override(battle, overrides.Damage(("grunt",), 1)), Success)
    for viewer, r in readers.items():
        new = r.model(battle).log_text()[before[viewer]:]
        if viewer.sees_all:
            assert "GM: add hidden on Grunt." in new and "GM: move on Grunt." in new
        else:  # no "GM: add hidden on someone unseen", "GM: move on someone unseen"
            assert new == [], (viewer, new)


def test_a_log_line_is_narrated_once_and_kept(new_battle):
    """The grunt, seen when it was hurt, is named in the log; hidden later, that line stays."""
    battle = _two_rooms(new_battle)
    give_turn(battle, "bo")
    party = Reader(Viewer.of_side("party"))
    party.model(battle)
    override(battle, overrides.Damage(("grunt",), 1))
    said = party.model(battle).log_text()
    assert any(line.startswith("Grunt takes 1 damage") for line in said)
    override(battle, overrides.AddEffect("grunt", "hidden", 3))
    assert party.model(battle).log_text()[:len(said)] == said  # not re-narrated with today's sight
    assert party.model(battle).unit("grunt") is None


def test_the_model_is_built_once_per_change_not_per_read(new_battle):
    battle = _two_rooms(new_battle)
    give_turn(battle, "bo")
    reader = Reader(Viewer.of_side("party"))
    first = reader.model(battle)
    assert reader.model(battle) is first and reader.builds == 1
    assert isinstance(perform(battle, Move("bo", (6, 1)), auto_end=False), Success)
    assert reader.model(battle) is not first and reader.builds == 2
    assert reader.model(battle).unit("bo").position == (6, 1)


def test_a_rebuilt_battle_keeps_the_journal_as_it_was_read(new_battle):
    """An undo replays the battle to fewer inputs: the lines read live stay, nothing is narrated
    twice, and what happens next is added."""
    battle = _two_rooms(new_battle)
    give_turn(battle, "bo")
    reader = Reader(Viewer.of_side("party"))
    reader.model(battle)
    override(battle, overrides.Damage(("grunt",), 1))
    live = reader.model(battle).log_text()
    again = _two_rooms(new_battle)  # the same battle, replayed without the override
    give_turn(again, "bo")
    assert reader.model(again).log_text() == live
    override(again, overrides.Damage(("grunt",), 2))
    assert reader.model(again).log_text()[:len(live)] == live
    assert reader.model(again).log_text()[-1].startswith("Grunt takes 2 damage")
