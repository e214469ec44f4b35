"""Examples shown at the end of every `horizon … --help` (one table, so no command goes without).

A test (tests/cli/test_conventions.py) checks that every subcommand has an entry here.
"""

from __future__ import annotations

import argparse

MAIN = """\
examples:
  horizon                                   the player app (saves in your user data folder)
  horizon --saves ./my-saves                the player app over another saves folder
  horizon gm                                the game master's tool
  horizon sheet examples/party/iriel.toml   a character's sheet
  horizon battle standard --party examples/party/*.toml --seed 7
  horizon COMMAND --help                    each command's own options and examples
exit codes: 0 done, 1 a problem with the input, 2 bad usage, 70 an internal error (a crash report)"""

EXAMPLES: dict[str, str] = {
    "play": """\
  horizon play                         the player app (the same as plain `horizon`)
  horizon play --saves ./my-saves      keep characters and battles in ./my-saves""",
    "gm": """\
  horizon gm                           the campaign list
  horizon gm --campaign "Iron Coast"   open (or start) that campaign
  horizon gm --saves ./table           campaigns under ./table/campaigns""",
    "sheet": """\
  horizon sheet examples/party/iriel.toml
  horizon sheet my-hero.json --json    one JSON object (INTERFACES.md)""",
    "rules": """\
  horizon rules                        the level table, difficulties, armor, checks; [H] = house rule
  horizon rules --json
  horizon rules --rules-file campaign/rules.toml""",
    "roll": """\
  horizon roll 2d6+3
  horizon roll 4d6kh3 --seed 1 --json
  horizon roll -- -1d4+2               an expression starting with '-' goes after --""",
    "validate": """\
  horizon validate data/               the whole catalogue
  horizon validate examples/party/*.toml my-saves/""",
    "battle": """\
  horizon battle standard --party examples/party/*.toml --seed 7
  horizon battle data/encounters/wolves.toml --party examples/party/iriel.toml --json""",
    "simulate": """\
  horizon simulate standard --party examples/party/*.toml --runs 500
  horizon simulate wolves --party examples/party/*.toml --runs 2000 --workers 2 --json""",
    "run": """\
  horizon run                  (the player app, on a new run's first screen)
  horizon run --seed 42        (a run everyone can replay: same seed, same offers and fights)
  horizon run --daily          (today's seed, the same for everyone; its own hall of fame)
  horizon run --simulate --runs 200 --seed 1 --party examples/party/*.toml
  horizon run --simulate --runs 1000 --seed 1 --party examples/party/iriel.toml --workers 2 --json""",
    "scores": """\
  horizon scores
  horizon scores --daily
  horizon scores --data-dir /srv/horizon   (an SSH host's shared hall of fame)
  horizon scores --database postgresql://horizon@db.lan/horizon   (every host's, with serve-ssh --database)""",
    "sweep": """\
  horizon sweep standard wolves --party examples/party/*.toml --levels 2,4,6 --runs 200
  horizon sweep standard --party examples/party/*.toml --levels 2,4 --sizes 1-4 --runs 100 --csv
  horizon sweep standard --party examples/party/*.toml --levels 2,4 --runs 500 --scheduler tcp://127.0.0.1:8786
  horizon sweep data/encounters/*.toml --party examples/party/*.toml --levels 2-6 --sizes 1-6 --runs 100 --rate
  horizon sweep wolves --party examples/party/*.toml --levels 2-4 --runs 200 --report wolves.html""",
    "serve-ssh": """\
  horizon serve-ssh                                  127.0.0.1:2222, data in your user data folder
  horizon serve-ssh --host 0.0.0.0 --port 2222 --data-dir /srv/horizon --motd motd.txt
  horizon serve-ssh --login-grace-time 5 --max-startups 10:30:60 --max-startups-per-source 2
  horizon serve-ssh --web 127.0.0.1:8080 --web-url https://horizon.example.org   browsers too, behind a TLS proxy
  players connect with: ssh -p 2222 alice@your.host
  and log a browser in with: ssh -t -p 2222 alice@your.host web-login""",
    "users": """\
  horizon users add alice --key ~/.ssh/id_ed25519.pub
  horizon users add mira --key mira.pub --gm         a game master's account
  horizon users role alice gm                        make an account a GM's (or: player)
  horizon users list                                 name, role, keys
  horizon users remove alice""",
    "replay": """\
  horizon replay session.cast
  horizon replay session.cast --speed 4""",
    "who": """\
  horizon who
  horizon who --data-dir /srv/horizon""",
}


def attach(parser: argparse.ArgumentParser, sub: argparse._SubParsersAction) -> None:
    """Put the examples under each parser's --help, keeping their line breaks."""
    parser.epilog = MAIN
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    for name, child in sub.choices.items():
        text = EXAMPLES.get(name)
        if text:
            child.epilog = "examples:\n" + text
            child.formatter_class = argparse.RawDescriptionHelpFormatter
            _attach_nested(name, child, text)


def _attach_nested(name: str, parser: argparse.ArgumentParser, text: str) -> None:
    """`horizon users add --help` and the like: the command's examples of that subcommand."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for inner, child in action.choices.items():
                lines = [line for line in text.splitlines() if line.split()[:3] == ["horizon", name, inner]]
                if lines:
                    child.epilog = "examples:\n" + "\n".join(lines)
                    child.formatter_class = argparse.RawDescriptionHelpFormatter
