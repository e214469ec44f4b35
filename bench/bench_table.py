"""Live tables, run by hand; prints numbers.

--tables tables (default 4) of --seats-per-table people each (default 5: a GM, three players
and a spectator), every one a process of its own as a session is over SSH, connected to its
table's real process (`python -m horizon_tui.table`, started as the GM tool starts it) over the
table's Unix socket with a `TableClient` — the same client and replica a table screen holds. For
--seconds (default 20) each seat that must act does so after --think seconds (default 0.5): a
player attacks the nearest enemy in reach or ends the turn, the GM does the same for the party
members no player holds; the AI's turns are played by the table. Measured: each accepted action's
time from the sender's `act` until every other view of its table has applied it to its replica
(what a screen then draws), over all tables. Target: p95 ≤ 100 ms.

The clocks are one: CLOCK_MONOTONIC is system-wide, so a time taken in one process compares with
another's. Every seat starts acting at one signal, once all have connected. The battles (the
`standard` encounter) outlast a run; the count of those that ended is printed.

Run: .venv/bin/python bench/bench_table.py [--tables 4] [--seconds 20] [--think 0.5] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ENCOUNTER = "standard"
PARTY = ("brakka", "iriel", "morwen", "sefa")  # examples/party; the first three are seated
PLAYERS = ("ana", "ben", "cai")


# --- one seat: a process of its own -----------------------------------------------------------

def choose(battle, me):
    """What a seat does on its turn: attack the nearest enemy in reach, else end the turn."""
    from horizon_tui.engine import targeting
    from horizon_tui.engine.battle import cid, pos
    from horizon_tui.engine.sideview import targetable

    for enemy in targetable(battle, me):
        if targeting.attack_preview(battle, me, pos(enemy)).problem is None:
            return {"type": "Attack", "actor": cid(me), "target": cid(enemy)}
        break
    return {"type": "Wait", "actor": cid(me)}


async def seat_main(folder: Path, seat: str, seconds: float, think: float, seed: int) -> None:
    from horizon_tui.engine.battle import cid
    from horizon_tui.engine.runner import needs_input
    from horizon_tui.table.lobby import invites_for, load_table
    from horizon_tui.table.server import TableClient

    [invite] = [i for i in invites_for(folder.parent, seat) if i.folder == folder]
    spec = load_table(folder)
    held = {c for s in spec.seats if s.role == "player" for c in s.characters}
    mine = set(invite.characters)
    applied: list[tuple[int, float]] = []  # (version, when this view had it)
    sent: list[tuple[int, float]] = []  # (the version the action makes, when it was sent)
    rng = random.Random(seed)
    wake = asyncio.Event()

    def changed(client, message):
        if message.get("type") == "update":
            applied.append((client.replica.version, time.monotonic()))
        wake.set()

    client = TableClient(invite.socket, seat, invite.token, spec.rebuild, on_change=changed)
    await client.connect()
    print(json.dumps({"ready": seat}), flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)  # everyone is here: go
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        battle = client.replica.battle
        current = battle.current
        due = (current is not None and not battle.over and needs_input(battle, current) and (
            cid(current) in mine if invite.role == "player" else invite.role == "gm" and cid(current) not in held))
        if due:
            version = client.replica.version
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            if client.replica.version == version:  # nothing changed meanwhile (an undo, a hand-over)
                sent.append((version + 1, time.monotonic()))
                client.act(choose(battle, current))
        wake.clear()
        try:
            await asyncio.wait_for(wake.wait(), 0.5)
        except TimeoutError:
            pass
    await client.close()
    print(json.dumps({"seat": seat, "table": folder.name, "sent": sent, "applied": applied,
                      "over": client.replica.battle.over}), flush=True)


# --- the tables and the measure -----------------------------------------------------------------

def lay_table(tables: Path, name: str, seed: int) -> Path:
    from horizon_tui.content.catalogue import default_catalogue
    from horizon_tui.content.characters import character_to_dict, load_character
    from horizon_tui.table.lobby import SeatSpec, write_spec

    catalogue = default_catalogue()
    party = [{"character": character_to_dict(load_character(REPO / "examples" / "party" / f"{stem}.toml",
                                                            catalogue), catalogue),
              "controller": "player" if stem in PARTY[:3] else "gm"} for stem in PARTY]
    seats = [SeatSpec("gm", "gm"), *(SeatSpec(p, "player", (stem,)) for p, stem in zip(PLAYERS, PARTY)),
             SeatSpec("spec", "spectator")]
    return write_spec(tables, name, encounter=ENCOUNTER, seed=seed, party=party, seats=seats)


async def read_lines(proc: asyncio.subprocess.Process, ready: asyncio.Event, results: list) -> None:
    while line := await proc.stdout.readline():
        message = json.loads(line)
        if "ready" in message:
            ready.set()
        else:
            results.append(message)


async def one_run(args, run: int) -> dict:
    from horizon_tui.table.lobby import start_table

    base = Path(tempfile.mkdtemp(prefix="bench-table-"))
    tables = base / "tables"
    procs, seats, results = [], [], []
    try:
        folders = [lay_table(tables, f"t{run}-{i}", seed=100 * run + i) for i in range(args.tables)]
        procs = [start_table(folder) for folder in folders]
        names = ["gm", *PLAYERS, "spec"][:args.seats_per_table]
        for t, folder in enumerate(folders):
            for s, name in enumerate(names):
                proc = await asyncio.create_subprocess_exec(
                    sys.executable, __file__, "--seat", str(folder), name, "--seconds", str(args.seconds),
                    "--think", str(args.think), "--seed", str(1000 * run + 10 * t + s),
                    stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
                ready = asyncio.Event()
                seats.append((proc, ready, asyncio.create_task(read_lines(proc, ready, results))))
        await asyncio.wait_for(asyncio.gather(*(r.wait() for _, r, _ in seats)), 120)
        for proc, _, _ in seats:
            proc.stdin.write(b"go\n")
        for proc, _, task in seats:
            await proc.wait()
            await task
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            proc.wait(timeout=15)
        shutil.rmtree(base, ignore_errors=True)
    return measure(results)


def measure(results: list[dict]) -> dict:
    """Per action: the latest of the other views' arrival times, less the send time."""
    by_table: dict[str, list[dict]] = {}
    for r in results:
        by_table.setdefault(r["table"], []).append(r)
    latencies, missing = [], 0
    for views in by_table.values():
        arrived = {r["seat"]: dict((v, t) for v, t in r["applied"]) for r in views}
        for sender in views:
            for version, sent_at in sender["sent"]:
                others = [arrived[r["seat"]].get(version) for r in views if r["seat"] != sender["seat"]]
                if any(t is None for t in others):
                    missing += 1  # refused, or the run ended before it arrived everywhere
                    continue
                latencies.append(max(others) - sent_at)
    latencies.sort()
    over = len({r["table"] for r in results if r.get("over")})
    if not latencies:
        return {"actions": 0, "missing": missing, "over": over}
    return {"actions": len(latencies), "missing": missing, "over": over, "median_ms": 1000 * statistics.median(latencies),
            "p95_ms": 1000 * latencies[int(0.95 * (len(latencies) - 1))], "max_ms": 1000 * latencies[-1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--seats-per-table", type=int, default=5, choices=range(2, 6))
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--think", type=float, default=0.5, help="seconds a seat takes to act (×0.5–1.5)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seat", nargs=2, metavar=("FOLDER", "SEAT"), help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.seat:
        asyncio.run(seat_main(Path(args.seat[0]), args.seat[1], args.seconds, args.think, args.seed))
        return
    print(f"{args.tables} tables × {args.seats_per_table} seats, {args.seconds:g} s, think {args.think:g} s, "
          f"{os.cpu_count()} cores")
    runs = []
    for run in range(args.runs):
        found = asyncio.run(one_run(args, run))
        runs.append(found)
        if found["actions"]:
            print(f"run {run + 1}: {found['actions']} actions ({found['missing']} not everywhere, "
                  f"{found['over']} battles ended): action → every "
                  f"other view median {found['median_ms']:.1f} ms, p95 {found['p95_ms']:.1f} ms, "
                  f"max {found['max_ms']:.1f} ms", flush=True)
        else:
            print(f"run {run + 1}: no action measured", flush=True)
    measured = [r for r in runs if r["actions"]]
    if measured:
        print("median of runs: " + ", ".join(
            f"{key[:-3]} {statistics.median(r[key] for r in measured):.1f} ms"
            for key in ("median_ms", "p95_ms", "max_ms")) + "  (target p95 ≤ 100 ms)")


if __name__ == "__main__":
    main()
