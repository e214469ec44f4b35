"""The host's records: what a login, a listing of a player's characters and a save under the
cross-host lock cost with the data folder's files, SQLite and PostgreSQL.

Measured per operation, median and p95 of several hundred (the machine may be shared: both wall
and CPU time are printed, CPU from time.process_time, which leaves out the database server's own
work). PostgreSQL is measured when HORIZON_TEST_POSTGRES_URL names one (`source .ci/postgres.sh &&
start_test_postgres`); each run works in a schema of its own, dropped after.

Run: .venv/bin/python bench/bench_host_db.py [--rounds N] [--characters N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

import asyncssh
import sqlalchemy as sa

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from horizon_tui.storage.accounts import Accounts  # noqa: E402
from horizon_tui.storage.database import open_database  # noqa: E402
from horizon_tui.storage.host_records import ENV_ACCOUNT, ENV_DATABASE, sync_characters  # noqa: E402
from horizon_tui.storage.host_sql import SqlAccounts, SqlCharacters, shared_database  # noqa: E402


def timed(label: str, rounds: int, action) -> None:
    walls, cpus = [], []
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        action()
        walls.append((time.perf_counter() - wall) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    walls.sort()
    p95 = walls[int(len(walls) * 0.95) - 1]
    print(f"  {label:<44} median {statistics.median(walls):7.3f} ms  p95 {p95:7.3f} ms  "
          f"cpu median {statistics.median(cpus):7.3f} ms")


def bench(name: str, url: str | None, folder: Path, rounds: int, characters: int) -> None:
    print(f"{name}:")
    key = asyncssh.generate_private_key("ssh-ed25519")
    pub = folder / "k.pub"
    pub.write_bytes(key.export_public_key("openssh"))
    records = None if url is None else SqlAccounts(open_database(url))
    accounts = Accounts(folder / "srv", records)
    for n in range(50):
        accounts.add(f"player{n}", pub)
    timed("a login's key lookup (allowed_keys + role)", rounds,
          lambda: (accounts.allowed_keys("player25"), accounts.role("player25")))
    if url is None:
        return
    repo = SqlCharacters(open_database(url))
    here = folder / "host-a" / "characters"
    here.mkdir(parents=True)
    for n in range(characters):
        (here / f"hero{n}.toml").write_text(f"name = 'Hero {n}'\nspecies = 'human'\nxp = {n}\n" + "#" * 400 + "\n")
    sync_characters(repo, "alice", here, 1_000_000)
    there = folder / "host-b" / "characters"
    timed(f"listing {characters} characters, nothing new", rounds,
          lambda: sync_characters(repo, "alice", here, 1_000_000))
    sync_characters(repo, "alice", there, 1_000_000)
    if url.startswith("postgresql"):
        os.environ[ENV_DATABASE], os.environ[ENV_ACCOUNT] = url, "alice"
        from horizon_tui.storage.host_locks import SharedSaveLock

        save = here / "hero1.toml"
        lock = SharedSaveLock.acquire(save, "bench")

        def one_save() -> None:
            with lock.guard():
                save.write_text("name = 'Hero 1'\nspecies = 'human'\nxp = 2\n")

        timed("a character save under the cross-host lock", rounds, one_save)
        lock.release()
        timed("taking and letting go of the cross-host lock", rounds,
              lambda: SharedSaveLock.acquire(save, "bench").release())
        shared_database(url).close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--characters", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name in ("files", "sqlite"):
            (root / name).mkdir()
        bench("data folder files", None, root / "files", args.rounds, args.characters)
        bench("SQLite (WAL)", f"sqlite:///{root / 'sqlite' / 'host.db'}", root / "sqlite", args.rounds,
              args.characters)
        base = os.environ.get("HORIZON_TEST_POSTGRES_URL")
        if not base:
            print("PostgreSQL: HORIZON_TEST_POSTGRES_URL is not set; not measured")
            return 0
        schema = f"bench_{uuid.uuid4().hex[:12]}"
        admin = sa.create_engine(sa.make_url(base).set(drivername="postgresql+psycopg"))
        with admin.begin() as conn:
            conn.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
        try:
            (root / "pg").mkdir()
            bench("PostgreSQL (Unix socket, same machine)", f"{base}&options=-csearch_path%3D{schema}",
                  root / "pg", args.rounds, args.characters)
        finally:
            with admin.begin() as conn:
                conn.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
            admin.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
