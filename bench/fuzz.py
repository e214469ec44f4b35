"""Fuzz run: N mutated files (bench/mutate.py) through `horizon validate` and
`horizon sheet`, each run in its own process with a timeout; prints tracebacks, hangs and peak
memory. The goal: 0 tracebacks, 0 hangs, peak under 200 MB for any file.

    .venv/bin/python bench/fuzz.py --files 10000            # fork mode (default)
    .venv/bin/python bench/fuzz.py --files 300 --exec       # the installed `horizon` per run

`--fork` (default): a parent with Horizon imported forks one child per run, which runs
`horizon_tui.cli.main([...])` exactly as the `horizon` command does, so the run is isolated
(its own process, its exit code, a kill at the timeout, its own peak memory from wait4) without
paying Python's start-up 20,000 times on a shared machine. A child's peak counts the pages it
shares with the parent, so it is an upper bound. `--exec` runs `.venv/bin/horizon` itself.

A traceback is: any output holding "Traceback", or an exit code other than 0 (done) and 1 (a
problem with the input) — 70 (an internal error with a crash report) counts as one too.
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from mutate import REPO, samples, mutate  # noqa: E402

KINDS = ("character", "character_json", "rules", "limits", "weapons", "armor", "species", "ai", "enemy",
         "encounter", "battle", "campaign", "account")


def make_files(root: Path, count: int, seed: int) -> list[tuple[str, Path]]:
    found = samples(root / "good")
    rng = random.Random(seed)
    made = []
    for index in range(count):
        kind = KINDS[index % len(KINDS)]
        good = found[kind]
        target = root / "mutated" / f"{index:05d}" / good.relative_to(root / "good")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(mutate(good, random.Random(rng.randrange(2**32))))
        made.append((kind, target))
    return made


def _run_forked(argv: list[str], out: Path, timeout: float) -> tuple[int | None, float, int]:
    """(exit code or None if killed at the timeout, seconds, peak RSS in KB) of one forked run."""
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child: the `horizon` command's main, output to a file
        code = 71
        try:
            fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            from horizon_tui import cli

            code = cli.main(argv)
            sys.stdout.flush()
            sys.stderr.flush()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
        except BaseException:  # noqa: BLE001 - the child reports, never returns into the parent's code
            import traceback

            traceback.print_exc()
            sys.stderr.flush()
            code = 72
        os._exit(code)
    timer = threading.Timer(timeout, lambda: _kill(pid))
    timer.start()
    _, status, usage = os.wait4(pid, 0)
    timer.cancel()
    elapsed = time.perf_counter() - start
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL and elapsed >= timeout:
        return None, elapsed, usage.ru_maxrss
    return os.waitstatus_to_exitcode(status), elapsed, usage.ru_maxrss


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _run_exec(argv: list[str], out: Path, timeout: float) -> tuple[int | None, float, int]:
    command = [str(REPO / ".venv" / "bin" / "horizon"), *argv]
    start = time.perf_counter()
    with open(out, "wb") as handle:
        proc = subprocess.Popen(command, stdout=handle, stderr=handle, stdin=subprocess.DEVNULL)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - start
    if proc.returncode == -signal.SIGKILL and elapsed >= timeout:
        return None, elapsed, usage.ru_maxrss
    return proc.returncode, elapsed, usage.ru_maxrss


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds before a run counts as hung")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--exec", action="store_true", help="run the installed horizon command per run")
    parser.add_argument("--keep", type=Path, default=None, help="keep the files and outputs in this folder")
    args = parser.parse_args(argv)

    root = args.keep or Path(tempfile.mkdtemp(prefix="horizon-fuzz-"))
    os.environ["HORIZON_DATA_DIR"] = str(root / "user-data")  # crash reports land here, not in yours
    if not args.exec:
        from horizon_tui.content.catalogue import default_catalogue
        from horizon_tui.content.encounters import load_enemies
        import horizon_tui.tools.validate_encounters  # noqa: F401 - the engine's validators, imported once

        load_enemies(default_catalogue())  # imported and loaded once, in the parent the children share
        import horizon_tui.cli  # noqa: F401
        import horizon_tui.tools.cli_tables  # noqa: F401
        import horizon_tui.rules.validation  # noqa: F401
        import horizon_tui.engine.persist  # noqa: F401
        import horizon_tui.campaign.campaign_files  # noqa: F401
        import horizon_tui.storage.accounts  # noqa: F401
    started = time.perf_counter()
    files = make_files(root, args.files, args.seed)
    print(f"{len(files)} mutated files under {root / 'mutated'} ({time.perf_counter() - started:.0f} s)", flush=True)
    runs = [(kind, path, command) for kind, path in files for command in ("validate", "sheet")]
    run = _run_exec if args.exec else _run_forked
    results = []
    lock = threading.Lock()

    def one(item):
        kind, path, command = item
        out = path.parent / f".{path.name}.{command}.out"
        code, elapsed, peak = run([command, str(path)], out, args.timeout)
        text = out.read_text(encoding="utf-8", errors="replace")
        with lock:
            results.append((kind, path, command, code, elapsed, peak, text))
            if len(results) % 1000 == 0:
                bad = sum(1 for r in results if r[3] is not None and (r[3] not in (0, 1) or "Traceback" in r[6]))
                hung = sum(1 for r in results if r[3] is None)
                print(f"  {len(results)}/{len(runs)} runs: {bad} tracebacks, {hung} hangs, peak "
                      f"{max(r[5] for r in results) / 1024:.0f} MB, {time.perf_counter() - started:.0f} s", flush=True)

    started = time.perf_counter()
    with ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(one, runs))
    wall = time.perf_counter() - started

    tracebacks = [r for r in results if r[3] is not None and (r[3] not in (0, 1) or "Traceback" in r[6])]
    hangs = [r for r in results if r[3] is None]
    peak = max(results, key=lambda r: r[5])
    codes = collections.Counter(r[3] for r in results)
    for kind, path, command, code, _, _, text in tracebacks[:20]:
        print(f"TRACEBACK horizon {command} {path} ({kind}) exit {code}:\n{text[-1500:]}")
    for kind, path, command, _, elapsed, _, _ in hangs[:20]:
        print(f"HANG horizon {command} {path} ({kind}) killed after {elapsed:.1f} s")
    slowest = max(results, key=lambda r: r[4])
    reports = list((root / "user-data" / "crash-reports").glob("*.txt"))
    print(f"mode: {'exec' if args.exec else 'fork'}; {len(files)} files, {len(runs)} runs in {wall:.0f} s "
          f"({args.jobs} at a time, timeout {args.timeout:g} s)")
    print(f"exit codes: {dict(sorted(codes.items(), key=lambda kv: (kv[0] is None, kv[0] or 0)))}")
    print(f"tracebacks: {len(tracebacks)}; hangs: {len(hangs)}; crash reports: {len(reports)}")
    print(f"peak memory: {peak[5] / 1024:.0f} MB (horizon {peak[2]} {peak[1]}, {peak[0]}); "
          f"slowest run: {slowest[4]:.2f} s (horizon {slowest[2]} {slowest[1]})")
    ok = not tracebacks and not hangs and peak[5] < 200 * 1024
    print("goal met: 0 tracebacks, 0 hangs, peak < 200 MB" if ok else "goal NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
