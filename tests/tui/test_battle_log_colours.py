"""The battle log's colours (Pilot): damage taken, damage dealt, heals and effects each in their
own colour, by the read model's line kind; under NO_COLOR (https://no-color.org) none at all."""

from __future__ import annotations

import os

from textual.widgets import RichLog

from horizon_tui.cli import main

from horizon_tui.ui.battle.panels import log_style
from horizon_tui.ui.player.app import create_app

from .conftest import write
from .test_battle_flow import CHAMPION, _open_battle


def test_each_meaning_has_its_style_and_no_color_keeps_only_the_weight():
    assert len({log_style(kind) for kind in ("damage_taken", "damage_dealt", "heal", "effect")}) == 4
    assert log_style("damage_taken") == "bold red" and log_style("damage_taken", no_color=True) == "bold"
    assert log_style("effect", no_color=True) == "" and log_style("") == ""


async def _log_colours(saves, catalogue) -> tuple[set, list[str]]:
    """Play the goblins' ambush until someone is hurt: the colours in the log pane, and the kinds."""
    path = write(saves, "champion.toml", CHAMPION)
    app = create_app(saves, catalogue)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open_battle(pilot, app, path, "goblin_ambush.toml")
        for _ in range(40):
            kinds = [line.kind for line in screen.known().lines]
            if "damage_taken" in kinds or "damage_dealt" in kinds or screen.battle.over:
                break
            await pilot.press("x" if screen.me is None else "tab")
        await pilot.pause()
        strips = screen.query_one("#log", RichLog).lines
        colours = {seg.style.color.name for strip in strips for seg in strip if seg.style and seg.style.color}
        return colours, kinds


async def test_the_log_colours_blows_by_whom_they_hit(saves, catalogue, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    colours, kinds = await _log_colours(saves, catalogue)
    assert {"damage_taken", "damage_dealt"} & set(kinds)
    assert colours & {"red", "green"}


async def test_no_color_leaves_the_log_plain(saves, catalogue, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    colours, kinds = await _log_colours(saves, catalogue)
    assert {"damage_taken", "damage_dealt"} & set(kinds)
    assert colours == set()


def test_an_empty_no_color_leaves_colour_on(monkeypatch, saves, catalogue):
    """no-color.org: only a non-empty NO_COLOR counts; Textual took an empty one as set."""
    monkeypatch.setenv("NO_COLOR", "")
    assert main(["roll", "1d6"]) == 0
    assert "NO_COLOR" not in os.environ and not create_app(saves, catalogue).no_color
    monkeypatch.setenv("NO_COLOR", "1")
    assert main(["roll", "1d6"]) == 0
    assert create_app(saves, catalogue).no_color
