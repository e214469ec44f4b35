"""Import: any file (a path field that completes), the shipped examples offered, several at
once in one action; a file that can't be read is named with why and the others still join."""

from __future__ import annotations

from textual.geometry import Region
from textual.widgets import Input, SelectionList

from horizon_tui.campaign import changes
from horizon_tui.campaign.open_campaign import OpenCampaign
from horizon_tui.ui.dialogs.confirm import ConfirmDialog
from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.gm.screens.dashboard import DashboardScreen
from horizon_tui.ui.gm.screens.importing import ImportScreen, complete_path

from tests.gm.conftest import PARTY, REPO

SIZE = (80, 24)
EXAMPLES = REPO / "examples" / "party"


def empty_campaign(store):
    path, campaign = store.create("Fresh Start", seed=7)
    return OpenCampaign(store, path, campaign)


def test_several_files_read_at_once_and_a_bad_one_is_named(store, tmp_path):
    session = empty_campaign(store)
    broken = tmp_path / "broken.toml"
    broken.write_text("name = \n", encoding="utf-8")
    read, problems = changes.read_characters(session.campaign, [*PARTY[:2], broken, PARTY[0], tmp_path / "gone.toml"],
                                             store.catalogue)
    assert [c.name for c, _ in read] == ["Brakka", "Iriel"]
    assert len(problems) == 3
    assert problems[0].startswith(str(broken)) or "broken.toml" in problems[0]
    assert "Brakka is in the party already" in problems[1]  # twice among these
    assert "gone.toml" in problems[2]
    session.apply(lambda c: changes.add_members(c, read), "two join")
    assert [m.name for m in session.campaign.party] == ["Brakka", "Iriel"]
    session.undo()  # one undo takes both back
    assert session.campaign.party == ()


def test_the_path_field_completes_files_and_folders():
    assert complete_path(f"{EXAMPLES}/ir") == f"{EXAMPLES}/iriel.toml"
    assert complete_path(f"{REPO}/examples/pa") == f"{EXAMPLES}/"
    assert complete_path(f"{EXAMPLES}/zz") is None
    assert complete_path("") is None


async def test_three_files_typed_import_at_once(store, catalogue):
    empty_campaign(store)
    app = create_gm_app(store.saves_dir, catalogue, campaign="Fresh Start")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("i")
        screen = app.screen
        assert isinstance(screen, ImportScreen)
        listing = screen.query_one("#import-list", SelectionList)
        shown = [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]
        assert sum("example" in line for line in shown) == len(PARTY)  # the shipped examples offered
        screen.query_one("#import-path", Input).focus()
        for name in ("iriel", "morwen", "sefa"):
            await pilot.press(*f"{EXAMPLES}/{name}.toml", "enter")
        await pilot.pause()
        assert len(screen.ticked()) == 3
        await pilot.press("escape")  # ticked, not imported: asked
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("n", "ctrl+s")
        await pilot.pause()
        assert [m.name for m in app.campaign.party] == ["Iriel", "Morwen", "Sefa"]
        assert app.host.gm.history[-1].label == "Iriel, Morwen, Sefa join"
        assert screen.ticked() == []
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)


async def test_a_missing_path_is_named_and_nothing_changes(store, catalogue):
    empty_campaign(store)
    app = create_gm_app(store.saves_dir, catalogue, campaign="Fresh Start")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("i")
        screen = app.screen
        screen.query_one("#import-path", Input).focus()
        await pilot.press(*"/nowhere/ghost.toml", "enter")
        await pilot.pause()
        assert "no such file or folder" in str(screen.query_one("#import-note").render())
        assert screen.ticked() == [] and app.campaign.party == ()


def test_completion_finds_a_name_in_a_large_folder(tmp_path):
    """Every name of a folder is read (only the matches' details): a first version read 500 and
    missed the rest."""
    for index in range(1200):
        (tmp_path / f"c{index:04d}.toml").touch()
    assert complete_path(f"{tmp_path}/c119") == f"{tmp_path}/c1190.toml"


async def test_why_a_ticked_file_did_not_join_stays_said_after_the_others_join(store, catalogue, tmp_path):
    """Found by hand: importing ticked files, the screen un-ticked those that joined, and that
    redrew the note without the problems: nine files stayed ticked and nothing said why."""
    empty_campaign(store)
    broken = tmp_path / "broken.toml"
    broken.write_text("name = \n", encoding="utf-8")
    app = create_gm_app(store.saves_dir, catalogue, campaign="Fresh Start")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("i")
        screen = app.screen
        screen.query_one("#import-path", Input).focus()
        for path in (broken, EXAMPLES / "iriel.toml"):
            await pilot.press(*str(path), "enter")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert [m.name for m in app.campaign.party] == ["Iriel"]
        assert screen.ticked() == [broken]
        note = " ".join(str(screen.query_one("#import-note").render()).split())
        assert "1 ticked" in note and "✗" in note and "broken.toml" in note, note


async def test_many_files_refused_are_counted_in_the_note_not_cut_off(store, catalogue, tmp_path):
    """The note holds four rows inside its border at 80×24: six files that can't be read show what
    fits (the first, a long path, as much of it as two rows hold) and how many more, where the
    fifth row and on were cut off unsaid."""
    empty_campaign(store)
    folder = tmp_path / ("a-folder-with-a-rather-long-name-" * 2)
    folder.mkdir()
    for n in range(6):
        (folder / f"broken-{n}.toml").write_text("name = \n", encoding="utf-8")
    app = create_gm_app(store.saves_dir, catalogue, campaign="Fresh Start")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("i")
        screen = app.screen
        screen.query_one("#import-path", Input).focus()
        await pilot.press(*str(folder), "enter")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        note = screen.query_one("#import-note")
        rows = [strip.text.strip(" │╭╮╰╯─") for strip in note.render_lines(Region(0, 0, *note.outer_size))][1:-1]
        assert len(rows) == 4 and rows[0].startswith("6 ticked"), rows
        assert rows[1].startswith("✗") and rows[2].endswith("…"), rows  # the first, as much as fits
        assert rows[3] == "✗ … and 5 more not imported (still ticked)", rows
