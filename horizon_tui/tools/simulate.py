"""`horizon simulate`: many battles of one encounter, every side played by its AI.

Battle i's seed is derived from the given seed and i alone, and results are gathered in order
of i, so the summary is the same whatever the number of worker processes.
"""

from __future__ import annotations

# At the top only what `horizon --help` loads anyway: subcommands.py imports this module to build
# the command's arguments, so the engine, Dask and rich are imported by the functions that use them.

import gc
import json
import math
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import attrs

from horizon_tui.terminal import wants_color
from horizon_tui.tools.battle_command import new_battle, prepare
from horizon_tui.tools.sweep.summary import WinEstimate, estimate_from
from horizon_tui.tools.sweep.work import Progress, Stop, battle_seed, check_counts, execute, local_workers
from horizon_tui.paths import path_argument

__all__ = ["WinEstimate", "estimate", "encounter_rating"]


def derive_seed(seed: int, index: int) -> int:
    return battle_seed(seed, index)


def estimate(encounter, party, *, runs: int, seed: int, on_progress: Progress | None = None, workers: int = 1,
             should_stop: Stop | None = None, catalogue=None, enemies=None) -> WinEstimate:
    """The party's odds in an encounter from `runs` AI-played battles: for the apps' "quick
    simulation" in a background thread.

    `encounter`: an id, a path or an `EncounterSetup`; `party`: files, `Character`s or
    `PartyMember`s (all played by the AI). `on_progress(done, total)` is called as battles finish
    (from the calling thread: a Textual worker hands widgets updates through `app.call_from_thread`);
    `should_stop()` is asked between battles (pass a Textual worker's
    `lambda: worker.is_cancelled`) and stops early: the estimate then covers the battles played.
    `workers` > 1 uses local processes. Battle i plays from the seed `horizon simulate --seed`
    gives battle i, so the numbers match `horizon simulate` on the same party.
    Raises `DataError` for a bad encounter or party."""
    from horizon_tui.tools.sweep.fights import make_fight

    if runs < 1:
        raise ValueError("runs must be at least 1")
    fight = make_fight(encounter, party, catalogue=catalogue, enemies=enemies)
    # Worker processes from a fork server, not forked from the caller: an app has threads running.
    [played] = execute([fight], [runs], seed, workers=workers, on_progress=on_progress, should_stop=should_stop,
                       start_method="forkserver")
    return estimate_from(played)


def encounter_rating(encounter):
    """The `[rating]` `horizon sweep --rate` wrote into an encounter file (a `Rating`: party_level,
    party_size, target_win_rate, measured_win_rate, runs, seed), or None. `encounter`: id or path."""
    from horizon_tui.tools.sweep.rating import read_rating

    return read_rating(encounter)


@attrs.frozen
class Outcome:
    index: int
    winner: str
    rounds: int
    alive: tuple[str, ...]  # party characters standing at the end
    health_left: float  # the party's health at the end ÷ its maximum
    damage: tuple[tuple[str, int], ...]  # (ability, damage dealt by the party with it)


# Per-process state: each worker loads the catalogue, encounter and party once.
_context: dict[str, Any] = {}


def _init(encounter: str, party_files: list[str]) -> None:
    catalogue, enemies, setup, party = prepare(encounter, [Path(p) for p in party_files], 0)
    _context.update(catalogue=catalogue, enemies=enemies, setup=setup, party=party)
    # A simulator process only loads, then plays battles: each battle leaves a cycle of garbage
    # (its registry and entities) and makes ~10⁵ short-lived objects. Keep what is loaded out of
    # the collector's sight and collect less often: +6% battles/s (paired runs, bench_engine.py).
    gc.freeze()
    gc.set_threshold(50_000, 50, 1000)


def _run(index_seed: tuple[int, int]) -> Outcome:
    from horizon_tui.engine.battle import PARTY, hp, ident
    from horizon_tui.engine.forming import create_battle
    from horizon_tui.engine.components import Tally
    from horizon_tui.engine.runner import play_out

    index, seed = index_seed
    battle = create_battle(_context["setup"], _context["party"], seed, _context["catalogue"], _context["enemies"])
    play_out(battle)
    party = [e for e in battle.combatants() if ident(e).base_team == PARTY and ident(e).kind == "character"]
    alive = tuple(ident(e).name for e in party if e in battle.active.values())
    total = sum(hp(e).max_hp for e in party)
    left = sum(max(0, hp(e).hp) for e in party)
    damage: dict[str, int] = defaultdict(int)
    for e in battle.combatants():
        if ident(e).base_team == PARTY:
            for name, amount in e.components[Tally].by_ability.items():
                damage[name] += amount
    assert battle.result is not None
    return Outcome(index, battle.result.winner, battle.result.rounds, alive, left / total if total else 0.0,
                   tuple(sorted(damage.items())))


def _chunk(items: list[tuple[int, int]]) -> list[Outcome]:
    return [_run(item) for item in items]


def run(encounter: str, party_files: list[Path], runs: int, seed: int, workers: int, progress=None) -> list[Outcome]:
    jobs = [(i, derive_seed(seed, i)) for i in range(runs)]
    files = [str(p) for p in party_files]
    if workers <= 1:
        _init(encounter, files)
        outcomes = []
        for job in jobs:
            outcomes.append(_run(job))
            if progress:
                progress(1)
        return outcomes
    from concurrent.futures import ProcessPoolExecutor  # here: `horizon sheet` shouldn't pay for it

    size = max(1, min(25, math.ceil(runs / (workers * 4))))
    chunks = [jobs[i:i + size] for i in range(0, runs, size)]
    outcomes = []
    with ProcessPoolExecutor(max_workers=workers, initializer=_init, initargs=(encounter, files)) as pool:
        for result in pool.map(_chunk, chunks):
            outcomes += result
            if progress:
                progress(len(result))
    return sorted(outcomes, key=lambda o: o.index)


def _percentile(values: list[int], share: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    rank = max(0, math.ceil(share * len(ordered)) - 1)
    return float(ordered[rank])


def summarise(outcomes: list[Outcome], runs: int, seed: int, party_names: list[str], seconds: float) -> dict[str, Any]:
    rounds = [o.rounds for o in outcomes]
    damage: dict[str, int] = defaultdict(int)
    for o in outcomes:
        for name, amount in o.damage:
            damage[name] += amount
    n = len(outcomes) or 1
    return {
        "runs": runs,
        "seed": seed,
        "win_rate": round(sum(o.winner == "party" for o in outcomes) / n, 4),
        "losses": sum(o.winner == "enemies" for o in outcomes),
        "draws": sum(o.winner == "draw" for o in outcomes),
        "rounds": {
            "mean": round(statistics.fmean(rounds), 2) if rounds else 0.0,
            "p50": _percentile(rounds, 0.5),
            "p90": _percentile(rounds, 0.9),
        },
        "survivors": {name: round(sum(name in o.alive for o in outcomes) / n, 4) for name in party_names},
        "damage_by_ability": {name: round(total / n, 1) for name, total in sorted(damage.items())},
        "health_left": {
            "mean": round(statistics.fmean(o.health_left for o in outcomes), 4) if outcomes else 0.0,
        },
        "battles_per_second": round(len(outcomes) / seconds, 1) if seconds > 0 else 0.0,
    }


def plots(outcomes: list[Outcome], width: int = 70, *, color: bool = True) -> str:
    """Terminal histograms of battle length and of the party's health left (plotext); without
    colour codes when the output isn't a terminal."""
    import plotext as plt

    out = []
    for title, values, bins in (
        ("Battle length (rounds)", [o.rounds for o in outcomes], 20),
        ("Party health left at the end (%)", [round(o.health_left * 100) for o in outcomes], 20),
    ):
        plt.clear_figure()
        plt.hist(values, bins)
        plt.title(title)
        plt.plotsize(width, 12)
        plt.theme("clear")
        built = plt.build()
        out.append(built if color else plt.uncolorize(built))
    return "\n".join(out)


def cmd_simulate(args) -> int:
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    problem = check_counts(args.runs, args.workers)
    if problem:
        print(f"horizon simulate: {problem}", file=sys.stderr)
        return 2
    workers, notice = local_workers(args.workers)
    if notice:
        print(f"horizon simulate: {notice}", file=sys.stderr)
    workers = max(1, min(workers, args.runs))
    catalogue, enemies, setup, party = prepare(args.encounter, args.party, seed)  # fail fast, in this process
    new_battle(setup, party, seed, catalogue, enemies)  # a party the field can't take is refused here, not in a worker
    names = [m.character.name for m in party]
    show_progress = sys.stdout.isatty() and not args.json
    start = time.perf_counter()
    if show_progress:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

        with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                      TimeRemainingColumn(), transient=True) as bar:
            task = bar.add_task(f"{setup.name}", total=args.runs)
            outcomes = run(args.encounter, args.party, args.runs, seed, workers,
                           progress=lambda k: bar.advance(task, k))
    else:
        outcomes = run(args.encounter, args.party, args.runs, seed, workers)
    summary = summarise(outcomes, args.runs, seed, names, time.perf_counter() - start)
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
        return 0
    _print_summary(setup, summary, outcomes, workers)
    return 0


def _print_summary(setup, summary: dict[str, Any], outcomes: list[Outcome], workers: int) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()  # names are the files' text: escaped, never read as markup ("[/]" raises)
    console.print(f"[bold]{escape(setup.name)}[/bold] — {summary['runs']} battles, seed {summary['seed']}, "
                  f"{workers} worker{'s' if workers != 1 else ''}, {summary['battles_per_second']} battles/s")
    r = summary["rounds"]
    console.print(f"Party wins {summary['win_rate']:.1%}  (losses {summary['losses']}, draws {summary['draws']})")
    console.print(f"Rounds: mean {r['mean']}, median {r['p50']:g}, 90th percentile {r['p90']:g}")
    table = Table(title="Survivors")
    table.add_column("character")
    table.add_column("alive at the end", justify="right")
    for name, share in summary["survivors"].items():
        table.add_row(escape(name), f"{share:.1%}")
    console.print(table)
    damage = Table(title="The party's damage by ability (mean per battle)")
    damage.add_column("ability")
    damage.add_column("damage", justify="right")
    for name, amount in sorted(summary["damage_by_ability"].items(), key=lambda kv: -kv[1]):
        damage.add_row(escape(name), f"{amount:g}")
    console.print(damage)

    print(plots(outcomes, color=wants_color(sys.stdout)))


def add_simulate_arguments(parser) -> None:
    parser.add_argument("encounter", help="an encounter id from data/encounters/ or a path")
    parser.add_argument("--party", nargs="+", type=path_argument, required=True, metavar="FILE")
    parser.add_argument("--runs", type=int, required=True, metavar="N", help="battles to play (1 to 1,000,000)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--workers", type=int, default=None, help="processes (default: the machine's cores)")
    parser.add_argument("--json", action="store_true")
