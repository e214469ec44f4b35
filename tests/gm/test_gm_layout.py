"""Keys and layout at 80×24: End goes to a list's last row (not sideways); a stray r outside
a text field opens nothing (f5 opens the dice from any screen, r on the dashboard); switches
read on and off in glyphs, not colour."""

from __future__ import annotations

from textual.widgets import DataTable

from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.gm.screens.dashboard import DashboardScreen
from horizon_tui.ui.gm.screens.dice import DiceScreen
from horizon_tui.ui.gm.screens.experience import ExperienceScreen
from horizon_tui.ui.widgets.onoff import CheckList, OnOffBox

SIZE = (80, 24)


async def test_end_goes_to_the_last_row_of_a_gm_list(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        party = app.screen.query_one("#party", DataTable)
        party.focus()
        await pilot.press("end")
        assert party.cursor_row == party.row_count - 1 and party.scroll_x == 0
        await pilot.press("home")
        assert party.cursor_row == 0


async def test_a_stray_r_opens_no_dice_but_f5_does(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("x")
        app.screen.query_one("#xp-buyers", DataTable).focus()
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ExperienceScreen)
        await pilot.press("f5")
        await pilot.pause()
        assert isinstance(app.screen, DiceScreen)
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        await pilot.press("r")
        assert isinstance(app.screen, DiceScreen)


async def test_switches_read_on_and_off_without_colour(session, catalogue, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("b")
        await pilot.pause()
        fighters = app.screen.query_one("#gm-fighters", CheckList)
        fighters.deselect("Iriel")
        await pilot.pause()
        lines = [fighters.render_line(y).text for y in range(4)]
        assert [line[:3] for line in lines] == ["[✓]", "[ ]", "[✓]", "[✓]"]
        box = OnOffBox("checks", True)
        assert box.BUTTON_INNER == "✓"
        box.value = False
        assert box.BUTTON_INNER == " "


async def test_space_in_a_pick_list_ticks_the_first_at_once(session, catalogue):
    """The NPCs who join a placed fight: space ticked nothing until an arrow had lit a row."""
    from horizon_tui.ui.gm.screens.placement import PickDialog

    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    picked: list = []
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(PickDialog("Which NPCs join?", [("Grukk", "Grukk"), ("Mayor Oswin", "Mayor Oswin")]),
                              picked.append)
        await pilot.pause()
        await pilot.press("space", "enter")
        await pilot.pause()
    assert picked == [["Grukk"]]
