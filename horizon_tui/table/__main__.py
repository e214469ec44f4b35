"""`python -m horizon_tui.table FOLDER`: the process that holds one live table (see lobby.py).

Reads the folder's spec.json, builds the battle, serves it on FOLDER/table.sock and keeps the
battle (a journal named `battle.json` in the folder's database, storage.records.battles_of) after
every accepted input. A table opened by the GM tool
starts in its lobby (the seats gather and talk; the GM begins the fight) and stays open after the
fight, for the talk, until the GM closes it. It also ends when no seat has been connected for
LINGER_S after the fight or EMPTY_S at any time (an abandoned table must not hold a process on the
host for ever; nothing is lost: the save is there and the GM's campaign keeps the fight), and on
SIGTERM/SIGHUP (saving first), which the SSH host sends its tables when it stops; if the host is
gone without it (`HORIZON_HOST_PID`, set by the host for its sessions' tables), the table ends too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from pathlib import Path

from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.engine.persist import BattleInProgress, save_session
from horizon_tui.table.core import Seat, Table
from horizon_tui.paths import write_private_bytes
from horizon_tui.storage.lock import process_alive
from horizon_tui.storage.records import battles_of
from horizon_tui.table.lobby import ENV_HOST_PID, PID_FILE, load_table, write_state
from horizon_tui.table.server import TableServer

LINGER_S = 600.0  # a finished table no one is connected to ends after this long
EMPTY_S = 3600.0  # a table no one is connected to ends after this long
TABLE_BATTLE = "battle.json"  # the table's battle, as its folder's journal names it


def build(folder: Path, *, hotseat: bool = False):
    """The table of `folder`; `hotseat`: every seat at one keyboard, so no lobby to gather in."""
    spec = load_table(folder)
    catalogue = spec.catalogue or default_catalogue()
    seats = [Seat(s.name, s.role, s.characters) for s in spec.seats]
    opening = list(spec.opening)
    session = BattleInProgress(spec.rebuild(opening), spec.encounter, list(spec.party), opening)
    table = Table(session, seats, spec.rebuild, absent_wait_s=spec.absent_wait_s, kept=len(opening),
                  lobby=spec.lobby and not hotseat)
    tokens = json.loads((folder / "tokens.json").read_text(encoding="utf-8"))
    return table, dict(tokens), catalogue


async def serve(folder: Path, *, empty_s: float = EMPTY_S) -> None:
    table, tokens, catalogue = build(folder)
    server = TableServer(table, tokens, folder / "table.sock", talk_file=folder / "talk.jsonl")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    saved, shown = -1, None

    def save() -> None:
        nonlocal saved, shown
        if table.version != saved:
            save_session(battles_of(folder), TABLE_BATTLE, table.session, catalogue)
            saved = table.version
        state = (table.battle.over, table.in_lobby)
        if state != shown:
            write_state(folder, over=state[0], lobby=state[1])
            shown = state

    save()  # the state the lists of tables show, before anyone can find the socket
    write_private_bytes(folder / PID_FILE, str(os.getpid()).encode())
    host = _host_pid()
    await server.start()
    empty_since = loop.time()
    try:
        while not stop.is_set() and not server.closed.is_set() and (host is None or process_alive(host)):
            try:
                await asyncio.wait_for(stop.wait(), 0.5)
            except TimeoutError:
                pass
            save()
            if any(seat.connected for seat in table.seats.values()):
                empty_since = loop.time()
            elif loop.time() - empty_since > (LINGER_S if table.battle.over else empty_s):
                break
    finally:
        save()
        await server.close()
        with contextlib.suppress(FileNotFoundError):
            (folder / PID_FILE).unlink()


def _host_pid() -> int | None:
    raw = os.environ.get(ENV_HOST_PID, "")
    return int(raw) if raw.isdigit() and int(raw) > 1 else None


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m horizon_tui.table FOLDER", file=sys.stderr)
        return 2
    asyncio.run(serve(Path(argv[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
