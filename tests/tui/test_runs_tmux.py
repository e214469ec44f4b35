"""A run end to end in a real terminal (tmux, 80×24), as a player: `horizon run --seed N` from the
menu, two fights won with Tab (auto-fight) and `.`, the health the first left shown before the
second, a rest, a level-up, then fights taken from the hardest offer until the party falls; the
morgue and `horizon scores` afterwards. Slow (a minute or more): marked `slow`."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HORIZON = Path(sys.executable).parent / "horizon"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("tmux") is None or not HORIZON.exists(), reason="needs tmux and the horizon command"),
]

# Brakka of examples/party with 320 XP: nine points bought at once after the first fight (270 XP),
# the tenth (55 XP, R-4) as soon as that fight's share comes in — level 3.
BRAKKA = (ROOT / "examples" / "party" / "brakka.toml").read_text(encoding="utf-8").replace("xp = 0", "xp = 320")
SEED = 1


class Terminal:
    def __init__(self, name: str, home: Path) -> None:
        self.name = name
        env = {"HORIZON_DATA_DIR": str(home / "data")}
        command = " ".join(f"{k}={v}" for k, v in env.items()) + f" {HORIZON} --saves {home / 'saves'} run --seed {SEED}"
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)
        subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "80", "-y", "24", "-c", str(ROOT), command],
                       check=True)

    def screen(self) -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True).stdout

    def key(self, key: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, key], check=True)

    def wait_for(self, text: str, timeout: float = 30) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            shown = self.screen()
            if text in shown:
                return shown
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared; the screen:\n{self.screen()}")

    def close(self) -> None:
        subprocess.run(["tmux", "kill-session", "-t", self.name], capture_output=True)


def fight(t: Terminal, limit: float = 240) -> str:
    """Play the fight on screen by Tab, as a player would: Tab when it is our turn, `.` when no enemy
    is in sight, `x` through the enemies' turns; the summary's first line when it ends."""
    end = time.monotonic() + limit
    last = ""
    while time.monotonic() < end:
        shown = t.screen()
        if "Victory!" in shown or "Defeat." in shown or "A draw." in shown:
            return next(line for line in shown.splitlines() if "rounds" in line and ("Victory" in line or "Defeat" in line
                                                                                   or "draw" in line))
        status = next((line for line in shown.splitlines() if re.search(
            r"Your turn|Auto-fight:|acting…|--more--|Action used|comes up|dropped|\(Tab again", line)), "")
        if "--more--" in status:
            t.key("Space")
        elif "no enemy in sight" in status or "Action used" in status or "below" in status:
            t.key(".")
        elif "Your turn" in status or "Tab again" in status:
            t.key("Tab")
        elif "acting…" in status:
            t.key("x")
        time.sleep(0.35 if status != last else 0.6)
        last = status
    raise AssertionError(f"the fight never ended; the screen:\n{t.screen()}")


@pytest.fixture
def home(tmp_path):
    (tmp_path / "saves" / "characters").mkdir(parents=True)
    (tmp_path / "saves" / "characters" / "brakka.toml").write_text(BRAKKA, encoding="utf-8")
    (tmp_path / "data").mkdir()
    # the player's own setting: Tab fights on at any health (a player who never stops to heal)
    (tmp_path / "data" / "keymap.toml").write_text("[options]\nauto_fight_stop = 0\n", encoding="utf-8")
    return tmp_path


def test_a_seeded_run_from_the_menu_to_the_hall_of_fame(home):
    t = Terminal(f"runs-test-{os.getpid()}", home)
    try:
        t.wait_for("New run")
        t.wait_for("Brakka")
        t.key("C-s")
        t.wait_for("Depth 1: choose the next fight")
        t.key("Enter")  # the easiest offer
        first = fight(t)
        assert "Victory!" in first, first
        summary = t.screen()
        assert "Brakka reaches level 3" in summary
        t.key("Enter")
        depth2 = t.wait_for("Depth 2: choose the next fight")
        carried = re.search(r"Brakka L3 (\d+)/(\d+)", depth2)
        assert carried and int(carried[1]) < int(carried[2]), depth2  # the health the first fight left
        t.key("r")
        t.wait_for("Rest before the next fight?")
        t.key("Enter")
        rested = re.search(r"Brakka L3 (\d+)/(\d+)", t.wait_for("rested"))
        assert int(rested[1]) > int(carried[1])
        t.key("Enter")
        second = fight(t)
        assert "Victory!" in second, second
        t.key("Enter")
        for _ in range(12):  # the hardest offer each time, until the party falls
            shown = t.wait_for("choose the next fight")
            offers = [line for line in shown.splitlines() if "win chance" in line or "foe" in line]
            t.key("End")
            t.key("Enter")
            if "Defeat." in fight(t):
                break
            t.key("Enter")
        else:
            pytest.fail("Brakka never fell")
        assert offers
        t.key("Enter")
        over = t.wait_for("The run is over")
        assert "Cause of death: Brakka fell to" in over and f"seed {SEED}" in over
        assert "Moved to characters/fallen/: Brakka" in over
        t.key("Enter")
        t.wait_for("Hall of fame")
    finally:
        t.close()
    morgues = list((home / "saves" / "records" / "runs").glob("*.morgue.txt"))
    assert len(morgues) == 1
    text = morgues[0].read_text()
    assert "Damage by ability" in text and "Kills" in text and "pace source" in text
    data = json.loads(morgues[0].with_name(morgues[0].name.replace(".txt", ".json")).read_text())
    assert data["depth"] >= 3 and data["run"]["seed"] == SEED
    assert (home / "saves" / "characters" / "fallen" / "brakka.toml").exists()
    scores = subprocess.run([str(HORIZON), "scores"], capture_output=True, text=True,
                            env={**os.environ, "HORIZON_DATA_DIR": str(home / "data")}, timeout=60)
    assert scores.returncode == 0 and "Brakka" in scores.stdout and "fell to" in scores.stdout
