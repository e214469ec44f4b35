"""Snapshots of the battlefield on a map larger than the pane (40×30, 50×50) at 80×24 and 120×40:
the battle opens centred on the player's character, with the enemies in sight and the legend.
Update deliberately (`--snapshot-update`) and look at the SVG."""

from __future__ import annotations

from pathlib import Path

import pytest

from horizon_tui.ui.player.app import create_app

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]
DATA = Path(__file__).resolve().parents[2] / "data" / "encounters"


@pytest.fixture
def snap_app(tmp_path, monkeypatch, catalogue, iriel):
    monkeypatch.chdir(tmp_path)
    return lambda: create_app(Path("saves"), catalogue)


def _opened(encounter: str, *keys: str):
    async def run(pilot) -> None:
        from horizon_tui.ui.battle import flow
        from horizon_tui.ui.battle.screen import BattleScreen

        app = pilot.app
        app.open_character(Path("saves/characters/iriel.toml"))
        await pilot.pause()
        flow.start(app, DATA / encounter, seed=3)
        for _ in range(100):
            if isinstance(app.screen, BattleScreen):
                break
            await pilot.pause(0.02)
        await pilot.press("x")  # the enemies' turns at once, up to the player's
        await pilot.press(*keys)
        await pilot.pause(0.1)

    return run


@pytest.mark.parametrize("size", SIZES)
def test_a_40x30_battle_opens_centred_on_the_character(snap_compare, snap_app, size):
    assert snap_compare(snap_app(), terminal_size=size, run_before=_opened("bandit_road.toml"))


@pytest.mark.parametrize("size", SIZES)
def test_a_50x50_battle_after_steps_right_and_down(snap_compare, snap_app, size):
    assert snap_compare(snap_app(), terminal_size=size,
                        run_before=_opened("sunken_temple.toml", "right", "right", "down", "n"))
