"""The per-viewer read model (`engine.readmodel`): what one viewer may know, built once per change,
and its log narrated when the events happen and kept (R-13's sight throughout)."""

from __future__ import annotations

from engine_kit import TWO_ROOMS, ability, ann_bo_and_a_grunt, character, enemy_def, give_turn
from horizon_tui.engine import odds, overrides
from horizon_tui.engine.actions import Move, Success, perform
from horizon_tui.engine.battle import gear
from horizon_tui.engine.readmodel import Journal, Reader, build
from horizon_tui.engine.runner import override
from horizon_tui.engine.viewer import Viewer

ANN = Viewer.seat("party", ["ann"])


def test_the_viewers_say_who_looks():
    assert Viewer.gm().sees_all and Viewer.gm().side is None
    assert Viewer.of_side("party") == Viewer("party", None, "side")
    assert ANN.eyes == {"ann"} and ANN.role == "seat"
    assert Viewer.seat("party", []).eyes is None  # a seat with no characters: the side's eyes
    assert Viewer.spectator().side == "party" and Viewer.spectator().eyes is None


def test_a_seat_knows_only_what_its_characters_see(new_battle):
    battle = ann_bo_and_a_grunt(new_battle)
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
    battle = ann_bo_and_a_grunt(new_battle)
    give_turn(battle, "grunt")
    party = build(battle, Viewer.of_side("party"))
    assert party.current == "grunt" and party.targets["attack"] == () and party.targets["ally"] == ()
    assert set(party.targets["look"]) == {"ann", "bo"}
    seat = build(battle, ANN)
    assert seat.current is None and seat.acting == "Someone unseen"  # not named, not placed


def test_the_opening_line_never_counts_the_unseen(new_battle):
    battle = ann_bo_and_a_grunt(new_battle)
    seat = build(battle, ANN, Journal(ANN))
    assert seat.log_text()[0] == "The battle begins: Ann, Bo."
    assert build(battle, Viewer.gm(), Journal(Viewer.gm())).log_text()[0] == "The battle begins: Ann, Bo, Grunt."


def test_a_gm_act_on_someone_unseen_reaches_a_player_only_by_what_they_see(new_battle):
    battle = ann_bo_and_a_grunt(new_battle)
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
        else:  # no "GM: add hidden on someone unseen", "GM: move on someone unseen"; the party,
            # who saw the grunt where it stood, sees it gone from there (Ann, who never saw it: nothing)
            assert new == ([] if viewer == ANN else ["Grunt moves out of sight."]), (viewer, new)


def _party_reads_the_grunt_hurt(new_battle):
    """Bo's turn; the party's reader; the GM hurts the grunt (seen by Bo): the battle, the
    reader and the log it read."""
    battle = ann_bo_and_a_grunt(new_battle)
    give_turn(battle, "bo")
    party = Reader(Viewer.of_side("party"))
    party.model(battle)
    override(battle, overrides.Damage(("grunt",), 1))
    return battle, party, party.model(battle).log_text()


def test_a_log_line_is_narrated_once_and_kept(new_battle):
    """The grunt, seen when it was hurt, is named in the log; hidden later, that line stays."""
    battle, party, said = _party_reads_the_grunt_hurt(new_battle)
    assert any(line.startswith("Grunt takes 1 damage") for line in said)
    override(battle, overrides.AddEffect("grunt", "hidden", 3))
    assert party.model(battle).log_text()[:len(said)] == said  # not re-narrated with today's sight
    assert party.model(battle).unit("grunt") is None


def test_the_model_is_built_once_per_change_not_per_read(new_battle):
    battle = ann_bo_and_a_grunt(new_battle)
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
    _, reader, live = _party_reads_the_grunt_hurt(new_battle)
    again = ann_bo_and_a_grunt(new_battle)  # the same battle, replayed without the override
    give_turn(again, "bo")
    assert reader.model(again).log_text() == live
    override(again, overrides.Damage(("grunt",), 2))
    assert reader.model(again).log_text()[:len(live)] == live
    assert reader.model(again).log_text()[-1].startswith("Grunt takes 2 damage")


def test_an_area_aimed_into_the_dark_names_no_one_there(new_battle):
    """The targets panel lists whom an area would touch: only those the viewer may know (R-13),
    not the grunt behind the wall that no one of Ann's sees."""
    nova = ability("Nova", "II", "damage", target="area", radius=1)
    battle = new_battle(rows=TWO_ROOMS, party=[(character("Ann", abilities=[nova]), (1, 2))],
                        enemies=[(enemy_def(), (7, 4))])
    ann = give_turn(battle, "ann")
    aimed = gear(ann).character.ability("Nova")
    assert [e.uid for e in odds.touched(battle, ann, aimed, (7, 3))] == ["grunt"]  # the action would hit it
    assert odds.touched(battle, ann, aimed, (7, 3), build(battle, ANN)) == []


def test_a_defeated_or_fled_combatant_leaves_the_turn_order(new_battle):
    """Issue 29: a dead enemy stayed on the top line. The dead and the fled leave the turn order;
    one down (unconscious, R-9: may be revived) stays in it; `initiative` keeps everyone known."""
    from horizon_tui.engine.components import Presence

    battle = ann_bo_and_a_grunt(new_battle)
    battle.set_presence(battle["grunt"], Presence.dead)
    battle.set_presence(battle["bo"], Presence.fled)
    battle.set_presence(battle["ann"], Presence.unconscious)
    gm = build(battle, Viewer.gm())
    assert [i.id for i in gm.turn_order()] == ["ann"] and not gm.turn_order()[0].active
    assert {i.id for i in gm.initiative} == {"ann", "bo", "grunt"}  # the summary's rows still know them


def test_the_foes_in_sight_come_nearest_first():
    """Issue 29: the enemy panel lists every enemy in sight sorted by distance (it was spawn order)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "table"))
    from table_kit import make_rebuild

    rebuild, _ = make_rebuild(seed=3)
    gm = build(rebuild([]), Viewer.gm())
    ordered = gm.foes_nearest_first()
    assert sorted(ordered, key=lambda u: u.id) == sorted(gm.foes(), key=lambda u: u.id)  # everyone, once
    assert ordered[0].distance is None  # the one acting leads the GM's list
    far = [u.distance for u in ordered[1:]]
    assert far == sorted(far) and far != [u.distance for u in gm.foes() if u.distance is not None]
