"""A run end to end in a real terminal (tmux, 80×24), as a player: `horizon run --seed N` from the
menu, two fights won with Tab (auto-fight) and `.`, the health the first left shown before the
second, a rest, a level-up, then fights taken from the hardest offer until the party falls; the
morgue and `horizon scores` afterwards. Slow (a minute or more): marked `slow`."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time

import pytest

from .test_battle_tmux import HORIZON, ROOT, Terminal, pytestmark  # noqa: F401 - pytestmark: slow, needs tmux

# Brakka of examples/party with 320 XP: nine points bought at once after the first fight (270 XP),
# the tenth (55 XP, R-4) as soon as that fight's share comes in — level 3.
BRAKKA = (ROOT / "examples" / "party" / "brakka.toml").read_text(encoding="utf-8").replace("xp = 0", "xp = 320")
SEED = 1


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
            t.keys("Space", pause=0)
        elif "no enemy in sight" in status or "Action used" in status or "below" in status:
            t.keys(".", pause=0)
        elif "Your turn" in status or "Tab again" in status or "dropped" in status:
            t.keys("Tab", pause=0)
        elif "acting…" in status:
            t.keys("x", pause=0)
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
    t = Terminal(f"runs-test-{os.getpid()}", (80, 24), home, args=f"run --seed {SEED}", seed=None)
    try:
        t.wait_for("New run")
        t.wait_for("Brakka")
        t.keys("C-s", pause=0)
        t.wait_for("Depth 1: choose the next fight")
        t.keys("Enter", pause=0)  # the easiest offer
        first = fight(t)
        assert "Victory!" in first, first
        summary = t.screen()
        assert "Brakka reaches level 3" in summary
        t.keys("Enter", pause=0)
        depth2 = t.wait_for("Depth 2: choose the next fight")
        carried = re.search(r"Brakka L3 (\d+)/(\d+)", depth2)
        assert carried and int(carried[1]) < int(carried[2]), depth2  # the health the first fight left
        t.keys("r", pause=0)
        t.wait_for("Rest before the next fight?")
        t.keys("Enter", pause=0)
        rested = re.search(r"Brakka L3 (\d+)/(\d+)", t.wait_for("rested"))
        assert int(rested[1]) > int(carried[1])
        t.keys("Enter", pause=0)
        second = fight(t)
        assert "Victory!" in second, second
        t.keys("Enter", pause=0)
        for _ in range(12):  # the hardest offer each time, until the party falls
            shown = t.wait_for("choose the next fight")
            offers = [line for line in shown.splitlines() if "win chance" in line or "foe" in line]
            t.keys("End", pause=0)
            t.keys("Enter", pause=0)
            if "Defeat." in fight(t):
                break
            t.keys("Enter", pause=0)
        else:
            pytest.fail("Brakka never fell")
        assert offers
        t.keys("Enter", pause=0)
        over = t.wait_for("The run is over")
        assert "Cause of death: Brakka fell to" in over and f"seed {SEED}" in over
        assert "Moved to characters/fallen/: Brakka" in over
        t.keys("Enter", pause=0)
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
