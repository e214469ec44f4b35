"""Type-ahead without Textual: keys arriving as the turn changes hands are dropped, with a fake clock."""

from __future__ import annotations

from horizon_tui.ui.battle.typeahead import GUARD_S, TypeAhead


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_nothing_is_held_back_before_a_turn_of_the_players_has_ended():
    clock = Clock()
    keys = TypeAhead(clock)
    keys.observe(("iriel", 1))
    assert keys.accept("wait")


def test_keys_during_enemy_turns_and_just_after_the_next_turn_shows_are_dropped_and_counted():
    clock = Clock()
    keys = TypeAhead(clock)
    keys.observe(("iriel", 1))
    keys.observe(None)  # the turn ended (by itself): the enemies act
    assert not keys.accept("wait") and not keys.accept("right")
    keys.observe(("iriel", 2))
    clock.now += GUARD_S / 2
    assert not keys.accept("wait")
    assert keys.notice() == "3 keys pressed while the turn changed hands were dropped"
    assert keys.accept("look")  # looking spends nothing: always allowed
    clock.now += GUARD_S
    assert keys.accept("wait")


def test_a_hot_seat_party_hands_the_turn_from_one_member_to_the_next():
    clock = Clock()
    keys = TypeAhead(clock)
    keys.observe(("brakka", 1))
    keys.observe(("iriel", 1))  # no enemy between: straight to the companion's turn
    assert not keys.accept("wait")
    clock.now += GUARD_S + 0.01
    assert keys.accept("wait")
