"""Issue 17, the GM's side: seat accounts, open the table (its own process), sit at it as the GM."""

from __future__ import annotations

from horizon_tui.gm.screens.table import seats_from


def test_seats_are_checked_names_and_one_each():
    seats, problems = seats_from("mira", {"Iriel": "alice", "Sefa": " bob ", "Morwen": "", "Brakka": "Al!ce"},
                                 "sam, mira")
    assert [(s.name, s.role, s.characters) for s in seats] == [
        ("mira", "gm", ()), ("alice", "player", ("Iriel",)), ("bob", "player", ("Sefa",)), ("sam", "spectator", ())]
    assert problems == ["Brakka: 'Al!ce' is not an account name (lower-case letters, digits, - and _)",
                        "spectators: mira already has a seat"]
