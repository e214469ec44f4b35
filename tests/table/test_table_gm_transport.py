"""The table's socket where it used to fail — a deep folder, an over-long line, a connect that came
before the table listened."""

from __future__ import annotations

import asyncio
import json
import socket

from table_kit import make_rebuild, make_table

from horizon_tui.table.server import MAX_LINE, SUN_PATH_MAX, TableClient, TableServer, unix_socket

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


def test_a_table_socket_is_there_only_once_it_listens(tmp_path, monkeypatch):
    """`lobby.start_table` waits for the socket's file, then the GM's client connects. The file used
    to be there from bind() on: a connect before listen() was refused (ECONNREFUSED), the table
    "did not open", and the GM's end-to-end test waited 60 s for the table screen under load. Both
    addresses: a short one, and a deep folder's (through /proc/self/fd)."""
    for path in (tmp_path / "t.sock", tmp_path / ("d" * 60) / ("e" * 60) / "table.sock"):
        path.parent.mkdir(parents=True, exist_ok=True)
        there_at_listen = []
        listen = socket.socket.listen

        def watched(sock, backlog, path=path, listen=listen, seen=there_at_listen):
            seen.append(path.exists())  # what a client waiting for the file sees now
            return listen(sock, backlog)

        monkeypatch.setattr(socket.socket, "listen", watched)
        server = unix_socket(path, listen=True)
        monkeypatch.undo()
        try:
            assert there_at_listen == [False] and path.exists()
            unix_socket(path, listen=False).close()  # answered
        finally:
            server.close()
        assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # nothing left under a passing name


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
