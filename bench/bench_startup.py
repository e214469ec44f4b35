"""Start-up of the light commands: `horizon --version`, `horizon --help`, `horizon roll 2d6`.

Imports sit at the top of files (STYLE.md); `cli.py` and `subcommands.py` stay lazy so these
commands load no Textual, tcod, Dask or SSH. Printed per command, from fresh interpreters
interleaved so a loaded machine hits all alike: the median wall time, the median CPU time of the
process (user + system, from getrusage of the children), and the modules it imported (from
`-X importtime`). With `--against DIR` (another checkout's root, e.g. `git archive main
horizon_tui | tar -x -C DIR`), that tree is measured too, interleaved, for a before/after.
For the time to the main menu, bench/bench_tui.py's start-up figure.
Run: .venv/bin/python bench/bench_startup.py [runs] [--against DIR]
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
COMMANDS = {
    "--version": ["--version"],
    "--help": ["--help"],
    "roll 2d6": ["roll", "2d6", "--seed", "1"],
}
HEAVY = ("textual", "tcod", "tcod_ecs", "numpy", "dask", "distributed", "asyncssh", "aiohttp", "psycopg",
         "sqlalchemy", "alembic", "playwright", "rich")


def _environment(data_dir: str, tree: Path) -> dict[str, str]:
    # As installed: byte-code caches written (bench_tui.py says why); the tree's horizon_tui first.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["HORIZON_DATA_DIR"] = data_dir
    env["PYTHONPATH"] = str(tree)
    return env


def _once(arguments: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "horizon_tui", *arguments], env=env, check=True, cwd=env["HORIZON_DATA_DIR"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _modules(arguments: list[str], env: dict[str, str]) -> list[str]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "horizon_tui", *arguments], env=env,
                          cwd=env["HORIZON_DATA_DIR"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines = [line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]
    return [name for name in lines[1:] if name]  # the first line is the header


def main(runs: int = 9, trees: tuple[Path, ...] = (ROOT,)) -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        envs = {tree: _environment(data_dir, tree) for tree in trees}
        for env in envs.values():  # warm disk and byte-code caches
            for arguments in COMMANDS.values():
                _once(arguments, env)
        walls: dict[tuple, list[float]] = {(t, n): [] for t in trees for n in COMMANDS}
        cpus: dict[tuple, list[float]] = {(t, n): [] for t in trees for n in COMMANDS}
        for _ in range(runs):
            for name, arguments in COMMANDS.items():
                for tree, env in envs.items():
                    wall, cpu = _once(arguments, env)
                    walls[tree, name].append(wall)
                    cpus[tree, name].append(cpu)
        print(f"medians of {runs} fresh interpreters (a shared machine: compare CPU rather than wall)")
        for tree, env in envs.items():
            print(f"{tree}:")
            for name, arguments in COMMANDS.items():
                modules = _modules(arguments, env)
                heavy = sorted({m.split(".")[0] for m in modules if m.split(".")[0] in HEAVY})
                ours = sum(1 for m in modules if m.startswith("horizon_tui"))
                print(f"  horizon {name}: wall {statistics.median(walls[tree, name]) * 1000:.0f} ms, "
                      f"CPU {statistics.median(cpus[tree, name]) * 1000:.0f} ms, {len(modules)} modules imported "
                      f"({ours} of horizon_tui), heavy: {', '.join(heavy) or 'none'}")


if __name__ == "__main__":
    given = sys.argv[1:]
    against = ()
    if "--against" in given:
        at = given.index("--against")
        against = (Path(given[at + 1]).resolve(),)
        del given[at: at + 2]
    main(int(given[0]) if given else 9, (*against, ROOT))
