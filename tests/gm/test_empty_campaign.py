"""A campaign with nobody in it yet (no party, no NPCs), or a party and no NPC: every screen the
dashboard opens shows what is missing instead of failing (a GM's first minutes)."""

from __future__ import annotations

import pytest
from textual.widgets import Static

from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.gm.screens.dashboard import DashboardScreen
from horizon_tui.ui.crash_screen import CrashScreen

from .conftest import make_campaign

SIZE = (100, 32)
KEYS = ["enter", "e", "delete", "c", "ctrl+r", "ctrl+t", "x", "ctrl+s", "b", "a", "l", "g", "s", "t"]


async def _visit_every_screen(app, pilot) -> None:
    for key in KEYS:
        await pilot.press(key)
        await pilot.pause()
        assert not isinstance(app.screen, CrashScreen), f"{key} crashed: {app.screen.query_one(Static).render()}"
        for _ in range(4):  # back to the dashboard (answering no to any question)
            if isinstance(app.screen, DashboardScreen):
                break
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, CrashScreen), f"escape after {key} crashed"
        assert isinstance(app.screen, DashboardScreen), f"{key} left {app.screen!r}"


@pytest.mark.parametrize("who", ["nobody", "party only"])
async def test_every_dashboard_screen_opens_on_a_campaign_without_npcs(who, saves, store, catalogue):
    if who == "nobody":
        store.create("Empty", seed=7)
        campaign = "Empty"
    else:
        make_campaign(store, "Party Only", npcs=())
        campaign = "Party Only"
    app = create_gm_app(saves, catalogue, campaign=campaign)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        await _visit_every_screen(app, pilot)
