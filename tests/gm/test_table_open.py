"""The GM's side: seat accounts, open the table (its own process), sit at it as the GM."""

from __future__ import annotations

from horizon_tui.ui.gm.screens.table import seats_from


def test_seats_are_checked_names_and_one_each():
    seats, problems = seats_from("mira", {"Iriel": "alice", "Sefa": " bob ", "Morwen": "", "Brakka": "Al!ce"},
                                 "sam, mira")
    assert [(s.name, s.role, s.characters) for s in seats] == [
        ("mira", "gm", ()), ("alice", "player", ("Iriel",)), ("bob", "player", ("Sefa",)), ("sam", "spectator", ())]
    assert problems == ["Brakka: 'Al!ce' is not an account name (lower-case letters, digits, - and _)",
                        "spectators: mira already has a seat"]


def test_a_pasted_page_or_a_name_with_a_line_break_is_no_account():
    # by hand: 500 characters pasted as a spectator gave a message taller than the screen
    from horizon_tui.table.lobby import offered_by

    seats, problems = seats_from("mira", {"Iriel": "alice"}, "sam, " + "x" * 500)
    assert [s.name for s in seats] == ["mira", "alice", "sam"]
    assert problems == [f"spectators: '{'x' * 40}…' is not an account name"]
    assert offered_by("tables/.offers/mira/alice\n--iriel.toml") is None  # `$` alone matches before a newline
    assert offered_by("tables/.offers/mira/alice--iriel.toml") == "alice"


def test_a_table_fight_is_formed_like_a_local_one_and_no_undo_takes_back_its_opening(session, catalogue, tmp_path):
    """The campaign's seed, its house rules and what the last fight left (campaign.carry) go to the
    table: the same battle as `b` would form; the carried health is the table's first inputs."""
    from fractions import Fraction

    import attrs
    import pytest

    from horizon_tui.engine.battle import hp
    from horizon_tui.campaign.table_battle import lay_table, table_of
    from horizon_tui.table.__main__ import build
    from horizon_tui.table.core import TableError
    from horizon_tui.table.lobby import SeatSpec, load_table

    hurt = {"hp": 100, "max_hp": 690, "presence": "active", "charges": {}, "cooldowns": {}, "effects": []}
    session.apply(lambda c: attrs.evolve(c, carried={"Iriel": hurt}, rules={"attack": {"hit_base": 0.8}}),
                  "a hurt Iriel, and house rules")
    seats = [SeatSpec("mira", "gm"), SeatSpec("alice", "player", ("Iriel",))]
    campaign, folder = lay_table(session.campaign, "wolves", seats, tmp_path / "tables", "lantern-1",
                                 session.store.catalogue, session.rules_for, _enemies(catalogue))
    record = campaign.battle
    assert record["table"] == str(folder) and record["rules"] == {"attack": {"hit_base": 0.8}}
    assert table_of(campaign) is None  # no process yet: no live table
    spec = load_table(folder, catalogue)
    assert [s.characters for s in spec.seats] == [(), ("iriel",)]  # seats name combatants
    assert spec.catalogue.rules.attack.hit_base == Fraction(4, 5)  # the house rule, at the table too
    assert [type(i.action).__name__ for i in spec.opening] == ["StartHealth"]
    table, _tokens, _ = build(folder)
    assert hp(table.battle["iriel"]).hp == 100 and table.version == table.kept == 1
    assert [i["action"] for i in record["inputs"]] == [{"type": "StartHealth", "target": "iriel", "hp": 100,
                                                         "reason": "carried from the last fight"}]
    with pytest.raises(TableError, match="nothing to undo"):
        table.undo("mira", 1)  # the carried health is not the GM's to take back at the table
    assert spec.rebuild(list(spec.opening)).log[-1].to_json() == table.battle.log[-1].to_json()


def _enemies(catalogue):
    from horizon_tui.content.encounters import load_enemies

    return load_enemies(catalogue)
