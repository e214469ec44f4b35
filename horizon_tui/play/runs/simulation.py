"""`horizon run --simulate`: whole runs played by the AI, on the sweep's engine (this process,
local worker processes or a Dask cluster: `tools.sweep.work`'s helpers). Run i plays from
`run_seed(seed, "simulated", i)` alone and results are put back in order of i, so the report is
the same on 1 worker, 2 or a cluster."""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import attrs

from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.content.characters import load_character
from horizon_tui.content.encounters import load_enemies
from horizon_tui.content.run_rules import load_run_rules
from horizon_tui.engine.encounter import load_encounter
from horizon_tui.errors import DataError
from horizon_tui.play.runs.auto import RunWorld, play_run
from horizon_tui.play.runs.run import paced_catalogue, rated_encounters, run_seed
from horizon_tui.rules.texts import counted
from horizon_tui.tools.sweep.policy import load_policy
from horizon_tui.tools.sweep.work import batch_size, check_counts, local_workers, probe_scheduler

# One run's result: (index, depth reached, won, score, the encounter that ended it or "", cause).
RunResult = tuple[int, int, bool, int, str, str]


@attrs.frozen
class RunBatch:
    start: int
    stop: int
    seed: int


def simulated_seed(seed: int, index: int) -> int:
    return run_seed(seed, "simulated", index)


def play_batch(world: RunWorld, party: tuple, batch: RunBatch) -> list[RunResult]:
    results = []
    for index in range(batch.start, batch.stop):
        run = play_run(world, party, simulated_seed(batch.seed, index), run_id=f"simulated-{index}")
        ended = "" if run.won else run.fights[-1]["encounter"]
        results.append((index, run.depth, run.won, run.score, ended, run.cause_of_death))
    return results


_sent: dict[str, Any] = {}  # per worker process: the world and party, sent once by the initializer


def _init_worker(world: RunWorld, party: tuple) -> None:
    _sent.update(world=world, party=party)


def _run_sent(batch: RunBatch) -> list[RunResult]:
    return play_batch(_sent["world"], _sent["party"], batch)


def simulate_runs(world: RunWorld, party: Sequence, runs: int, seed: int, *, workers: int = 1,
                  scheduler: str | None = None, on_progress: Callable[[int], None] | None = None) -> list[RunResult]:
    """`runs` AI-played runs, in order of their index, wherever they ran."""
    party = tuple(party)
    if scheduler is not None:
        return _on_dask(world, party, runs, seed, scheduler, on_progress)
    size = batch_size(runs, workers)
    work = [RunBatch(start, min(start + size, runs), seed) for start in range(0, runs, size)]
    results: list[RunResult] = []
    if workers <= 1:
        world = world.portable()
        for batch in work:
            results += play_batch(world, party, batch)
            if on_progress:
                on_progress(batch.stop - batch.start)
        return results

    with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(world.portable(), party)) as pool:
        for found in pool.map(_run_sent, work):
            results += found
            if on_progress:
                on_progress(len(found))
    return sorted(results)


def _on_dask(world: RunWorld, party: tuple, runs: int, seed: int, scheduler: str,
             on_progress: Callable[[int], None] | None) -> list[RunResult]:
    from distributed import Client, as_completed  # only a run on a cluster pays for importing Dask

    probe_scheduler(scheduler)
    with Client(scheduler, timeout="10s") as client:
        size = batch_size(runs, max(1, sum(client.nthreads().values())))
        [shared] = client.scatter([world.portable()], broadcast=True, hash=False)
        tag = uuid.uuid4().hex[:12]
        futures = [client.submit(play_batch, shared, party, RunBatch(start, min(start + size, runs), seed),
                                 key=f"horizon-runs-{tag}-{start}") for start in range(0, runs, size)]
        results: list[RunResult] = []
        try:
            for _, found in as_completed(futures, with_results=True):
                results += found
                if on_progress:
                    on_progress(len(found))
        finally:
            client.cancel(futures)
            client.cancel([shared])
    return sorted(results)


def summarise(results: Sequence[RunResult], runs: int, seed: int, party: list[str], seconds: float) -> dict[str, Any]:
    """The depth reached: its distribution and median; where runs die; which encounters kill."""
    depths = [r[1] for r in results]
    distribution = Counter(depths)
    killers = Counter(r[4] for r in results if r[4])
    died_at = Counter(r[1] for r in results if not r[2])
    return {
        "runs": runs,
        "seed": seed,
        "party": party,
        "depth": {
            "distribution": {str(d): distribution[d] for d in sorted(distribution)},
            "median": statistics.median(depths) if depths else 0,
            "mean": round(statistics.fmean(depths), 2) if depths else 0.0,
            "max": max(depths, default=0),
        },
        "won": sum(r[2] for r in results),
        "died_at_depth": {str(d): died_at[d] for d in sorted(died_at)},
        "killed_by": dict(killers.most_common()),
        "score": {"median": statistics.median([r[3] for r in results]) if results else 0},
        "runs_per_second": round(len(results) / seconds, 2) if seconds > 0 else 0.0,
    }


def print_summary(summary: dict[str, Any], workers: int, out=sys.stdout) -> None:
    depth = summary["depth"]
    print(f"{counted(summary['runs'], 'run')} of {', '.join(summary['party'])}, seed {summary['seed']}, "
          f"{counted(workers, 'worker')}: median depth {depth['median']:g} (mean {depth['mean']:g}, deepest "
          f"{depth['max']}); {summary['won']} won", file=out)
    total = max(1, summary["runs"])
    print("Depth reached:", file=out)
    for d, n in summary["depth"]["distribution"].items():
        print(f"  {d:>3}  {n:>6}  {n / total:6.1%}  {'█' * round(40 * n / total)}", file=out)
    if summary["killed_by"]:
        print("The encounters that ended runs:", file=out)
        for name, n in summary["killed_by"].items():
            print(f"  {name:<16} {n:>6}  {n / total:6.1%}", file=out)


def load_world(party_files, pace: str = "source", catalogue=None) -> tuple[RunWorld, list]:
    """The world and party for AI-played runs, checked here (DataError) before any worker starts."""
    base = catalogue or default_catalogue()
    run_rules = load_run_rules()
    catalogue = paced_catalogue(base, run_rules.pace(pace))
    enemies = load_enemies(catalogue)
    rated = rated_encounters(catalogue, enemies)
    setups = {o.encounter: load_encounter(o.encounter, catalogue, enemies) for o in rated}
    party = [load_character(path, catalogue) for path in party_files]
    return RunWorld(catalogue, enemies, tuple(rated), setups, run_rules, load_policy()), party


def cmd_simulate_runs(args) -> int:
    problem = check_counts(args.runs, args.workers)
    if problem:
        print(f"horizon run: {problem}", file=sys.stderr)
        return 2
    if not args.party:
        print("horizon run: --simulate needs --party FILE… (one to six characters)", file=sys.stderr)
        return 2
    if len(args.party) > 6:
        print(f"horizon run: --party: one to six characters, not {len(args.party)}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    try:
        world, party = load_world(args.party, args.pace)
    except DataError as exc:
        for p in exc.problems:
            print(p, file=sys.stderr)
        return 1
    except ValueError as exc:  # an unknown pace
        print(f"horizon run: {exc}", file=sys.stderr)
        return 2
    workers = 1
    if args.scheduler is None:
        workers, notice = local_workers(args.workers)
        if notice:
            print(f"horizon run: {notice}", file=sys.stderr)
        workers = max(1, min(workers, args.runs))
    start = time.perf_counter()
    try:
        results = simulate_runs(world, party, args.runs, seed, workers=workers, scheduler=args.scheduler)
    except OSError as exc:
        print(f"horizon run: --scheduler {args.scheduler}: {exc}", file=sys.stderr)
        return 1
    summary = summarise(results, args.runs, seed, [c.name for c in party], time.perf_counter() - start)
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        print_summary(summary, workers)
    return 0
