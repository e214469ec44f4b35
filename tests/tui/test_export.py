"""The Export screen: the character being played as text — its sheet as `horizon sheet`
prints it, and its save file as it is on disk — to copy or print, since SSH allows no file transfer."""

from __future__ import annotations

from horizon_tui.ui.player.app import create_app
from horizon_tui.ui.player.screens.export import ExportScreen


async def test_export_shows_the_sheet_and_the_save_file_and_copies_them(saves, iriel, iriel_text, catalogue):
    app = create_app(saves, catalogue, screen="sheet")
    async with app.run_test(size=(110, 40)) as pilot:
        await pilot.pause()
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        shown = app.screen.text
        assert shown.startswith("Iriel — Elf, level")  # as `horizon sheet` prints it
        assert "Attributes" in shown and "Derived stats" in shown and "\x1b" not in shown
        copied = []
        app.copy_to_clipboard = copied.append
        await pilot.press("f")
        await pilot.pause()
        assert app.screen.text == iriel_text  # the file, byte for byte
        await pilot.press("c")
        assert copied == [iriel_text]
        await pilot.press("p")  # no terminal to print to under the test driver: told so, no crash
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ExportScreen)
