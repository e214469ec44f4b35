"""Issue 17, the GM's side: seat accounts, open the table (its own process), sit at it as the GM."""

from __future__ import annotations

import asyncio
import signal

from horizon_tui.gm.app import create_gm_app
from horizon_tui.gm.screens.table import OpenTableScreen, seats_from
from horizon_tui.table.lobby import invites_for, load_table
from horizon_tui.table.server import TableClient
from horizon_tui.tui.table_screen import TableBattleScreen


def test_seats_are_checked_names_and_one_each():
    seats, problems = seats_from("mira", {"Iriel": "alice", "Sefa": " bob ", "Morwen": "", "Brakka": "Al!ce"},
                                 "sam, mira")
    assert [(s.name, s.role, s.characters) for s in seats] == [
        ("mira", "gm", ()), ("alice", "player", ("Iriel",)), ("bob", "player", ("Sefa",)), ("sam", "spectator", ())]
    assert problems == ["Brakka: 'Al!ce' is not an account name (lower-case letters, digits, - and _)",
                        "spectators: mira already has a seat"]


async def _until(pilot, predicate, timeout=20.0):
    async def wait():
        while not predicate():
            await pilot.pause(0.05)

    await asyncio.wait_for(wait(), timeout)


async def test_the_gm_opens_a_table_and_a_seated_player_plays_on_it(session, catalogue, tmp_path, monkeypatch):
    tables = tmp_path / "tables"
    monkeypatch.setenv("HORIZON_ACCOUNT", "mira")
    monkeypatch.setenv("HORIZON_TABLES", str(tables))
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    procs = []
    async with app.run_test(size=(100, 34)) as pilot:
        await pilot.pause()
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, OpenTableScreen)
        app.screen.query_one("#seat-Iriel").value = "alice"
        app.screen.query_one("#seat-Sefa").value = "bob"
        await pilot.press("ctrl+o")
        await _until(pilot, lambda: isinstance(app.screen, TableBattleScreen))
        gm_screen = app.screen
        assert gm_screen.role == "gm" and gm_screen.side is None  # the GM sees everything
        [invite] = invites_for(tables, "alice")
        assert invite.characters == ("iriel",)
        spec = load_table(invite.folder)
        alice = TableClient(invite.socket, invite.seat, invite.token, spec.rebuild)
        await alice.connect()
        [bob_invite] = invites_for(tables, "bob")
        bob = TableClient(bob_invite.socket, bob_invite.seat, bob_invite.token, spec.rebuild)
        await bob.connect()
        try:
            for _ in range(6):
                battle = gm_screen.battle
                if battle.over:
                    break
                version = gm_screen.client.replica.version
                uid = battle.current.uid
                if uid == "iriel":
                    alice.act({"type": "Wait", "actor": uid})
                elif uid == "sefa":
                    bob.act({"type": "Wait", "actor": uid})
                else:  # the GM's own: Morwen and Brakka are the GM's to play
                    assert gm_screen.me is not None
                    await pilot.press("full_stop")
                await _until(pilot, lambda v=version: gm_screen.client.replica.version > v
                             and alice.replica.version == gm_screen.client.replica.version)
            assert alice.replica.digest() == gm_screen.client.replica.digest()
        finally:
            await alice.close()
            await bob.close()
        procs = list(invite.folder.glob("table.sock"))
        pid_file = invite.folder / "table.log"
        assert pid_file.exists()
    # The GM's session ends; the table process is the host's to stop (SIGTERM saves the battle).
    import subprocess

    found = subprocess.run(["pgrep", "-f", f"horizon_tui.table {invite.folder}"], capture_output=True, text=True)
    for pid in found.stdout.split():
        import os

        os.kill(int(pid), signal.SIGTERM)
    for _ in range(100):
        if not (invite.folder / "table.sock").exists():
            break
        await asyncio.sleep(0.1)
    assert (invite.folder / "battle.json").exists() and procs
