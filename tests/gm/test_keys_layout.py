"""Keys and layout: a focused text field or dropdown owns the letters (global keys never
fire from it); ctrl+u on the XP screen levels up even from its XP field; 80×24 is enough."""

from __future__ import annotations

from horizon_tui.ui.dialogs.confirm import ConfirmDialog

from textual.widgets import Input, Select

from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.gm.screens.dashboard import DashboardScreen
from horizon_tui.ui.gm.screens.dialogue import DialogueScreen
from horizon_tui.ui.gm.screens.dice import DiceScreen
from horizon_tui.ui.gm.screens.experience import ExperienceScreen
from horizon_tui.ui.player.screens.level_up import LevelUpScreen

SIZE = (80, 24)


async def test_letters_typed_in_a_dropdown_stay_in_it(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        assert isinstance(app.screen, DialogueScreen)
        kind = app.screen.query_one("#talk-kind", Select)
        kind.focus()
        await pilot.pause()
        await pilot.press("p", "r")  # p: persuasion; r is the dice roller's key everywhere else
        await pilot.pause()
        assert isinstance(app.screen, DialogueScreen)
        assert kind.value == "persuasion"
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        await pilot.press("r")  # and on the dashboard it is the dice roller
        assert isinstance(app.screen, DiceScreen)


async def test_ctrl_u_on_the_xp_screen_levels_up_even_from_the_xp_field(session, catalogue):
    from horizon_tui.campaign import changes

    session.apply(lambda c: changes.award_xp(c, {"Brakka": 400}), "xp")
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("x")
        assert isinstance(app.screen, ExperienceScreen)
        field = app.screen.query_one("#xp-amount", Input)
        assert app.focused is field
        await pilot.press(*"120", "ctrl+u")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog) and "120 XP" in app.screen.question  # typed, not awarded
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, LevelUpScreen)


async def test_the_dashboard_shows_every_key_at_80x24(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        text = str(app.screen.query_one("#gm-keys").render())
        for word in ("b battle", "x XP", "c checks", "s rest", "t next day", "l log", "r dice", "o campaigns"):
            assert word in text
        keys = app.screen.query_one("#gm-keys")
        assert keys.region.bottom <= 24 and keys.region.width <= 80
