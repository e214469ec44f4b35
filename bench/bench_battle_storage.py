"""Battle storage speed (issue target: a battle input at most 5 ms in storage).

    .venv/bin/python bench/bench_battle_storage.py [--rows 10,100,1000,10000] [--saves 200] [--battles 5]

Prints, on an SQLite database in a temp folder (WAL, synchronous=NORMAL, as the app opens it):

1. A battle input in storage alone (`SqlBattles.save` of one input row and the checks) on a
   journal already holding `--rows` inputs: p50/p95 wall and mean CPU per input. O(input): flat
   in the journal's length.
2. A battle input as the battle screen saves it (`engine.persist.save_session` after every
   player's input: encoding the new input, the log's digest carried forward, the transaction),
   over `--battles` battles of Iriel against the wolves; and, for comparison, what older versions
   did for the same inputs (the whole battle as one JSON file: read the old file back, encode
   everything, rotate three backups, write with fsync; storage.atomic), measured on the same
   sessions.

The machine is shared: read medians (and CPU, which waiting for a core doesn't inflate), not maxima.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.content.characters import load_character
from horizon_tui.content.encounters import load_enemies
from horizon_tui.content.guard import decode_json_bytes
from horizon_tui.engine import runner
from horizon_tui.engine.actions import Wait
from horizon_tui.engine.battle import cid
from horizon_tui.engine.encounter import load_encounter
from horizon_tui.engine.forming import PartyMember, create_battle
from horizon_tui.engine.persist import BattleInProgress, save_session, session_to_dict
from horizon_tui.storage.atomic import atomic_write, read_json, rotate_backups
from horizon_tui.storage.battles_sql import SqlBattles
from horizon_tui.storage.database import open_database

ROOT = Path(__file__).resolve().parent.parent
HEADER = json.dumps({"kind": "horizon-battle", "schema": 1, "seed": 1, "encounter": "wolves", "party": []})
INPUT = json.dumps({"at": 1234, "auto_end": True, "action": {"actor": "iriel", "type": "Move", "to": [3, 4]}})


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def ms(values: list[float]) -> str:
    return f"p50 {statistics.median(values) * 1000:6.2f} ms  p95 {percentile(values, 0.95) * 1000:6.2f} ms"


def storage_alone(folder: Path, rows: int, saves: int) -> tuple[list[float], float]:
    database = open_database(data_dir=folder)
    battles = SqlBattles(database)
    slot = f"battles/b{rows}.json"
    checks = {"log_length": rows * 9, "last_event": "{}", "log_sha256": "0" * 64}
    for first in range(0, rows, 1000):  # the journal as it stands before the measured inputs
        battles.save(slot, HEADER, first, [INPUT] * min(1000, rows - first), checks)
    walls, cpu_start = [], time.process_time()
    for n in range(rows, rows + saves):
        start = time.perf_counter()
        battles.save(slot, HEADER, n, [INPUT], checks)
        walls.append(time.perf_counter() - start)
    cpu = (time.process_time() - cpu_start) / saves
    database.close()
    return walls, cpu


def old_json_save(path: Path, session: BattleInProgress, catalogue) -> None:
    """What engine.persist.save_session did before battles were journals (commit 8691ba5)."""
    if path.exists():
        read_json(path)
    data = json.dumps(session_to_dict(session, catalogue), ensure_ascii=False, indent=1).encode()
    decode_json_bytes(data, str(path))
    rotate_backups(path)
    atomic_write(path, data)


def battle(catalogue, enemies, seed: int) -> BattleInProgress:
    party = [PartyMember(load_character(ROOT / "examples/party/iriel.toml", catalogue), "player")]
    fight = create_battle(load_encounter("wolves", catalogue, enemies), party, seed, catalogue, enemies)
    runner.begin(fight)
    runner.run_ai(fight)
    return BattleInProgress(fight, "wolves", party)


def through_persist(folder: Path, battles_count: int) -> dict[str, list[float]]:
    catalogue = default_catalogue()
    enemies = load_enemies(catalogue)
    database = open_database(data_dir=folder)
    battles = SqlBattles(database)
    found: dict[str, list[float]] = {"journal": [], "journal cpu": [], "json file": [], "json file cpu": []}
    for seed in range(battles_count):
        session = battle(catalogue, enemies, seed)
        slot, file = f"battles/s{seed}.json", folder / "battles" / f"s{seed}.json"
        save_session(battles, slot, session, catalogue)
        old_json_save(file, session, catalogue)
        while not session.battle.over:
            runner.submit(session.battle, Wait(cid(session.battle.current)), session.inputs)
            runner.run_ai(session.battle)
            for name in ("journal", "json file"):
                cpu, start = time.process_time(), time.perf_counter()
                if name == "journal":
                    save_session(battles, slot, session, catalogue)
                else:
                    old_json_save(file, session, catalogue)
                found[name].append(time.perf_counter() - start)
                found[f"{name} cpu"].append(time.process_time() - cpu)
    database.close()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="10,100,1000,10000")
    parser.add_argument("--saves", type=int, default=200)
    parser.add_argument("--battles", type=int, default=5)
    args = parser.parse_args()
    print(f"Python {sys.version.split()[0]}; SQLite WAL, synchronous=NORMAL; a shared machine")
    with tempfile.TemporaryDirectory(prefix="hz-bench-battles-") as folder:
        print("A battle input in storage alone (SqlBattles.save: one row and the checks):")
        for rows in (int(r) for r in args.rows.split(",")):
            walls, cpu = storage_alone(Path(folder) / f"rows{rows}", rows, args.saves)
            print(f"  journal of {rows:>6} inputs: {ms(walls)}  CPU {cpu * 1000:5.2f} ms per input")
        found = through_persist(Path(folder) / "persist", args.battles)
        count = len(found["journal"])
        print(f"A battle input through engine.persist.save_session ({count} inputs, {args.battles} battles):")
        for name in ("journal", "json file"):
            cpu = statistics.mean(found[f"{name} cpu"]) * 1000
            label = "journal (now)" if name == "journal" else "one JSON file (before)"
            print(f"  {label:<24} {ms(found[name])}  CPU {cpu:5.2f} ms per input")


if __name__ == "__main__":
    main()
