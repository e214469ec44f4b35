"""`horizon serve-ssh` and `horizon users add|list|remove`.

This module is imported when the parser is built, so it imports nothing heavy at the top;
asyncssh comes in only when a command runs.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

DEFAULT_DATA_DIR = "saves/server"


def _count(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, not {text}")
    return value


def _port(text: str) -> int:
    value = int(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port (0 to 65535; 0 picks a free one)")
    return value


def _data_dir_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", type=Path, default=Path(DEFAULT_DATA_DIR),
                        help=f"host key, accounts and players' saves (default: {DEFAULT_DATA_DIR})")


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; 0.0.0.0 for every address)")
    parser.add_argument("--port", type=_port, default=2222, help="port (default 2222)")
    _data_dir_argument(parser)
    parser.add_argument("--idle-timeout", type=_seconds, default=1800.0, metavar="SECONDS",
                        help="end a session with no key pressed for this long, saving (default 1800; 0 never)")
    parser.add_argument("--max-sessions-per-user", type=_count, default=3, metavar="N",
                        help="sessions one user may have open at once (default 3)")
    parser.add_argument("--max-sessions", type=_count, default=50, metavar="M",
                        help="sessions open at once in all (default 50)")
    parser.add_argument("--max-failed-logins", type=_count, default=5, metavar="N",
                        help="failed logins from one address within --failed-login-window "
                             "before it is refused for --login-ban (default 5)")
    parser.add_argument("--failed-login-window", type=_seconds, default=60.0, metavar="SECONDS",
                        help="(default 60)")
    parser.add_argument("--login-ban", type=_seconds, default=60.0, metavar="SECONDS", help="(default 60)")
    parser.add_argument("--app-command", default=None, metavar="COMMAND",
                        help="run this instead of the player app (testing and benchmarks); "
                             "the user's saves folder is appended as the last argument")


def add_users_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="users_command", metavar="{add,list,remove}")
    sub.required = True
    p = sub.add_parser("add", help="let NAME log in with the public key in PUBKEY_FILE")
    p.add_argument("name")
    p.add_argument("--key", type=Path, required=True, metavar="PUBKEY_FILE",
                   help="an OpenSSH public key file, e.g. ~/.ssh/id_ed25519.pub")
    _data_dir_argument(p)
    p = sub.add_parser("list", help="the accounts")
    _data_dir_argument(p)
    p = sub.add_parser("remove", help="remove NAME's account (their saves stay)")
    p.add_argument("name")
    _data_dir_argument(p)


def cmd_serve_ssh(args) -> int:
    import asyncio

    from horizon_tui.ssh.server import HostSettings, configure_logging, serve

    configure_logging()
    app_command = tuple(shlex.split(args.app_command)) if args.app_command else None
    settings = HostSettings(
        data_dir=args.data_dir, host=args.host, port=args.port, idle_timeout=args.idle_timeout,
        max_sessions_per_user=args.max_sessions_per_user, max_sessions=args.max_sessions,
        max_failed_logins=args.max_failed_logins, failed_login_window=args.failed_login_window,
        login_ban=args.login_ban, app_command=app_command)
    try:
        return asyncio.run(serve(settings))
    except OSError as exc:  # the port is taken, the data folder can't be written, …
        print(f"horizon serve-ssh: {exc}", file=sys.stderr)
        return 1


def cmd_users(args) -> int:
    from horizon_tui.ssh.accounts import Accounts

    accounts = Accounts(args.data_dir)
    if args.users_command == "add":
        added, created = accounts.add(args.name, args.key)
        where = accounts.user_dir(args.name)
        if created:
            print(f"added user {args.name} ({added} key{'s' if added != 1 else ''}); saves in {where / 'saves'}")
        elif added:
            print(f"added {added} key{'s' if added != 1 else ''} to user {args.name}")
        else:
            print(f"user {args.name} already has that key")
        return 0
    if args.users_command == "list":
        names = accounts.names()
        for name in names:
            keys = len(accounts.key_lines(name))
            print(f"{name}\t{keys} key{'s' if keys != 1 else ''}")
        if not names:
            print(f"no users in {args.data_dir} (add one with `horizon users add NAME --key FILE`)",
                  file=sys.stderr)
        return 0
    where = accounts.remove(args.name)
    print(f"removed user {args.name}; their saves stay in {where / 'saves'}")
    return 0
