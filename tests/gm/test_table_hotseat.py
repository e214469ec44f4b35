"""The same table at one keyboard (hot-seat, no SSH): the GM tool opens the fight
"at this keyboard" (ctrl+k), every seat in this one process; a curtain before each seat's turn
says whose it is, and the screen then shows what that seat may see. A dialogue check asked at a
seat is rolled by the campaign when the GM takes the keyboard (R-12)."""

from __future__ import annotations

from horizon_tui.engine.battle import cid, hp, ident, is_active, team
from horizon_tui.engine.sideview import unseen_ids
from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.gm.screens.experience import ExperienceScreen
from horizon_tui.ui.gm.screens.table import DialogueRequestDialog, OpenTableScreen
from horizon_tui.ui.battle.dialogs import BattleSummary
from horizon_tui.ui.player.table_dialogs import AskDialog
from horizon_tui.ui.battle.table_screen import HandOver
from horizon_tui.ui.battle.screen import BattleScreen
from tests.gm.battle_parts import campaign_table, hand, is_gm_table, at_table

SIZE = (100, 34)
PLAYS = {"iriel": "alice", "sefa": "bob"}


async def take_keyboard(pilot, app, screen) -> str:
    """Whoever's turn it is takes the keyboard (past the curtain, when the seat changes)."""
    due = at_table(screen).client.due()
    if isinstance(app.screen, HandOver):
        assert app.screen.seat == due
        await pilot.press("enter")
    assert at_table(screen).client.seat == due and not isinstance(app.screen, HandOver)
    return due


def lantern_road_gm_app(session, catalogue, tmp_path, monkeypatch):
    """The GM tool as mira, on the Lantern Road campaign, its tables under `tmp_path`."""
    monkeypatch.setenv("HORIZON_TABLES", str(tmp_path / "tables"))
    monkeypatch.setenv("HORIZON_ACCOUNT", "mira")
    return create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")


async def open_at_one_keyboard(pilot, app) -> BattleScreen:
    """The campaign's fight at this keyboard (ctrl+k): alice plays Iriel, bob Sefa."""
    await pilot.press("a")
    await pilot.pause()
    assert isinstance(app.screen, OpenTableScreen)
    app.screen.query_one("#seat-Iriel").value = "alice"
    app.screen.query_one("#seat-Sefa").value = "bob"
    app.screen.query_one("#seat-Sefa").focus()  # a focused field must not take ctrl+k for itself
    await pilot.pause()
    await pilot.press("ctrl+k")
    await pilot.pause()
    return next(s for s in app.screen_stack if is_gm_table(s))


async def test_a_table_at_one_keyboard_hands_each_seat_its_turn_and_what_it_may_see(session, catalogue,
                                                                                   tmp_path, monkeypatch):
    app = lantern_road_gm_app(session, catalogue, tmp_path, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_at_one_keyboard(pilot, app)
        assert at_table(screen).hotseat and campaign_table(screen).proc is None  # no process, no socket: the Table in this one
        assert not list((tmp_path / "tables").glob("*/table.sock"))
        seen = {"alice": 0, "bob": 0, "mira": 0}
        asked = False
        while not screen.battle.over and min(seen.values()) < 2:
            due = await take_keyboard(pilot, app, screen)
            current = cid(screen.battle.current)
            assert screen.me is not None and due == PLAYS.get(current, "mira")
            status = str(screen.query_one("#status").render())
            assert f"[{due}, {'gm' if due == 'mira' else 'player'}]" in status
            side_panel = " ".join(str(w.render()) for w in screen.query("#battle-side Static") if w.display)
            if due == "mira":
                assert screen.side is None and screen.eyes is None  # the GM's seat sees everything
                assert "Grukk" in side_panel  # the tracker lists every combatant
            else:
                assert screen.side == "party" and screen.eyes == {current}  # through her own eyes only
                unseen = [ident(e).name for e in screen.battle.combatants() if team(e) == "enemies"
                          and ident(e).id in unseen_ids(screen.battle, screen.side, screen.eyes)]
                # by hand: the GM's tracker stayed in the side panel at a player's seat, naming
                # the enemies the player can't see, with their health
                assert unseen and not any(name[:10] in side_panel for name in unseen), side_panel  # cut names too
            if due == "alice" and not asked:
                # R-12 at the table: asked at alice's seat, rolled when the GM has the keyboard.
                await pilot.press("f9")
                await pilot.pause()
                assert isinstance(app.screen, AskDialog)
                app.screen.query_one("#ask-kind").value = "dialogue"
                app.screen.query_one("#ask-text").value = "Iriel reminds the mayor who cleared his road"
                await pilot.press("enter")
                await pilot.press("ctrl+g")  # the GM takes the keyboard
                assert isinstance(app.screen, HandOver) and app.screen.seat == "mira"
                await pilot.press("enter")
                assert at_table(screen).client.seat == "mira" and screen.side is None
                await pilot.press("f7")
                await pilot.pause()
                dialog = app.screen
                assert isinstance(dialog, DialogueRequestDialog)
                assert dialog.query_one("#req-npc").value == "Mayor Oswin"  # Grukk can't be checked
                dialog.query_one("#req-modifier").value = "+2"  # the GM's roleplay modifier
                checks = len([e for e in app.campaign.log if e.kind == "check"])
                await pilot.press("ctrl+s")
                await pilot.pause()
                check = app.campaign.log[-1]
                assert len([e for e in app.campaign.log if e.kind == "check"]) == checks + 1
                assert (check.kind, check.data["character"], check.data["npc"], check.data["modifier"]) == (
                    "check", "Iriel", "Mayor Oswin", 2)
                assert check.data["text"] == "Iriel reminds the mayor who cleared his road"
                told = at_table(screen).answers[-1]
                assert told["approve"] and told["seat"] == "alice" and told["ruling"] == check.text
                await pilot.press("ctrl+g")  # back to whose turn it is
                asked = True
                continue
            await pilot.press("full_stop")
            seen[due] += 1
        assert asked and all(seen.values()), seen
        assert len(app.campaign.battle["inputs"]) == at_table(screen).client.replica.version  # the campaign follows
        # The GM's seat ends it; the end is the GM tool's own, with the XP award.
        await take_keyboard(pilot, app, screen)
        if at_table(screen).client.seat != "mira":
            await pilot.press("ctrl+g", "enter")
        assert at_table(screen).client.seat == "mira"
        for e in list(screen.battle.combatants()):
            if team(e) == "enemies" and is_active(e):
                at_table(screen).client.override({"type": "SetHealth", "target": ident(e).id, "hp": 0, "reason": "rockfall"})
        await pilot.pause()
        assert screen.battle.over and isinstance(app.screen, BattleSummary)
        assert app.campaign.battle is None and app.campaign.log[-1].kind == "battle"
        await pilot.press("enter")
        assert isinstance(app.screen, ExperienceScreen)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.campaign.log[-1].kind == "xp"
        assert any(note.startswith("GM: XP awarded: ") for note in at_table(screen).client.replica.notes)


async def test_the_gm_has_the_trackers_keys_at_the_table_and_a_player_seat_does_not(session, catalogue,
                                                                                    tmp_path, monkeypatch):
    """The tracker's keys of a local fight at a table too: marking,
    damage by an amount on the marked, a catalogue enemy joining; each goes to the table, as an
    override every view follows. At a player's seat the marks are refused."""
    from textual.widgets import Static

    from horizon_tui.engine.battle import hp
    from horizon_tui.ui.battle.dialogs import ChoiceDialog

    monkeypatch.setenv("HORIZON_TABLES", str(tmp_path / "tables"))
    monkeypatch.setenv("HORIZON_ACCOUNT", "mira")
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a")
        await pilot.pause()
        app.screen.query_one("#seat-Iriel").value = "alice"
        await pilot.press("ctrl+k")
        await pilot.pause()
        screen = next(s for s in app.screen_stack if is_gm_table(s))
        if isinstance(app.screen, HandOver):
            await pilot.press("enter")
        if at_table(screen).client.seat != "mira":
            hand(screen).selected = next(cid(e) for e in screen.battle.combatants() if team(e) == "enemies")
            await pilot.press("space")
            assert not hand(screen).marked and "only the GM's seat" in screen.prompt
            await pilot.press("ctrl+g", "enter")
        assert at_table(screen).client.seat == "mira"
        assert "D dmg" in str(screen.query_one("#gm-tracker", Static).render())

        foes = [cid(e) for e in screen.battle.combatants() if team(e) == "enemies" and is_active(e)]
        before = {f: hp(screen.battle[f]).hp for f in foes[:2]}
        for foe in before:
            hand(screen).selected = foe
            await pilot.press("space")
        assert hand(screen).marked == set(before)
        await pilot.press("D", *"3", "enter", *"a falling beam", "enter")
        await pilot.pause()
        assert {f: hp(screen.battle[f]).hp for f in before} == {f: v - 3 for f, v in before.items()}
        assert not hand(screen).marked
        assert at_table(screen).client.replica.inputs[-1].action.__class__.__name__ == "Damage"

        count = len(screen.battle.order)
        await pilot.press("A")
        assert isinstance(app.screen, ChoiceDialog)  # the catalogue's enemy types, nothing else
        await pilot.press("enter", "enter", "enter", "enter", "enter")  # the first type; one, enemies, seen
        await pilot.pause()
        assert len(screen.battle.order) == count + 1
        assert at_table(screen).client.replica.inputs[-1].action.__class__.__name__ == "Reinforce"


async def test_the_gm_at_a_table_has_the_tracker_keys_of_a_fight_at_this_keyboard(session, catalogue, tmp_path,
                                                                                  monkeypatch):
    """The GM's hand is one part of one battle screen (`tracker.GMHand`), at a table as at this
    keyboard: + and - set the picked one's health (not the AI's speed, which the table sets),
    p/g/I (to a player, the GM, its AI) and C (the party to the AI) are on; each is an override
    the table carries out for every seat; `c` stays the table's talk."""
    app = lantern_road_gm_app(session, catalogue, tmp_path, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_at_one_keyboard(pilot, app)
        if isinstance(app.screen, HandOver):
            await pilot.press("enter")
        if at_table(screen).client.seat != "mira":
            await pilot.press("ctrl+g", "enter")
        assert at_table(screen).client.seat == "mira"
        foe = next(cid(e) for e in screen.battle.combatants() if team(e) == "enemies" and is_active(e))
        hand(screen).selected = foe
        health = hp(screen.battle[foe]).hp
        await pilot.press("minus", "minus", "plus")
        await pilot.pause()
        assert hp(screen.battle[foe]).hp == health - 1
        assert at_table(screen).client.replica.inputs[-1].action.__class__.__name__ == "AdjustHealth"
        assert screen.speed == 1  # the AI's speed untouched: the keys were the GM's
        # p/g/I and C are on at the table as at this keyboard; c stays the table's talk
        for command in ("controller_to", "party_to_ai", "health"):
            assert screen.check_action("part", ("gm", command))
        assert not screen.check_action("part", ("gm", "free_action"))  # the ruling is the local fight's
        assert screen.check_action("part", ("table", "talk"))
