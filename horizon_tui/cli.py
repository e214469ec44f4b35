"""The `horizon` command. Heavy imports (textual, tcod) happen inside the commands that need them,
so `horizon sheet` stays fast.

Exit codes (INTERFACES.md): 0 done, 1 a problem with the input, 2 bad command-line usage,
70 an internal error (one line naming a crash report, horizon_tui.crash).
"""

from __future__ import annotations

import argparse
import json
import sys

from horizon_tui import __version__, subcommands
from horizon_tui.cli_help import attach
from horizon_tui.paths import path_argument
from horizon_tui.errors import DataError, HorizonError
from horizon_tui.terminal import empty_no_color_is_unset, tolerate_any_encoding

EXIT_OK, EXIT_INPUT, EXIT_USAGE = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse exits 2 on usage errors; keep that, say it plainly
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"horizon: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="horizon", description="Horizon of Darkness: player app, GM tool and rules.")
    parser.add_argument("--version", action="version", version=f"horizon {_version()}")
    parser.add_argument("--saves", "--saves-dir", dest="saves", type=path_argument, default=None, metavar="DIR",
                        help="the saves folder (default: saves/ in your user data folder)")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    p = sub.add_parser("sheet", help="a character's sheet")
    p.add_argument("file", type=path_argument)
    p.add_argument("--json", action="store_true", help="one JSON object")

    p = sub.add_parser("rules", help="the rules data in force, house defaults marked [H]")
    p.add_argument("--json", action="store_true")
    p.add_argument("--rules-file", type=path_argument, default=None, help="a campaign's own rules.toml")

    p = sub.add_parser("roll", help="roll dice, e.g. 2d6+3")
    p.add_argument("expr", help="dice and numbers: 2d6+3, 4d6kh3, (1d8+2)*2; one that starts with '-' "
                                "goes after --: horizon roll -- -1d4")
    p.add_argument("--seed", type=int, default=None, help="the same seed, the same roll (default: a random one)")
    p.add_argument("--json", action="store_true", help="one JSON object: expr, total, rolls, seed, min, max")

    p = sub.add_parser("validate", help="check data files, characters, encounters and saves")
    p.add_argument("paths", nargs="+", type=path_argument)

    subcommands.register(sub)

    attach(parser, sub)
    return parser


def _version() -> str:
    return __version__


def main(argv: list[str] | None = None, parser: argparse.ArgumentParser | None = None) -> int:
    tolerate_any_encoding(sys.stdout, sys.stderr)
    empty_no_color_is_unset()
    parser = parser or build_parser()  # the SSH host's session server builds it once for every session
    args = parser.parse_args(argv)
    command = args.command or "play"
    try:
        handler = globals().get(f"cmd_{command}")
        if handler is None:
            handler = subcommands.handler(command)
        return handler(args) or EXIT_OK
    except DataError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return EXIT_INPUT
    except HorizonError as exc:
        print(f"horizon: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `horizon rules | head`: the reader has all it wanted
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except SystemExit:
        raise
    except Exception as exc:  # noqa: BLE001 - a bug is reported, never shown as a traceback
        from horizon_tui.crash import EXIT_INTERNAL, one_line, write_report

        print(one_line(write_report(exc, f"horizon {command}")), file=sys.stderr)
        return EXIT_INTERNAL


def _catalogue():
    from horizon_tui.rules.validation import checked_catalogue

    return checked_catalogue()  # its rules sane: a GM's broken formula is named, not a crash


def cmd_sheet(args) -> int:
    from horizon_tui.content.characters import load_character
    from horizon_tui.rules.character import build, sheet
    from horizon_tui.rules.validation import check_character

    catalogue = _catalogue()
    character = load_character(args.file, catalogue)
    problems = check_character(character, catalogue, str(args.file))
    if problems:
        from horizon_tui.content.files import locate, read_document

        raise DataError(locate(problems, read_document(args.file)[1]))
    data = sheet(build(character, catalogue.rules))
    if args.json:
        print(json.dumps(data, ensure_ascii=False))
    else:
        from horizon_tui.tools.cli_tables import print_sheet

        print_sheet(data)
    return EXIT_OK


def cmd_rules(args) -> int:
    from horizon_tui.content.catalogue import default_catalogue, load_ruleset
    from horizon_tui.tools.cli_tables import print_rules, rules_document

    rules = load_ruleset(args.rules_file) if args.rules_file else default_catalogue().rules  # shown as they are
    if args.json:
        print(json.dumps(rules_document(rules), ensure_ascii=False))
    else:
        print_rules(rules)
    return EXIT_OK


def cmd_roll(args) -> int:
    import random

    from horizon_tui.rules.dice import DiceError, parse_dice

    try:
        dice = parse_dice(args.expr)
    except DiceError as exc:
        print(f"horizon roll: {exc}", file=sys.stderr)
        return EXIT_INPUT
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    total, faces = dice.roll_detailed(random.Random(seed))
    if args.json:
        print(json.dumps({
            "expr": str(dice), "total": total, "rolls": faces, "seed": seed,
            "min": dice.minimum, "max": dice.maximum,
        }))
    else:
        shown = f" [{', '.join(map(str, faces))}]" if faces else ""
        print(f"{dice} = {total}{shown}  (range {dice.minimum}–{dice.maximum}, seed {seed})")
    return EXIT_OK


def cmd_validate(args) -> int:
    from horizon_tui.tools.validate import validate_paths

    problems, checked = validate_paths(args.paths)
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem{'s' if len(problems) != 1 else ''} in {checked} file(s)", file=sys.stderr)
        return EXIT_INPUT
    print(f"ok: {checked} file(s) checked, no problems")
    return EXIT_OK


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
