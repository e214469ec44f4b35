"""Per-character sight for a player at a live table: `engine.sideview`'s `eyes` — what
one seat's characters see, not the whole party — and R-13's hidden, on the map, in targeting and in
the log's words."""

from __future__ import annotations

from fractions import Fraction

from engine_kit import ann_bo_and_a_grunt, give_turn
from horizon_tui.engine import events as ev
from horizon_tui.engine.actions import Move, Success, perform
from horizon_tui.engine.battle import put
from horizon_tui.engine.components import ActiveEffect, Effects, Presence
from horizon_tui.engine.narrate import describe
from horizon_tui.engine.sideview import eyes_open, remembered_cells, side_view, targetable, unseen_ids



def test_a_seat_sees_through_its_own_characters_eyes_only(new_battle):
    battle = ann_bo_and_a_grunt(new_battle)
    party = side_view(battle, "party")
    assert [u.id for u in party.units] == ["ann", "bo", "grunt"]  # Bo sees the grunt for the party
    ann_only = side_view(battle, "party", frozenset({"ann"}))
    assert [u.id for u in ann_only.units] == ["ann", "bo"]  # allies always, the grunt not
    assert not ann_only.visible[4, 7] and party.visible[4, 7]
    assert not ann_only.remembered[4, 7]
    assert ann_only.visible[2, 1] and not ann_only.visible[2, 6]  # her own room only
    bo_only = side_view(battle, "party", frozenset({"bo"}))
    assert [u.id for u in bo_only.units] == ["ann", "bo", "grunt"]


def test_targeting_and_the_log_follow_the_seats_eyes(new_battle):
    battle = ann_bo_and_a_grunt(new_battle)
    ann = give_turn(battle, "ann")
    assert [e.uid for e in targetable(battle, ann)] == ["grunt"]  # the party sees it (through Bo)
    assert targetable(battle, ann, frozenset({"ann"})) == []
    assert unseen_ids(battle, "party", frozenset({"ann"})) == {"grunt"}
    assert unseen_ids(battle, "party") == frozenset() and unseen_ids(battle, None) == frozenset()
    attack = ev.Attacked(actor="grunt", target="ann", hit=True, crit=False, ability=None, difficulty="I")
    assert describe(battle, attack) == "Grunt attacks Ann and hits."
    assert describe(battle, attack, frozenset({"grunt"})) == "Someone unseen attacks Ann and hits."


def test_r13_a_hidden_enemy_is_unseen_by_every_seat_and_never_named(new_battle):
    battle = ann_bo_and_a_grunt(new_battle)
    put(battle["grunt"], Effects, Effects((ActiveEffect("hidden", 3, Fraction(0)),)))
    for eyes in (None, frozenset({"bo"}), frozenset({"ann", "bo"})):
        assert "grunt" not in [u.id for u in side_view(battle, "party", eyes).units]
        assert "grunt" in unseen_ids(battle, "party", eyes)
    start = next(e for e in battle.log if isinstance(e, ev.BattleStart))
    assert describe(battle, start, unseen_ids(battle, "party")) == "The battle begins: Ann, Bo."  # never counted
    assert "grunt" in [u.id for u in side_view(battle, None).units]  # the GM sees it


def test_a_seat_whose_characters_are_all_out_watches_with_the_sides_eyes(new_battle):
    battle = ann_bo_and_a_grunt(new_battle)
    assert eyes_open(battle, "party", frozenset({"ann"})) == {"ann"}
    battle.set_presence(battle["ann"], Presence.dead)
    assert eyes_open(battle, "party", frozenset({"ann"})) is None
    assert "grunt" in [u.id for u in side_view(battle, "party", frozenset({"ann"})).units]


def test_what_a_seat_remembers_comes_from_where_its_own_characters_stood(new_battle):
    battle = ann_bo_and_a_grunt(new_battle)
    give_turn(battle, "bo")
    assert isinstance(perform(battle, Move("bo", (6, 4)), auto_end=False), Success)
    bo, ann = frozenset({"bo"}), frozenset({"ann"})
    assert remembered_cells(battle, "party", eyes=bo)[0, 8]  # seen from where Bo started
    assert not remembered_cells(battle, "party", eyes=ann)[0, 8]
