"""Campaign storage speed (issue targets): a GM action (a logged dice roll) on a campaign of 20,000
log lines at most 10 ms p95 in storage and 50 ms from the key to the screen through the GM tool,
flat from 100 to 100,000 lines; opening that campaign at most 300 ms in storage; the dashboard on
screen at most 1.5 s after `horizon gm` starts.

    .venv/bin/python bench/bench_storage.py [--lines 100,1000,20000,100000] [--rolls 60] [--no-tui]

Prints, per campaign size: open (wall and CPU), a roll in storage (p50/p95 wall, mean CPU), a roll
through the GM tool's dice dialog (r, then enter: p50/p95 from the key to the screen, Textual's
Pilot, and the CPU that took: on a loaded machine wall time is mostly waiting for a core), and
`horizon gm` to the dashboard (a fresh interpreter: wall, and the child's CPU). Runs against whatever `horizon_tui` is
importable, so the same script measures the file-based store of older versions (PYTHONPATH=an old
checkout): the API differences are bridged below. The machine is shared: read medians, not maxima.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import attrs

from horizon_tui.campaign import changes
from horizon_tui.campaign.campaign_files import CampaignStore
from horizon_tui.campaign.model import LogEntry
from horizon_tui.campaign.open_campaign import OpenCampaign
from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.content.characters import load_character

ROOT = Path(__file__).resolve().parent.parent
JOURNAL = hasattr(CampaignStore, "lock_path")  # this version keeps campaigns as journals


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def make_campaign(saves: Path, lines: int, per_day: int = 40) -> str:
    """The example party, two NPCs and `lines` logged rolls, `per_day` a day (0: all today)."""
    catalogue = default_catalogue()
    store = CampaignStore(saves, catalogue)
    key, campaign = store.create("Long Road", seed=7)
    session = OpenCampaign(store, key, campaign)
    for file in sorted((ROOT / "examples" / "party").glob("*.toml")):
        character = load_character(file, catalogue)
        session.apply(lambda c, ch=character, f=file: changes.add_member(c, ch, str(f)), "joins")
    chunk = 5000  # lines an action: one action's row is held to the guard's sizes
    for first in range(0, lines, chunk):
        log = tuple(LogEntry(1 + n // per_day if per_day else 1, "roll", f"1d20 = {n % 20 + 1}",
                             {"expr": "1d20", "total": n % 20 + 1, "faces": [n % 20 + 1]})
                    for n in range(first, min(lines, first + chunk)))
        session.apply(lambda c, log=log: attrs.evolve(c, log=c.log + log, day=log[-1].day), "a long campaign")
    store.close()
    return key


def open_store(saves: Path):
    store = CampaignStore(saves, default_catalogue())
    return store


def timed_open(saves: Path, key) -> tuple[float, float, OpenCampaign]:
    start, cpu = time.perf_counter(), time.process_time()
    store = open_store(saves)
    if JOURNAL:
        opened = store.load(key)
        session = OpenCampaign(store, key, opened.campaign, opened.head)
    else:
        campaign, data = store.load(key)
        session = OpenCampaign(store, key, campaign, data)
    return time.perf_counter() - start, time.process_time() - cpu, session


def storage_rolls(session: OpenCampaign, rolls: int) -> tuple[list[float], float]:
    walls = []
    cpu0 = time.process_time()
    for _ in range(rolls):
        start = time.perf_counter()
        session.apply(lambda c: changes.roll_dice(c, "1d20")[0], "roll 1d20")
        walls.append(time.perf_counter() - start)
    return walls, (time.process_time() - cpu0) / rolls


async def tui_rolls(saves: Path, rolls: int) -> list[float]:
    from horizon_tui.ui.gm.app import create_gm_app
    from horizon_tui.ui.gm.screens.dice import DiceScreen

    app = create_gm_app(saves, default_catalogue(), campaign="Long Road")
    walls, cpus = [], []
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, DiceScreen), app.screen
        for _ in range(rolls):
            start, cpu = time.perf_counter(), time.process_time()
            await pilot.press("enter")
            await pilot.pause()  # the screen has processed the roll and its refresh
            walls.append(time.perf_counter() - start)
            cpus.append(time.process_time() - cpu)  # the app runs in this process: its CPU per key
        await pilot.press("escape")
    return walls, cpus


GM_START = """
import time, asyncio, sys
t0 = time.perf_counter()
from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.gm.screens.dashboard import DashboardScreen
async def main():
    app = create_gm_app(sys.argv[1], campaign="Long Road")
    async with app.run_test(size=(120, 40)) as pilot:
        while not isinstance(app.screen, DashboardScreen):
            await pilot.pause(0.01)
        await pilot.pause()
        print(time.perf_counter() - t0, time.process_time())
asyncio.run(main())
"""


def gm_start(saves: Path, runs: int = 3) -> tuple[float, float]:
    """`horizon gm --campaign` to its dashboard: the median wall and CPU seconds of `runs` fresh starts."""
    walls, cpus = [], []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", GM_START, str(saves)], capture_output=True, text=True,
                              env=dict(os.environ), timeout=300)
        if done.returncode != 0:
            raise SystemExit(done.stderr)
        wall, cpu = done.stdout.strip().splitlines()[-1].split()
        walls.append(float(wall))
        cpus.append(float(cpu))
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", default="100,1000,20000,100000")
    parser.add_argument("--rolls", type=int, default=60)
    parser.add_argument("--no-tui", action="store_true", help="storage alone")
    args = parser.parse_args()
    print(f"campaign storage: {'journal (database)' if JOURNAL else 'one JSON file'}; {args.rolls} rolls per size; "
          "ms unless said; cpu = process CPU time")
    print(f"{'lines':>7} | {'open':>6} {'cpu':>6} | {'roll p50':>8} {'p95':>6} {'cpu':>5} | "
          f"{'key→screen p50':>14} {'p95':>6} {'cpu p50':>7} {'p95':>6} | {'gm start s':>10} {'cpu s':>5}")
    for lines in (int(n) for n in args.lines.split(",")):
        with tempfile.TemporaryDirectory(prefix="hz-bench-storage-") as folder:
            saves = Path(folder) / "saves"
            os.environ["HORIZON_DATA_DIR"] = folder
            key = make_campaign(saves, lines)
            opens = []
            for _ in range(3):
                *seconds, session = timed_open(saves, key)
                opens.append(seconds)
                if hasattr(session.store, "close"):
                    session.store.close()
            *_, session = timed_open(saves, key)
            walls, cpu = storage_rolls(session, args.rolls)
            if hasattr(session.store, "close"):
                session.store.close()
            row = (f"{lines:>7} | {statistics.median(o[0] for o in opens) * 1000:>6.0f} "
                   f"{statistics.median(o[1] for o in opens) * 1000:>6.0f} | {statistics.median(walls) * 1000:>8.2f} "
                   f"{percentile(walls, 0.95) * 1000:>6.2f} {cpu * 1000:>5.2f} | ")
            if not args.no_tui:
                tui, tui_cpu = asyncio.run(tui_rolls(saves, args.rolls))
                start, start_cpu = gm_start(saves)
                row += (f"{statistics.median(tui) * 1000:>14.1f} {percentile(tui, 0.95) * 1000:>6.1f} "
                        f"{statistics.median(tui_cpu) * 1000:>7.1f} {percentile(tui_cpu, 0.95) * 1000:>6.1f} | "
                        f"{start:>10.2f} {start_cpu:>5.2f}")
            print(row, flush=True)


if __name__ == "__main__":
    main()
