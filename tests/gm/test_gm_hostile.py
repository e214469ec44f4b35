"""What a GM broke by hand with hostile input: pastes far longer than any file may hold, typed
where the GM tool takes a few words."""

from __future__ import annotations

from textual import events
from textual.widgets import Input

from horizon_tui.engine.battle import hp, ident, team
from horizon_tui.engine.persist import session_to_dict
from horizon_tui.gm.app import create_gm_app
from horizon_tui.gm.screens.dialogs import PromptDialog
from tests.gm.test_gm_battle import SIZE, start_goblin_ambush


async def test_a_huge_paste_in_a_reason_never_leaves_the_fight_ahead_of_its_file(session, catalogue):
    """By hand: D on a combatant, a 150,000-character paste as the reason, ctrl+s. The damage was
    dealt on screen but "Not saved" (a text longer than a campaign file holds), and every input
    after it failed to save as well: the rest of the fight was lost on quitting."""
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_goblin_ambush(app, pilot)
        enemy = next(e for e in screen.battle.active.values() if team(e) == "enemies")
        screen.selected = ident(enemy).id
        before = hp(enemy).hp
        await pilot.press("D", "5", "tab")
        dialog = app.screen
        assert isinstance(dialog, PromptDialog)
        reason = dialog.query_one("#prompt-reason", Input)
        reason.post_message(events.Paste("x" * 150_000))
        await pilot.pause()
        assert len(reason.value) <= 500  # a reason is a few words: the paste is refused
        await pilot.press(*"pit", "ctrl+s")
        await pilot.pause()
        assert hp(enemy).hp == before - 5
        saved = app.campaign.battle["inputs"]
        assert saved == session_to_dict(screen.session, app.store.catalogue)["inputs"]
        assert saved[-1]["action"]["reason"] == "pit"
