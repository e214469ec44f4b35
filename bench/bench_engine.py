"""Engine speed: battles per second, the simulator's scaling, one AI round of 30
enemies, µs per combatant-turn for 6 to 48 combatants, the sweep's engine through Dask.

Targets: the standard 4-against-6 encounter (`standard`, 30×30) with examples/party/*.toml at
150 battles/s or more on one core (an earlier target was 50) and ≤ 50 µs per combatant-turn at
every size, linear in the number of combatants; `simulate` with 2 workers at least 1.8× one
worker (steady state: the workers are started and have loaded the encounter before the clock
starts); one AI round of 30 enemies on a 50×50 map under 10 ms. Each number is the median of several runs (the
best is shown too: on a shared machine the median moves with the neighbours' load). For
before/after comparisons on a busy machine, count instructions instead (callgrind; see
tests/engine/test_engine_golden.py for the proof that a speed-up left every log as it was).

Run: .venv/bin/python bench/bench_engine.py [--quick] [--no-profile]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PARTY = sorted((ROOT / "examples" / "party").glob("*.toml"))
STANDARD = "standard"


def report(label: str, values: list[float], unit: str, target: str = "") -> float:
    median = statistics.median(values)
    spread = f"best {max(values) if unit.endswith('/s') else min(values):.1f}, worst " \
             f"{min(values) if unit.endswith('/s') else max(values):.1f}"
    print(f"{label}: median {median:.1f} {unit} over {len(values)} runs ({spread}){'  ' + target if target else ''}")
    return median


# --- 1. battles per second, in process, one core --------------------------------------------------


def battles_per_second(runs: int, battles: int) -> list[float]:
    """`horizon simulate --workers 1` in this process: the simulator's own set-up (`_init`, which
    also tunes the garbage collector for a process that only plays battles) and battle (`_run`)."""
    from horizon_tui.tools import simulate

    simulate._init(STANDARD, [str(p) for p in PARTY])
    for seed in range(5):  # warm up: fields of view and paths get cached on the battlefield
        simulate._run((seed, 10_000 + seed))
    rates = []
    for run in range(runs):
        start = time.perf_counter()
        for seed in range(battles):
            simulate._run((seed, run * battles + seed))
        rates.append(battles / (time.perf_counter() - start))
    return rates


# --- 2. simulate: 1 worker against 2, steady state ----------------------------------------------


def _warm(_: int) -> int:
    time.sleep(0.2)  # hold this worker so the next warm-up job goes to another one
    return os.getpid()


def simulate_throughput(workers: int, battles: int) -> float:
    """Battles per second through the simulator's own worker function (`simulate._chunk`), timed
    from when every worker has started and loaded the encounter (its `_init`) to the last result."""
    from horizon_tui.tools import simulate

    jobs = [(i, simulate.derive_seed(7, i)) for i in range(battles)]
    size = max(1, min(25, -(-battles // (workers * 4))))  # as simulate.run chunks them
    chunks = [jobs[i:i + size] for i in range(0, battles, size)]
    files = [str(p) for p in PARTY]
    with ProcessPoolExecutor(max_workers=workers, initializer=simulate._init, initargs=(STANDARD, files)) as pool:
        pids = set(pool.map(_warm, range(workers)))  # every worker up and initialised
        assert len(pids) == workers, pids
        list(pool.map(simulate._chunk, [[(0, simulate.derive_seed(1, w))] for w in range(workers)]))  # warm caches
        start = time.perf_counter()
        done = sum(len(r) for r in pool.map(simulate._chunk, chunks))
        elapsed = time.perf_counter() - start
    assert done == battles
    return battles / elapsed


# --- 3. one AI round of 30 enemies on 50×50 ---------------------------------------------------------

BIG = """name = "Bench: thirty on fifty"
description = "Thirty enemies of six kinds against the example party on a 50x50 cave (bench only)."
difficulty = "deadly"

[map]
generator = "caves"
width = 50
height = 50
seed = 7

[[enemies]]
enemy = "goblin"
count = 8

[[enemies]]
enemy = "goblin_archer"
count = 6

[[enemies]]
enemy = "skeleton"
count = 5

[[enemies]]
enemy = "wolf"
count = 5

[[enemies]]
enemy = "goblin_hexer"
count = 3

[[enemies]]
enemy = "plague_acolyte"
count = 3
"""


def ai_rounds(seeds: int, rounds: int) -> tuple[dict[int, list[float]], int]:
    """Milliseconds spent in the 30 enemies' `ai.take_turn` calls, per round (1..rounds), one
    battle per seed; the party plays by its AI too, untimed."""
    from horizon_tui.content.catalogue import default_catalogue
    from horizon_tui.content.encounters import load_enemies
    from horizon_tui.engine import ai, runner
    from horizon_tui.engine.battle import ENEMIES, ident
    from horizon_tui.engine.forming import create_battle
    from horizon_tui.tools.battle_command import load_party
    from horizon_tui.engine.encounter import load_encounter

    catalogue = default_catalogue()
    enemies = load_enemies(catalogue)
    party = load_party(PARTY, catalogue)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "thirty.toml"
        path.write_text(BIG, encoding="utf-8")
        setup = load_encounter(path, catalogue, enemies)
    count = len(setup.enemies)
    per_round: dict[int, list[float]] = {r: [] for r in range(1, rounds + 1)}
    for seed in range(-1, seeds):  # seed -1 warms the battlefield's caches
        battle = create_battle(setup, party, seed, catalogue, enemies)
        runner.begin(battle)
        spent: dict[int, float] = {}
        while not battle.over and battle.round <= rounds:
            e = battle.current
            clock = battle.round
            if ident(e).base_team == ENEMIES:
                start = time.perf_counter()
                ai.take_turn(battle, e)
                spent[clock] = spent.get(clock, 0.0) + time.perf_counter() - start
            else:
                ai.take_turn(battle, e)
        if seed >= 0:
            for r, seconds in spent.items():
                if r in per_round:
                    per_round[r].append(seconds * 1000)
    return per_round, count


# --- 6. µs per combatant-turn, 6 to 48 combatants (<= 50 µs, linear in combatants) -----

SIZES = (6, 12, 24, 48)
ENEMY_KINDS = ("goblin", "goblin_archer", "skeleton", "wolf", "plague_acolyte", "goblin_hexer")


def scaled_setups(sizes=SIZES):
    """For each size, a battle of size/2 party members (the example party, cycled) against size/2
    enemies (six kinds, cycled) on one 40x40 field with seeded walls and rough ground: the same
    field for every size, so only the number of combatants changes."""
    import random

    import attrs

    from horizon_tui.engine.forming import PartyMember
    from horizon_tui.engine.battlefield import Battlefield
    from horizon_tui.tools.battle_command import prepare

    catalogue, enemies, standard, party = prepare(STANDARD, PARTY, 0)
    rng = random.Random(18)
    rows = []
    for y in range(40):
        row = []
        for x in range(40):
            corner = (x < 8 and y >= 34) or (x >= 32 and y < 6)
            roll = rng.random()
            row.append("." if corner or roll > 0.13 else "#" if roll < 0.08 else ",")
        rows.append("".join(row))
    field = Battlefield.from_rows(rows, {",": "difficult"})
    party_cells = [(x, y) for y in range(34, 40) for x in range(8)]
    enemy_cells = [(x, y) for y in range(6) for x in range(39, 31, -1)]
    setups = {}
    for size in sizes:
        half = size // 2
        members = []
        for n in range(half):
            base = party[n % len(party)]
            name = base.character.name if n < len(party) else f"{base.character.name} {n // len(party) + 1}"
            members.append(PartyMember(attrs.evolve(base.character, name=name), "ai"))
        foes = [(enemies[ENEMY_KINDS[n % len(ENEMY_KINDS)]], enemy_cells[n], None) for n in range(half)]
        foes = [(d, xy, f"{d.character.name} {n + 1}") for n, (d, xy, _) in enumerate(foes)]
        setup = attrs.evolve(standard, battlefield=field, enemies=foes, party_start=party_cells[:half])
        setups[size] = (setup, members, catalogue, enemies)
    return setups


def combatant_turn_cost(battles: int, sizes=SIZES, clock=time.perf_counter) -> dict[int, float]:
    """µs per combatant-turn (a `turn` event: one combatant's turn, whatever it does) for each size:
    `battles` whole AI battles per size (after one to warm the battlefield's caches), their time
    over their turns."""
    from horizon_tui.engine.forming import create_battle
    from horizon_tui.engine.runner import play_out

    out = {}
    for size, (setup, members, catalogue, enemies) in scaled_setups(sizes).items():
        play_out(create_battle(setup, members, 10_000, catalogue, enemies))
        turns = 0
        elapsed = 0.0
        for seed in range(battles):
            battle = create_battle(setup, members, seed, catalogue, enemies)
            start = clock()
            play_out(battle)
            elapsed += clock() - start
            turns += sum(1 for e in battle.log if e.type == "turn")
        out[size] = elapsed / turns * 1e6
    return out


def report_combatant_turns(runs: int, battles: int) -> None:
    per: dict[int, list[float]] = {size: [] for size in SIZES}
    for _ in range(runs):
        for size, us in combatant_turn_cost(battles).items():
            per[size].append(us)
    for size, values in per.items():
        report(f"6. {size:>2} combatants ({size // 2} vs {size // 2}, 40x40)", values, "µs per combatant-turn",
               "target <= 50 µs")


# --- where the time goes ---------------------------------------------------------------------------


def profile(battles: int, top: int) -> None:
    """Where a battle's time goes, sampled by pyinstrument (a sampling profiler: unlike cProfile it
    doesn't inflate the small, often-called functions). Own time is the samples a function was
    running in; inclusive time counts each sample once per function anywhere on its stack."""
    from pyinstrument import Profiler

    from horizon_tui.engine.forming import create_battle
    from horizon_tui.tools.battle_command import prepare
    from horizon_tui.engine.runner import play_out

    catalogue, enemies, setup, party = prepare(STANDARD, PARTY, 0)
    play_out(create_battle(setup, party, 99_999, catalogue, enemies))
    profiler = Profiler(interval=0.0002)
    profiler.start()
    for seed in range(battles):
        play_out(create_battle(setup, party, seed, catalogue, enemies))
    profiler.stop()
    root = profiler.last_session.root_frame()
    own: dict[str, float] = {}
    inclusive: dict[str, float] = {}

    def name(frame) -> str:
        return f"{frame.function} ({frame.file_path_short or '?'}:{frame.line_no})"

    def walk(frame, above: frozenset) -> None:
        key = name(frame)
        own[key] = own.get(key, 0.0) + frame.total_self_time
        if key not in above:  # a recursive call's time is already its caller's
            inclusive[key] = inclusive.get(key, 0.0) + frame.time
        for child in frame.children:
            if child.is_synthetic_leaf:  # pyinstrument's "[self]": time in this frame itself
                own[key] += child.time
            else:
                walk(child, above | {key})

    walk(root, frozenset())
    total = root.time
    for title, table in (("own", own), ("inclusive", inclusive)):
        print(f"\nTop {top} functions by {title} time ({battles} standard battles, pyinstrument samples "
              f"every 0.2 ms; {total:.2f} s in all):")
        for key, seconds in sorted(table.items(), key=lambda kv: -kv[1])[:top]:
            print(f"  {100 * seconds / total:5.1f}%  {seconds * 1000:8.1f} ms  {key}")


# --- 4. the sweep's engine: local processes and a Dask cluster -------------------------


def sweep_throughput(battles: int, repeats: int) -> None:
    """Battles per second on `standard` (the example party at level 2) through the sweep's
    `execute`: in this process, on 1 and 2 local processes (each sweep starts its own pool and
    sends the fight to it: start-up counted, as a user waits for it), and on a Dask cluster of 2
    worker processes × 1 thread started beforehand (a cluster outlives sweeps; the scatter of the
    fight and every batch's round trip counted). Interleaved, medians of `repeats`; the rows of
    every run are checked equal (same seed, same results)."""
    from distributed import Client, LocalCluster

    from horizon_tui.content.catalogue import default_catalogue
    from horizon_tui.tools.sweep.grid import build_fights
    from horizon_tui.tools.sweep.policy import load_policy
    from horizon_tui.tools.sweep.work import execute, run_dask

    _, fights = build_fights([STANDARD], PARTY, [2], [len(PARTY)], default_catalogue(), load_policy())
    runs = [battles]
    rates: dict[str, list[float]] = {"in this process": [], "1 local process": [], "2 local processes": [],
                                     "Dask, 2 workers": []}
    results = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
            Client(cluster) as client:
        run_dask(fights, [2], 1, client)  # workers import Horizon and warm their caches
        for repeat in range(repeats):
            for label, go in (
                ("in this process", lambda repeat=repeat: execute(fights, runs, repeat, workers=1)),
                ("1 local process", lambda repeat=repeat: _one_process(fights, runs, repeat)),
                ("2 local processes", lambda repeat=repeat: execute(fights, runs, repeat, workers=2)),
                ("Dask, 2 workers", lambda repeat=repeat: run_dask(fights, runs, repeat, client)),
            ):
                start = time.perf_counter()
                played = go()
                rates[label].append(battles / (time.perf_counter() - start))
                results.append((repeat, played))
    for repeat in range(repeats):
        same = [p for r, p in results if r == repeat]
        assert all(p == same[0] for p in same), "a sweep's results moved with where it ran"
    for label, values in rates.items():
        report(f"4. sweep engine, {STANDARD}, {label:18s} ({battles} battles)", values, "battles/s")
    ratio = [d / h for d, h in zip(rates["Dask, 2 workers"], rates["in this process"])]
    print(f"   Dask 2 workers / this process: median {statistics.median(ratio):.2f}x; "
          f"results identical in every run and place")


def pace_table(encounters: list[str], battles: int, workers: int) -> None:
    """How the pace knobs move battles: the example party (level 2, 4 members) in each encounter
    under health_scale × damage_scale (R-2, R-9), same seed in every cell: win rate with its 95 %
    interval, median rounds, party members down per battle."""
    import attrs
    from fractions import Fraction

    from horizon_tui.content.catalogue import default_catalogue
    from horizon_tui.tools.sweep.grid import build_fights, rows_of
    from horizon_tui.tools.sweep.policy import load_policy
    from horizon_tui.tools.sweep.work import execute

    base = default_catalogue()
    print(f"Pace knobs: {battles} battles a cell, seed 18, example party at level 2")
    print(f"  {'encounter':14s} {'health':>6s} {'damage':>6s} {'win rate':>9s} {'95% interval':>14s} "
          f"{'rounds':>6s} {'down':>5s}")
    for encounter in encounters:
        for health in ("0.5", "1"):
            for damage in ("1", "1.5", "2"):
                rules = base.rules
                catalogue = base.with_rules(attrs.evolve(
                    rules, attack=attrs.evolve(rules.attack, damage_scale=Fraction(damage)),
                    derived_stats=attrs.evolve(rules.derived_stats, health_scale=Fraction(health))))
                cells, fights = build_fights([encounter], PARTY, [2], [len(PARTY)], catalogue, load_policy())
                [row] = rows_of(cells, execute(fights, [battles], 18, workers=workers))
                e = row.estimate
                print(f"  {encounter:14s} {health:>6s} {damage:>6s} {e.win_rate:9.1%} "
                      f"{e.ci_low * 100:6.1f}–{e.ci_high * 100:5.1f}% {e.rounds_p50:6g} {e.deaths:5.2f}")


def _one_process(fights, runs, seed):
    from horizon_tui.tools.sweep.work import run_processes

    return run_processes(fights, runs, seed, 1)


# --- 7. interleaved before/after: CPU per combatant-turn and battles/s, instruction counts ------


def measure(battles: int) -> dict[str, float]:
    """CPU (process time, not wall time: the machine is shared) per combatant-turn at each size and
    standard battles per CPU-second, for whichever horizon_tui this process imports."""
    from horizon_tui.tools import simulate

    out = {f"{size} combatants, µs CPU per combatant-turn": us
           for size, us in combatant_turn_cost(battles, clock=time.process_time).items()}
    simulate._init(STANDARD, [str(p) for p in PARTY])
    for seed in range(5):
        simulate._run((seed, 10_000 + seed))
    count = battles * 5
    start = time.process_time()
    for seed in range(count):
        simulate._run((seed, seed))
    out[f"{STANDARD}, battles per CPU-second"] = count / (time.process_time() - start)
    return out


def _engine_label(tree: str) -> str:
    compiled = sorted(Path(tree, "horizon_tui", "engine").glob("*.so"))
    return f"{tree} ({'compiled' if compiled else 'pure Python'})"


def compare(trees: list[str], runs: int, battles: int) -> None:
    """Each tree's `measure` in its own process (PYTHONPATH=tree, so its horizon_tui is the one
    imported), the trees interleaved run by run so a neighbour's load falls on all of them alike."""
    import json
    import subprocess

    results: dict[str, dict[str, list[float]]] = {tree: {} for tree in trees}
    for _ in range(runs):
        for tree in trees:
            env = dict(os.environ, PYTHONPATH=tree)
            done = subprocess.run([sys.executable, __file__, "--measure", str(battles)], env=env, check=True,
                                  capture_output=True, text=True)
            for key, value in json.loads(done.stdout.splitlines()[-1]).items():
                results[tree].setdefault(key, []).append(value)
    for tree in trees:
        print(f"7. {_engine_label(tree)}, median of {runs} interleaved runs ({battles} battles a size):")
        for key, values in results[tree].items():
            print(f"   {key}: {statistics.median(values):.1f} (best {(max if 'per CPU' in key else min)(values):.1f})")


def instructions(trees: list[str], battles: int) -> None:
    """Instructions (callgrind's Ir) for `battles` standard battles and for the 24-combatant battles,
    set-up subtracted (the same run with no battles), per tree: a count a busy machine can't move."""
    import re
    import subprocess

    for tree in trees:
        counts = []
        for n in (0, battles):
            with tempfile.TemporaryDirectory() as tmp:
                env = dict(os.environ, PYTHONPATH=tree)
                done = subprocess.run(
                    ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/out", sys.executable, __file__,
                     "--battles-only", str(n)], env=env, check=True, capture_output=True, text=True)
                counts.append(int(re.search(r"Collected : (\d+)", done.stderr).group(1)))
        per = (counts[1] - counts[0]) / battles
        print(f"7. {_engine_label(tree)}: {per / 1e6:.1f} M instructions per {STANDARD} battle "
              f"(callgrind, {battles} battles, set-up subtracted)")


def battles_only(count: int) -> None:
    from horizon_tui.tools import simulate

    simulate._init(STANDARD, [str(p) for p in PARTY])
    # One battle first, in the run with none too: it imports what a battle imports lazily and
    # warms the caches, so the subtraction leaves only the `count` battles.
    simulate._run((10_000, 10_000))
    for seed in range(count):
        simulate._run((seed, seed))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs (a smoke test, not numbers to quote)")
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument("--sweep-only", action="store_true", help="only section 4, the sweep's engine and Dask")
    parser.add_argument("--pace", nargs="*", metavar="ENCOUNTER", default=None,
                        help="only the pace-knob table (default encounters: standard goblin_warren huldra_glade)")
    parser.add_argument("--compare", nargs="+", metavar="TREE",
                        help="only section 7: each source tree (a git worktree) interleaved, e.g. "
                             "--compare /tmp/hz/core-base .")
    parser.add_argument("--callgrind", action="store_true", help="with --compare: instruction counts too")
    parser.add_argument("--measure", type=int, help=argparse.SUPPRESS)  # a --compare child
    parser.add_argument("--battles-only", type=int, help=argparse.SUPPRESS)  # a --callgrind child
    args = parser.parse_args()
    if args.measure is not None:
        import json

        print(json.dumps(measure(args.measure)))
        return
    if args.battles_only is not None:
        battles_only(args.battles_only)
        return
    if args.compare:
        trees = [str(Path(t).resolve()) for t in args.compare]
        compare(trees, 3 if args.quick else 5, 3 if args.quick else 8)
        if args.callgrind:
            instructions(trees, 5 if args.quick else 20)
        return
    runs = 3 if args.quick else 7
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores; party: {', '.join(p.stem for p in PARTY)}")
    if args.pace is not None:
        pace_table(args.pace or [STANDARD, "goblin_warren", "huldra_glade"], 40 if args.quick else 200, 2)
        return
    if args.sweep_only:
        sweep_throughput(40 if args.quick else 200, 2 if args.quick else 5)
        return

    rates = battles_per_second(runs, 20 if args.quick else 100)
    report(f"1. {STANDARD} (4 vs 6, 30x30), one process", rates, "battles/s", "target >= 150")
    import gc

    gc.unfreeze()  # the rest runs with the collector as the app has it
    gc.set_threshold(700, 10, 10)

    battles = 60 if args.quick else 400
    one, two = [], []
    for _ in range(3 if args.quick else 5):
        one.append(simulate_throughput(1, battles))
        two.append(simulate_throughput(2, battles))
    m1 = report(f"2. simulate, 1 worker  ({battles} battles, steady state)", one, "battles/s")
    m2 = report(f"   simulate, 2 workers ({battles} battles, steady state)", two, "battles/s")
    ratios = [b / a for a, b in zip(one, two)]
    print(f"   2 workers / 1 worker: median {statistics.median(ratios):.2f}x "
          f"(of medians {m2 / m1:.2f}x; best {max(ratios):.2f}x)  target >= 1.8x; "
          f"worker start-up and loading excluded")

    per_round, count = ai_rounds(3 if args.quick else 7, 4)
    for r, values in per_round.items():
        if values:
            report(f"3. AI round {r}: {count} enemies' take_turn on 50x50", values, "ms", "target < 10 ms")

    report_combatant_turns(3 if args.quick else 5, 3 if args.quick else 10)

    sweep_throughput(40 if args.quick else 200, 2 if args.quick else 5)

    if not args.no_profile:
        profile(10 if args.quick else 40, 25)


if __name__ == "__main__":
    main()
