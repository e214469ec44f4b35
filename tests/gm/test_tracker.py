"""A tracker for real fights, by keys at 80×24: damage and healing by amount on several
marked combatants, revive, reinforcements mid-fight (catalogue, quick stat line; hidden until
revealed), initiative values written by hand, withdraw, a fight without a map; undo and resume
rebuild all of it by replay."""

from __future__ import annotations

from textual.widgets import Input, Static

from horizon_tui.engine.battle import effects, hp, ident, is_active, team
from horizon_tui.engine.overrides import initiative_values
from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.gm.screens.encounter import GMEncounterPickerScreen
from horizon_tui.ui.gm.screens.gm_battle import GMBattleScreen
from horizon_tui.ui.battle.dialogs import ChoiceDialog

SIZE = (80, 24)


async def start(app, pilot, key: str = "ctrl+s") -> GMBattleScreen:
    await pilot.press("b")
    assert isinstance(app.screen, GMEncounterPickerScreen)
    await pilot.press("down", "down", "down")  # Goblin Ambush
    app.screen.query_one("#gm-seed", Input).value = "42"
    await pilot.press(key)
    await pilot.pause()
    assert isinstance(app.screen, GMBattleScreen)
    return app.screen


def enemies(battle):
    return [e for e in battle.active.values() if team(e) == "enemies"]


async def test_damage_and_heal_by_amount_on_marked_combatants_then_revive(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        battle = screen.battle
        foes = enemies(battle)
        before = {ident(e).id: hp(e).hp for e in foes}
        for e in foes:
            screen.selected = ident(e).id
            await pilot.press("space")
        assert screen.marked == set(before)
        await pilot.press("D", *"25", "enter", *"a falling beam", "enter")
        await pilot.pause()
        assert {ident(e).id: hp(e).hp for e in foes} == {k: v - 25 for k, v in before.items()}
        assert not screen.marked  # the marks are used up
        assert app.campaign.battle["inputs"][-1]["action"]["type"] == "Damage"
        tracker = str(screen.query_one("#gm-tracker", Static).render())
        assert f"{before[ident(foes[0]).id] - 25}/" in tracker

        screen.selected = ident(foes[0]).id
        await pilot.press("H", *"10", "enter", "enter")
        await pilot.pause()
        assert hp(foes[0]).hp == before[ident(foes[0]).id] - 15

        # health is 0…max: a typo past the maximum is refused in the form, nothing changes
        await pilot.press("o", "enter", "ctrl+u", *"99999", "enter", "enter")
        await pilot.pause()
        assert "health is 0…" in str(app.screen.query_one("#prompt-problem", Static).render())
        await pilot.press("shift+tab", "ctrl+u", "0", "ctrl+s")  # back to the health field
        await pilot.pause()
        assert not is_active(foes[0])
        await pilot.press("v", "ctrl+u", *"7", "enter", *"a potion", "enter")
        await pilot.pause()
        assert is_active(foes[0]) and hp(foes[0]).hp == 7
        assert app.campaign.battle["inputs"][-1]["action"]["type"] == "Revive"


async def test_reinforcements_join_hidden_are_revealed_and_replay_after_undo(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        battle = screen.battle
        count = len(battle.order)
        await pilot.press("A")
        assert isinstance(app.screen, ChoiceDialog)
        await pilot.press("down", "down", "enter")  # a quick stat line
        await pilot.press("ctrl+u", *"Dire Wolf", "enter", "ctrl+u", "3", "enter", "ctrl+u", *"40", "enter",
                          "enter", "ctrl+u", *"30", "enter")
        await pilot.pause()
        await pilot.press("ctrl+u", "2", "enter", "enter", "ctrl+u", *"yes", "enter", "enter")  # two, hidden
        await pilot.pause()
        wolves = [e for e in battle.combatants() if ident(e).name.startswith("Dire Wolf")]
        assert len(wolves) == 2 and len(battle.order) == count + 2
        assert all(effects(w).get("hidden") for w in wolves) and all(hp(w).max_hp == 40 for w in wolves)
        assert "quick:Dire Wolf" in app.campaign.battle["extra_enemies"]
        tracker = str(screen.query_one("#gm-tracker", Static).render())
        assert "HIDDEN" in tracker
        screen.selected = ident(wolves[0]).id
        await pilot.press("R")  # revealed
        assert effects(wolves[0]).get("hidden") is None

        await pilot.press("i", "ctrl+u", *"99", "enter", "enter")  # initiative value by hand: first
        await pilot.pause()
        assert initiative_values(battle)[ident(wolves[0]).id] == 99
        assert battle.order[0] == ident(wolves[0]).id

        await pilot.press("ctrl+z")  # the initiative back; the wolves still there, rebuilt by replay
        await pilot.pause()
        rebuilt = app.screen
        assert isinstance(rebuilt, GMBattleScreen) and rebuilt is not screen
        names = [ident(e).name for e in rebuilt.battle.combatants()]
        assert "Dire Wolf 1" in names and "Dire Wolf 2" in names

        rebuilt.selected = next(ident(e).id for e in rebuilt.battle.combatants() if ident(e).name == "Dire Wolf 2")
        await pilot.press("W", "enter")  # withdrawn: it leaves, gives no XP
        await pilot.pause()
        assert not is_active(rebuilt.battle[rebuilt.selected])


async def test_a_fight_without_a_map_is_the_tracker_alone_and_the_gm_plays_the_enemies(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot, key="m")
        assert screen.mapless and screen.has_class("mapless")
        assert not screen.query_one("#map-column").display
        assert app.campaign.battle["mapless"] is True
        from horizon_tui.engine.battle import comp
        from horizon_tui.engine.components import Controller

        assert all(comp(e, Controller).kind == "gm" for e in enemies(screen.battle))
        await pilot.press("q", "enter")  # leave for now; b resumes it without a map
        await pilot.pause()
        await pilot.press("escape", "b")
        await pilot.pause()
        assert isinstance(app.screen, GMBattleScreen) and app.screen.mapless


async def test_temporary_health_is_lost_first_and_shown_in_the_row(session, catalogue):
    from horizon_tui.engine import overrides as ov

    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        battle = screen.battle
        brakka = next(e for e in battle.combatants() if ident(e).name == "Brakka")
        screen.selected = ident(brakka).id
        full = hp(brakka).hp
        await pilot.press("T", *"30", "enter", *"a shield of faith", "enter")
        await pilot.pause()
        assert ov.temp_health(brakka) == 30
        assert f"{full}+30/" in str(screen.query_one("#gm-tracker", Static).render())
        await pilot.press("D", *"45", "enter", "enter")  # 30 from the shield, 15 from health
        await pilot.pause()
        assert ov.temp_health(brakka) == 0 and hp(brakka).hp == full - 15
        await pilot.press("ctrl+z", "ctrl+z")  # both undone, rebuilt by replay
        await pilot.pause()
        again = app.screen.battle[ident(brakka).id]
        assert ov.temp_health(again) == 0 and hp(again).hp == full


async def test_the_initiative_dialog_left_as_offered_changes_neither_the_total_nor_the_order(session, catalogue):
    # Found by the GM-tool helper: a rolled 17.7 was offered as 17, and enter wrote 17 over it,
    # which could move the combatant behind a 17.3 (R-8: the order follows the totals).
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        screen = await start(app, pilot)
        battle = screen.battle
        values, order, inputs = dict(initiative_values(battle)), list(battle.order), len(app.campaign.battle["inputs"])
        screen.selected = order[-1]
        await pilot.press("i", "enter", "enter")  # the total as offered, no reason
        await pilot.pause()
        assert initiative_values(battle) == values and battle.order == order
        assert len(app.campaign.battle["inputs"]) == inputs  # nothing written
        assert "unchanged" in screen.prompt
        await pilot.press("i", "ctrl+u", *"99", "enter", "enter")  # typed: written, first
        await pilot.pause()
        assert initiative_values(battle)[order[-1]] == 99 and battle.order[0] == order[-1]
