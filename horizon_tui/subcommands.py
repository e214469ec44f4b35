"""Subcommands beyond the foundation's: each part of Horizon registers its own here, so
`cli.py` stays small and imports nothing heavy until a command runs."""

from __future__ import annotations

import argparse
import importlib
import os

# command name -> (module, function, help); the module's `add_arguments(parser)` is optional
_COMMANDS: dict[str, tuple[str, str, str]] = {
    "play": ("horizon_tui.ui.player.launch", "run_player_app", "the player app (the default)"),
    "gm": ("horizon_tui.ui.gm.launch", "run_gm_app", "the game master's tool: campaign, NPCs, checks, fights"),
    "battle": ("horizon_tui.tools.battle_command", "cmd_battle", "a whole battle played by the AI, as a log"),
    "simulate": ("horizon_tui.tools.simulate", "cmd_simulate", "many battles: win rate, rounds, damage"),
    "sweep": ("horizon_tui.tools.sweep.sweep_command", "cmd_sweep",
              "win rates over encounters × party level × size, locally or on a Dask cluster"),
    "run": ("horizon_tui.ui.player.launch", "run_command",
            "a run: fights from depth 1 until the party falls (or, with --simulate, many runs by the AI)"),
    "scores": ("horizon_tui.play.runs.scores", "cmd_scores", "the hall of fame: runs by depth and score"),
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


# Environment defaults a command sets before its module (and so Textual) is imported; a value the
# user set wins. The GM tool: Textual paints at most MAX_FPS frames a second (TEXTUAL_FPS, 60 by
# default) and a GM action that closes a form takes two or three frames, so at 60 the pacing alone
# added 30-40 ms of waiting to a new NPC's key → screen (bench/bench_gm_evening.py: wall p50 79 ms
# against 40 of CPU at 20,000 log lines; 34 at 240). It runs in the GM's own terminal, not over a
# host's network, where more frames would be more bytes.
_ENVIRONMENT: dict[str, dict[str, str]] = {"gm": {"TEXTUAL_FPS": "240"}}


def handler(name: str):
    module, function, _ = _COMMANDS[name]
    for key, value in _ENVIRONMENT.get(name, {}).items():
        os.environ.setdefault(key, value)
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


def _run_arguments(parser: argparse.ArgumentParser) -> None:
    from horizon_tui.paths import path_argument

    add_saves_argument(parser, "where characters, battles and runs are saved")
    parser.add_argument("--seed", type=int, default=None, metavar="N", help="the run's seed (default: a new one)")
    parser.add_argument("--daily", action="store_true", help="today's seed, the same for everyone (UTC)")
    parser.add_argument("--pace", default="source", metavar="NAME", help="the fights' pace (data/runs.toml): source | brisk")
    parser.add_argument("--simulate", action="store_true", help="play --runs whole runs by the AI and report the depths")
    parser.add_argument("--runs", type=int, default=100, metavar="N", help="with --simulate: runs to play")
    parser.add_argument("--party", nargs="+", type=path_argument, default=None, metavar="FILE",
                        help="with --simulate: one to six character files")
    parser.add_argument("--workers", type=int, default=None, metavar="K", help="local processes (default: the cores)")
    parser.add_argument("--scheduler", default=None, metavar="tcp://HOST:PORT", help="run on a Dask cluster")
    parser.add_argument("--json", action="store_true", help="with --simulate: one JSON object")


_ARGUMENTS = {
    "run": _run_arguments,
    "scores": lambda parser: importlib.import_module("horizon_tui.play.runs.scores").add_scores_arguments(parser),
    "play": _play_arguments, "gm": _gm_arguments, "battle": _battle_arguments, "simulate": _simulate_arguments,
    "sweep": lambda parser: importlib.import_module("horizon_tui.tools.sweep.sweep_command").add_sweep_arguments(parser),
    "serve-ssh": lambda parser: importlib.import_module("horizon_tui.host.ssh.ssh_commands").add_serve_arguments(parser),
    "users": lambda parser: importlib.import_module("horizon_tui.host.ssh.ssh_commands").add_users_arguments(parser),
    "who": lambda parser: importlib.import_module("horizon_tui.host.ssh.ssh_commands").add_who_arguments(parser),
    "replay": lambda parser: importlib.import_module("horizon_tui.host.recording").add_replay_arguments(parser),
}
