"""The GM's evening in a real terminal (tmux) at 80×24, as a GM would: three example characters
imported at once by typed paths, a fight in which the acting combatant is held (d) and brought
back (d), the battle log saying what changed; the XP screen's typed award asked about on esc.
Slow (seconds): marked `slow`, still part of `make test`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HORIZON = Path(sys.executable).parent / "horizon"
EXAMPLES = ROOT / "examples" / "party"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None or not HORIZON.exists(), reason="needs tmux and the horizon command"),
]


class GMTerminal:
    def __init__(self, name: str, home: Path) -> None:
        self.name = name
        command = (f"HORIZON_DATA_DIR={home / 'data'} {HORIZON} gm --saves {home / 'saves'} "
                   f"--campaign Evening")
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
        subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "80", "-y", "24", "-c", str(ROOT), command],
                       check=True)

    def screen(self) -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True).stdout

    def keys(self, *keys: str, pause: float = 0.3) -> None:
        for key in keys:
            subprocess.run(["tmux", "send-keys", "-t", self.name, key], check=True)
            time.sleep(pause)

    def text(self, words: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, "-l", words], check=True)
        time.sleep(0.3)

    def wait_for(self, text: str, timeout: float = 30) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            shown = self.screen()
            if text in shown:
                return shown
            time.sleep(0.2)
        raise AssertionError(f"{text!r} never appeared; the screen:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


@pytest.fixture
def gm(tmp_path):
    (tmp_path / "saves" / "characters").mkdir(parents=True)
    terminal = GMTerminal(f"gm-evening-test-{os.getpid()}", tmp_path)
    yield terminal
    terminal.close()


def test_an_evening_at_80x24_imports_three_at_once_holds_a_turn_and_asks_before_dropping_xp(gm):
    gm.wait_for("Campaign — Evening")
    gm.keys("i")
    gm.wait_for("Import characters")
    gm.keys("Tab")  # to the path field
    for name in ("iriel", "morwen", "sefa"):
        gm.text(f"{EXAMPLES}/{name}.toml")
        gm.keys("Enter")
    gm.wait_for("3 ticked")
    gm.keys("C-s")
    gm.wait_for("Iriel, Morwen, Sefa joined")
    gm.keys("Escape")
    gm.wait_for("3 in the party")

    gm.keys("x")
    gm.wait_for("Who gets what")
    gm.text("400")
    gm.keys("Escape")
    gm.wait_for("Leave and forget the XP award being typed (400 XP)?")
    gm.keys("n", "Escape", "y")
    gm.wait_for("3 in the party")

    gm.keys("b")
    gm.wait_for("Start a battle")
    gm.keys("Down", "Down", "Down", "C-s")  # Goblin Ambush
    shown = gm.wait_for("▶ acting: ")
    acting = shown.split("▶ acting: ", 1)[1].split()[0]
    gm.wait_for(f"» keys on: {acting}")
    gm.keys("d")  # held: the AI's turns may follow, the held row stays at the bottom, selected
    gm.wait_for("held (d re-enters")
    gm.wait_for(f"»‖{acting}")
    gm.wait_for("Your turn")  # a player's turn again: the GM's key acts now
    gm.keys("d")
    shown = gm.wait_for(f"GM: re-enter on {acting} (held → ")
    assert "» keys on: " + acting in shown  # the selection stayed on the held row
