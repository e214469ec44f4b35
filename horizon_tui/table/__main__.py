"""`python -m horizon_tui.table FOLDER`: the process that holds one live table (see lobby.py).

Reads the folder's spec.json, builds the battle, serves it on FOLDER/table.sock and keeps
FOLDER/battle.json (a battle save) after every accepted input. Ends a while after the battle is
over, when no seat has been connected for EMPTY_S (an abandoned table must not hold a process on
the host for ever; nothing is lost: the save is there and the GM's campaign keeps the fight), or
on SIGTERM/SIGHUP (saving first).
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from pathlib import Path

from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.engine.persist import BattleSession, save_session
from horizon_tui.table.core import Seat, Table
from horizon_tui.table.lobby import load_table
from horizon_tui.table.server import TableServer

LINGER_S = 600.0  # a finished table stays up this long, so everyone sees the end
EMPTY_S = 3600.0  # a table no one is connected to ends after this long


def build(folder: Path):
    spec = load_table(folder)
    catalogue = spec.catalogue or default_catalogue()
    seats = [Seat(s.name, s.role, s.characters) for s in spec.seats]
    opening = list(spec.opening)
    session = BattleSession(spec.rebuild(opening), spec.encounter, list(spec.party), opening)
    table = Table(session, seats, spec.rebuild, absent_wait_s=spec.absent_wait_s, kept=len(opening))
    tokens = json.loads((folder / "tokens.json").read_text(encoding="utf-8"))
    return table, dict(tokens), catalogue


async def serve(folder: Path, *, empty_s: float = EMPTY_S) -> None:
    table, tokens, catalogue = build(folder)
    server = TableServer(table, tokens, folder / "table.sock", talk_file=folder / "talk.jsonl")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    saved = -1

    def save() -> None:
        nonlocal saved
        if table.version != saved:
            save_session(folder / "battle.json", table.session, catalogue)
            saved = table.version

    await server.start()
    over_since = None
    empty_since = loop.time()
    try:
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), 0.5)
            except TimeoutError:
                pass
            save()
            if table.battle.over:
                over_since = over_since or loop.time()
                if loop.time() - over_since > LINGER_S:
                    break
            if any(seat.connected for seat in table.seats.values()):
                empty_since = loop.time()
            elif loop.time() - empty_since > empty_s:
                break
    finally:
        save()
        await server.close()


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m horizon_tui.table FOLDER", file=sys.stderr)
        return 2
    asyncio.run(serve(Path(argv[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
