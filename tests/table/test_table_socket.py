"""The table over a local socket — a GM, two players and a spectator in one battle."""

from __future__ import annotations

import asyncio
import json

import pytest
from table_kit import make_rebuild, make_table, player_move

from horizon_tui.table.server import MAX_LINE, TableClient, TableServer

TOKENS = {"mira": "t-gm", "alice": "t-alice", "bob": "t-bob", "sam": "t-sam"}


async def _until(predicate, timeout=10.0):
    async def wait():
        while not predicate():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(wait(), timeout)


@pytest.fixture
async def served(tmp_path):
    table = make_table(seed=11, absent_wait_s=60)
    server = TableServer(table, TOKENS, tmp_path / "tables" / "t.sock")
    await server.start()
    yield table, server
    await server.close()


async def _join(server, seat):
    rebuild, _ = make_rebuild(seed=11)
    client = TableClient(server.path, seat, TOKENS[seat], rebuild)
    await client.connect()
    return client


async def test_four_views_play_a_whole_battle_and_agree(served):
    table, server = served
    clients = {name: await _join(server, name) for name in TOKENS}
    assert oct(server.path.stat().st_mode & 0o777) == "0o600"
    steps = 0
    while not table.battle.over and steps < 400:
        seat = table.whose_turn()
        version = table.version
        clients[seat.name].act(player_move(table, seat.name))
        await _until(lambda version=version: all(c.replica.version == version + 1 for c in clients.values()))
        steps += 1
        if steps == 2:  # one player drops mid-turn and comes back into the same turn
            dropper = table.whose_turn().name
            await clients[dropper].close()
            await _until(lambda dropper=dropper: not table.seats[dropper].connected)
            clients[dropper] = await _join(server, dropper)
            assert clients[dropper].replica.digest() == table.digest()
    assert table.battle.over
    assert {c.replica.digest() for c in clients.values()} == {table.digest()}
    # The GM's undo reaches every screen.
    clients["mira"].undo(1)
    await _until(lambda: all(c.replica.version == table.version for c in clients.values())
                 and table.version == steps - 1)
    assert {c.replica.digest() for c in clients.values()} == {table.digest()}
    assert not table.battle.over or steps == 1
    for client in clients.values():
        await client.close()


async def test_refusals_come_back_to_the_sender_only(served):
    table, server = served
    alice, bob, sam = [await _join(server, n) for n in ("alice", "bob", "sam")]
    due = table.whose_turn().name
    wrong = alice if due == "bob" else bob
    wrong.act({"type": "Wait", "actor": "goblin-archer"})
    sam.undo(1)
    await _until(lambda: wrong.errors and sam.errors)
    assert "not your turn" in wrong.errors[0] and "only the GM" in sam.errors[0]
    assert table.version == 0
    for client in (alice, bob, sam):
        await client.close()


async def test_a_wrong_token_or_hostile_lines_are_refused(served):
    table, server = served
    rebuild, _ = make_rebuild(seed=11)
    impostor = TableClient(server.path, "mira", "guess", rebuild)
    with pytest.raises(ConnectionError, match="wrong token"):
        await impostor.connect()
    await impostor.close()
    reader, writer = await asyncio.open_unix_connection(str(server.path), limit=MAX_LINE * 4)
    writer.write(json.dumps({"type": "hello", "seat": "alice", "token": TOKENS["alice"]}).encode() + b"\n")
    assert json.loads(await reader.readline())["type"] == "snapshot"
    for junk in (b"not json\n", b"[1]\n", b'{"type": "act", "action": [[[[[]]]]]}\n',
                 b'{"type": "undo", "steps": 1e999}\n', b"[" * 5000 + b"\n"):
        writer.write(junk)
        while True:  # skip presence notices until the answer to this line
            answer = json.loads(await reader.readline())
            if answer["type"] == "error":
                break
    for long_line in (b"x" * (MAX_LINE + 10) + b"\n", b"y" * (MAX_LINE * 3) + b"z" * 10 + b"\n"):
        writer.write(long_line)
        while (answer := json.loads(await asyncio.wait_for(reader.readline(), 10)))["type"] == "seats":
            pass
        assert answer == {"type": "error", "reason": f"a message is at most {MAX_LINE} bytes"}
    # The long lines were thrown away whole: the same connection is still served, at once.
    writer.write(b'{"type": "sync"}\n')
    while (answer := json.loads(await asyncio.wait_for(reader.readline(), 10)))["type"] == "seats":
        pass
    assert answer["type"] == "snapshot"
    assert table.version == 0
    writer.close()
