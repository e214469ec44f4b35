"""A fight run by the GM: the encounter with the party, the initiative tracker, a free action ruled
on and made a permanent ability, overrides, undo through the fight, the end and its XP."""

from __future__ import annotations

from textual.widgets import Input, Static

from horizon_tui.engine.battle import comp, hp, ident, is_active, team
from horizon_tui.engine.components import Controller, FreeActions
from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.gm.screens.encounter import GMEncounterPickerScreen
from horizon_tui.ui.gm.screens.experience import ExperienceScreen
from horizon_tui.ui.battle.dialogs import BattleSummary, ChoiceDialog
from horizon_tui.ui.player.screens.ability_form import AbilityFormScreen
from horizon_tui.ui.battle.screen import BattleScreen
from tests.gm.battle_parts import hand, is_gm_fight

SIZE = (120, 40)


async def start_goblin_ambush(app, pilot) -> BattleScreen:
    await pilot.press("b")
    assert isinstance(app.screen, GMEncounterPickerScreen)
    await pilot.press("down", "down", "down")  # Goblin Ambush (the list is sorted by file name)
    app.screen.query_one("#gm-seed", Input).value = "42"
    await pilot.press("ctrl+s")
    await pilot.pause()
    assert is_gm_fight(app.screen)
    app.screen.speed = 3  # the AI's turns at the fastest
    return app.screen


async def test_a_fight_with_a_ruling_an_override_undo_and_the_xp(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_goblin_ambush(app, pilot)
        battle = screen.battle
        assert screen.side is None  # the GM sees everything
        assert app.campaign.battle["name"] == "Goblin Ambush" and len(app.host.gm.history) == 1
        tracker = str(screen.query_one("#gm-tracker", Static).render())
        assert "turn order" in tracker and all(ident(e).name[:10] in tracker for e in battle.combatants())
        await pilot.press("x")  # the AI's turns, up to the first party member's
        me = screen.me
        assert me is not None and team(me) == "party"
        name = ident(me).name
        points = comp(me, FreeActions).points

        # the player's words, the GM's ruling (certain), rolled and logged
        await pilot.press("f", *"sand", "enter")
        await pilot.press("ctrl+s")  # the EffectDialog's ruling: bleeding, certain, 3 turns
        assert isinstance(app.screen, ChoiceDialog)
        await pilot.press("enter")  # the nearest enemy
        await pilot.pause()
        event = next(e for e in reversed(battle.log) if e.type == "free_action")
        assert event.description == "sand" and comp(me, FreeActions).points == points - 1
        assert any(e.type == "effect" and e.effect == "bleeding" for e in battle.log[-3:])
        assert app.campaign.battle["inputs"][-1]["action"]["type"] == "FreeAction"
        await pilot.press("P")
        assert isinstance(app.screen, AbilityFormScreen)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen
        assert app.campaign.member(name).character.ability("Sand") is not None
        assert app.campaign.log[-1].kind == "ability"

        # an override on a selected combatant, then ctrl+z: the battle rebuilt as it was
        enemy = next(e for e in battle.active.values() if team(e) == "enemies")
        hand(screen).selected = ident(enemy).id
        before = hp(enemy).hp
        await pilot.press("o", "enter")  # set health
        await pilot.press("ctrl+u", "7", "tab", *"pit", "enter")
        await pilot.pause()
        assert hp(enemy).hp == 7
        override = battle.log[-2]
        assert (override.type, override.what, override.reason) == ("override", "set health", "pit")
        await pilot.press("ctrl+z")
        await pilot.pause()
        rebuilt = app.screen
        assert is_gm_fight(rebuilt) and rebuilt is not screen
        assert hp(rebuilt.battle[ident(enemy).id]).hp == before
        assert [e.to_json() for e in rebuilt.battle.log] == [e.to_json() for e in battle.log[:-2]]

        # the GM takes an enemy over, then every enemy falls: the end, its summary and its XP
        screen = rebuilt
        goblin = next(e for e in screen.battle.active.values() if team(e) == "enemies")
        hand(screen).selected = ident(goblin).id
        await pilot.press("c")  # its AI → a player (the GM plays for them) → the GM → its AI
        assert comp(goblin, Controller).kind == "player"
        await pilot.press("c")
        assert comp(goblin, Controller).kind == "gm"
        await pilot.press("c")
        assert comp(goblin, Controller).kind == "ai"
        for e in list(screen.battle.combatants()):
            if team(e) == "enemies" and is_active(e) and not screen.battle.over:
                hand(screen).selected = ident(e).id
                await pilot.press("o", "enter", "ctrl+u", "0", "enter", "enter")
        await pilot.pause()
        assert screen.battle.over and isinstance(app.screen, BattleSummary)
        assert app.campaign.battle is None
        entry = app.campaign.log[-1]
        assert entry.kind == "battle" and entry.data["winner"] == "party"
        assert any("“sand”" in ruling for ruling in entry.data["free_actions"])
        await pilot.press("enter")
        assert isinstance(app.screen, ExperienceScreen)
        xp = dict(screen.battle.result.xp)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert {m.name: m.character.xp for m in app.campaign.party} == {n: xp.get(n, 0) for n in xp}


async def test_the_tracker_reorders_delays_and_readies_by_keys_and_a_battle_resumes(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_goblin_ambush(app, pilot)
        await pilot.press("x")
        battle = screen.battle
        order = list(battle.order)
        current = battle.index
        assert current < len(order) - 2, "the test needs two combatants still to act"
        waiting = order[current + 1]
        hand(screen).selected = waiting
        await pilot.press("d")  # hold: out of the order until brought back
        assert waiting not in battle.order and battle.index == current
        await pilot.press("d")  # back in, right after the current turn
        assert battle.order.index(waiting) == current + 1
        await pilot.press("right_curly_bracket")  # } one place later by hand
        assert battle.order.index(waiting) == current + 2
        await pilot.press("e")  # ready: right after the current turn
        assert battle.order.index(waiting) == current + 1
        hand(screen).selected = order[current]
        await pilot.press("e")  # it is acting: nothing to ready
        assert "it is acting now" in screen.prompt
        assert [e.what for e in battle.log if e.type == "override"] == ["hold", "re-enter", "initiative", "initiative"]
        expected = list(battle.order)
        await pilot.press("q")
        await pilot.press("enter")  # leave for now
        await pilot.pause()
        assert not is_gm_fight(app.screen)
        await pilot.press("escape")
        await pilot.press("b")  # resumes: rebuilt from the campaign by replay
        await pilot.pause()
        resumed = app.screen
        assert is_gm_fight(resumed) and resumed.battle.order == expected
        await pilot.press("ctrl+z", "ctrl+z", "ctrl+z", "ctrl+z")
        await pilot.pause()
        assert app.screen.battle.order == order
        await pilot.press("ctrl+z")  # the battle's start
        await pilot.pause()
        assert not is_gm_fight(app.screen) and app.campaign.battle is None


async def test_the_gms_place_mode_is_a_mode_the_keys_move_and_enter_puts_the_combatant_there(session, catalogue):
    from horizon_tui.engine.battle import pos
    from horizon_tui.ui.battle.modes import PlaceMode

    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        screen = await start_goblin_ambush(app, pilot)
        await pilot.press("x")
        target = hand(screen).selected_id()  # noqa: SLF001 - the one acting, as the tracker selects it
        start = pos(screen.battle[target])
        hand(screen).overrides._override_move(target)  # noqa: SLF001 - the override menu's "Move it anywhere"
        assert isinstance(screen.input, PlaceMode) and screen.cursor == start
        field = screen.battle.battlefield
        key, cell = next((k, (start[0] + dx, start[1] + dy)) for k, dx, dy in
                         (("l", 1, 0), ("h", -1, 0), ("j", 0, 1), ("k", 0, -1))
                         if field.in_bounds((start[0] + dx, start[1] + dy))
                         and field.is_walkable((start[0] + dx, start[1] + dy))
                         and (start[0] + dx, start[1] + dy) not in screen.battle.occupancy)
        await pilot.press(key)
        assert screen.cursor == cell and "anywhere" in str(screen.status_text())  # noqa: SLF001
        await pilot.press("enter")
        assert screen.mode == "move" and pos(screen.battle[target]) == cell
        assert app.campaign.battle["inputs"][-1]["action"]["type"] == "Teleport"  # recorded for undo
        hand(screen).overrides._override_move(target)  # noqa: SLF001
        await pilot.press("escape")  # leaves it where it is
        assert screen.mode == "move" and pos(screen.battle[target]) == cell
