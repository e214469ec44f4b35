"""A player's own character into the GM's campaign: over SSH the GM's session can't
reach a player's saves, so the player offers one (Load screen, g) and the GM's Import lists it;
seating the party, the account that offered a character is filled in."""

from __future__ import annotations

import os
import shutil

import pytest
from table_kit import REPO
from textual.widgets import Input

from horizon_tui.table.lobby import (
    MAX_OFFERS_PER_PLAYER,
    ENV_ACCOUNT,
    ENV_TABLES,
    offer_character,
    offered_by,
    offers_for,
)

IRIEL = REPO / "examples" / "party" / "iriel.toml"


def test_an_offer_is_a_private_copy_for_one_gm_and_names_who_offered_it(tmp_path):
    tables = tmp_path / "tables"
    copy = offer_character(tables, "alice", "mira", IRIEL, 1_000_000)
    assert copy.read_bytes() == IRIEL.read_bytes() and offered_by(copy) == "alice"
    assert os.stat(copy).st_mode & 0o777 == 0o600 and os.stat(copy.parent).st_mode & 0o777 == 0o700
    assert offers_for(tables, "mira") == [copy] and offers_for(tables, "bob") == []
    assert offer_character(tables, "alice", "mira", IRIEL, 1_000_000) == copy  # again: replaced
    assert offered_by(IRIEL) is None


@pytest.mark.parametrize("gm, why", [("../etc", "not an account name"), ("alice", "your own account"),
                                     ("Mira", "not an account name")])
def test_a_bad_gm_name_is_refused_with_a_reason(tmp_path, gm, why):
    with pytest.raises(ValueError, match=why):
        offer_character(tmp_path / "tables", "alice", gm, IRIEL, 1_000_000)
    assert not (tmp_path / "tables").exists() or not any((tmp_path / "tables").rglob("*.toml"))


def test_too_big_or_too_many_offers_are_refused(tmp_path):
    tables = tmp_path / "tables"
    with pytest.raises(ValueError, match="bigger than 100 bytes"):
        offer_character(tables, "alice", "mira", IRIEL, 100)
    for n in range(MAX_OFFERS_PER_PLAYER):  # to made-up GM names as well: one cap for them all
        copy = tmp_path / f"c{n}.toml"
        shutil.copy(IRIEL, copy)
        offer_character(tables, "alice", "mira" if n % 2 else f"gm{n}", copy, 1_000_000)
    with pytest.raises(ValueError, match="ask your GM to import them"):
        offer_character(tables, "alice", "nobody", IRIEL, 1_000_000)
    assert not (tables / ".offers" / "nobody").exists()
    offer_character(tables, "alice", "mira", tmp_path / "c1.toml", 1_000_000)  # the same again: replaced
    offer_character(tables, "bob", "mira", IRIEL, 1_000_000)  # each player has their own share


async def test_a_player_offers_and_the_gm_imports_and_seats_them(tmp_path, monkeypatch):
    from horizon_tui.ui.gm.app import create_gm_app
    from horizon_tui.ui.gm.screens.table import OpenTableScreen
    from horizon_tui.ui.player.app import create_app
    from horizon_tui.ui.player.screens.load import LoadScreen

    tables = tmp_path / "tables"
    saves = tmp_path / "alice" / "saves"
    (saves / "characters").mkdir(parents=True)
    shutil.copy(IRIEL, saves / "characters" / "iriel.toml")
    monkeypatch.setenv(ENV_TABLES, str(tables))
    monkeypatch.setenv(ENV_ACCOUNT, "alice")
    app = create_app(saves, screen="load")
    async with app.run_test(size=(80, 24)) as pilot:
        assert isinstance(app.screen, LoadScreen)
        await pilot.press("g")
        app.screen.query_one(Input).value = "mira"
        await pilot.press("enter")
        await pilot.pause()
        assert any("mira can now import Iriel" in n.message for n in app._notifications)
    assert [offered_by(p) for p in offers_for(tables, "mira")] == ["alice"]

    monkeypatch.setenv(ENV_ACCOUNT, "mira")
    gm = create_gm_app(tmp_path / "mira" / "saves", campaign="Ashfall")
    async with gm.run_test(size=(100, 34)) as pilot:
        await pilot.pause()
        gm.action_load_character()
        await pilot.pause()
        screen = gm.screen
        assert [(e.title, e.path.name) for e in screen.entries] == [("Iriel", "alice--iriel.toml")]
        await pilot.press("enter")
        await pilot.pause()
        assert [m.name for m in gm.campaign.party] == ["Iriel"]
        gm.push_screen(OpenTableScreen())
        await pilot.pause()
        assert gm.screen.query_one("#seat-Iriel", Input).value == "alice"
