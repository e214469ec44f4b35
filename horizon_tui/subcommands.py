"""Subcommands beyond the foundation's: each part of Horizon registers its own here, so
`cli.py` stays small and imports nothing heavy until a command runs."""

from __future__ import annotations

import argparse
import importlib

# command name -> (module, function, help); the module's `add_arguments(parser)` is optional
_COMMANDS: dict[str, tuple[str, str, str]] = {
    "play": ("horizon_tui.ui.player.launch", "run_player_app", "the player app (the default)"),
    "gm": ("horizon_tui.ui.gm.launch", "run_gm_app", "the game master's tool: campaign, NPCs, checks, fights"),
    "battle": ("horizon_tui.tools.battle_command", "cmd_battle", "a whole battle played by the AI, as a log"),
    "simulate": ("horizon_tui.tools.simulate", "cmd_simulate", "many battles: win rate, rounds, damage"),
    "sweep": ("horizon_tui.tools.sweep.sweep_command", "cmd_sweep",
              "win rates over encounters × party level × size, locally or on a Dask cluster"),
    "serve-ssh": ("horizon_tui.host.ssh.ssh_commands", "cmd_serve_ssh", "host the player app over SSH"),
    "users": ("horizon_tui.host.ssh.ssh_commands", "cmd_users", "the SSH host's accounts: add, list, remove"),
    "who": ("horizon_tui.host.ssh.ssh_commands", "cmd_who", "the SSH host's live sessions: player, character, screen, idle"),
    "replay": ("horizon_tui.host.recording", "cmd_replay", "play a game's recording (asciicast v2 .cast) in this terminal"),
}


def register(sub: argparse._SubParsersAction) -> None:
    for name, (_module, _function, help_text) in _COMMANDS.items():
        parser = sub.add_parser(name, help=help_text)
        adder = _ARGUMENTS.get(name)
        if adder:
            adder(parser)


def handler(name: str):
    module, function, _ = _COMMANDS[name]
    return getattr(importlib.import_module(module), function)


def add_saves_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """`--saves DIR` (INTERFACES.md, second round), `--saves-dir` kept as its alias. SUPPRESS as the
    default so `horizon --saves DIR play` keeps the top-level value instead of a subcommand's None."""
    parser.add_argument("--saves", "--saves-dir", dest="saves", type=str, default=argparse.SUPPRESS,
                        metavar="DIR", help=f"{what} (default: the saves folder in your user data folder)")


def saves_dir_from(args: argparse.Namespace):
    """The saves folder a command reads: `--saves DIR` (or `--saves-dir`, before or after the
    subcommand), else `horizon_tui.paths.default_saves_dir()`."""
    from pathlib import Path

    from horizon_tui.paths import default_saves_dir

    chosen = getattr(args, "saves", None)
    return Path(chosen).expanduser() if chosen else default_saves_dir()


def _play_arguments(parser: argparse.ArgumentParser) -> None:
    add_saves_argument(parser, "where characters and battles are saved")


def _gm_arguments(parser: argparse.ArgumentParser) -> None:
    add_saves_argument(parser, "the saves folder; campaigns go in its campaigns/")
    parser.add_argument("--campaign", type=str, default=None, metavar="NAME",
                        help="open this campaign (created if there is none by that name)")


def _battle_arguments(parser: argparse.ArgumentParser) -> None:
    from horizon_tui.tools.battle_command import add_battle_arguments

    add_battle_arguments(parser)


def _simulate_arguments(parser: argparse.ArgumentParser) -> None:
    from horizon_tui.tools.simulate import add_simulate_arguments

    add_simulate_arguments(parser)


_ARGUMENTS = {
    "play": _play_arguments, "gm": _gm_arguments, "battle": _battle_arguments, "simulate": _simulate_arguments,
    "sweep": lambda parser: importlib.import_module("horizon_tui.tools.sweep.sweep_command").add_sweep_arguments(parser),
    "serve-ssh": lambda parser: importlib.import_module("horizon_tui.host.ssh.ssh_commands").add_serve_arguments(parser),
    "users": lambda parser: importlib.import_module("horizon_tui.host.ssh.ssh_commands").add_users_arguments(parser),
    "who": lambda parser: importlib.import_module("horizon_tui.host.ssh.ssh_commands").add_who_arguments(parser),
    "replay": lambda parser: importlib.import_module("horizon_tui.host.recording").add_replay_arguments(parser),
}
