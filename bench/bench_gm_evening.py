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

import gm_environment  # noqa: F401 - first: `horizon gm`'s environment before Textual loads
import attrs
from textual import events
from textual._compositor import CompositorUpdate
from textual.keys import _character_to_key

from horizon_tui.campaign import battles, changes
from horizon_tui.campaign.campaign_files import CampaignStore
from horizon_tui.campaign.model import Npc
from horizon_tui.campaign.open_campaign import open_session
from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.content.encounters import load_enemies
from horizon_tui.engine import overrides as ov
from horizon_tui.engine.battle import ident, team
from horizon_tui.engine.runner import override
from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.gm.screens.dashboard import DashboardScreen
from horizon_tui.ui.gm.screens.dice import DiceScreen
from horizon_tui.ui.gm.screens.experience import ExperienceScreen
from horizon_tui.ui.gm.screens.npc_editor import NpcEditorScreen

from bench_storage import gm_start, make_campaign, percentile  # the same campaign, `horizon gm` start, percentiles

ROOT = Path(__file__).resolve().parent.parent
QUIET = 0.15  # no frame for this long after the action: the screen has settled
ACTIONS = {"roll", "xp", "npc", "undo"}


STORAGE_ACTIONS: dict[str, Callable] = {  # each GM action as the screens apply it, by name
    "roll": lambda c, n: changes.roll_dice(c, "1d20")[0],
    "new NPC": lambda c, n: changes.save_npc(c, None, Npc(f"Guard {n}")),
    "NPC edit": lambda c, n: changes.save_npc(c, c.npcs[0].name, attrs.evolve(c.npcs[0], notes=f"seen {n} times")),
    "xp award": lambda c, n: changes.award_xp(c, {c.party[0].name: 10}, "bench"),
    "next day": lambda c, n: changes.advance_day(c),
}


def storage_figures(saves: Path, key: str, repeat: int) -> dict[str, tuple[list[float], list[float]]]:
    """Opening the campaign in storage (three times) and `repeat` of each GM action in storage
    (then as many undos): (walls, CPUs) by name, "open" first."""
    found: dict[str, tuple[list[float], list[float]]] = {}

    def timed(name: str, work: Callable[[], object]) -> object:
        start, cpu = time.perf_counter(), time.process_time()
        result = work()
        walls, cpus = found.setdefault(name, ([], []))
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
        return result

    for _ in range(3):  # the database opened and checked, the campaign read: as the GM tool opens it
        timed("open", lambda: open_session(CampaignStore(saves, default_catalogue()), key)).store.close()
    store = CampaignStore(saves, default_catalogue())
    session = open_session(store, key)
    for n in range(repeat):
        for name, action in STORAGE_ACTIONS.items():
            timed(name, lambda action=action, name=name, n=n: session.apply(lambda c: action(c, n), name))
    while session.can_undo:
        timed("undo", session.undo)
    # the tracker's damage in a GM battle: each is the override and the battle's inputs in the campaign
    campaign, fight = battles.start_battle(session.campaign, "goblin_ambush", [m.name for m in session.campaign.party],
                                           store.catalogue, session.rules_for, load_enemies(store.catalogue), seed=3)
    session.apply(lambda c: campaign, "battle")
    for _ in range(repeat):
        foe = next(ident(e).id for e in fight.battle.active.values() if team(e) == "enemies")
        override(fight.battle, ov.Damage((foe,), 1, "bench"), fight.inputs)
        timed("damage", lambda: session.apply(
            lambda c: battles.with_inputs(c, fight, store.catalogue, session.rules_for), "damage 1"))
    store.close()
    return found


def figures(name: str, walls: list[float], cpus: list[float]) -> str:
    return (f"{'':>9}{name:>9} p50 {statistics.median(walls) * 1000:6.2f} p95 {percentile(walls, 0.95) * 1000:6.2f}"
            f" | cpu p50 {statistics.median(cpus) * 1000:6.2f} p95 {percentile(cpus, 0.95) * 1000:6.2f}")


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
            opens, open_cpus = stored.pop("open")
            print(f"{lines:>7,} lines: storage open {statistics.median(opens) * 1000:.0f} "
                  f"(cpu {statistics.median(open_cpus) * 1000:.0f}); "
                  f"horizon gm → dashboard {start:.2f} s (cpu {start_cpu:.2f} s); in storage:", flush=True)
            for action, (walls, cpus) in stored.items():
                print(figures(action, walls, cpus), flush=True)
            if args.storage_only:
                continue
            print(f"{'':>9}key→screen through the GM tool:", flush=True)
            for action, (walls, cpus) in asyncio.run(gm_actions(saves, args.repeat, set(args.actions.split(",")))).items():
                print(figures(action, walls, cpus), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", default="100,1000,20000,100000")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--per-day", type=int, default=40, help="log lines a day; 0: every line today")
    parser.add_argument("--actions", default=",".join(sorted(ACTIONS)), help="of " + ", ".join(sorted(ACTIONS)))
    parser.add_argument("--storage-only", action="store_true", help="no GM tool: storage figures and the start")
    parser.add_argument("--before", type=Path, help="a checkout to measure first (its code, this bench)")
    args = parser.parse_args()
    if args.before is not None:
        print(f"before: {args.before}", flush=True)
        subprocess.run([sys.executable, __file__, "--lines", args.lines, "--repeat", str(args.repeat),
                        "--per-day", str(args.per_day), "--actions", args.actions,
                        *(["--storage-only"] if args.storage_only else [])], check=True,
                       env=dict(os.environ, PYTHONPATH=str(args.before.resolve())))
        print(f"after: {ROOT}", flush=True)
    run(args)


if __name__ == "__main__":
    main()
