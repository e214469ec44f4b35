"""The app around the screens: menu, load, battle picker, help, command palette, start-up."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

import attrs
from textual.widgets import DataTable, Static

from horizon_tui.content.catalogue import data_dir
from horizon_tui.content.characters import load_character
from horizon_tui.ui.player.app import create_app
from horizon_tui.ui.player.palette import HorizonCommands
from horizon_tui.ui.dialogs.help import HelpScreen
from horizon_tui.ui.player.launch import saves_dir_from
from horizon_tui.play.library import OpenCharacter
from horizon_tui.ui.player.screens.battle import EncounterPickerScreen
from horizon_tui.ui.player.screens.load import LoadScreen
from horizon_tui.ui.player.screens.main_menu import MainMenuScreen
from horizon_tui.ui.player.screens.rules import RulesScreen
from horizon_tui.ui.player.screens.sheet import SheetScreen


async def test_main_menu_has_its_words_and_recent_characters(saves, catalogue, iriel, broken):
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        menu = app.screen.query_one("#menu")
        words = [str(menu.get_option_at_index(i).prompt) for i in range(menu.option_count)]
        assert words == [
            "New run", "New character", "Load character", "Battle", "Hall of fame", "Rules", "Quit"]
        await pilot.pause()  # the saves are read once the menu is drawn
        recent = app.screen.query_one("#recent")
        prompts = [str(recent.get_option_at_index(i).prompt) for i in range(recent.option_count)]
        assert "Iriel" in prompts[0] and "broken.toml" in prompts[1]  # newest first
        await pilot.press("tab", "enter")
        assert isinstance(app.screen, SheetScreen)
        await pilot.press("escape", "r")
        assert isinstance(app.screen, RulesScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, MainMenuScreen)


async def test_a_broken_save_is_reported_and_left_untouched(saves, catalogue, iriel, broken):
    before = broken.read_bytes()
    app = create_app(saves, catalogue, screen="load")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, LoadScreen)
        table = screen.query_one("#saves", DataTable)
        assert table.row_count == 2
        await pilot.press("down")  # broken.toml is older, second
        detail = str(screen.query_one("#save-detail", Static).render())
        assert "can't be read" in detail and "broken TOML" in detail
        await pilot.press("enter")
        assert app.screen is screen and app.session is None  # refused, not opened

        # Even a character whose file went bad on disk is never written over it.
        character = load_character(iriel, catalogue)
        app.session = OpenCharacter(broken, character)
        assert app.commit(attrs.evolve(character, xp=1)) is False
    assert broken.read_bytes() == before
    assert not broken.with_name("broken.toml.1").exists()


async def test_help_is_generated_from_the_live_bindings(saves, catalogue):
    app = create_app(saves, catalogue)
    async with app.run_test(size=(80, 24)) as pilot:
        app.set_keymap({"menu.rules": "f2"})  # a remapped key shows as remapped
        await pilot.press("question_mark")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        groups = {g.title: {k.description: k.keys for k in g.keys} for g in help_screen.groups}
        screen_keys = groups["This screen — Main menu"]
        assert screen_keys["New"] == "n" and screen_keys["Rules"] == "f2" and screen_keys["Battle"] == "b"
        assert groups["Everywhere"]["Quit"] == "^q"
        assert "? f1" == groups["Everywhere"]["Help"]
        assert list(groups)[0].startswith("This screen")
        await pilot.press("escape")
        assert isinstance(app.screen, MainMenuScreen)
        await pilot.press("f2")
        assert isinstance(app.screen, RulesScreen)
        await pilot.press("f1")  # and on every other screen
        assert isinstance(app.screen, HelpScreen)
        assert any("Back" == k.description for g in app.screen.groups for k in g.keys)


async def test_command_palette_lists_screens_and_the_screen_actions(saves, catalogue, iriel):
    app = create_app(saves, catalogue, screen="sheet")
    async with app.run_test(size=(80, 24)):
        provider = HorizonCommands(app.screen)
        titles = [title for title, _, _ in provider._commands()]
        for title in ("New character", "Load character", "Battle", "Rules", "Help", "Character sheet",
                      "Level up", "Abilities", "Loadout", "Menu"):
            assert title in titles


async def test_battle_lists_encounters_and_hands_over_to_start_battle(saves, catalogue, iriel, tmp_path):
    data = tmp_path / "data"
    shutil.copytree(data_dir() / "enemies", data / "enemies")
    (data / "encounters").mkdir()
    shutil.copy(data_dir() / "encounters" / "goblin_ambush.toml", data / "encounters" / "ambush.toml")
    (data / "encounters" / "nowhere.toml").write_text('name = "Nowhere"\ndescription = "No map at all."\n')
    app = create_app(saves, attrs.evolve(catalogue, root=data), screen="sheet")
    started = []
    async with app.run_test(size=(80, 24)) as pilot:
        app.start_battle = lambda path, character: started.append((path.name, character.name))
        await pilot.press("b")
        screen = app.screen
        assert isinstance(screen, EncounterPickerScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        ambush, nowhere = screen.encounters
        assert ambush.name == "Goblin Ambush" and ambush.size == "12×12" and ambush.xp and ambush.enemies
        assert f"{ambush.xp} XP" in str(screen.query_one("#encounter-detail", Static).render())
        assert nowhere.problem and "can't be fought" in nowhere.problem
        await pilot.press("down", "enter")  # refused: it doesn't load
        await pilot.press("up", "enter")
    assert started == [("ambush.toml", "Iriel")]


def test_the_main_menu_comes_up_without_the_content_models_or_the_engine(tmp_path):
    """Start-up target: with no saves yet, the menu needs neither the catalogue (attrs,
    cattrs, the content models) nor tcod; they load when a screen needs them."""
    code = (
        "import asyncio, sys\n"
        "from horizon_tui.ui.player.app import create_app\n"
        "async def main():\n"
        f"    app = create_app({str(tmp_path)!r})\n"
        "    async with app.run_test(size=(80, 24)) as pilot:\n"
        "        await pilot.pause()\n"
        "        assert app.screen.query_one('#menu').option_count == 7\n"
        "        heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('attrs', 'attr', 'cattrs', 'tcod', 'numpy')\n"
        "                       or m.startswith(('horizon_tui.content', 'horizon_tui.engine')))\n"
        "        assert not heavy, heavy\n"
        "        assert app.host._catalogue is None\n"
        "        await pilot.press('r')\n"
        "        assert app.host._catalogue is not None and app.screen.id != 'main-menu'\n"
        "asyncio.run(main())\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


async def test_a_broken_data_folder_is_reported_and_the_menu_stays(tmp_path, monkeypatch, capsys):
    """The rules data loads after the menu is up; if it can't, the player is told which file and
    key, nothing opens, and `horizon` lists every problem on the way out (exit code 1)."""
    from horizon_tui.errors import DataError, Problem
    from horizon_tui.rules import validation
    from horizon_tui.ui.player.launch import run_player_app

    def broken():
        raise DataError([Problem(file="data/rules.toml", key="levels.3.slots", message="must be an integer")])

    monkeypatch.setattr(validation, "default_catalogue", broken)  # what checked_catalogue reads
    app = create_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n")
        assert isinstance(app.screen, MainMenuScreen)
        assert any("levels.3.slots" in n.message for n in app._notifications)
    assert app.data_problems_seen

    monkeypatch.setattr("horizon_tui.ui.player.app.HorizonApp.run", lambda self: self.data_problems())
    assert run_player_app(argparse.Namespace(command=None, saves=tmp_path)) == 1
    assert "levels.3.slots" in capsys.readouterr().err


def test_saves_live_in_the_user_data_folder_unless_saves_or_its_alias_says(tmp_path, monkeypatch):
    """INTERFACES.md: one flag name, --saves, for `horizon` and
    `horizon gm`, before or after the subcommand; --saves-dir kept as its alias."""
    from horizon_tui.cli import build_parser

    monkeypatch.setenv("HORIZON_DATA_DIR", str(tmp_path / "data-home"))
    parse = build_parser().parse_args
    default = (tmp_path / "data-home" / "saves").resolve()
    assert saves_dir_from(parse([])) == default
    assert saves_dir_from(parse(["play"])) == default
    assert saves_dir_from(parse(["gm"])) == default
    for argv in (["--saves", "/x"], ["--saves-dir", "/x"], ["play", "--saves", "/x"], ["play", "--saves-dir", "/x"],
                 ["gm", "--saves", "/x"], ["gm", "--saves-dir", "/x"], ["--saves", "/x", "play"],
                 ["--saves", "/x", "gm", "--campaign", "C"]):
        assert saves_dir_from(parse(argv)) == Path("/x"), argv
    assert create_app().saves_dir == default  # the app's own default is the same folder


def test_the_cli_and_the_rules_never_import_textual():
    code = (
        "import sys, horizon_tui.cli, horizon_tui.rules.creation, horizon_tui.play.library, "
        "horizon_tui.play.draft, horizon_tui.play.forms, horizon_tui.ui.player.launch\n"
        "horizon_tui.cli.build_parser()\n"
        "assert 'textual' not in sys.modules, sorted(m for m in sys.modules if m.startswith('textual'))"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
