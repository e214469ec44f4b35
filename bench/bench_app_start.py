"""Start-up of the one app with either host: to the player's drawn main menu (`horizon`, no saves
yet) and to the GM's drawn dashboard (`horizon gm`, no campaign yet: the campaign list over it).

Fresh interpreters, interleaved so a loaded machine hits all alike; per case the median wall
time and the median CPU time of the process (user + system, from getrusage of the children: on a
shared machine compare CPU rather than wall). With `--against DIR` (another checkout's root with
its `horizon_tui` and `data`, e.g. `git archive main horizon_tui data | tar -x -C DIR`) that tree
is measured too, for a before/after.

With `--imports`: for each module the apps import inside a function (the start-up lazies of
ui/app.py and ui/player/app.py), what importing it at the top would add to the menu's start:
its new modules, the heavy ones among them, and its median CPU time. The reasons in pyproject's
per-file-ignores for those two files are these numbers.
Run: .venv/bin/python bench/bench_app_start.py [runs] [--against DIR] [--imports]
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PLAYER = """
import asyncio, sys
from horizon_tui.ui.player.app import create_app
async def main():
    app = create_app(sys.argv[1])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#menu").option_count > 0  # drawn, with its items
asyncio.run(main())
"""

GM = """
import asyncio, sys
from horizon_tui.ui.gm.app import create_gm_app
async def main():
    app = create_gm_app(sys.argv[1])
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert type(app.screen_stack[0]).__name__ == "DashboardScreen" and len(app.screen_stack) == 2  # the list over it
asyncio.run(main())
"""

# The modules ui/app.py and ui/player/app.py import inside functions, and the menu's own.
LAZY = (
    "horizon_tui.errors", "horizon_tui.play.keymap", "horizon_tui.play.library", "horizon_tui.rules.validation",
    "horizon_tui.storage.host_wiring", "horizon_tui.storage.lock", "horizon_tui.storage.records",
    "horizon_tui.table.lobby", "horizon_tui.tools.validate_encounters", "horizon_tui.ui.battle.flow",
    "horizon_tui.ui.battle.screen", "horizon_tui.ui.battle.table_screen", "horizon_tui.ui.dialogs.help",
    "horizon_tui.ui.player.joining", "horizon_tui.ui.player.screens.abilities", "horizon_tui.ui.player.screens.battle",
    "horizon_tui.ui.player.screens.load", "horizon_tui.ui.player.screens.rules", "horizon_tui.ui.player.screens.runs",
    "horizon_tui.ui.player.screens.sheet", "horizon_tui.ui.player.screens.wizard",
)
IMPORT_ONE = """
import importlib, sys, time
import horizon_tui.ui.player.app, horizon_tui.ui.player.screens.main_menu
before = set(sys.modules)
start = time.process_time()
importlib.import_module(sys.argv[1])
cpu = time.process_time() - start
new = set(sys.modules) - before
heavy = {m.split('.')[0] for m in new if m.split('.')[0] in ('attrs', 'cattrs', 'tcod', 'numpy', 'sqlalchemy')}
heavy |= {'.'.join(m.split('.')[:2]) for m in new if m.startswith(('horizon_tui.content', 'horizon_tui.engine'))}
print(len(new), cpu, ','.join(sorted(heavy)) or '-')
"""


def _environment(tree: Path) -> dict[str, str]:
    # As installed: byte-code caches written (bench_tui.py says why); the tree's horizon_tui first.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(tree)
    return env


def _once(code: str, folder: str, env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", code, folder], env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def start_up(runs: int, trees: tuple[Path, ...]) -> None:
    cases = {"player: to the main menu": PLAYER, "gm: to the dashboard": GM}
    envs = {tree: _environment(tree) for tree in trees}
    walls: dict[tuple, list[float]] = {(t, c): [] for t in trees for c in cases}
    cpus: dict[tuple, list[float]] = {(t, c): [] for t in trees for c in cases}
    with tempfile.TemporaryDirectory() as data:
        for env in envs.values():
            env["HORIZON_DATA_DIR"] = data
        for round_ in range(runs + 1):  # the first round warms disk and byte-code caches
            for case, code in cases.items():
                for tree, env in envs.items():
                    with tempfile.TemporaryDirectory() as saves:
                        wall, cpu = _once(code, saves, env)
                    if round_:
                        walls[tree, case].append(wall)
                        cpus[tree, case].append(cpu)
    print(f"medians of {runs} fresh interpreters (a shared machine: compare CPU rather than wall)")
    for tree in trees:
        print(f"{tree}:")
        for case in cases:
            print(f"  {case}: wall {statistics.median(walls[tree, case]) * 1000:.0f} ms, "
                  f"CPU {statistics.median(cpus[tree, case]) * 1000:.0f} ms")


def lazy_imports(runs: int) -> None:
    env = _environment(ROOT)
    print(f"what each lazy import would add to the main menu's start (median CPU of {runs})")
    for name in LAZY:
        outs = [subprocess.run([sys.executable, "-c", IMPORT_ONE, name], env=env, capture_output=True, text=True,
                               check=True).stdout.split() for _ in range(runs)]
        cpu = statistics.median(float(out[1]) for out in outs)
        print(f"  {name:42} +{outs[0][0]:>4} modules {cpu * 1000:6.1f} ms CPU  heavy: {outs[0][2]}")


if __name__ == "__main__":
    given = sys.argv[1:]
    against: tuple[Path, ...] = ()
    if "--against" in given:
        at = given.index("--against")
        against = (Path(given[at + 1]).resolve(),)
        del given[at: at + 2]
    imports = "--imports" in given
    given = [g for g in given if g != "--imports"]
    count = int(given[0]) if given else 9
    if imports:
        lazy_imports(max(3, count // 3))
    else:
        start_up(count, (*against, ROOT))
