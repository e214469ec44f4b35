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


# --- copying a save out to a file or a folder (the Load screen's x) -------------------------------
# By hand: "/tmp/x/" (a folder that doesn't exist, typed with its slash) wrote a file named x.


def test_a_path_ending_in_a_separator_is_a_folder_made_only_when_asked(iriel, tmp_path):
    import pytest

    from horizon_tui.play.transfer import FolderMissing, export_character

    folder = tmp_path / "out" / "x"
    with pytest.raises(FolderMissing) as missing:
        export_character(iriel, folder, into_folder=True)
    assert missing.value.folder == folder and not folder.exists()
    written = export_character(iriel, folder, into_folder=True, make_folder=True)
    assert written == folder / "iriel.toml" and written.read_bytes() == iriel.read_bytes()
    assert export_character(iriel, folder, replace=True) == folder / "iriel.toml"  # an existing folder, no slash
    (tmp_path / "afile").write_text("not a folder")
    with pytest.raises(NotADirectoryError):
        export_character(iriel, tmp_path / "afile", into_folder=True)
    assert (tmp_path / "afile").read_text() == "not a folder"


async def test_export_to_a_new_folder_asks_then_writes_into_it(saves, iriel, catalogue, tmp_path):
    from textual.widgets import Input

    from horizon_tui.ui.dialogs.confirm import ConfirmDialog
    from horizon_tui.ui.player.screens.transfer import PathDialog, ask_export

    folder = tmp_path / "elsewhere"
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        ask_export(app, iriel)
        await pilot.pause()
        assert isinstance(app.screen, PathDialog)
        app.screen.query_one(Input).value = f"{folder}/"
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog) and not folder.exists()
        await pilot.press("y")
        await pilot.pause()
        assert (folder / "iriel.toml").read_bytes() == iriel.read_bytes()
