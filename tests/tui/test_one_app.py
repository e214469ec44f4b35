"""`horizon` and `horizon gm` run one app class (`ui.app.HorizonApp`) holding one of two hosts
(`ui.app_contract.AppHost`): a saves folder or a campaign. No subclass of the app; each host has
every member of the contract; a key only one host has is not the other's."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

import pytest

import horizon_tui.ui
from horizon_tui.ui.app import HorizonApp
from horizon_tui.ui.app_contract import AppContract, AppHost, PlayerHost, player_host
from horizon_tui.ui.gm.app import CampaignHost, create_gm_app
from horizon_tui.ui.gm.screens.dashboard import DashboardScreen
from horizon_tui.ui.gm.screens.dice import DiceScreen
from horizon_tui.ui.gm.screens.encounter import GMEncounterPickerScreen
from horizon_tui.ui.player.app import SavesFolder, create_app
from horizon_tui.ui.player.screens.main_menu import MainMenuScreen

def protocol_members(protocol: type) -> set[str]:
    """The names a Protocol asks for: its (and its Protocol bases') annotations and methods."""
    names: set[str] = set()
    for cls in protocol.__mro__:
        if cls in (Protocol, object) or not getattr(cls, "_is_protocol", False):
            continue
        names |= set(cls.__dict__.get("__annotations__", {}))
        names |= {name for name, value in vars(cls).items()
                  if not name.startswith("_") and (callable(value) or isinstance(value, property))}
    return names


def test_both_commands_run_the_one_app_class_with_their_own_host(tmp_path, catalogue):
    player = create_app(tmp_path / "saves")
    gm = create_gm_app(tmp_path / "gm-saves", catalogue)
    assert type(player) is type(gm) is HorizonApp and not HorizonApp.__subclasses__()
    assert isinstance(player.host, SavesFolder) and isinstance(gm.host, CampaignHost)
    assert player.title == "Horizon of Darkness" and gm.title == "Horizon GM"


def test_each_host_has_every_member_of_the_contract_and_the_app_answers_the_screens_contract(tmp_path, catalogue):
    wanted = protocol_members(AppHost)
    assert {"commit", "open_character", "start", "quit", "character_screen", "host_actions"} <= wanted
    player = SavesFolder(tmp_path, catalogue)
    gm = create_gm_app(tmp_path / "gm", catalogue).host
    for host in (player, gm):
        assert not [name for name in wanted if not hasattr(host, name)], type(host).__name__
    app = create_app(tmp_path)
    # (a property such as Textual's `screen` is looked for on the class: an app not running has no screen)
    assert not [name for name in protocol_members(AppContract) if not (hasattr(HorizonApp, name) or hasattr(app, name))]


async def test_the_gms_keys_are_the_gm_tools_only(tmp_path, catalogue):
    """f5 (dice) and ctrl+z (undo) are the campaign host's: in the player app they do nothing."""
    player = create_app(tmp_path / "saves")
    async with player.run_test(size=(80, 24)) as pilot:
        await pilot.press("f5", "ctrl+z")
        await pilot.pause()
        assert isinstance(player.screen, MainMenuScreen) and len(player.screen_stack) == 1
    gm = create_gm_app(tmp_path / "gm-saves", catalogue, campaign="Lantern Road")
    async with gm.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert isinstance(gm.screen, DashboardScreen)
        await pilot.press("f5")
        await pilot.pause()
        assert isinstance(gm.screen, DiceScreen)
        await pilot.press("escape", "t", "y")  # the next day: a GM action, undone by ctrl+z
        await pilot.pause()
        assert gm.campaign.day == 2
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert gm.campaign.day == 1


async def test_a_character_screens_battle_in_the_gm_tool_is_the_gms_picker(tmp_path, catalogue, make_character):
    """`app.start_battle` (the character screens' way into a fight) in the GM tool opens the GM's
    encounter picker, where the campaign's party fights; nothing of the player's saves is made."""
    gm = create_gm_app(tmp_path, catalogue, campaign="Lantern Road")
    async with gm.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        iriel = make_character()
        gm.open_character(tmp_path / "iriel.toml", iriel)
        await pilot.pause()
        gm.start_battle(tmp_path / "ambush.toml", gm.session.character)
        await pilot.pause()
        assert isinstance(gm.screen, GMEncounterPickerScreen)
    assert not (tmp_path / "battles").exists()


def test_no_screen_probes_its_app_for_a_member():
    """A screen reads what it asks of its app as `AppContract` types it, never probing for it
    with getattr (a probe would hide a member the contract lost behind a silent default)."""
    ui = Path(horizon_tui.ui.__file__).parent
    probes = [f"{path.relative_to(ui)}:{number}" for path in sorted(ui.rglob("*.py"))
              for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
              if "getattr(self.app," in line or "getattr(app," in line]
    assert probes == []


def test_a_players_screens_ask_their_host_through_the_player_host_contract(tmp_path, catalogue):
    """What a player's screens ask of the saves folder beyond `AppHost` (a battle's save guard, a
    party member's XP, resuming a kept battle...) is `PlayerHost`, which `make typecheck` checks the
    calls against; the GM tool's host has none of it, and asking it is a TypeError, not a lookup
    that finds nothing."""
    assert {"save_guard", "give_xp", "close_character", "resume_kept", "resume_in_progress"} <= protocol_members(PlayerHost)
    player = create_app(tmp_path / "saves")
    gm = create_gm_app(tmp_path / "gm", catalogue)
    assert player_host(player) is player.host and isinstance(player.host, PlayerHost)
    assert not isinstance(gm.host, PlayerHost)
    with pytest.raises(TypeError, match="CampaignHost"):
        player_host(gm)


def test_no_player_or_battle_screen_calls_its_host_untyped():
    """The player's screens and the battle flow reach their host only through `player_host(app)`
    (typed): never `app.host.NAME`, which no contract names."""
    ui = Path(horizon_tui.ui.__file__).parent
    calls = [f"{path.relative_to(ui)}:{number}" for folder in ("player", "battle")
             for path in sorted((ui / folder).rglob("*.py"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
             if "app.host." in line]
    assert calls == []
