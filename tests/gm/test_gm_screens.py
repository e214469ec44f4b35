"""Pilot flows through `horizon gm`: campaigns, the dashboard, the player app's character screens
run over the campaign, the NPC editor."""

from __future__ import annotations

import gc

import attrs

from textual.widgets import DataTable, Input, Select, Static, TextArea

from horizon_tui.campaign import changes
from horizon_tui.campaign.campaign_files import CampaignStore
from horizon_tui.campaign.model import Npc
from tests.gm.conftest import OSWIN, current, make_campaign
from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.gm.screens.campaigns import CampaignsScreen
from horizon_tui.ui.gm.screens.dashboard import DashboardScreen
from horizon_tui.ui.gm.screens.log_view import LogTail
from horizon_tui.ui.gm.screens.importing import ImportScreen
from horizon_tui.ui.gm.screens.npc_editor import NpcEditorScreen
from horizon_tui.ui.player.screens.level_up import LevelUpScreen
from horizon_tui.ui.player.screens.sheet import SheetScreen

SIZE = (120, 40)


def shown(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_a_first_start_makes_a_campaign_and_imports_a_saved_character(saves, catalogue):
    app = create_gm_app(saves, catalogue)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, CampaignsScreen)
        await pilot.press(*"Lantern Road", "enter")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        assert app.screen.query_one("#party", DataTable).border_title == "Party"
        await pilot.press("i")
        assert isinstance(app.screen, ImportScreen)
        await pilot.press("space", "ctrl+s")  # the newest save, ticked and imported
        await pilot.pause()
        name = app.campaign.party[0].name
        await pilot.press("escape")
        assert isinstance(app.screen, DashboardScreen)
        assert app.screen.query_one("#party", DataTable).row_count == 1
        await pilot.press("enter")  # its sheet, the campaign's copy
        assert isinstance(app.screen, SheetScreen)
        assert "lantern-road" in shown(app.screen, "#sheet-path")
        await pilot.press("escape")
        await pilot.press("o", "n", *"Coast", "enter")  # a second campaign, side by side
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen) and app.campaign.name == "Coast"
        assert app.screen.query_one("#party", DataTable).row_count == 0
    store = CampaignStore(saves, catalogue)
    assert sorted(e.slug for e in store.entries()) == ["coast", "lantern-road"]
    party = store.load("lantern-road").campaign.party
    assert [m.name for m in party] == [name]
    assert party[0].source.endswith(".toml")


async def test_a_party_character_levels_up_in_the_player_apps_screens_and_ctrl_z_takes_it_back(session, catalogue):
    session.apply(lambda c: changes.award_xp(c, {"Brakka": 100}), "xp")
    before = current(session)
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("enter")  # Brakka, first in the Party roster
        assert isinstance(app.screen, SheetScreen) and app.session.character.name == "Brakka"
        await pilot.press("u")
        assert isinstance(app.screen, LevelUpScreen)
        await pilot.press("plus", "plus", "plus", "plus", "ctrl+s")  # 10 + 15 + 20 + 25 XP
        await pilot.pause()
        assert isinstance(app.screen, SheetScreen)
        assert app.campaign.member("Brakka").character.xp == 30
        assert app.campaign.log[-1].kind == "points" and "Brakka buys 4 points" in app.campaign.log[-1].text
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)  # a character screen closes before its data goes
        assert current(app.host.gm) == before


async def test_the_npc_editor_makes_and_edits_npcs(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        editor = app.screen
        assert isinstance(editor, NpcEditorScreen)
        await pilot.press(*"Wen", "tab", *"sage", "tab", "ctrl+u", "4")
        editor.query_one("#npc-faith", Input).value = "8"
        editor.query_one("#npc-willpower", Input).value = "50"
        editor.query_one("#npc-notes", TextArea).text = "knows the barrow's door"
        await pilot.pause()
        assert "willpower 50 (set)" in shown(editor, "#npc-preview")
        await pilot.press("ctrl+s")
        await pilot.pause()
        wen = app.campaign.npc("Wen")
        assert (wen.level, wen.attributes["faith"], float(wen.willpower), wen.checkable) == (4, 8, 50.0, True)
        assert wen.notes == "knows the barrow's door"
        npcs = app.screen.query_one("#npcs", DataTable)
        npcs.focus()
        npcs.move_cursor(row=2)
        await pilot.press("enter")
        assert isinstance(app.screen, NpcEditorScreen) and app.screen.original.name == "Wen"
        app.screen.query_one("#npc-checkable").toggle()
        app.screen.query_one("#npc-attitude", Select).value = "friendly"
        app.screen.query_one("#npc-weapon", Select).value = "spear"
        app.screen.query_one("#npc-controller", Select).value = "gm"
        app.screen.query_one("#npc-abilities_from", Select).value = "goblin_hexer"  # fights with its kit
        await pilot.pause()
        assert "Fights with the abilities of Goblin Hexer (level 3)" in shown(app.screen, "#npc-preview")
        assert "● Hex of Sloth" in shown(app.screen, "#npc-preview")
        app.screen.query_one("#npc-level", Input).value = "1"  # too few slots for the hexer's four
        await pilot.pause()
        assert "level 1 has" in shown(app.screen, "#npc-preview")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, NpcEditorScreen)  # refused, with the reason
        app.screen.query_one("#npc-level", Input).value = "4"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.campaign.npc("Wen").abilities_from == "goblin_hexer"
        assert app.campaign.npc("Wen").checkable is False and app.campaign.npc("Wen").attitude == "friendly"
        assert (app.campaign.npc("Wen").weapon, app.campaign.npc("Wen").controller) == ("spear", "gm")
        assert app.campaign.npc("Wen").combat_side() == "party"
        assert app.campaign.npc("Wen").species == "sage"
        await pilot.press("n")
        await pilot.press(*"Grukk", "ctrl+s")  # a name already taken
        assert isinstance(app.screen, NpcEditorScreen)



async def test_the_npc_editor_is_kept_and_opened_again_as_a_new_one_would_show(session, catalogue):
    """Closing the NPC editor leaves it standing (taking sixty widgets down, the dashboard was laid
    out and drawn again for it); opened again it shows the NPC asked for, exactly as a new editor
    would, nothing of the last one kept (a weapon the data no longer has stays one of the options
    only for the NPC who carries it)."""
    session.apply(lambda c: changes.save_npc(c, "Grukk", attrs.evolve(c.npc("Grukk"), weapon="old_club",
                                                                          notes="guards the ford")), "npc")
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        editor = app.screen
        assert isinstance(editor, NpcEditorScreen)
        fresh = {field.id: field.value for field in editor.query(Input)}
        await pilot.press(*"Wen", "ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen) and app.campaign.npc("Wen") is not None
        assert editor.is_mounted  # kept for the next NPC

        dashboard = app.screen
        dashboard.edit_npc("Grukk")
        await pilot.pause()
        assert app.screen is editor and editor.original.name == "Grukk" and editor.sub_title == "Grukk"
        assert editor.read() == app.campaign.npc("Grukk") and editor.unsaved_work() is None
        assert editor.query_one("#npc-notes", TextArea).text == "guards the ford"
        assert "old_club" in [value for _, value in editor.query_one("#npc-weapon", Select)._options]
        assert editor.focused is editor.query_one("#npc-name", Input)
        await pilot.press("escape")
        await pilot.pause()

        await pilot.press("n")
        assert app.screen is editor and editor.original is None and editor.sub_title == "new"
        assert {field.id: field.value for field in editor.query(Input)} == fresh
        assert editor.query_one("#npc-notes", TextArea).text == ""
        assert "old_club" not in [value for _, value in editor.query_one("#npc-weapon", Select)._options]
        assert editor.unsaved_work() is None
        await pilot.press(*"Bram", "ctrl+s")
        await pilot.pause()
        assert app.campaign.npc("Bram").notes == "" and app.campaign.npc("Grukk").notes == "guards the ford"


async def test_a_dice_roll_redraws_the_days_log_not_the_rosters(session, catalogue):
    """A logged roll changes the Today panel only: the party and NPC tables (a rules build per
    member) are rebuilt when what they show changes (an XP award), not on every action."""
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        dashboard = app.screen
        assert isinstance(dashboard, DashboardScreen)
        party = dashboard.query_one("#party", DataTable)
        cleared = []
        original = party.clear
        party.clear = lambda *a, **k: (cleared.append(1), original(*a, **k))[1]
        assert app.host.act(lambda c: changes.roll_dice(c, "1d20")[0], "roll")
        await pilot.pause()
        assert cleared == [] and "1d20 = " in str(dashboard.query_one("#gm-today", LogTail).render())
        assert app.host.act(lambda c: changes.award_xp(c, {"Iriel": 10}), "xp")
        await pilot.pause()
        assert cleared == [1] and "10" in str(party.get_row("Iriel"))
        npcs = dashboard.query_one("#npcs", DataTable)
        assert app.host.act(lambda c: changes.save_npc(c, None, Npc("Bram")), "NPC Bram")
        await pilot.pause()  # the NPC table gains its row; the party's is left as it was drawn
        assert cleared == [1] and str(npcs.get_row("Bram")[0]) == "Bram"


async def test_at_80x24_the_rosters_have_no_scrollbar_row_and_arrows_show_their_last_columns(session, catalogue):
    """Beside Today a roster is wider than its panel: no scrollbar takes a row (its thumb alone in
    it), → brings the last columns into view, and the names stay at the left."""
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        party = app.screen.query_one("#party", DataTable)
        assert party.virtual_size.width > party.scrollable_content_region.width  # wider than it shows
        assert party.scrollbar_size_horizontal == 0 and party.fixed_columns == 1
        party.focus()
        for _ in range(60):
            await pilot.press("right")
        await pilot.pause(0.5)  # (the scroll is animated)
        assert party.scroll_x == party.max_scroll_x > 0
        assert "Name" in str(party.render_line(0)) and "Notes" in str(party.render_line(0))


async def test_the_today_panel_keeps_the_newest_line_in_view(session, catalogue):
    """At 80×24 the day's log outgrows its panel within a few rolls: the panel follows the newest
    line, as a log does, instead of staying on the first ones."""
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        dashboard = app.screen
        assert isinstance(dashboard, DashboardScreen)
        for _ in range(30):
            assert app.host.act(lambda c: changes.roll_dice(c, "1d20")[0], "roll")
        await pilot.pause()
        await pilot.pause()
        panel = dashboard.query_one("#gm-today", LogTail)
        shown = str(panel.render()).splitlines()
        rolls = [e.text for e in app.campaign.today("roll")]
        assert len(shown) == panel.content_size.height < len(rolls)  # full, and the day's log is longer
        assert shown == [f"• {text}" for text in rolls[-len(shown):]]  # the newest ones


async def test_what_the_gm_tool_holds_all_evening_is_set_aside_from_the_garbage_collector(session, catalogue):
    """Up, the GM tool freezes what it holds (a full collection walking it was a 140 ms stall every
    few actions); closed, it gives it back."""
    gc.unfreeze()  # what another test in this process froze (tools.simulate does) given back first
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        assert gc.get_freeze_count() > 10_000
    assert gc.get_freeze_count() == 0


async def test_a_forked_gm_tool_leaves_its_hosts_frozen_objects_frozen(session, catalogue):
    """Under host/prefork the process froze its own objects before the app began: the app's close
    must not give those back to the collector (it would copy the pages the forks share)."""
    gc.freeze()
    try:
        app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


async def test_the_dashboard_counts_one_npc_as_one_npc_and_the_form_spells_armor_as_the_wizard(store, catalogue):
    """Found by hand: a new campaign with its first NPC read '1 NPCs'; the NPC form's 'Armour'
    beside the character wizard's 'Armor'."""
    make_campaign(store, "One Lantern", npcs=(OSWIN,))
    app = create_gm_app(store.saves_dir, catalogue, campaign="One Lantern")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        line = str(app.screen.query_one("#gm-status", Static).render())
        assert line.rstrip().endswith("·  1 NPC")
        await pilot.press("n")
        assert isinstance(app.screen, NpcEditorScreen)
        labels = " ".join(str(s.render()) for s in app.screen.query(Static))
        assert "Armor" in labels and "Armour" not in labels


async def test_a_gm_action_is_followed_by_a_full_collection_once_it_is_on_screen(session, catalogue):
    """The full garbage collection is done while the GM reads the action's result, not when the
    collector's counts fall due in the middle of a later action (the new NPC's p95)."""
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    full: list[int] = []

    def seen(phase: str, info: dict) -> None:
        if phase == "stop" and info["generation"] == 2:
            full.append(1)

    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        gc.collect()  # the collector's own counts start from nothing: it has no full collection due
        gc.callbacks.append(seen)
        try:
            assert app.host.act(lambda c: changes.save_npc(c, None, Npc("Wen", level=2)), "NPC Wen")
            assert not full  # not in the action itself
            await pilot.pause(0.4)
            assert full, "no full collection after the action"
        finally:
            gc.callbacks.remove(seen)
