"""Snapshots of the GM tool's screens at 80×24 and 60×20 (pytest-textual-snapshot): the
dashboard (four party rows at 60×20), the NPC form (labels whole, inputs wide enough), the
dialogue screen after a roll (its result in view), the XP screen (the split dropdown on one
line), the fighters' switches reading on/off without colour, the placement map's glyphs.

Deterministic: the saves folder is a relative path in a temporary working directory, the
campaign is made with a fixed seed, and the toasts are cleared before the picture (one that
timed out on a loaded machine, or didn't, made two pictures of one screen). Update with `--snapshot-update`, and look at them."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, TextArea

from horizon_tui.campaign import battles, changes
from horizon_tui.campaign.campaign_files import CampaignStore
from horizon_tui.campaign.model import Npc
from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.gm.screens.placement import PlacementScreen, Unit

from tests.gm.conftest import make_campaign

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((60, 20), id="60x20")]


async def quiet(pilot) -> None:
    """No toast nor text cursor in the picture: whether a toast is still up, or the cursor's blink
    on, depends on the machine's speed."""
    await pilot.pause()
    pilot.app.clear_notifications()
    pilot.app.screen.set_focus(None)
    await pilot.wait_for_scheduled_animations()
    await pilot.pause()


@pytest.fixture
def gm_app(tmp_path, monkeypatch, catalogue, saves):
    monkeypatch.chdir(tmp_path)
    store = CampaignStore(Path("saves"), catalogue)
    session = make_campaign(store)
    session.apply(lambda c: changes.save_npc(c, None, Npc("Marta", level=2, attitude="hostile")), "npc")
    session.close()
    return lambda: create_gm_app(Path("saves"), catalogue, campaign="Lantern Road")


@pytest.mark.parametrize("size", SIZES)
def test_dashboard(snap_compare, gm_app, size):
    assert snap_compare(gm_app(), terminal_size=size, run_before=quiet)


@pytest.mark.parametrize("size", SIZES)
def test_npc_form(snap_compare, gm_app, size):
    async def fill(pilot):
        await pilot.press("n", *"Captain Wen", "tab", *"human guard captain")
        await quiet(pilot)

    assert snap_compare(gm_app(), terminal_size=size, run_before=fill)


@pytest.mark.parametrize("size", SIZES)
def test_dialogue_after_a_roll(snap_compare, gm_app, size):
    async def roll(pilot):
        await pilot.press("c")
        pilot.app.screen.query_one("#roleplay", TextArea).text = "We only want the lanterns lit again."
        await pilot.press("ctrl+r")
        form = pilot.app.screen.query_one("#talk-form")
        side = pilot.app.screen.query_one("#talk-side")
        for _ in range(50):  # the roll scrolls the form and Today to their ends after a refresh: settled
            await pilot.pause()
            if form.scroll_y == form.max_scroll_y and side.scroll_y == side.max_scroll_y:
                break
        assert form.scroll_y == form.max_scroll_y > 0 or form.max_scroll_y == 0  # the result in view
        await quiet(pilot)

    assert snap_compare(gm_app(), terminal_size=size, run_before=roll)


@pytest.mark.parametrize("size", SIZES)
def test_xp_screen(snap_compare, gm_app, size):
    async def typed(pilot):
        await pilot.press("x", *"400")
        await quiet(pilot)

    assert snap_compare(gm_app(), terminal_size=size, run_before=typed)


@pytest.mark.parametrize("size", SIZES)
def test_fighters_read_on_and_off(snap_compare, gm_app, size):
    async def picker(pilot):
        await pilot.press("b")
        await pilot.pause()
        pilot.app.screen.query_one("#gm-fighters").deselect("Iriel")
        pilot.app.screen.query_one("#gm-seed", Input).value = "42"
        await quiet(pilot)

    assert snap_compare(gm_app(), terminal_size=size, run_before=picker)


@pytest.mark.parametrize("size", SIZES)
def test_placement_glyphs_are_distinct(snap_compare, gm_app, size):
    async def placed(pilot):
        app = pilot.app
        spec = {"generator": "rooms", "width": 12, "height": 12, "seed": 7}
        field = battles.map_battlefield(spec, app.host.store.catalogue, app.enemies())
        screen = PlacementScreen(spec, field, [Unit("member", "Morwen", "party", "player"),
                                               Unit("npc", "Marta", "enemies", "gm"),
                                               Unit("member", "Brakka", "party", "player")])
        await app.push_screen(screen)
        await pilot.pause()
        for _ in screen.units:
            await pilot.press("enter", "right", "right")
        await quiet(pilot)

    assert snap_compare(gm_app(), terminal_size=size, run_before=placed)


def test_distinct_glyphs_never_repeat_a_letter():
    glyphs = battles.distinct_glyphs([("Morwen", "party"), ("Marta", "party"), ("mage", "enemies"), ("Mo", "enemies")])
    assert glyphs == ["M", "A", "g", "o"]
    assert len({g.lower() for g in glyphs}) == 4
