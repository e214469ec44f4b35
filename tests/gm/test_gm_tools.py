"""Pilot flows through the GM's tools: dialogue checks and their daily limits, experience, the
house-rules editor, the dice roller and the session log's export."""

from __future__ import annotations


from textual.widgets import DataTable, Input, Select, Static, TextArea

from horizon_tui.campaign import changes
from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.gm.screens.dashboard import DashboardScreen
from horizon_tui.ui.gm.screens.dialogue import DialogueScreen
from horizon_tui.ui.gm.screens.dialogs import PromptDialog
from horizon_tui.ui.gm.screens.experience import ExperienceScreen
from horizon_tui.ui.gm.screens.rules_editor import RulesEditorScreen

SIZE = (120, 40)


def shown(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_dialogue_checks_show_the_odds_refuse_a_fifth_and_record_an_override(session, catalogue):
    for i in range(4):
        session.apply(lambda c, i=i: changes.save_npc(c, None, changes.Npc(f"Villager {i}")), "npc")
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        talk = app.screen
        assert isinstance(talk, DialogueScreen)
        talk.query_one("#talk-character", Select).value = "Iriel"
        for i in range(4):
            talk.query_one("#talk-npc", Select).value = f"Villager {i}"
            await pilot.pause()
            assert "odds of success" in shown(talk, "#talk-odds")
            talk.query_one("#roleplay", TextArea).text = f"Please, villager {i}: the lanterns."
            await pilot.press("ctrl+r")
            await pilot.pause()
            assert "SUCCESS" in shown(talk, "#talk-result") or "FAILURE" in shown(talk, "#talk-result")
        talk.query_one("#talk-npc", Select).value = "Mayor Oswin"
        await pilot.press("ctrl+up", "ctrl+up")
        await pilot.pause()
        assert "+2 GM" in shown(talk, "#talk-odds") and "limit is 4 per day" in shown(talk, "#talk-odds")
        await pilot.press(*"Please", "ctrl+r")  # typed into the roleplay box
        assert isinstance(app.screen, PromptDialog)
        await pilot.press("enter")  # no reason: refused
        assert isinstance(app.screen, PromptDialog)
        await pilot.press(*"sent for", "enter")
        await pilot.pause()
        assert app.screen is talk
        checks = app.campaign.today("check")
        assert len(checks) == 5
        assert checks[-1].data["override"] == "sent for"
        assert checks[-1].data["text"] == "Please" and checks[-1].data["modifier"] == 2
        assert "override: sent for" in shown(talk, "#talk-today")
        talk.query_one("#talk-settlement", Input).value = "Millbrook"
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert {e.data["character"] for e in app.campaign.today("reaction")} == {"Brakka", "Sefa"}
        await pilot.press("ctrl+n", "y")  # asked first, as t on the dashboard
        await pilot.pause()
        assert app.campaign.day == 2 and "0 of 4 checks today" in shown(talk, "#talk-odds")


async def test_experience_is_shared_by_r14_and_shows_who_can_buy_points(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("x")
        screen = app.screen
        assert isinstance(screen, ExperienceScreen)
        await pilot.press(*"102")
        assert "Brakka +25 XP" in shown(screen, "#xp-preview") and "2 XP doesn't divide" in shown(screen, "#xp-preview")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert {m.character.xp for m in app.campaign.party} == {25}
        table = screen.query_one("#xp-buyers", DataTable)
        assert [str(c) for c in table.get_row("Iriel")][-1] == "2"
        screen.query_one("#xp-split", Select).value = "one"
        screen.query_one("#xp-one", Select).value = "Sefa"
        screen.query_one("#xp-amount", Input).value = "50"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.campaign.member("Sefa").character.xp == 75
        assert app.campaign.log[-1].data["amounts"] == {"Sefa": 50}


async def test_the_rules_editor_validates_as_you_type_and_saves_per_campaign(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("g")
        editor = app.screen
        assert isinstance(editor, RulesEditorScreen)
        await pilot.press("down", "right", "enter")  # level 2, slots
        assert editor.editing == ("levels", 1, "slots")
        await pilot.press("ctrl+u", "minus", "1")
        assert "allowed: 0 to 100 (ranges.slots" in shown(editor, "#rules-problems")
        await pilot.press("ctrl+u", "4", "enter")
        assert "these rules hold together" in shown(editor, "#rules-problems")
        await pilot.press("2")  # difficulties
        await pilot.press("down", "down", "right", "right", "right", "enter", "ctrl+u", *"90", "enter")
        assert "thresholds must rise" in shown(editor, "#rules-problems")
        await pilot.press("ctrl+s")
        assert app.campaign.rules == {}  # refused while the rules don't hold together
        await pilot.press("d")  # the shipped threshold back
        await pilot.press("4")
        assert editor.query_one("#rules-diff", DataTable).row_count == 1
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.rules.level_row(2).slots == 4
        assert app.campaign.log[-1].kind == "rules" and "levels.2.slots 3 → 4" in app.campaign.log[-1].text
        await pilot.press("escape")
        assert isinstance(app.screen, DashboardScreen)
        assert "house rules" in shown(app.screen, "#gm-status")


async def test_dice_are_one_key_away_with_history_and_the_log_exports_markdown(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("r")
        await pilot.press("ctrl+u", *"2d6+3", "enter", "enter")
        rolls = [e for e in app.campaign.log if e.kind == "roll"]
        assert len(rolls) == 2 and all(5 <= e.data["total"] <= 15 for e in rolls)
        assert shown(app.screen, "#dice-history").count("2d6 + 3") == 2
        await pilot.press("escape", "c")
        app.screen.query_one("#talk-character", Select).value = "Morwen"
        app.screen.query_one("#roleplay", TextArea).text = "We only want the lanterns lit again."
        await pilot.press("ctrl+r")
        await pilot.press("escape", "l")
        await pilot.press("m")
        await pilot.pause()
        exported = session.store.folder / "lantern-road-day-1.md"
        text = exported.read_text(encoding="utf-8")
        assert "**Morwen → Mayor Oswin**" in text and "> We only want the lanterns lit again." in text
        assert "2d6" not in text  # the GM's own rolls stay private


def test_horizon_gm_takes_a_saves_folder_and_a_campaign(tmp_path):
    from horizon_tui import subcommands
    from horizon_tui.cli import build_parser

    args = build_parser().parse_args(["gm", "--saves-dir", str(tmp_path), "--campaign", "Lantern Road"])
    assert (args.command, args.saves, args.campaign) == ("gm", str(tmp_path), "Lantern Road")  # --saves-dir: the alias
    assert subcommands.handler("gm").__name__ == "run_gm_app"
