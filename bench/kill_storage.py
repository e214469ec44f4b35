"""kill -9 at random moments while a GM tool saves actions to the campaign database: after each
kill the database must pass `PRAGMA integrity_check`, hold every action the killed process had
reported committed, open as a campaign, and leave no -wal, -shm or temp file once closed.

    .venv/bin/python bench/kill_storage.py [--actions 1000] [--seed 1]

A child process opens the campaign and applies GM actions (dice rolls, a day advancing every 25th,
an NPC's notes every 7th), printing each journal row's number once its transaction committed; the
parent kills it with SIGKILL after a random number of them (or mid-way through one) and checks,
then starts the next child on the same database, until `--actions` actions were committed.
tests/storage/test_kill.py runs it with fewer.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import sys
from pathlib import Path
import attrs
from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.campaign import changes
from horizon_tui.campaign.campaign_files import CampaignStore
from horizon_tui.campaign.model import Npc
from horizon_tui.campaign.open_campaign import open_session

store = CampaignStore(Path(sys.argv[1]), default_catalogue())
key = store.find("Kill Road")
if key is None:
    key, _ = store.create("Kill Road", seed=3)
    session = open_session(store, key)
    session.apply(lambda c: changes.save_npc(c, None, Npc("Oswin")), "NPC")
else:
    session = open_session(store, key)
print(f"open {session.head}", flush=True)
n = session.head
while True:
    n += 1
    if n % 25 == 0:
        session.apply(changes.advance_day, "day")
    elif n % 7 == 0:
        npc = session.campaign.npcs[0]
        session.apply(lambda c: changes.save_npc(c, npc.name, attrs.evolve(npc, notes=f"note {n}")), "notes")
    else:
        session.apply(lambda c: changes.roll_dice(c, "1d20")[0], "roll")
    print(session.head, flush=True)
"""


def leftovers(saves: Path) -> list[str]:
    """Files a clean close should not leave: SQLite's -wal, -shm and -journal, temp files."""
    return sorted(p.name for p in saves.iterdir() if p.name.endswith(("-wal", "-shm", "-journal", ".tmp")))


def check(saves: Path, committed: int) -> str | None:
    """None when the database is sound and holds `committed` actions; else what is wrong."""
    from horizon_tui.campaign.campaign_files import CampaignStore
    from horizon_tui.content.catalogue import default_catalogue

    conn = sqlite3.connect(saves / "horizon.sqlite3")
    try:
        verdict = conn.execute("PRAGMA integrity_check").fetchall()
    finally:
        conn.close()
    if verdict != [("ok",)]:
        return f"integrity_check: {verdict[:3]}"
    store = CampaignStore(saves, default_catalogue())
    try:
        key = store.find("Kill Road")
        head = store.load(key).head if key else 0
        if head < committed:
            return f"lost committed actions: the journal is at {head}, the child reported {committed}"
    finally:
        store.close()
    left = leftovers(saves)
    return f"left behind after a clean open and close: {left}" if left else None


def run(actions: int, seed: int, saves: Path, *, quiet: bool = False) -> dict[str, float]:
    rng = random.Random(seed)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    committed, kills, started = 0, 0, time.perf_counter()
    while committed < actions:
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(saves)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=env)
        assert child.stdout is not None
        opened = child.stdout.readline()
        if not opened.startswith("open "):
            raise SystemExit(f"the child didn't open the campaign: {opened!r} {child.stderr.read() if child.stderr else ''}")
        batch = rng.randint(1, 40)
        for _ in range(batch):
            line = child.stdout.readline()
            if not line:
                raise SystemExit(f"the child stopped: {child.stderr.read() if child.stderr else ''}")
            committed = max(committed, int(line))
        time.sleep(rng.random() * 0.02)  # kill it mid-way through the next action, or between two
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        for line in child.stdout.read().split():  # reported before the kill landed
            committed = max(committed, int(line))
        kills += 1
        problem = check(saves, committed)
        if problem:
            raise SystemExit(f"after kill {kills} ({committed} actions committed): {problem}")
        if not quiet:
            print(f"kill {kills}: {committed} actions committed, database sound", flush=True)
    return {"kills": kills, "committed": committed, "seconds": time.perf_counter() - started}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--saves", type=Path, default=None)
    args = parser.parse_args()
    import tempfile

    with tempfile.TemporaryDirectory(prefix="hz-kill-") as folder:
        saves = args.saves or Path(folder) / "saves"
        saves.mkdir(parents=True, exist_ok=True)
        done = run(args.actions, args.seed, saves)
    print(f"{done['committed']} GM actions, {done['kills']} kill -9s, every time sound ({done['seconds']:.0f} s)")


if __name__ == "__main__":
    main()
