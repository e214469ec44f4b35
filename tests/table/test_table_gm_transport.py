"""The table's socket where it used to fail — a deep folder, and an over-long line."""

from __future__ import annotations

import asyncio
import json

from table_kit import make_rebuild, make_table

from horizon_tui.table.server import MAX_LINE, SUN_PATH_MAX, TableClient, TableServer

TOKENS = {"mira": "t-gm", "alice": "t-alice", "bob": "t-bob", "sam": "t-sam"}


async def test_a_table_in_a_folder_deeper_than_a_socket_address_still_serves(tmp_path):
    """A Unix socket's address is at most 107 bytes; pytest's folders under xdist (and a long home)
    are deeper. The GM-side end-to-end test timed out there: the table process could not bind."""
    folder = tmp_path / ("d" * 60) / ("e" * 60)
    path = folder / "table.sock"
    assert len(str(path)) > SUN_PATH_MAX
    table = make_table(seed=11)
    server = TableServer(table, TOKENS, path)
    await server.start()
    try:
        assert path.exists() and oct(path.stat().st_mode & 0o777) == "0o600"
        rebuild, _ = make_rebuild(seed=11)
        client = TableClient(path, "sam", TOKENS["sam"], rebuild)
        await client.connect()
        assert client.replica.digest() == table.digest()
        await client.close()
    finally:
        await server.close()
    assert not path.exists()


async def test_an_over_long_line_is_refused_without_freezing_the_table(tmp_path):
    """The rest of an over-long line used to stay in the buffer: every later read failed at once,
    the table's loop spun and no other seat was answered."""
    table = make_table(seed=11)
    server = TableServer(table, TOKENS, tmp_path / "t.sock")
    await server.start()
    try:
        reader, writer = await asyncio.open_unix_connection(str(server.path), limit=MAX_LINE * 4)
        writer.write(json.dumps({"type": "hello", "seat": "alice", "token": TOKENS["alice"]}).encode() + b"\n")
        assert json.loads(await reader.readline())["type"] == "snapshot"
        writer.write(b"x" * (3 * MAX_LINE + 10) + b"\n" + json.dumps({"type": "sync"}).encode() + b"\n")
        seen = []

        async def answers():
            while "snapshot" not in seen:
                seen.append(json.loads(await reader.readline())["type"])

        await asyncio.wait_for(answers(), 10)
        assert "error" in seen  # the long line refused, and the line after it answered
        rebuild, _ = make_rebuild(seed=11)
        other = TableClient(server.path, "sam", TOKENS["sam"], rebuild)
        await asyncio.wait_for(other.connect(), 10)  # the table still answers everyone
        await other.close()
        writer.close()
    finally:
        await server.close()
