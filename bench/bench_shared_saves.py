"""An account's runs and battles in progress where the host keeps them: the saves folder's files
and SQLite database (one host), or a shared database (`serve-ssh --database`: SQLite here, and
PostgreSQL when HORIZON_TEST_POSTGRES_URL names one). What a run's save, a battle input and the
Continue listing cost, each plain and under the run's lock (storage.runs.HeldRuns: the file lock,
or on PostgreSQL the row in host_save_holders), and what importing a host's folder of before costs.

Under PostgreSQL's lock an input is one transaction: the holder row checked FOR UPDATE and the
input written together (storage.host_locks.SharedSaveLock.guard); the count is printed.

Median and p95 of several hundred, wall and CPU time (time.process_time: the database server's
own work is left out); the machine may be shared, so compare within one run.

Run: .venv/bin/python bench/bench_shared_saves.py [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_host_db import timed  # noqa: E402

from horizon_tui.storage.battles_sql import SqlBattles  # noqa: E402
from horizon_tui.storage.campaigns import SqlCampaigns  # noqa: E402
from horizon_tui.storage.database import open_database  # noqa: E402
from horizon_tui.storage.host_locks import SharedSaveLock  # noqa: E402
from horizon_tui.storage.host_records import ENV_ACCOUNT, ENV_DATABASE  # noqa: E402
from horizon_tui.storage.host_saves import SqlRuns  # noqa: E402
from horizon_tui.storage.host_shared import import_saves_folder, shared_database  # noqa: E402
from horizon_tui.storage.lock import SaveLock  # noqa: E402
from horizon_tui.storage.runs import FileRuns, HeldRuns, RunStore  # noqa: E402

HEADER = json.dumps({"kind": "horizon-battle", "schema": 1, "seed": 7, "encounter": "wolves", "party": []})
MOVE = json.dumps({"at": 0, "auto_end": True, "action": {"type": "wait", "actor": "iriel"}})


def a_run(run_id: str, depth: int) -> dict:
    member = {"character": {"name": "Iriel", "species": "elf", "xp": 400, "abilities": ["a"] * 8},
              "state": {"hp": 500, "max_hp": 708, "effects": [], "charges": {"x": 1}}}
    return {"id": run_id, "depth": depth, "seed": 5, "members": [member] * 4, "fights": ["wolves"] * depth}


def bench_store(name: str, store: RunStore, lock_class, folder: Path, rounds: int) -> None:
    print(f"{name}:")
    for n in range(20):
        store.save_run(a_run(f"20261205-{n:06d}", n))
    depth = iter(range(10**6))
    timed("a run saved", rounds, lambda: store.save_run(a_run("20261205-000001", next(depth))))
    timed("Continue's listing (20 runs)", rounds, store.runs_in_progress)
    slot = store.battle_slot("20261205-000001")
    inputs = iter(range(10**6))
    store.battles().save(slot, HEADER, 0, [], {})

    def one_input() -> None:
        n = next(inputs)
        store.battles().save(slot, HEADER, n, [MOVE], {"log_length": n + 1})

    timed("a battle input", rounds, one_input)
    held = HeldRuns(store, folder, "bench", lock_class)
    held.hold("20261205-000002")
    timed("a run saved under its lock", rounds, lambda: held.save_run(a_run("20261205-000002", next(depth))))
    slot = held.battle_slot("20261205-000002")
    held.battles().save(slot, HEADER, 0, [], {})
    inputs = iter(range(10**6))

    def one_held_input() -> None:
        n = next(inputs)
        held.battles().save(slot, HEADER, n, [MOVE], {"log_length": n + 1})

    timed("a battle input under the run's lock", rounds, one_held_input)
    database = getattr(store, "database", None)
    if database is not None:  # how many transactions one input under the lock takes in this database
        begun: list = []

        def began(conn) -> None:
            begun.append(conn)

        sa.event.listen(database.engine, "begin", began)
        one_held_input()
        sa.event.remove(database.engine, "begin", began)
        print(f"  {'transactions in the database per input under the lock':44} {len(begun)}")
    held.let_go()


def folder_of_before(saves: Path) -> None:
    """A host's folder of before: 20 runs, 5 battles of 200 inputs, 2 campaigns of 1,000 log lines."""
    local = open_database(data_dir=saves)
    for n in range(5):
        SqlBattles(local).save(f"battles/c{n}.json", HEADER, 0, [MOVE] * 200, {"log_length": 200})
    lines = [{"day": 1, "kind": "roll", "text": f"1d20 = {n % 20}", "data": {}} for n in range(1000)]
    for n in range(2):
        SqlCampaigns(local).create(f"campaign-{n}", f"Campaign {n}", {"name": "x", "day": 1}, lines, {"day": 1})
    local.close()
    runs = saves / "records" / "runs"
    runs.mkdir(parents=True)
    for n in range(20):
        (runs / f"20261205-{n:06d}.json").write_text(json.dumps(a_run(f"20261205-{n:06d}", n)))


def bench_import(name: str, url: str, folder: Path) -> None:
    database = shared_database(url)
    walls, cpus = [], []
    for n in range(5):
        saves = folder / f"import-{n}" / "saves"
        saves.mkdir(parents=True)
        folder_of_before(saves)
        wall, cpu = time.perf_counter(), time.process_time()
        import_saves_folder(database, f"importer{n}", saves)
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    walls.sort()
    cpus.sort()
    print(f"  {name}: importing a folder of before (20 runs, 5 battles of 200 inputs, 2 campaigns of "
          f"1,000 lines): median {walls[2]:.1f} ms, cpu {cpus[2]:.1f} ms (of 5)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} (the machine may be shared)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        bench_store("the saves folder's files and SQLite (one host)", FileRuns(folder / "files"), SaveLock,
                    folder / "files", args.rounds)
        sqlite = open_database(data_dir=folder / "shared")
        bench_store("a shared SQLite database", SqlRuns(sqlite, "alice", folder / "s"), SaveLock, folder / "s",
                    args.rounds)
        sqlite.close()
        url = os.environ.get("HORIZON_TEST_POSTGRES_URL")
        if not url:
            print("PostgreSQL: HORIZON_TEST_POSTGRES_URL is not set, so it was not measured")
            return
        schema = f"bench_{uuid.uuid4().hex[:12]}"
        admin = sa.create_engine(sa.make_url(url).set(drivername="postgresql+psycopg"))
        with admin.begin() as conn:
            conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
        try:
            scoped = f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}"
            os.environ[ENV_DATABASE], os.environ[ENV_ACCOUNT] = scoped, "alice"
            bench_store("a shared PostgreSQL (the lock: a row, across hosts)", SqlRuns(shared_database(scoped), "alice",
                        folder / "p"), SharedSaveLock, folder / "p", args.rounds)
            bench_import("PostgreSQL", scoped, folder)
            shared_database(scoped).close()
        finally:
            with admin.begin() as conn:
                conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
            admin.dispose()


if __name__ == "__main__":
    main()
