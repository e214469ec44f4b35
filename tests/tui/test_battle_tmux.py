"""End to end in a real terminal (tmux), as a player: `.venv/bin/horizon` with a private data
folder and saves, a fixed seed (HORIZON_SEED); every move key — arrows, `hjklyubn`, Home/End/
PgUp/PgDn, the number row and the numpad — moves the character (read back from the battle save's
inputs), on a 40×30 map at 80×24 and a 50×50 map at 120×40; stepping off the edge asks first.
Slow (a few seconds each): marked `slow`, still part of `make test`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from horizon_tui.storage import records

ROOT = Path(__file__).resolve().parents[2]
HORIZON = Path(sys.executable).parent / "horizon"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None or not HORIZON.exists(), reason="needs tmux and the horizon command"),
]

# Sturdy enough to outlast eight rounds of crossbow bolts while it walks in circles.
WARDEN = """\
name = "Warden"
species = "human"
weapon = "longsword"
xp = 60000
[attributes]
physical = 120
agility = 30
perception = 30
cognition = 10
faith = 10
beauty = 1
"""

STEP = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0),
        "up_left": (-1, -1), "up_right": (1, -1), "down_left": (-1, 1), "down_right": (1, 1)}
# Each turn: four keys that come back to where they started (a character moves 5 cells a turn).
TURNS = [
    [("Right", "right"), ("Left", "left"), ("l", "right"), ("h", "left")],
    [("Up", "up"), ("Down", "down"), ("k", "up"), ("j", "down")],
    [("Home", "up_left"), ("NPage", "down_right"), ("End", "down_left"), ("PPage", "up_right")],
    [("y", "up_left"), ("n", "down_right"), ("b", "down_left"), ("u", "up_right")],
    [("6", "right"), ("4", "left"), ("8", "up"), ("2", "down")],
    [("7", "up_left"), ("3", "down_right"), ("1", "down_left"), ("9", "up_right")],
    [("KP6", "right"), ("KP4", "left"), ("KP8", "up"), ("KP2", "down")],
    [("KP7", "up_left"), ("KP3", "down_right"), ("KP1", "down_left"), ("KP9", "up_right")],
]


class Terminal:
    """`horizon --saves HOME/saves ARGS` in a tmux session of its own (HOME/data as the data folder)."""

    def __init__(self, name: str, size: tuple[int, int], home: Path, args: str = "play",
                 seed: str | None = "11") -> None:
        self.name = name
        self.home = home
        env = {"HORIZON_DATA_DIR": str(home / "data"), **({"HORIZON_SEED": seed} if seed else {})}
        command = " ".join(f"{k}={v}" for k, v in env.items()) + f" {HORIZON} --saves {home / 'saves'} {args}"
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
        subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", str(size[0]), "-y", str(size[1]),
                        "-c", str(ROOT), command], check=True)

    def screen(self) -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True).stdout

    def keys(self, *keys: str, pause: float = 0.15) -> None:
        for key in keys:
            subprocess.run(["tmux", "send-keys", "-t", self.name, key], check=True)
            time.sleep(pause)

    def wait_for(self, text: str, timeout: float = 20) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            shown = self.screen()
            if text in shown:
                return shown
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; the screen:\n{self.screen()}")

    def wait_until_gone(self, text: str, timeout: float = 20) -> str:
        """The screen once `text` has left it (a dialog closed): on a loaded machine a key can take
        a moment to land, so a screen captured at once may still show what the key closes."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            shown = self.screen()
            if text not in shown:
                return shown
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never went away; the screen:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


@pytest.fixture
def terminal(tmp_path):
    made: list[Terminal] = []
    (tmp_path / "saves" / "characters").mkdir(parents=True)
    (tmp_path / "saves" / "characters" / "warden.toml").write_text(WARDEN, encoding="utf-8")

    def make(size):
        t = Terminal(f"battle-test-{os.getpid()}-{len(made)}", size, tmp_path)
        made.append(t)
        return t

    yield make
    for t in made:
        t.close()


def _open(t: Terminal, encounter: str) -> None:
    t.wait_for("Quit")
    t.keys("l")
    t.wait_for("warden.toml")
    t.keys("Enter")
    t.wait_for("Battle")
    t.keys("b")
    listing = t.wait_for("Wolves at Dusk")
    names = [line.split("│")[1].split("  ")[0].strip() for line in listing.splitlines()
             if line.startswith("│ ") and ("×" in line)]
    t.keys(*["Down"] * names.index(encounter), "Enter")
    t.wait_for("Round ")


def _wait_for_line(t: Terminal, *texts: str, timeout: float = 20) -> str:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        shown = t.screen()
        if all(text in shown for text in texts):
            return shown
        time.sleep(0.1)
    raise AssertionError(f"{texts!r} never appeared together; the screen:\n{t.screen()}")


def _saved_moves(home: Path, count: int) -> list[tuple[int, int]]:
    saves = home / "saves"
    end = time.monotonic() + 10
    moves: list[tuple[int, int]] = []
    while time.monotonic() < end:
        if records.has_journal(saves):
            kept = records.battles_of(saves).load("battles/warden.json")  # the app's journal, read beside it
            inputs = kept["inputs"] if kept else []
            moves = [tuple(i["action"]["to"]) for i in inputs if i["action"]["type"] == "Move"]
            if len(moves) >= count:
                return moves
        time.sleep(0.2)
    return moves


def _every_key_moves(t: Terminal, start: tuple[int, int]) -> None:
    expected, here = [], start
    for round_number, turn in enumerate(TURNS, 1):
        # this round's turn, not the last one's line still on screen: keys sent as the turn changes
        # hands are dropped (ui/battle/typeahead.py), so wait until it is shown as ours
        _wait_for_line(t, f"Round {round_number} ", "Your turn")
        for key, direction in turn:
            dx, dy = STEP[direction]
            here = (here[0] + dx, here[1] + dy)
            expected.append(here)
            t.keys(key)
        t.keys(".")
        t.keys("x", pause=0.4)  # the enemies' turns at once
    assert _saved_moves(t.home, len(expected))[:len(expected)] == expected


def test_every_move_key_moves_on_a_40x30_map_at_80x24_and_the_edge_asks(terminal):
    t = terminal((80, 24))
    _open(t, "Toll on the King's Road")  # 40×30; the party starts at (1, 28)
    _every_key_moves(t, (1, 28))
    _wait_for_line(t, f"Round {len(TURNS) + 1} ", "Your turn")  # the next round's turn, shown as ours
    t.keys("Left", "Left")  # (0, 28), then off the edge
    shown = t.wait_for("Flee the battle?")
    assert "It counts as a defeat" in shown
    t.keys("Escape")
    assert "Round " in t.wait_until_gone("Flee the battle?")
    moves = _saved_moves(t.home, 33)
    assert (-1, 28) not in moves  # not fled


def test_every_move_key_moves_on_a_50x50_map_at_120x40(terminal):
    t = terminal((120, 40))
    _open(t, "Riders on the Steppe")  # 50×50; the party starts at (1, 48)
    _every_key_moves(t, (1, 48))
