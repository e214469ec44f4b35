"""A table runs in a process of its own; sessions find it by their invitation."""

from __future__ import annotations

import asyncio
import json
import signal

from table_kit import REPO, SEATED

from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.content.characters import character_to_dict, load_character
from horizon_tui.content.encounters import load_enemies
from horizon_tui.engine.persist import load_session
from horizon_tui.storage.records import battles_of
from horizon_tui.table.__main__ import TABLE_BATTLE
from horizon_tui.table.__main__ import build
from horizon_tui.table.lobby import SeatSpec, invites_for, start_table, write_spec
from horizon_tui.table.server import TableClient


def _spec(tmp_path, *, lobby: bool = False):
    catalogue = default_catalogue()
    party = []
    for file in sorted((REPO / "examples" / "party").glob("*.toml")):
        controller = "player" if file.stem in SEATED.values() else "ai"
        party.append({"character": character_to_dict(load_character(file, catalogue), catalogue),
                      "controller": controller})
    seats = [SeatSpec("mira", "gm"), SeatSpec("sam", "spectator")] + [
        SeatSpec(account, "player", (stem,)) for account, stem in SEATED.items()]
    return write_spec(tmp_path / "tables", "friday-crypt", encounter="standard", seed=4, party=party, seats=seats,
                      lobby=lobby)


async def test_a_table_process_serves_its_invited_seats_and_saves(tmp_path):
    folder = _spec(tmp_path)
    assert oct(folder.stat().st_mode & 0o777) == "0o700"
    assert invites_for(tmp_path / "tables", "alice") == []  # not running yet: no live table
    proc = start_table(folder)
    try:
        [invite] = invites_for(tmp_path / "tables", "alice")
        assert invite.role == "player" and invite.characters == ("iriel",)
        assert invites_for(tmp_path / "tables", "eve") == []
        table, _tokens, _catalogue = build(folder)  # the same battle, for the views' rebuild
        clients = {}
        for account in ("mira", "alice", "bob", "sam"):
            [inv] = invites_for(tmp_path / "tables", account)
            clients[account] = TableClient(inv.socket, inv.seat, inv.token, table.rebuild)
            await clients[account].connect()
        for _ in range(3):  # three turns of the seated players
            due = _due(clients["sam"].replica.battle, invite_map={"iriel": "alice", "sefa": "bob"})
            version = clients["sam"].replica.version
            clients[due].act({"type": "Wait", "actor": clients[due].replica.battle.current.uid})
            await _until(lambda v=version: all(c.replica.version == v + 1 for c in clients.values()))
        digests = {c.replica.digest() for c in clients.values()}
        assert len(digests) == 1
        for client in clients.values():
            await client.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    catalogue = default_catalogue()
    saved = load_session(battles_of(folder), TABLE_BATTLE, catalogue, load_enemies(catalogue))
    assert len(saved.inputs) == 3
    from horizon_tui.engine.persist import log_digest

    assert log_digest(saved.battle) in digests


def _due(battle, invite_map):
    return invite_map[battle.current.uid]


async def _until(predicate, timeout=15.0):
    async def wait():
        while not predicate():
            await asyncio.sleep(0.02)

    await asyncio.wait_for(wait(), timeout)


async def test_a_table_no_one_is_connected_to_ends_in_time_and_keeps_its_save(tmp_path):
    """An abandoned table must not hold a process on a public host for ever: with no
    seat connected for `empty_s` it ends, saved; while a seat is connected it stays."""
    from horizon_tui.table.__main__ import serve

    folder = _spec(tmp_path)
    tokens = json.loads((folder / "tokens.json").read_text())
    table, _tokens, _catalogue = build(folder)
    served = asyncio.ensure_future(serve(folder, empty_s=1.5))
    await _until(lambda: (folder / "table.sock").exists())
    client = TableClient(folder / "table.sock", "mira", tokens["mira"], table.rebuild)
    await client.connect()
    await asyncio.sleep(2.5)
    assert not served.done()  # the GM is there
    await client.close()
    await asyncio.wait_for(served, 10)  # no one: it ends by itself
    assert battles_of(folder).exists(TABLE_BATTLE) and not (folder / "table.sock").exists()


async def test_a_table_talks_in_its_lobby_begins_when_the_gm_says_and_ends_when_the_gm_closes_it(tmp_path):
    """Before the fight the seats gather and talk and nobody acts; F6 (the GM's) begins it; after
    it the talk goes on; the GM's close ends the process, saved, and tells every seat."""
    from horizon_tui.table.__main__ import serve

    folder = _spec(tmp_path, lobby=True)
    tokens = json.loads((folder / "tokens.json").read_text())
    table, _tokens, _catalogue = build(folder)
    assert table.in_lobby and table.paused and not build(folder, hotseat=True)[0].in_lobby
    served = asyncio.ensure_future(serve(folder))
    await _until(lambda: (folder / "table.sock").exists())
    assert json.loads((folder / "state.json").read_text()) == {"over": False, "lobby": True}
    clients = {}
    try:
        for account in ("mira", "alice", "bob"):
            clients[account] = TableClient(folder / "table.sock", account, tokens[account], table.rebuild)
            await clients[account].connect()
        alice, mira = clients["alice"], clients["mira"]
        assert alice.replica.lobby and alice.replica.paused
        alice.talk("ready when you are")
        await _until(lambda: all(c.talk_lines for c in clients.values()))
        due = _due(alice.replica.battle, invite_map={"iriel": "alice", "sefa": "bob"})
        clients[due].act({"type": "Wait", "actor": clients[due].replica.battle.current.uid})
        await _until(lambda: clients[due].errors)
        assert "the fight hasn't begun" in clients[due].errors[-1]
        before = len(alice.errors)
        alice.close_table()  # only the GM closes a table
        await _until(lambda: len(alice.errors) == before + 1)
        assert alice.errors[-1] == "only the GM can do that" and not served.done()
        mira.pause(False)  # F6: the fight begins
        await _until(lambda: not alice.replica.lobby and not alice.replica.paused)
        assert "the GM begins the fight" in alice.replica.notes
        version = alice.replica.version
        clients[due].act({"type": "Wait", "actor": clients[due].replica.battle.current.uid})
        await _until(lambda: alice.replica.version == version + 1)
        await _until(lambda: json.loads((folder / "state.json").read_text()) == {"over": False, "lobby": False})
        closed = []
        alice.on_change = lambda _client, message: message["type"] == "closed" and closed.append(message)
        mira.close_table()
        await asyncio.wait_for(served, 10)
        await _until(lambda: closed)
        assert closed[0]["note"] == "the GM closed the table"
    finally:
        for client in clients.values():
            await client.close()
        if not served.done():
            served.cancel()
    catalogue = default_catalogue()
    assert len(load_session(battles_of(folder), TABLE_BATTLE, catalogue, load_enemies(catalogue)).inputs) == version + 1
    assert not (folder / "table.sock").exists()
    assert [json.loads(line)["text"] for line in (folder / "talk.jsonl").read_text().splitlines()] == [
        "ready when you are"]


def test_the_list_of_tables_puts_those_whose_fight_goes_on_first_and_marks_the_finished(tmp_path):
    import os

    from horizon_tui.table.lobby import write_state
    from horizon_tui.ui.player.joining import invite_label

    tables = tmp_path / "tables"
    folders = {}
    for name in ("a-old-fight", "b-tonight", "c-last-week"):
        folders[name] = write_spec(tables, name, encounter="standard", seed=4, party=[],
                                   seats=[SeatSpec("mira", "gm"), SeatSpec("alice", "player", ("iriel",))])
        (folders[name] / "table.sock").touch()  # its process is up (a finished table stays open for the talk)
    write_state(folders["a-old-fight"], over=True, lobby=False)
    write_state(folders["b-tonight"], over=False, lobby=True)
    (folders["c-last-week"] / "state.json").write_bytes(b"\xff not json")  # damaged: as if going on
    for age, name in enumerate(("b-tonight", "c-last-week", "a-old-fight")):
        os.utime(folders[name] / "spec.json", (1_000_000 - age * 1000, 1_000_000 - age * 1000))
    invites = invites_for(tables, "alice")
    assert [(i.table, i.over) for i in invites] == [("b-tonight", False), ("c-last-week", False),
                                                     ("a-old-fight", True)]
    assert invite_label(invites[0]).plain == "b-tonight — as player (iriel)"
    assert invite_label(invites[2]).plain == "a-old-fight — as player (iriel) · finished: its result and talk"


def test_stopping_the_host_stops_its_tables_each_saving_first(tmp_path):
    import os
    import subprocess

    from horizon_tui.table.lobby import PID_FILE, _table_process, stop_tables

    folder = _spec(tmp_path)
    proc = start_table(folder)
    try:
        pid = int((folder / PID_FILE).read_text())
        assert pid == proc.pid and _table_process(pid, folder)
        # a pid file naming a process that is no table (a number given again) is left alone
        stray = tmp_path / "tables" / "stray"
        stray.mkdir()
        sleeper = subprocess.Popen(["sleep", "30"])
        (stray / PID_FILE).write_text(str(sleeper.pid))
        assert stop_tables(tmp_path / "tables", timeout=20) == ["friday-crypt"]
        assert proc.wait(timeout=5) == 0  # ended by SIGTERM, as it ends at the GM's word: saved
        assert sleeper.poll() is None
        sleeper.kill()
        sleeper.wait()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert battles_of(folder).exists(TABLE_BATTLE) and not (folder / PID_FILE).exists()
    assert not (folder / "table.sock").exists() and os.path.exists(folder / "state.json")


def test_a_table_ends_saved_when_its_host_is_gone_without_a_word(tmp_path, monkeypatch):
    """A host killed outright (SIGKILL) sends its tables nothing: they see it gone and end."""
    import subprocess
    import time

    from horizon_tui.table.lobby import ENV_HOST_PID

    host = subprocess.Popen(["sleep", "60"])
    monkeypatch.setenv(ENV_HOST_PID, str(host.pid))
    folder = _spec(tmp_path)
    proc = start_table(folder)
    try:
        time.sleep(1.0)
        assert proc.poll() is None  # the host is there: the table goes on
        host.kill()
        host.wait()
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        if host.poll() is None:
            host.kill()
    assert battles_of(folder).exists(TABLE_BATTLE) and not (folder / "table.sock").exists()
