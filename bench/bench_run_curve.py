"""The depth curve, measured: AI-played runs of a party under several (first_ratio, ratio_step)
pairs of data/runs.toml, each reported as `horizon run --simulate` reports it (the depth
distribution, its median, where runs die). Prints numbers; asserts nothing.

    .venv/bin/python bench/bench_run_curve.py --runs 200 --seed 1 --workers 2 \
        --curve 0.75,0.25 --curve 0.5,0.15 --party examples/party/*.toml
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import attrs

from horizon_tui.play.runs.simulation import load_world, simulate_runs, summarise


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--party", nargs="+", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--curve", action="append", default=[], metavar="FIRST,STEP")
    args = parser.parse_args()
    world, party = load_world(args.party)
    for curve in args.curve or [f"{world.run_rules.first_ratio},{world.run_rules.ratio_step}"]:
        first, step = (float(x) for x in curve.split(","))
        tuned = attrs.evolve(world, run_rules=attrs.evolve(world.run_rules, first_ratio=first, ratio_step=step))
        start = time.perf_counter()
        results = simulate_runs(tuned, party, args.runs, args.seed, workers=args.workers)
        summary = summarise(results, args.runs, args.seed, [c.name for c in party], time.perf_counter() - start)
        depth = summary["depth"]
        print(f"first_ratio {first:g}, ratio_step {step:g}: median depth {depth['median']:g}, mean {depth['mean']:g}, "
              f"won {summary['won']}/{args.runs}; distribution {depth['distribution']}; "
              f"killed by {summary['killed_by']}; {summary['runs_per_second']} runs/s")


if __name__ == "__main__":
    main()
