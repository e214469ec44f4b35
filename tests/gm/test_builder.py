"""Encounters from the keyboard: catalogue enemies and counts, the XP, R-4's party level
for this party, the simulated win chance, a unit placed by cursor, saved as an encounter file the
picker lists and a battle loads."""

from __future__ import annotations

import tomllib

from textual.widgets import DataTable, Static

from horizon_tui.engine.encounter import load_encounter
from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.gm.screens.builder import EncounterBuilderScreen
from horizon_tui.ui.gm.screens.encounter import GMEncounterPickerScreen
from horizon_tui.ui.gm.screens.placement import CellPicker

SIZE = (80, 24)


async def test_build_an_encounter_see_its_odds_place_one_and_save_it(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("b", "n")
        screen = app.screen
        assert isinstance(screen, EncounterBuilderScreen)
        table = screen.query_one("#build-catalogue", DataTable)
        wolf = next(i for i in range(table.row_count) if table.get_row_at(i)[0] == "Grey Wolf")
        table.move_cursor(row=wolf)
        await pilot.press("enter", "plus", "plus", "minus")  # three, then one off: two wolves
        await pilot.pause()
        assert [(g.enemy, g.count) for g in screen.draft.groups] == [("wolf", 2)]
        summary = str(screen.query_one("#build-summary", Static).render())
        assert "2 enemies · 40 XP" in summary
        assert "An even fight for 4 at level 1 (R-4)" in summary  # 64 points ÷ 4 = 16: level 1 at least

        await pilot.press("ctrl+e")  # the win chance for this party, in a thread
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Win chance" in str(screen.query_one("#build-summary", Static).render())

        await pilot.press("p")  # one wolf on a cell picked by cursor
        assert isinstance(app.screen, CellPicker)
        start = app.screen.cursor
        await pilot.press("right", "enter")
        await pilot.pause()
        assert app.screen is screen
        assert [(g.count, g.at) for g in screen.draft.groups] == [(1, None), (1, (start[0] + 1, start[1]))]

        await pilot.press("ctrl+s")
        await pilot.pause()
        path = session.store.saves_dir / "encounters" / "a-new-encounter.toml"
        data = tomllib.loads(path.read_text())
        assert data["enemies"] == [{"enemy": "wolf"}, {"enemy": "wolf", "at": [start[0] + 1, start[1]]}]
        setup = load_encounter(str(path), app.host.store.catalogue, app.enemies())
        assert setup.xp == 40 and (start[0] + 1, start[1]) in [tuple(xy) for _, xy, _ in setup.enemies]

        # the same name again with other enemies: asked before the first file is replaced
        first = path.read_bytes()
        await pilot.press("plus")
        await pilot.press("ctrl+s")
        await pilot.pause()
        from horizon_tui.ui.dialogs.confirm import ConfirmDialog

        assert isinstance(app.screen, ConfirmDialog) and "a-new-encounter.toml" in app.screen.question
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is screen and path.read_bytes() == first
        await pilot.press("ctrl+s", "y")
        await pilot.pause()
        assert app.screen is screen and path.read_bytes() != first
        await pilot.press("ctrl+s")  # saved as it is: nothing to ask
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, GMEncounterPickerScreen)
        assert "A new encounter" in [e.name for e in app.screen.encounters]
