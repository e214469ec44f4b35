"""From the GM's side, end to end: the GM tool opens a campaign's fight at a live table
(`a`), a player's app joins and plays its turns, the GM plays the rest, and the end is the GM
tool's own: the R-14 XP award (changeable), health carried to the next fight, the battle in the
GM's log and the players' recap; the players are told the result and the award."""

from __future__ import annotations

import asyncio
import signal

from horizon_tui.engine.battle import cid, hp, ident, is_active, team
from horizon_tui.campaign import carry
from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.campaign.export import session_markdown
from horizon_tui.ui.gm.screens.experience import ExperienceScreen
from horizon_tui.ui.gm.screens.table import OpenTableScreen
from horizon_tui.storage.records import battles_of
from horizon_tui.table.__main__ import TABLE_BATTLE
from horizon_tui.table.lobby import invites_for, load_table
from horizon_tui.table.server import TableClient
from horizon_tui.ui.player.app import create_app
from horizon_tui.ui.battle.dialogs import BattleSummary
from horizon_tui.ui.player.joining import join_table
from tests.gm.battle_parts import campaign_table, hand, is_gm_table, is_table_seat, at_table

SIZE = (100, 34)


async def until(pilots, predicate, timeout=60.0):
    """Wait (letting every app run) until `predicate()`; a loaded machine is slow, never wrong."""
    async def wait():
        while not predicate():
            for pilot in pilots:
                await pilot.pause(0.02)

    await asyncio.wait_for(wait(), timeout)


async def open_table(app, pilot, seats: dict[str, str]):
    await pilot.press("a")
    await pilot.pause()
    assert isinstance(app.screen, OpenTableScreen)
    for character, account in seats.items():
        app.screen.query_one(f"#seat-{character}").value = account
    await pilot.press("ctrl+o")
    await until([pilot], lambda: is_gm_table(app.screen))
    return app.screen


def stop(proc) -> None:
    if proc is not None and proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)


async def test_a_table_fight_from_the_first_initiative_roll_to_the_xp_award(session, catalogue, tmp_path,
                                                                            monkeypatch):
    tables = tmp_path / "tables"
    monkeypatch.setenv("HORIZON_TABLES", str(tables))
    monkeypatch.setenv("HORIZON_ACCOUNT", "mira")
    gm_app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with gm_app.run_test(size=SIZE) as gm:
        await gm.pause()
        gm_screen = await open_table(gm_app, gm, {"Iriel": "alice", "Sefa": "bob"})
        proc = campaign_table(gm_screen).proc
        try:
            assert at_table(gm_screen).role == "gm" and gm_screen.side is None  # the GM sees everything
            record = gm_app.campaign.battle
            assert record is not None and record["table"] == str(invites_for(tables, "alice")[0].folder)
            first = gm_screen.battle.log[0]
            assert first.type == "initiative" or any(e.type == "initiative" for e in gm_screen.battle.log[:8])
            monkeypatch.setenv("HORIZON_ACCOUNT", "alice")  # the player's app is alice's session
            player_app = create_app(tmp_path / "alice-saves")
            async with player_app.run_test(size=SIZE) as alice:
                pilots = [gm, alice]
                [invite] = invites_for(tables, "alice")
                assert invite.characters == ("iriel",)
                assert await join_table(player_app, invite)
                await alice.pause()
                alice_screen = player_app.screen
                assert is_table_seat(alice_screen) and at_table(alice_screen).role == "player"
                [bob_invite] = invites_for(tables, "bob")
                bob = TableClient(bob_invite.socket, bob_invite.seat, bob_invite.token,
                                  load_table(bob_invite.folder).rebuild)
                await bob.connect()
                try:
                    # The table opens in its lobby: nobody acts until the GM begins the fight (F6).
                    assert at_table(gm_screen).client.replica.lobby and "F6 begins the fight" in str(gm_screen.status_text())
                    await gm.press("f6")
                    await until(pilots, lambda: not at_table(alice_screen).client.replica.lobby)
                    turns = {"alice": 0, "bob": 0, "mira": 0}
                    while not gm_screen.battle.over and sum(turns.values()) < 12:
                        version = at_table(gm_screen).client.replica.version
                        uid = cid(gm_screen.battle.current)
                        if uid == "iriel":
                            assert alice_screen.me is not None and gm_screen.me is None
                            await alice.press("full_stop")
                            turns["alice"] += 1
                        elif uid == "sefa":
                            assert alice_screen.me is None
                            bob.act({"type": "Wait", "actor": uid})
                            turns["bob"] += 1
                        else:  # Morwen and Brakka: nobody holds them, so they are the GM's
                            assert gm_screen.me is not None and alice_screen.me is None
                            await gm.press("full_stop")
                            turns["mira"] += 1
                        await until(pilots, lambda v=version: at_table(gm_screen).client.replica.version > v
                                    and at_table(alice_screen).client.replica.version == at_table(gm_screen).client.replica.version)
                    assert all(turns.values()), turns  # each seat played its own turns
                    assert at_table(alice_screen).client.replica.digest() == at_table(gm_screen).client.replica.digest()
                    # The campaign's record follows the table, input by input.
                    assert len(gm_app.campaign.battle["inputs"]) == at_table(gm_screen).client.replica.version

                    # Talk goes into the campaign's session log as the GM reads it, whispers too.
                    at_table(alice_screen).client.talk("/roll 2d6+3")
                    bob.talk("/w I keep the ring")
                    await until(pilots, lambda: [e.kind for e in gm_app.campaign.log].count("talk") == 2)
                    talk = [e for e in gm_app.campaign.log if e.kind == "talk"]
                    assert talk[0].text.startswith("alice rolls 2d6 + 3: [") and talk[0].data["to"] == "all"
                    assert talk[1].text == "bob → GM: I keep the ring" and talk[1].data["to"] == "gm"
                    assert not any(line["kind"] == "whisper" for line in at_table(alice_screen).client.talk_lines)

                    # The GM leaves the table and comes back (b): the same fight, at the same table.
                    await gm.press("ctrl+l")
                    await gm.pause()
                    assert not is_gm_table(gm_app.screen)
                    await gm.press("b")
                    await until(pilots, lambda: is_gm_table(gm_app.screen)
                                and gm_app.screen is not gm_screen)
                    gm_screen = gm_app.screen
                    assert at_table(gm_screen).client.replica.digest() == at_table(alice_screen).client.replica.digest()

                    # The GM's hand: Iriel hurt (carried to the next fight), then every enemy down.
                    battle = gm_screen.battle
                    at_table(gm_screen).client.override({"type": "Damage", "targets": ["iriel"], "amount": 3,
                                               "reason": "a falling beam"})
                    for uid in [ident(e).id for e in battle.combatants() if team(e) == "enemies" and is_active(e)]:
                        hand(gm_screen).selected = uid  # the GM tool's override menu, sent to the table
                        await gm.press("o", "enter", "ctrl+u", "0", "tab", *"the roof falls in", "enter")
                        await until(pilots, lambda u=uid: not is_active(gm_screen.battle[u]))
                    await until(pilots, lambda: gm_screen.battle.over and alice_screen.battle.over)
                    await until(pilots, lambda: isinstance(gm_app.screen, BattleSummary)
                                and isinstance(player_app.screen, BattleSummary))
                    result = gm_screen.battle.result
                    assert result.winner == "party"
                    # The campaign took the result as for a local fight (campaign.battles.finish_battle).
                    campaign = gm_app.campaign
                    assert campaign.battle is None
                    entry = campaign.log[-1]
                    assert entry.kind == "battle" and entry.data["winner"] == "party"
                    assert any("roof falls in" in line for line in entry.data["overrides"])
                    iriel = gm_screen.battle["iriel"]
                    assert campaign.carried["Iriel"]["hp"] == max(0, hp(iriel).hp) < hp(iriel).max_hp
                    assert campaign.carried == {n: s for n, s in carry.capture(gm_screen.battle).items()}
                    recap = session_markdown(campaign)
                    # the fight in the recap under its own name; no overrides there
                    assert "— the party wins after" in recap and "roof falls in" not in recap
                    assert "alice rolls 2d6 + 3" in recap and "ring" not in recap  # the talk, less the whisper
                    # alice's screen shows the result with the R-14 shares.
                    footer = str(player_app.screen.query_one("#summary-footer").render())
                    standing = {n: x for n, x in result.xp.items() if x}
                    assert standing and all(f"{n} {x}" in footer for n, x in standing.items())

                    # The XP award: the GM changes Iriel's share, then awards; alice is told.
                    await gm.press("enter")
                    assert isinstance(gm_app.screen, ExperienceScreen)
                    before = {m.name: m.character.xp for m in campaign.party}
                    fields = {n: i for i, n in enumerate(m.name for m in campaign.party)}
                    gm_app.screen.query_one(f"#xp-hand-{fields['Iriel']}").value = "7"
                    await gm.press("ctrl+s")
                    await gm.pause()
                    shares = dict(standing, Iriel=7)
                    after = {m.name: m.character.xp for m in gm_app.campaign.party}
                    assert after == {n: before[n] + shares.get(n, 0) for n in before}
                    assert gm_app.campaign.log[-1].kind == "xp"
                    await until(pilots, lambda: any("XP awarded" in n for n in at_table(alice_screen).client.replica.notes))
                    assert "Iriel +7" in at_table(alice_screen).client.replica.notes[-1]
                finally:
                    await bob.close()
        finally:
            stop(proc)
    assert not (invite.folder / "table.sock").exists()
    assert battles_of(invite.folder).exists(TABLE_BATTLE)  # the table's battle, kept in its folder's journal
