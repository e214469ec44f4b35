"""A played battle is freed by reference counting alone: it leaves no reference cycles for the
garbage collector, whose full passes then have less to walk (a simulator plays thousands). Mind
that compiled closures (mypyc) make a cycle of a nested function and its environment."""

from __future__ import annotations

import gc
from pathlib import Path

from horizon_tui.engine.forming import create_battle
from horizon_tui.engine.runner import play_out
from horizon_tui.tools.battle_command import prepare

PARTY = sorted((Path(__file__).resolve().parents[2] / "examples" / "party").glob("*.toml"))


def test_whole_battles_leave_no_cyclic_garbage() -> None:
    catalogue, enemies, setup, members = prepare("standard", PARTY, 0)
    play_out(create_battle(setup, members, 99, catalogue, enemies))  # set-up caches made outside the count
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        for seed in range(4):
            battle = create_battle(setup, members, seed, catalogue, enemies)
            play_out(battle)
            assert battle.over
            del battle
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()
