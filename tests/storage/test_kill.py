"""kill -9 at random moments during GM actions and battle inputs (bench/kill_storage.py, here with fewer): nothing
committed is lost, PRAGMA integrity_check is ok after every kill, and a clean open and close
leaves no -wal, -shm or temp file behind."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from kill_storage import run  # noqa: E402


@pytest.mark.slow
def test_kill_9_during_gm_actions_loses_nothing_committed(tmp_path: Path):
    saves = tmp_path / "saves"
    saves.mkdir()
    done = run(60, seed=7, saves=saves, quiet=True)
    assert done["kills"] >= 2 and done["committed"] >= 60


@pytest.mark.slow
def test_kill_9_during_battle_inputs_loses_nothing_committed(tmp_path: Path):
    """The same with a player's battles saving every input (bench/kill_storage.py --battles): the
    battles hold every input reported committed and the last one replays after every kill."""
    saves = tmp_path / "saves"
    saves.mkdir()
    done = run(60, seed=7, saves=saves, quiet=True, battles=True)
    assert done["kills"] >= 2 and done["committed"] >= 60
