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


# --- damaged campaign files -------------------------------------------------------------------

import json  # noqa: E402

import pytest  # noqa: E402

from horizon_tui.errors import DataError  # noqa: E402
from horizon_tui.gm.store import decode, encode  # noqa: E402


@pytest.mark.parametrize(("change", "key", "said"), [
    (lambda d: d.update(rests="a"), "rests", "a whole number"),
    (lambda d: d.update(day="x"), "day", "a whole number"),
    (lambda d: d.update(seed="x"), "seed", "a whole number"),
    (lambda d: d.update(party={"a": 1}), "party", "a list"),
    (lambda d: d.update(npcs="Oswin"), "npcs", "a list"),
    (lambda d: d.update(log=["x"]), "log.0", "a table"),
    (lambda d: d["log"][0].update(day="abc"), "log.0.day", "a whole number"),
    (lambda d: d["log"][0].update(data=[1, 2]), "log.0.data", "a table"),
    (lambda d: d.update(rules=[1]), "rules", "a table"),
    (lambda d: d["party"][0].pop("character"), "party.0.character", "missing"),
    (lambda d: d.update(name=None), "name", "a text"),
])
def test_a_campaign_of_the_wrong_shape_names_the_key_and_what_it_should_be(session, change, key, said):
    """By hand, the campaign list said "invalid literal for int() with base 10: 'a: missing or of
    the wrong type" for `"rests": "a"`: Python's words where the key should be, and no key."""
    data = json.loads(encode(session.campaign, session.store.catalogue))
    change(data)
    with pytest.raises(DataError) as caught:
        decode(json.dumps(data).encode(), session.store.catalogue, "c.json")
    problem = caught.value.problems[0]
    assert problem.key == key and said in problem.message, problem
    assert "invalid literal" not in problem.message and "indices" not in problem.message
