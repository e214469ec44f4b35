"""Every GM form asks before dropping work, by every way out: esc, ctrl+q, the palette's screens
(`CampaignHost.asked_first`), a key that opens a sheet over the dashboard. No is the default answer."""

from __future__ import annotations

import pytest
from textual.widgets import Input, TextArea

from horizon_tui.ui.dialogs.confirm import ConfirmDialog
from horizon_tui.ui.dialogs.confirm import QuitDialog
from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.gm.screens.builder import EncounterBuilderScreen
from horizon_tui.ui.gm.screens.dashboard import DashboardScreen
from horizon_tui.ui.gm.screens.dialogue import DialogueScreen
from horizon_tui.ui.gm.screens.experience import ExperienceScreen
from horizon_tui.ui.gm.screens.npc_editor import NpcEditorScreen
from horizon_tui.ui.gm.screens.placement import PlacementScreen, Unit
from horizon_tui.ui.gm.screens.rules_editor import RulesEditorScreen
from horizon_tui.ui.player.screens.sheet import SheetScreen

SIZE = (80, 24)


def open_app(session, catalogue):
    return create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")


async def xp_typed(pilot, app):
    await pilot.press("x", *"400")
    assert isinstance(app.screen, ExperienceScreen)


async def talk_typed(pilot, app):
    await pilot.press("c", *"Let us pass")
    assert isinstance(app.screen, DialogueScreen)


async def modifier_set(pilot, app):
    await pilot.press("c", "ctrl+up")
    assert isinstance(app.screen, DialogueScreen)
    assert app.screen.query_one("#talk-modifier", Input).value == "1"


async def npc_typed(pilot, app):
    await pilot.press("n", *"Wen")
    assert isinstance(app.screen, NpcEditorScreen)


async def rules_changed(pilot, app):
    await pilot.press("g", "plus")
    assert isinstance(app.screen, RulesEditorScreen)


async def encounter_built(pilot, app):
    await pilot.press("b", "n", "enter")  # the builder, one enemy added
    await pilot.pause()
    assert isinstance(app.screen, EncounterBuilderScreen) and app.screen.draft.groups


async def units_placed(pilot, app):
    from horizon_tui.campaign import battles

    spec = {"generator": "open", "width": 12, "height": 12, "seed": 1}
    field = battles.map_battlefield(spec, app.host.store.catalogue, app.enemies())
    screen = PlacementScreen(spec, field, [Unit("member", "Brakka", "party", "player")])
    await app.push_screen(screen)
    await pilot.pause()
    await pilot.press("enter")  # Brakka on the first floor cell
    assert screen.units[0].at is not None


FORMS = {"xp": (xp_typed, ExperienceScreen), "dialogue": (talk_typed, DialogueScreen),
         "modifier": (modifier_set, DialogueScreen), "npc": (npc_typed, NpcEditorScreen),
         "house rules": (rules_changed, RulesEditorScreen), "builder": (encounter_built, EncounterBuilderScreen),
         "placement": (units_placed, PlacementScreen)}


@pytest.mark.parametrize("form", FORMS)
async def test_esc_asks_and_no_keeps_the_form(session, catalogue, form):
    fill, kind = FORMS[form]
    app = open_app(session, catalogue)
    async with app.run_test(size=SIZE) as pilot:
        await fill(pilot, app)
        screen = app.screen
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog), f"{form}: esc left without a question"
        await pilot.press("n")
        assert app.screen is screen and screen.unsaved_work() is not None
        await pilot.press("escape", "y")
        await pilot.pause()
        assert not isinstance(app.screen, kind)


@pytest.mark.parametrize("form", FORMS)
async def test_ctrl_q_asks_before_quitting_with_a_form_filled(session, catalogue, form):
    fill, _ = FORMS[form]
    app = open_app(session, catalogue)
    async with app.run_test(size=SIZE) as pilot:
        await fill(pilot, app)
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, QuitDialog) and app.is_running


@pytest.mark.parametrize("action", ["main_menu", "level_up", "load_character", "new_character"])
@pytest.mark.parametrize("form", FORMS)
async def test_the_palettes_screens_ask_before_closing_a_filled_form(session, catalogue, form, action):
    """The palette runs the app's actions; each would pop every screen over the dashboard."""
    fill, kind = FORMS[form]
    app = open_app(session, catalogue)
    async with app.run_test(size=SIZE) as pilot:
        app.host.member = "Brakka"  # the palette's character commands act on an open member
        await fill(pilot, app)
        screen = app.screen
        await app.run_action(action)
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog) and "forget" in app.screen.question.lower()
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is screen
        await app.run_action(action)
        await pilot.press("y")
        await pilot.pause()
        assert kind not in {type(s) for s in app.screen_stack}


async def test_a_sheet_opened_over_a_filled_form_asks(session, catalogue):
    """ctrl+u on the XP screen (a level-up) and the dashboard's open are the keys that open a
    sheet over the dashboard: a form under them is asked about."""
    app = open_app(session, catalogue)
    async with app.run_test(size=SIZE) as pilot:
        await talk_typed(pilot, app)
        app.host.open_member("Brakka")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, SheetScreen) and len(app.screen_stack) == 2


async def test_a_form_without_work_leaves_at_once(session, catalogue):
    app = open_app(session, catalogue)
    async with app.run_test(size=SIZE) as pilot:
        for key in ("x", "c"):
            await pilot.press(key, "escape")
            await pilot.pause()
            assert isinstance(app.screen, DashboardScreen)
        await pilot.press("c", *"hello")
        app.screen.query_one("#roleplay", TextArea).clear()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)


async def test_ctrl_z_on_the_dialogue_screen_keeps_the_words_typed(session, catalogue):
    """Undo doesn't drop what the dialogue screen holds: it isn't refused there."""
    from horizon_tui.campaign import changes

    app = open_app(session, catalogue)
    async with app.run_test(size=SIZE) as pilot:
        await talk_typed(pilot, app)
        assert app.host.act(changes.advance_day, "day 2") and app.campaign.day == 2
        app.screen.query_one("#talk-settlement", Input).focus()  # the words' own field undoes its typing
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert app.campaign.day == 1
        assert app.screen.query_one("#roleplay", TextArea).text == "Let us pass"
