"""Start-up of the light commands: `horizon --version`, `horizon --help`, `horizon roll 2d6`.

Imports sit at the top of files (STYLE.md); `cli.py` and `subcommands.py` stay lazy so these
commands load no Textual, tcod, Dask or SSH. Printed per command, from fresh interpreters
interleaved so a loaded machine hits all alike: the median wall time, the median CPU time of the
process (user + system, from getrusage of the children), and the modules it imported (from
`-X importtime`). For the time to the main menu, bench/bench_tui.py's start-up figure.
Run: .venv/bin/python bench/bench_startup.py [runs]
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

COMMANDS = {
    "--version": ["--version"],
    "--help": ["--help"],
    "roll 2d6": ["roll", "2d6", "--seed", "1"],
}
HEAVY = ("textual", "tcod", "tcod_ecs", "numpy", "dask", "distributed", "asyncssh", "aiohttp", "psycopg",
         "sqlalchemy", "alembic", "playwright", "rich")


def _environment(data_dir: str) -> dict[str, str]:
    # As installed: byte-code caches written (bench_tui.py says why).
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["HORIZON_DATA_DIR"] = data_dir
    return env


def _once(arguments: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "horizon_tui", *arguments], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _modules(arguments: list[str], env: dict[str, str]) -> list[str]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "horizon_tui", *arguments], env=env,
                          check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines = [line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]
    return [name for name in lines[1:] if name]  # the first line is the header


def main(runs: int = 9) -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        env = _environment(data_dir)
        for arguments in COMMANDS.values():  # warm disk and byte-code caches
            _once(arguments, env)
        walls: dict[str, list[float]] = {name: [] for name in COMMANDS}
        cpus: dict[str, list[float]] = {name: [] for name in COMMANDS}
        for _ in range(runs):
            for name, arguments in COMMANDS.items():
                wall, cpu = _once(arguments, env)
                walls[name].append(wall)
                cpus[name].append(cpu)
        print(f"medians of {runs} fresh interpreters (a shared machine: compare CPU rather than wall)")
        for name, arguments in COMMANDS.items():
            modules = _modules(arguments, env)
            heavy = sorted({m.split(".")[0] for m in modules if m.split(".")[0] in HEAVY})
            ours = sum(1 for m in modules if m.startswith("horizon_tui"))
            print(f"horizon {name}: wall {statistics.median(walls[name]) * 1000:.0f} ms, "
                  f"CPU {statistics.median(cpus[name]) * 1000:.0f} ms, {len(modules)} modules imported "
                  f"({ours} of horizon_tui), heavy: {', '.join(heavy) or 'none'}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 9)
