"""`horizon sweep` (INTERFACES.md "Sweeps"): the grid on local processes or a Dask cluster."""

from __future__ import annotations

# At the top only what `horizon --help` loads anyway: subcommands.py imports this module to build
# the command's arguments, so the engine, Dask and rich are imported by the functions that use them.

import argparse
import csv
import json
import os
import random
import sys
import time
from pathlib import Path

import attrs

from horizon_tui.errors import HorizonError, echo
from horizon_tui.paths import path_argument
from horizon_tui.storage import atomic as store
from horizon_tui.tools.sweep.work import check_counts, execute, local_workers

CSV_COLUMNS = ("encounter", "level", "size", "runs", "wins", "win_rate", "ci_low", "ci_high", "rounds_p50",
               "deaths", "draws")


MAX_LEVEL = 100  # a sweep's party level: R-4's costs make each level dearer; past this it only waits
MAX_SIZE = 12    # a sweep's party size
MAX_VALUES = 100  # numbers in one --levels or --sizes


def int_list(text: str) -> list[int]:
    """`2,4,6`, `1-6` or a mix (`1-3,6`): whole numbers, in the order given, each once; at most
    MAX_VALUES of them (a range is checked before it is spelt out: `2-100000000` is refused at once)."""
    values: list[int] = []
    try:
        for part in text.split(",")[:MAX_VALUES + 1]:
            part = part.strip()
            if "-" in part[1:]:
                low, high = (int(p) for p in part.split("-", 1))
                if high < low:
                    raise argparse.ArgumentTypeError(f"{part}: a range runs low-high")
                if high - low >= MAX_VALUES:
                    raise argparse.ArgumentTypeError(f"{part}: at most {MAX_VALUES} values")
                values += range(low, high + 1)
            else:
                values.append(int(part))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{echo(text)}: expected whole numbers like 2,4,6 or 1-6") from None
    values = list(dict.fromkeys(values))
    if len(values) > MAX_VALUES:
        raise argparse.ArgumentTypeError(f"at most {MAX_VALUES} values")
    return values


def add_sweep_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Many AI-played battles over a grid: each encounter × party level × party size. The party is "
        "raised to each level by the spending policy in data/sweep.toml (R-4's point costs); a size "
        "below the party's takes its first members, above it repeats them. Each cell reports the "
        "party's win rate with its 95% interval, median rounds and party members down per battle. "
        "The same seed gives the same rows on any number of workers or machines.")
    parser.add_argument("encounters", nargs="+", metavar="ENCOUNTER", help="encounter ids (data/encounters/) or paths")
    parser.add_argument("--party", nargs="+", type=path_argument, required=True, metavar="FILE", help="the party's character files")
    parser.add_argument("--levels", type=int_list, required=True, metavar="L1,L2,…", help="party levels, e.g. 2,4,6 or 2-6 (up to 100)")
    parser.add_argument("--sizes", type=int_list, default=None, metavar="A-B",
                        help="party sizes, e.g. 1-6 or 2,4, from 1 to 12 (default: the party's own size)")
    parser.add_argument("--runs", type=int, required=True, metavar="N", help="battles per cell (1 to 1,000,000)")
    parser.add_argument("--seed", type=int, default=None, help="the sweep's seed (default: a random one, printed)")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="one JSON object with `rows` on stdout")
    out.add_argument("--csv", action="store_true", help="a CSV table of the rows on stdout")
    parser.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT",
                        help="run on this Dask distributed scheduler (start one with `dask scheduler`)")
    parser.add_argument("--workers", type=int, default=None,
                        help="local processes without --scheduler (default: the machine's cores)")
    parser.add_argument("--rate", action="store_true",
                        help="write each encounter's recommended party level and size ([rating]) into its file")
    parser.add_argument("--report", type=path_argument, default=None, metavar="FILE.html",
                        help="also write an HTML report with a chart per encounter")
    parser.add_argument("--policy", type=path_argument, default=None, metavar="FILE",
                        help="another spending policy and target win rate (default: data/sweep.toml)")


def _usage(message: str) -> int:
    print(f"horizon sweep: {message}", file=sys.stderr)
    return 2


def cmd_sweep(args) -> int:
    from horizon_tui.rules.validation import checked_catalogue
    from horizon_tui.tools.sweep.grid import build_fights, recommend, rows_of
    from horizon_tui.tools.sweep.policy import load_policy

    problem = check_counts(args.runs, args.workers)
    if problem:
        return _usage(problem)
    sizes = args.sizes
    if sizes is not None and not 1 <= min(sizes) <= max(sizes) <= MAX_SIZE:
        return _usage(f"--sizes: a party of 1 to {MAX_SIZE}")
    if sizes is None and len(args.party) > MAX_SIZE:
        return _usage(f"--party: {len(args.party)} files; a party of 1 to {MAX_SIZE} (or --sizes)")
    if max(args.levels) > MAX_LEVEL:
        return _usage(f"--levels: at most level {MAX_LEVEL} (each level is dearer under R-4; past it a sweep only waits)")
    if args.scheduler is not None and "://" not in args.scheduler:
        return _usage(f"--scheduler {args.scheduler!r}: expected an address like tcp://HOST:8786")
    problem = _report_problem(args.report)
    if problem:
        return _usage(problem)
    catalogue = checked_catalogue()
    starting = catalogue.rules.creation.starting_level
    if min(args.levels) < starting:
        return _usage(f"--levels: characters start at level {starting} (R-4); a sweep raises them, never lowers")
    policy = load_policy(args.policy)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    sizes = sizes or [len(args.party)]
    cells, fights = build_fights(args.encounters, args.party, args.levels, sizes, catalogue, policy)
    workers, notice = local_workers(args.workers) if args.scheduler is None else (args.workers or os.cpu_count() or 1, None)
    if notice:
        print(f"horizon sweep: {notice}", file=sys.stderr)
    start = time.perf_counter()
    played = _run(fights, args, seed, workers)
    seconds = time.perf_counter() - start
    rows = rows_of(cells, played)
    ratings = recommend(rows, policy.target_win_rate, seed) if args.rate else None
    if ratings:
        _write_ratings(ratings, {f.setup.id: f.setup.source for f in fights})
    battles = sum(len(p) for p in played)
    unwritten = None
    if args.report:
        from horizon_tui.tools.sweep.report import html_report

        page = html_report(rows, seed=seed, runs=args.runs, target=policy.target_win_rate, ratings=ratings)
        try:  # atomic: an old report stays whole if this one can't be written
            store.atomic_write(args.report, page.encode("utf-8"))
        except store.SaveError as exc:
            unwritten = f"horizon sweep: the report {exc}"  # the rows below are printed still
            args.report = None
    if args.json:
        print(json.dumps(_document(rows, ratings, args, seed, policy.target_win_rate, battles, seconds, workers),
                         ensure_ascii=False))
    elif args.csv:
        writer = csv.DictWriter(sys.stdout, fieldnames=CSV_COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow(row.as_dict())
    else:
        _print(rows, ratings, args, seed, policy.target_win_rate, battles, seconds, workers)
    if unwritten:
        print(unwritten, file=sys.stderr)
        return 1
    return 0


REPORT_SUFFIXES = (".html", ".htm")


def _report_problem(report: Path | None) -> str | None:
    """--report checked before a battle is played: a sweep may take an hour, and its end is no
    time to find the folder missing. Only an .html name, so no other file is written over."""
    if report is None:
        return None
    if report.is_dir():
        return f"--report {report}: is a folder; give a file name, e.g. {report / 'sweep.html'}"
    if report.suffix.lower() not in REPORT_SUFFIXES:
        return f"--report {report}: the report is a FILE.html page (so nothing else is written over)"
    if not report.parent.is_dir():
        return f"--report {report}: no such folder {report.parent}"
    if report.exists() and not report.is_file():
        return f"--report {report}: is not a plain file (a device or a pipe)"
    return None


def _run(fights, args, seed: int, workers: int):
    runs = [args.runs] * len(fights)
    where = {"workers": workers, "scheduler": args.scheduler}
    try:
        if not sys.stderr.isatty():
            return execute(fights, runs, seed, **where)
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

        with Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                      TimeRemainingColumn(), console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task(f"{len(fights)} cells", total=sum(runs))
            return execute(fights, runs, seed, on_progress=lambda done, total: bar.update(task, completed=done),
                           **where)
    except (OSError, TimeoutError) as exc:
        if args.scheduler is None:
            raise
        raise HorizonError(f"can't reach the Dask scheduler at {args.scheduler}: {exc}") from None


def _write_ratings(ratings, sources: dict[str, str]) -> None:
    from horizon_tui.tools.sweep.rating import write_rating

    for encounter, (rating, _) in ratings.items():
        write_rating(Path(sources[encounter]), rating)


def _document(rows, ratings, args, seed, target, battles, seconds, workers) -> dict:
    doc = {
        "seed": seed, "runs": args.runs, "levels": args.levels, "sizes": sorted({r.cell.size for r in rows}),
        "encounters": list(dict.fromkeys(r.cell.encounter for r in rows)),
        "rows": [r.as_dict() for r in rows],
        "battles": battles, "seconds": round(seconds, 2),
        "battles_per_second": round(battles / seconds, 1) if seconds > 0 else 0.0,
        "engine": {"scheduler": args.scheduler} if args.scheduler else {"workers": workers},
    }
    if ratings is not None:
        doc["target_win_rate"] = target
        doc["ratings"] = {e: {**attrs.asdict(r), "reached": reached} for e, (r, reached) in ratings.items()}
    return doc


def _print(rows, ratings, args, seed, target, battles, seconds, workers) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from horizon_tui.tools.sweep.report import terminal_plots

    console = Console()  # ids and paths are escaped: never read as markup ("[/]" raises)
    where = f"the Dask cluster at {escape(args.scheduler)}" if args.scheduler else f"{workers} local process(es)"
    console.print(f"[bold]Sweep[/bold] — {args.runs} battles a cell, seed {seed}, {battles} battles on {where}, "
                  f"{battles / seconds if seconds > 0 else 0:.1f} battles/s")
    table = Table()
    for column, justify in (("encounter", "left"), ("level", "right"), ("size", "right"), ("wins", "right"),
                            ("95% interval", "right"), ("rounds", "right"), ("down", "right")):
        table.add_column(column, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for r in rows:
        e = r.estimate
        table.add_row(escape(r.cell.encounter), str(r.cell.level), str(r.cell.size), f"{e.win_rate:.1%}",
                      f"{e.ci_low * 100:.1f}–{e.ci_high * 100:.1f}%", f"{e.rounds_p50:g}", f"{e.deaths:.2f}")
    console.print(table)
    console.print("wins: the party's win rate; rounds: the median battle length; down: party members "
                  "unconscious or dead at the end, per battle.")
    if ratings:
        for encounter, (rating, reached) in ratings.items():
            how = "reaches" if reached else "is the best cell but misses"
            console.print(f"Rated {escape(encounter)}: level {rating.party_level}, {rating.party_size} in the party "
                          f"({rating.measured_win_rate:.1%} {how} the target {target:.0%}) — written to its file")
    if args.report:
        console.print(f"Report: {escape(str(args.report))}")
    print(terminal_plots(rows, color=sys.stdout.isatty() and not os.environ.get("NO_COLOR")))
