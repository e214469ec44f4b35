"""A GM evening's speed at any length of session log, every figure from one command (issue
targets: a GM action at most 10 ms p95 in storage and 50 ms p95 from the key to the screen, flat
from 100 to 100,000 lines; opening the campaign at most 300 ms in storage; the dashboard on screen
at most 1.5 s after `horizon gm` starts).

    .venv/bin/python bench/bench_gm_evening.py [--lines 100,1000,20000,100000] [--repeat 20]
        [--per-day 40] [--before DIR]

Per campaign size (the example party, two NPCs and `lines` log lines, `--per-day` of them a day;
`--per-day 0` puts every line on today, the worst case for the screens that show today): opening
it in storage, a roll in storage, `horizon gm` to its dashboard (fresh interpreters), and from the
key to the screen through the GM tool for a dice roll (r, then enter in the dialog), an XP award
(x, ctrl+s), a new NPC (n, ctrl+s) and an undo (ctrl+z).

"Key to screen" is timed from the key event reaching the app to the last frame the app paints for
it: Textual's Pilot drives the app headless, the bench records each frame the compositor hands to
the terminal (and encodes it as a terminal would) and waits until the frames stop. The wait is
not timed (Pilot's own `press` waits for an idle process: 40 ms and more of sleeping that no GM
sees). CPU is this process's time over the same span; the machine is shared, so read medians.

`--before DIR` first runs the same bench against another checkout (e.g. `git archive main | tar -x
-C DIR`), so before and after come from one command on the same machine state.
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
from collections.abc import Callable
from pathlib import Path

from textual import events
from textual._compositor import CompositorUpdate
from textual.keys import _character_to_key

from horizon_tui.campaign import changes
from horizon_tui.campaign.campaign_files import CampaignStore
from horizon_tui.campaign.open_campaign import OpenCampaign
from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.gm.screens.dashboard import DashboardScreen
from horizon_tui.ui.gm.screens.dice import DiceScreen
from horizon_tui.ui.gm.screens.experience import ExperienceScreen
from horizon_tui.ui.gm.screens.npc_editor import NpcEditorScreen

from bench_storage import gm_start, make_campaign, percentile  # the same campaign, `horizon gm` start, percentiles

ROOT = Path(__file__).resolve().parent.parent
QUIET = 0.15  # no frame for this long after the action: the screen has settled
ACTIONS = {"roll", "xp", "npc", "undo"}


def storage_figures(saves: Path, key: str, repeat: int) -> dict[str, float]:
    """Opening the campaign in storage (median of three) and `repeat` rolls in storage."""
    opens = []
    for _ in range(3):
        start, cpu = time.perf_counter(), time.process_time()
        store = CampaignStore(saves, default_catalogue())
        opened = store.load(key)
        opens.append((time.perf_counter() - start, time.process_time() - cpu))
        store.close()
    store = CampaignStore(saves, default_catalogue())
    opened = store.load(key)
    session = OpenCampaign(store, key, opened.campaign, opened.head)
    walls = []
    for _ in range(repeat):
        start = time.perf_counter()
        session.apply(lambda c: changes.roll_dice(c, "1d20")[0], "roll 1d20")
        walls.append(time.perf_counter() - start)
    store.close()
    return {"open": statistics.median(o[0] for o in opens), "open cpu": statistics.median(o[1] for o in opens),
            "roll p50": statistics.median(walls), "roll p95": percentile(walls, 0.95)}


class Frames:
    """Each frame the app paints: (wall, CPU) when the compositor's update was encoded for the terminal."""

    def __init__(self, app) -> None:
        self.times: list[tuple[float, float]] = []
        display = app._display

        def painted(screen, renderable) -> None:
            display(screen, renderable)
            if renderable is None:
                return
            if isinstance(renderable, CompositorUpdate):
                renderable.render_segments(app.console)  # what a terminal is sent (headless skips it)
            self.times.append((time.perf_counter(), time.process_time()))

        app._display = painted


async def settle(pilot) -> None:
    """The app idle, its text cursors steady: a cursor's blink is a frame no action asked for."""
    await pilot.pause()
    for field in pilot.app.screen.query("Input, TextArea"):
        field.cursor_blink = False
    await asyncio.sleep(QUIET)
    await pilot.pause()


async def timed_key(pilot, frames: Frames, key: str, done: Callable[[], bool]) -> tuple[float, float]:
    """Seconds (wall, CPU) from `key` reaching the app to the last frame painted for it, once
    `done()` says the action happened."""
    app = pilot.app
    await settle(pilot)
    name = _character_to_key(key) if len(key) == 1 and not key.isalnum() else key
    event = events.Key(name, key if len(key) == 1 else ("\r" if key == "enter" else None))
    event.set_sender(app)
    start, cpu = time.perf_counter(), time.process_time()
    app._driver.send_message(event)
    deadline = start + 30
    while time.perf_counter() < deadline:
        await asyncio.sleep(0.01)
        after = [t for t in frames.times if t[0] > start]
        if done() and after and time.perf_counter() - after[-1][0] > QUIET:
            return after[-1][0] - start, after[-1][1] - cpu
    raise SystemExit(f"{key}: no frame after 30 s (done: {done()})")


async def gm_actions(saves: Path, repeat: int, actions: set[str] = ACTIONS) -> dict[str, tuple[list[float], list[float]]]:
    """Key to screen through the GM tool for each measured action: (walls, CPUs)."""
    app = create_gm_app(saves, default_catalogue(), campaign="Long Road")
    found: dict[str, tuple[list[float], list[float]]] = {}

    def keep(action: str, seconds: tuple[float, float]) -> None:
        walls, cpus = found.setdefault(action, ([], []))
        walls.append(seconds[0])
        cpus.append(seconds[1])

    async with app.run_test(size=(120, 40)) as pilot:
        frames = Frames(app)
        await settle(pilot)
        assert isinstance(app.screen, DashboardScreen), app.screen
        head = lambda: app.host.gm.head  # noqa: E731 - each measured action writes one journal row

        await pilot.press("r")
        assert isinstance(app.screen, DiceScreen), app.screen
        for _ in range(repeat if "roll" in actions or "undo" in actions else 0):  # undo takes the rolls back
            before = head()
            keep("roll", await timed_key(pilot, frames, "enter", lambda before=before: head() > before))
        await pilot.press("escape")

        for _ in range(repeat if "xp" in actions else 0):
            await pilot.press("x")
            assert isinstance(app.screen, ExperienceScreen), app.screen
            await pilot.press(*"10")
            before = head()
            keep("xp award", await timed_key(pilot, frames, "ctrl+s", lambda before=before: head() > before))
            await pilot.press("escape")

        for n in range(repeat if "npc" in actions else 0):
            await pilot.press("n")
            assert isinstance(app.screen, NpcEditorScreen), app.screen
            await pilot.press(*f"Guard {n}")
            before = head()
            keep("new NPC", await timed_key(pilot, frames, "ctrl+s",
                                            lambda before=before: head() > before and isinstance(app.screen, DashboardScreen)))

        for _ in range(repeat if "undo" in actions else 0):
            before = head()
            keep("undo", await timed_key(pilot, frames, "ctrl+z", lambda before=before: head() > before))
    return found


def run(args) -> None:
    print(f"{args.repeat} of each action per size; {args.per_day or 'all'} log lines a day; ms unless said; "
          "cpu = this process's CPU time; key→screen = key to the last frame painted", flush=True)
    for lines in (int(n) for n in args.lines.split(",")):
        with tempfile.TemporaryDirectory(prefix="hz-bench-gm-evening-") as folder:
            saves = Path(folder) / "saves"
            os.environ["HORIZON_DATA_DIR"] = folder
            key = make_campaign(saves, lines, args.per_day)
            stored = storage_figures(saves, key, args.repeat)
            start, start_cpu = gm_start(saves)
            print(f"{lines:>7,} lines: storage open {stored['open'] * 1000:.0f} (cpu {stored['open cpu'] * 1000:.0f}), "
                  f"roll p50 {stored['roll p50'] * 1000:.2f} p95 {stored['roll p95'] * 1000:.2f}; "
                  f"horizon gm → dashboard {start:.2f} s (cpu {start_cpu:.2f} s)", flush=True)
            for action, (walls, cpus) in asyncio.run(gm_actions(saves, args.repeat, set(args.actions.split(",")))).items():
                print(f"{'':>9}{action:>9} key→screen p50 {statistics.median(walls) * 1000:6.1f} "
                      f"p95 {percentile(walls, 0.95) * 1000:6.1f} | cpu p50 {statistics.median(cpus) * 1000:6.1f} "
                      f"p95 {percentile(cpus, 0.95) * 1000:6.1f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", default="100,1000,20000,100000")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--per-day", type=int, default=40, help="log lines a day; 0: every line today")
    parser.add_argument("--actions", default=",".join(sorted(ACTIONS)), help="of " + ", ".join(sorted(ACTIONS)))
    parser.add_argument("--before", type=Path, help="a checkout to measure first (its code, this bench)")
    args = parser.parse_args()
    if args.before is not None:
        print(f"before: {args.before}", flush=True)
        subprocess.run([sys.executable, __file__, "--lines", args.lines, "--repeat", str(args.repeat),
                        "--per-day", str(args.per_day), "--actions", args.actions], check=True,
                       env=dict(os.environ, PYTHONPATH=str(args.before.resolve())))
        print(f"after: {ROOT}", flush=True)
    run(args)


if __name__ == "__main__":
    main()
