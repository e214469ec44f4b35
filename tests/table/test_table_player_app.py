"""In the player app: invited, joining, playing one's own turns, following the GM."""

from __future__ import annotations

import asyncio

from table_kit import REPO, SEATED

from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.content.characters import character_to_dict, load_character
from horizon_tui.table.__main__ import build
from horizon_tui.table.lobby import SeatSpec, invites_for, load_table, write_spec
from horizon_tui.table.server import TableClient, TableServer
from horizon_tui.ui.player.app import create_app
from horizon_tui.ui.player.joining import join_table
from horizon_tui.ui.battle.table_screen import TableBattleScreen


def _lay_table(tables, *, lobby: bool = False):
    catalogue = default_catalogue()
    party = [{"character": character_to_dict(load_character(f, catalogue), catalogue),
              "controller": "player" if f.stem in SEATED.values() else "ai"}
             for f in sorted((REPO / "examples" / "party").glob("*.toml"))]
    seats = [SeatSpec("mira", "gm"), SeatSpec("sam", "spectator")] + [
        SeatSpec(a, "player", (stem,)) for a, stem in SEATED.items()]
    return write_spec(tables, "evening", encounter="wolves", seed=2, party=party, seats=seats, lobby=lobby)


async def _serve_for(tmp_path, monkeypatch, account: str, others: tuple[str, ...], *, lobby: bool = False):
    """A table served in this process, this app's session seated as `account`, and `others`'
    clients connected: (table, server, {seat: client}, folder)."""
    tables = tmp_path / "tables"
    folder = _lay_table(tables, lobby=lobby)
    table, tokens, _ = build(folder)
    server = TableServer(table, tokens, folder / "table.sock")
    await server.start()
    monkeypatch.setenv("HORIZON_ACCOUNT", account)
    monkeypatch.setenv("HORIZON_TABLES", str(tables))
    spec = load_table(folder)
    clients = {}
    for seat in others:
        clients[seat] = TableClient(folder / "table.sock", seat, tokens[seat], spec.rebuild)
        await clients[seat].connect()
    return table, server, clients, folder


async def _until(pilot, predicate, timeout=60.0):
    async def wait():
        while not predicate():
            await pilot.pause(0.02)

    await asyncio.wait_for(wait(), timeout)


async def _joined(app, pilot, tables, account: str) -> TableBattleScreen:
    """The app's account joins the table it was told of (F2's invitation): its table screen."""
    await _until(pilot, lambda: app.table_invites)  # the notice's poll found the table
    [invite] = invites_for(tables, account)
    assert await join_table(app, invite)
    await pilot.pause()
    assert isinstance(app.screen, TableBattleScreen)
    return app.screen


async def test_a_seated_player_is_told_joins_and_plays_only_their_turns(tmp_path, monkeypatch):
    table, server, others, folder = await _serve_for(tmp_path, monkeypatch, "alice", ("mira", "bob"))
    tables = folder.parent
    assert "token" not in (folder / "spec.json").read_text()
    app = create_app(tmp_path / "saves")
    try:
        async with app.run_test(size=(100, 34)) as pilot:
            await _until(pilot, lambda: app.table_invites)  # the notice's poll found the table
            [invite] = invites_for(tables, "alice")
            assert await join_table(app, invite)
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, TableBattleScreen) and screen.role == "player"
            assert screen.eyes == {"iriel"}  # she sees through her own character's eyes
            from horizon_tui.engine.sideview import side_view

            mine = side_view(screen.battle, "party", screen.eyes).visible
            assert (side_view(screen.battle, "party").visible >= mine).all()
            moved = False
            steps = 0
            while not table.battle.over and steps < 60:
                version = table.version
                due = table.whose_turn().name
                if due == "alice":
                    assert screen.me is not None and screen.me.uid == "iriel"
                    if not moved:
                        await pilot.press("left")
                        moved = True
                        await _until(pilot, lambda v=version: table.version == v + 1)
                        assert type(table.session.inputs[-1].action).__name__ == "Move"
                        version = table.version
                        if table.whose_turn() is None or table.whose_turn().name != "alice":
                            steps += 1
                            continue
                    await pilot.press("full_stop")  # end the turn
                else:
                    assert screen.me is None  # not alice's turn: her keys act for nobody
                    others[due].act({"type": "Wait", "actor": table.battle.current.uid})
                await _until(pilot, lambda v=version: screen.client.replica.version > v)
                steps += 1
            assert screen.client.replica.digest() == table.digest()
            # The GM pauses: alice's keys are refused; the GM undoes: her screen follows.
            if not table.battle.over:
                others["mira"].pause(True)
                await _until(pilot, lambda: screen.client.replica.paused)
                others["mira"].pause(False)
                await _until(pilot, lambda: not screen.client.replica.paused)
            before = screen.battle
            others["mira"].undo(2)
            await _until(pilot, lambda: screen.client.replica.version == table.version and screen.battle is not before)
            assert screen.client.replica.digest() == table.digest()
            assert screen.battle is screen.client.replica.battle
    finally:
        for client in others.values():
            await client.close()
        await server.close()


async def test_the_talk_pane_shows_the_table_talk_as_text_and_c_writes_a_line(tmp_path, monkeypatch):
    _table, server, others, folder = await _serve_for(tmp_path, monkeypatch, "bob", ("mira",))
    tables, mira = folder.parent, others["mira"]
    mira.talk("/a [bold red]Welcome[/] \x1b[2J to the wolves")  # said before bob joins: he reads it
    app = create_app(tmp_path / "saves")
    try:
        async with app.run_test(size=(100, 34)) as pilot:
            await _until(pilot, lambda: app.table_invites)
            [invite] = invites_for(tables, "bob")
            assert await join_table(app, invite)
            await pilot.pause()
            screen = app.screen
            pane = screen.query_one("#talk")

            def pane_text() -> str:
                return "\n".join(strip.text for strip in pane.lines)

            await _until(pilot, lambda: "Welcome" in pane_text())
            assert "⚑ GM: [bold red]Welcome[/] ␛[2J to the wolves" in pane_text()  # as typed, never run
            await pilot.press("c")
            await pilot.pause()
            for key in "/roll 2d6+3":
                await pilot.press(key if key != " " else "space")
            await pilot.press("enter")
            await _until(pilot, lambda: "bob rolls 2d6 + 3: [" in pane_text())
            await _until(pilot, lambda: mira.talk_lines and mira.talk_lines[-1]["kind"] == "roll")
            rolled = mira.talk_lines[-1]
            assert f"bob rolls 2d6 + 3: [{rolled['faces'][0]}, {rolled['faces'][1]}] = {rolled['total']}" in pane_text()
            # a whisper to the GM: bob's own pane shows it; the GM's client has it
            await pilot.press("c")
            await pilot.pause()
            await pilot.press(*"/w", "space", *"behind")
            await pilot.press("enter")
            await _until(pilot, lambda: "bob → GM: behind" in pane_text())
            await _until(pilot, lambda: mira.talk_lines[-1]["text"] == "behind")
    finally:
        await mira.close()
        await server.close()


async def test_a_player_whose_turn_opens_the_fight_is_told_in_the_lobby_and_answered_once_it_begins(tmp_path, monkeypatch):
    """The table's state, not the last message's, is on the status line: a seat joining a table in
    its lobby (its snapshot and seats read before its screen is there) whose character acts first
    is told it is in the lobby, never "Your turn" (it read "Your turn" until another seat came: a
    key pressed on it before the GM's begin reached the screen was refused, and the begin then
    wrote "Your turn" over the refusal, so the key looked unanswered)."""
    table, server, others, folder = await _serve_for(tmp_path, monkeypatch, "bob", ("mira",), lobby=True)
    assert table.in_lobby and table.whose_turn().name == "bob"  # his Sefa opens the fight (seed 2)
    app = create_app(tmp_path / "saves")
    try:
        async with app.run_test(size=(100, 34)) as pilot:
            screen = await _joined(app, pilot, folder.parent, "bob")
            status = screen.query_one("#status")
            assert screen.me is not None and screen.client.replica.lobby
            await pilot.pause(0.2)
            assert status.shown.plain.endswith("In the lobby: c talks; the GM begins the fight"), status.shown.plain
            await pilot.press("a")  # in the lobby: refused, the lobby still said
            await _until(pilot, lambda: "Your turn" not in status.shown.plain and "lobby" not in status.shown.plain)
            others["mira"].pause(False)  # the GM begins the fight
            await _until(pilot, lambda: "Your turn" in status.shown.plain)
            await pilot.press("a")
            await _until(pilot, lambda: "Your turn" not in status.shown.plain)  # answered: aiming or a refusal
    finally:
        for client in others.values():
            await client.close()
        await server.close()


async def test_a_seat_with_a_dialog_open_when_the_gm_closes_the_table_leaves_it_once_the_dialog_closes(
        tmp_path, monkeypatch):
    """Found by hand: the players read the fight's result when the GM closed the table; back from it
    they stayed on the battlefield of a table that was gone, writing talk nobody could read."""
    _table, server, others, folder = await _serve_for(tmp_path, monkeypatch, "alice", ("mira",))
    app = create_app(tmp_path / "saves")
    try:
        async with app.run_test(size=(100, 34)) as pilot:
            screen = await _joined(app, pilot, folder.parent, "alice")
            await pilot.press("c")  # a dialog over the battlefield (here: the line to write in)
            await _until(pilot, lambda: app.screen is not screen)
            others["mira"].close_table()
            await _until(pilot, lambda: screen.table_closed)
            assert app.screen is not screen  # the dialog stays: what it shows is read first
            await pilot.press("escape")
            await _until(pilot, lambda: not isinstance(app.screen, TableBattleScreen))
    finally:
        for client in others.values():
            await client.close()
        await server.close()
