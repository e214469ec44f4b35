"""kill -9 at random moments while a GM tool saves actions to the campaign database, or while a
player's battle saves its inputs (`--battles`): after each kill the database must pass
`PRAGMA integrity_check`, hold every action or input the killed process had reported committed,
open (the campaign; the battle, replayed), and leave no -wal, -shm or temp file once closed.

    .venv/bin/python bench/kill_storage.py [--actions 1000] [--seed 1] [--battles]

A child process opens the campaign and applies GM actions (dice rolls, a day advancing every 25th,
an NPC's notes every 7th), printing each journal row's number once its transaction committed; the
parent kills it with SIGKILL after a random number of them (or mid-way through one) and checks,
then starts the next child on the same database, until `--actions` actions were committed.
With `--battles` the child resumes the battle in progress (or begins the next when it is over:
Iriel against the wolves, one battle after another) and saves after every input as the battle
screen does (engine.persist.save_session: one journal row per input), printing how many inputs
all its battles hold. tests/storage/test_kill.py runs both with fewer.
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


BATTLE_CHILD = """
import sys
from pathlib import Path
from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.content.characters import load_character
from horizon_tui.content.encounters import load_enemies
from horizon_tui.engine import runner
from horizon_tui.engine.actions import Wait
from horizon_tui.engine.battle import cid
from horizon_tui.engine.encounter import load_encounter
from horizon_tui.engine.forming import PartyMember, create_battle
from horizon_tui.engine.persist import BattleInProgress, load_session, save_session
from horizon_tui.storage.records import battles_of

saves, root = Path(sys.argv[1]), Path(sys.argv[2])
catalogue = default_catalogue()
enemies = load_enemies(catalogue)
battles = battles_of(saves)
listed = sorted(battles.listing("battles/"), key=lambda b: int(b.slot.split("-")[-1].split(".")[0]))
before = sum(b.inputs for b in listed[:-1])
session = load_session(battles, listed[-1].slot, catalogue, enemies) if listed else None
number = len(listed) - 1 if listed else 0


def begin(seed):
    party = [PartyMember(load_character(root / "examples/party/iriel.toml", catalogue), "player")]
    battle = create_battle(load_encounter("wolves", catalogue, enemies), party, seed, catalogue, enemies)
    runner.begin(battle)
    runner.run_ai(battle)  # to Iriel's first turn, as the battle screen plays the wolves' turns
    return BattleInProgress(battle, "wolves", party)


if session is None:
    session = begin(number)
print(f"open {before + len(session.inputs)}", flush=True)
while True:
    if session.battle.over:
        before += len(session.inputs)
        number += 1
        session = begin(number)
    else:
        runner.submit(session.battle, Wait(cid(session.battle.current)), session.inputs)
        runner.run_ai(session.battle)
    save_session(battles, f"battles/kill-{number}.json", session, catalogue)
    print(before + len(session.inputs), flush=True)
"""


def leftovers(saves: Path) -> list[str]:
    """Files a clean close should not leave: SQLite's -wal, -shm and -journal, temp files."""
    return sorted(p.name for p in saves.iterdir() if p.name.endswith(("-wal", "-shm", "-journal", ".tmp")))


def check(saves: Path, committed: int, battles: bool = False) -> str | None:
    """None when the database is sound and holds `committed` actions (inputs); else what is wrong."""
    from horizon_tui.campaign.campaign_files import CampaignStore
    from horizon_tui.content.catalogue import default_catalogue

    conn = sqlite3.connect(saves / "horizon.sqlite3")
    try:
        verdict = conn.execute("PRAGMA integrity_check").fetchall()
    finally:
        conn.close()
    if verdict != [("ok",)]:
        return f"integrity_check: {verdict[:3]}"
    if battles:
        return check_battles(saves, committed)
    store = CampaignStore(saves, default_catalogue())
    try:
        key = store.find("Kill Road")
        loaded = store.load(key) if key else None
        head = loaded.head if loaded else 0
        if head < committed:
            return f"lost committed actions: the journal is at {head}, the child reported {committed}"
        damaged = [e.text for e in loaded.campaign.log if e.kind == "damaged"] if loaded else []  # read on demand
        if damaged:
            return f"log lines that can't be read: {damaged[:3]}"
    finally:
        store.close()
    left = leftovers(saves)
    return f"left behind after a clean open and close: {left}" if left else None


def check_battles(saves: Path, committed: int) -> str | None:
    """The battles hold `committed` inputs, the last one replays, and a clean close leaves nothing."""
    from horizon_tui.content.catalogue import default_catalogue
    from horizon_tui.content.encounters import load_enemies
    from horizon_tui.engine.persist import load_session
    from horizon_tui.errors import DataError
    from horizon_tui.storage.battles_sql import SqlBattles
    from horizon_tui.storage.database import open_database

    database = open_database(data_dir=saves)
    try:
        battles = SqlBattles(database)
        listed = battles.listing("battles/")
        held = sum(b.inputs for b in listed)
        if held < committed:
            return f"lost committed inputs: the battles hold {held}, the child reported {committed}"
        if listed:
            catalogue = default_catalogue()
            try:
                load_session(battles, listed[0].slot, catalogue, load_enemies(catalogue))
            except DataError as exc:
                return f"the last battle doesn't replay: {exc}"
    finally:
        database.close()
    left = leftovers(saves)
    return f"left behind after a clean open and close: {left}" if left else None


def run(actions: int, seed: int, saves: Path, *, quiet: bool = False, battles: bool = False) -> dict[str, float]:
    rng = random.Random(seed)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    committed, kills, started = 0, 0, time.perf_counter()
    code, what = (BATTLE_CHILD, "inputs") if battles else (CHILD, "actions")
    while committed < actions:
        child = subprocess.Popen([sys.executable, "-c", code, str(saves), str(ROOT)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=env)
        assert child.stdout is not None
        opened = child.stdout.readline()
        if not opened.startswith("open "):
            raise SystemExit(f"the child didn't open: {opened!r} {child.stderr.read() if child.stderr else ''}")
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
        problem = check(saves, committed, battles)
        if problem:
            raise SystemExit(f"after kill {kills} ({committed} {what} committed): {problem}")
        if not quiet:
            print(f"kill {kills}: {committed} {what} committed, database sound", flush=True)
    return {"kills": kills, "committed": committed, "seconds": time.perf_counter() - started}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--saves", type=Path, default=None)
    parser.add_argument("--battles", action="store_true", help="battle inputs instead of GM actions")
    args = parser.parse_args()
    import tempfile

    with tempfile.TemporaryDirectory(prefix="hz-kill-") as folder:
        saves = args.saves or Path(folder) / "saves"
        saves.mkdir(parents=True, exist_ok=True)
        done = run(args.actions, args.seed, saves, battles=args.battles)
    what = "battle inputs" if args.battles else "GM actions"
    print(f"{done['committed']} {what}, {done['kills']} kill -9s, every time sound ({done['seconds']:.0f} s)")


if __name__ == "__main__":
    main()
