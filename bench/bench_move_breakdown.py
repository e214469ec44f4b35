"""Where one move key's CPU goes in battle, run by hand; prints numbers.

The player app runs on a PTY as a player's terminal would have it (the SSH bench's battle: Iriel
on open ground 50x50, `bench_ssh.open_ground`, a 100x30 terminal), resumes the battle and moves
right and left; when her movement is spent the turn is passed on, untimed. Printed per move key:
- the process's CPU (/proc, every thread) and each thread's;
- the main thread's CPU in the parts of a move (`PARTS`: the screen's key handler and what it
  calls, Textual's compositor, the terminal's codes, the garbage collector), timed inside the app
  around those functions only while a move is under way (signals from this process switch the
  timing on and off);
- with --callgrind: the app under valgrind's callgrind, counting instructions per move key (the
  same on a loaded machine; A/B two trees with --tree). Minutes, not seconds.

Run: .venv/bin/python bench/bench_move_breakdown.py [--moves 100] [--callgrind --moves 30] [--tree DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import functools
import gc
import json
import os
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ON, OFF = signal.SIGRTMIN, signal.SIGRTMIN + 1  # real-time signals queue: an on and an off never merge
DUMP = signal.SIGUSR2


def _parts() -> list[tuple[object, str, str]]:
    """(owner, function name, label) of the parts of a move, timed in the app."""
    import textual._compositor as compositor
    import textual.screen as textual_screen

    import horizon_tui.engine.readmodel as readmodel
    import horizon_tui.ui.battle.panels as panels
    import horizon_tui.ui.battle.roles as roles
    import horizon_tui.ui.battle.screen as battle_screen
    import horizon_tui.ui.battle.widget as widget

    screen = battle_screen.BattleScreen
    return [
        (screen, "key", "1 the screen's key handler, all of it"),
        (roles.LocalEngine, "submit", "1a  the engine's move"),
        (readmodel, "build", "1b  the read model built"),
        (screen, "_write_log", "1c  the log pane"),
        (widget.BattlefieldView, "redraw", "1d  the map: console drawn, changes found"),
        (widget.Panel, "show", "1e  the panels given their text"),
        *((screen, name, "1f  the panels' text made") for name in
          ("_initiative_text", "_unit_panel", "status_text", "_slots_text", "_enemy_lines", "_overlay")),
        *((panels, name, "1f  the panels' text made") for name in ("enemies_text", "legend_text")),
        (screen, "_save", "1g  autosave"),
        (textual_screen.Screen, "_refresh_layout", "2 Textual's layout"),
        (textual_screen.Screen, "_compositor_refresh", "3 Textual's compositor refresh, all of it"),
        (compositor.Compositor, "render_update", "3a  the widgets' lines"),
        (widget.BattlefieldView, "render_lines", "3b   of which the map's"),
        (compositor.ChopsUpdate, "render_segments", "3c  the terminal's codes"),
        (compositor.LayoutUpdate, "render_segments", "3c  the terminal's codes"),
    ]


def child(dump: Path) -> int:
    """In the app's process: time the parts while switched on, write them out on DUMP."""
    spent: collections.Counter[str] = collections.Counter()
    timing = [False]

    def timed(function: Callable, label: str) -> Callable:
        @functools.wraps(function)
        def run(*args, **kwargs):
            if not timing[0]:
                return function(*args, **kwargs)
            start = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[label] += time.thread_time() - start
        return run

    for owner, name, label in _parts():
        setattr(owner, name, timed(getattr(owner, name), label))
    collecting = [0.0]

    def collector(phase: str, info: dict) -> None:
        if timing[0]:
            if phase == "start":
                collecting[0] = time.thread_time()
            else:
                spent[f"4 garbage collection, generation {info['generation']}"] += time.thread_time() - collecting[0]

    gc.callbacks.append(collector)
    signal.signal(ON, lambda *_: timing.__setitem__(0, True))
    signal.signal(OFF, lambda *_: timing.__setitem__(0, False))
    signal.signal(DUMP, lambda *_: dump.write_text(json.dumps(spent)))
    from horizon_tui.cli import main

    return main(sys.argv[3:])


def prepare(saves: Path) -> None:
    """A saves folder with Iriel and her battle on open ground, begun (as `bench_ssh`'s accounts)."""
    from bench_ssh import battle_in_progress, open_ground

    from horizon_tui.content.catalogue import default_catalogue
    from horizon_tui.tools.validate_encounters import checked_enemies

    catalogue = default_catalogue()
    encounter = saves.parent / "open_ground.toml"
    encounter.write_text(open_ground())
    battle_in_progress(saves, encounter, catalogue, checked_enemies(catalogue))


def thread_cpu(pid: int) -> dict[str, float]:
    """Each thread's CPU seconds so far, by thread id."""
    found = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            fields = (task / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        found[task.name] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return found


async def bench(args) -> None:
    from bench_ssh import MOVES, QUIET, SPENT, YOUR_TURN, cpu_seconds, plain

    from horizon_tui.host.pty_process import PtyProcess

    slow = 60 if args.callgrind else 1  # valgrind's app is some 50 times slower
    with tempfile.TemporaryDirectory(prefix="horizon-breakdown-") as tmp:
        saves = Path(tmp) / "saves"
        prepare(saves)
        dump = Path(tmp) / "parts.json"
        output, chunks, arrived = bytearray(), [], asyncio.Event()

        def got(data: bytes) -> None:
            output.extend(data)
            chunks.append(len(data))
            arrived.set()

        env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "HOME": str(saves), "PATH": os.defpath,
               "HORIZON_DATA_DIR": str(saves), "PYTHONPATH": str(args.tree)}
        argv = [sys.executable, str(Path(__file__).resolve()), "--child", str(dump), "--saves", str(saves)]
        if args.callgrind:
            argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/callgrind.out",
                    *argv[:2], "--play", "--saves", str(saves)]
            env["PYTHONMALLOC"] = "malloc"
        app = PtyProcess(argv, env=env, cwd=saves, size=(100, 30, 0, 0), on_output=got, on_exit=lambda rc: None)
        app.start()

        async def until(text: str, since: int, timeout: float = 30) -> None:
            end = time.perf_counter() + timeout * slow
            while text not in plain(bytes(output[since:])):
                arrived.clear()
                await asyncio.wait_for(arrived.wait(), max(0.01, end - time.perf_counter()))

        async def quiet() -> None:
            while True:
                count = len(chunks)
                await asyncio.sleep(QUIET * (50 if args.callgrind else 1))
                if len(chunks) == count:
                    return

        async def callgrind(*options: str) -> None:
            done = await asyncio.create_subprocess_exec("callgrind_control", *options, str(app.pid),
                                                        stdout=asyncio.subprocess.DEVNULL,
                                                        stderr=asyncio.subprocess.DEVNULL)
            await done.wait()

        await until("New character", 0)
        for key, then in ((b"l", "Saved characters"), (b"b", "in progress"), (b"\r", YOUR_TURN)):
            mark = len(output)
            app.write(key)
            await until(then, mark)
        await quiet()
        if args.callgrind:
            await callgrind("--zero")
        cpu, threads, sizes, moves = 0.0, collections.Counter(), [], 0
        while moves < args.moves:
            mark, count = len(output), len(chunks)
            if not args.callgrind:
                app.signal(ON)
                await asyncio.sleep(0.01)  # taken (the app's main thread runs the handler when it wakes)
            before, before_threads = cpu_seconds(app.pid), thread_cpu(app.pid)
            app.write(MOVES[moves % 2])
            while len(chunks) == count:
                arrived.clear()
                await asyncio.wait_for(arrived.wait(), 5 * slow)
            await quiet()
            cpu += cpu_seconds(app.pid) - before
            threads.update({tid: spent - before_threads.get(tid, 0.0) for tid, spent in thread_cpu(app.pid).items()})
            if not args.callgrind:
                app.signal(OFF)
                await asyncio.sleep(0.01)
            moves += 1
            sizes.append(len(output) - mark)
            if SPENT in plain(bytes(output[mark:])) or moves == args.moves:
                if args.callgrind:
                    await callgrind("--dump")  # the moves since the last zero, alone
                if moves == args.moves:
                    break
                mark = len(output)
                app.write(b".")
                await quiet()
                app.write(b"x")
                await until(YOUR_TURN, mark)
                await quiet()
                if args.callgrind:
                    await callgrind("--zero")
        print(f"{moves} move keys (load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; tree {args.tree}):")
        print(f"  CPU per move, the app's process: {cpu / moves * 1000:.2f} ms; by thread: "
              + ", ".join(f"{spent / moves * 1000:.2f}" for _tid, spent in sorted(threads.items()) if spent)
              + f" ms; bytes per move: median {statistics.median(sizes) / 1024:.2f} KiB")
        if args.callgrind:
            total = 0
            for part in Path(tmp).glob("callgrind.out.*"):
                total += next(int(line.split()[1]) for line in part.read_text().splitlines()
                              if line.startswith("summary:"))
            print(f"  instructions per move key: {total / moves / 1e6:.2f} M")
        else:
            app.signal(DUMP)
            for _ in range(50):
                await asyncio.sleep(0.1)
                if dump.exists():
                    break
            spent = json.loads(dump.read_text())
            print("  the main thread's CPU per move, by part:")
            for label in sorted(spent):
                print(f"    {spent[label] / moves * 1000:6.2f} ms  {label}")
        await app.terminate(30)


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        sys.exit(child(Path(sys.argv[2])))
    if sys.argv[1:2] == ["--play"]:  # under valgrind: the app alone, no timing
        from horizon_tui.cli import main as play

        sys.exit(play(sys.argv[2:]))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=100)
    parser.add_argument("--callgrind", action="store_true", help="count instructions under valgrind")
    parser.add_argument("--tree", type=Path, default=BENCH.parent, help="the source tree whose app runs")
    args = parser.parse_args()
    sys.path.insert(0, str(args.tree))
    asyncio.run(bench(args))


if __name__ == "__main__":
    main()
