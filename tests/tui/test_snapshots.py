"""Snapshots of the main screens at 80×24 and 120×40 (pytest-textual-snapshot).

Deterministic: the saves folder is a relative path inside a temporary working directory, its
files have fixed modification times, and no screen shows a clock.
Update the baselines with `pytest tests/tui/test_snapshots.py --snapshot-update`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from horizon_tui.ui.player.app import create_app
from .test_wizard import keys_for

SIZES = [pytest.param((80, 24), id="80x24"), pytest.param((120, 40), id="120x40")]


@pytest.fixture
def snap_app(tmp_path, monkeypatch, catalogue, iriel, broken):
    monkeypatch.chdir(tmp_path)
    return lambda screen=None: create_app(Path("saves"), catalogue, screen=screen)


@pytest.mark.parametrize("size", SIZES)
def test_main_menu(snap_compare, snap_app, size):
    assert snap_compare(snap_app(), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_creation_wizard_attributes(snap_compare, snap_app, size):
    assert snap_compare(snap_app("new"), press=["enter", *keys_for((9, 9, 9))], terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_sheet(snap_compare, snap_app, size):
    assert snap_compare(snap_app("sheet"), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_loadout(snap_compare, snap_app, size):
    assert snap_compare(snap_app("loadout"), terminal_size=size)


async def _to_players_turn(pilot) -> None:
    """A seeded battle on the shipped Goblin Ambush, played up to the player's first turn."""
    from horizon_tui.ui.battle import flow
    from horizon_tui.ui.battle.screen import BattleScreen

    app = pilot.app
    app.open_character(Path("saves/characters/iriel.toml"))
    await pilot.pause()
    data = Path(__file__).resolve().parents[2] / "data" / "encounters"
    flow.start(app, data / "goblin_ambush.toml", seed=4)
    for _ in range(100):
        if isinstance(app.screen, BattleScreen):
            break
        await pilot.pause(0.02)
    await pilot.press("x")  # the enemies' turns at once, up to the player's
    await pilot.press("a")  # the targeting cursor with its reach and odds


@pytest.mark.parametrize("size", SIZES)
def test_battle(snap_compare, snap_app, size):
    assert snap_compare(snap_app(), terminal_size=size, run_before=_to_players_turn)


def test_sheet_at_60x20_shows_the_combat_values(snap_compare, snap_app):
    """At 60 columns the combat panel goes under the attributes and stats, whole, instead of
    being squeezed to a sliver beside them (its values were cut off)."""
    assert snap_compare(snap_app("sheet"), terminal_size=(60, 20))
