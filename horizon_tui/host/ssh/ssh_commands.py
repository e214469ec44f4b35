"""`horizon serve-ssh` and `horizon users add|list|role|remove`.

This module is imported when the parser is built, so it imports nothing heavy at the top;
asyncssh comes in only when a command runs.
"""

from __future__ import annotations

# At the top only what `horizon --help` loads anyway: subcommands.py imports this module to build
# the commands' arguments, so asyncssh, aiohttp and the host's modules wait for the command.

import argparse
import shlex
import socket
import sys
from pathlib import Path

from horizon_tui.host.recording import RecordingLimits
from horizon_tui.paths import path_argument

SERVE_DESCRIPTION = """\
Host the player app over SSH (examples at the end; the README's "Hosting over SSH" says more).

Before logging in, a connection has --login-grace-time seconds; one address may have
--max-startups-per-source connections not logged in yet (an IPv6 /64 counts as one address),
and past START of them in all a new one from an address that already has one waiting is dropped
with probability RATE %, rising to 100 % at FULL (OpenSSH's MaxStartups). An address flooding
the host fills only its own places. Logged in, one account may hold
--max-connections-per-user connections and --max-sessions-per-user games."""


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, not {value}")
    return value


def _host(text: str) -> str:
    """An empty --host (an unset variable) would listen on every address: only 0.0.0.0 says that."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty address would listen on every address; say 0.0.0.0 for that")
    return text


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 <= value <= 86400 * 366:  # also refuses nan and inf
        raise argparse.ArgumentTypeError(f"must be from 0 to a year in seconds, not {text}")
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port (0 to 65535; 0 picks a free one)")
    return value


def _web_listen(text: str) -> tuple[str, int]:
    from horizon_tui.host.web.server import parse_listen

    try:
        return parse_listen(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _proxies(text: str) -> tuple[str, ...]:
    from horizon_tui.host.ssh.proxy_protocol import trusted_networks

    try:
        trusted_networks(text.split(","))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return tuple(item.strip() for item in text.split(",") if item.strip())


def _web_url(text: str) -> str:
    from horizon_tui.host.web.server import parse_public_url

    try:
        return parse_public_url(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _startups(text: str):
    from horizon_tui.host.limits import Startups

    try:
        return Startups.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _data_dir_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data-dir", type=path_argument, default=None, metavar="DIR",
                        help="host key, accounts and players' saves (default: the user data "
                             "folder's server/, e.g. ~/.local/share/horizon/server)")


def _database(text: str) -> str:
    """A database URL; an SQLite file's relative path made absolute here, since the apps the host
    starts run in each user's folder and would otherwise each open a file of their own."""
    prefix = "sqlite:///"
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty URL (sqlite:///PATH or postgresql://USER@HOST/DB)")
    if text.startswith(prefix) and not text.startswith(prefix + "/"):
        path, _, query = text[len(prefix):].partition("?")
        return prefix + str(Path(path).expanduser().resolve()) + (f"?{query}" if query else "")
    return text


def _database_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--database", type=_database, default=None, metavar="URL",
                        help="keep accounts (and what players offer their GM) in this database "
                             "instead of the data folder's files: postgresql://USER@HOST/DB for "
                             "several hosts behind a balancer (pip install 'horizon-tui[postgres]'), "
                             "or sqlite:///PATH; the folder's accounts are imported the first time")


def data_dir_of(args) -> Path:
    """`--data-dir` as an absolute path, resolved once, here (serve-ssh and users agree)."""
    from horizon_tui.host.ssh.server import resolved_dir

    return resolved_dir(args.data_dir)


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter  # examples: cli_help.py
    parser.description = SERVE_DESCRIPTION
    parser.add_argument("--host", type=_host, default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1; 0.0.0.0 for every address)")
    parser.add_argument("--port", type=_port, default=2222, help="port (default 2222)")
    _data_dir_argument(parser)
    _database_argument(parser)
    parser.add_argument("--motd", type=path_argument, default=None, metavar="FILE",
                        help="a message (UTF-8 text, at most 8 KiB) shown after login, before the menu")
    parser.add_argument("--idle-timeout", type=_seconds, default=1800.0, metavar="SECONDS",
                        help="end a session with no key pressed for this long, saving (default 1800; 0 never)")
    parser.add_argument("--max-sessions-per-user", type=_count, default=3, metavar="N",
                        help="games one user may have open at once (default 3)")
    parser.add_argument("--max-sessions", type=_count, default=50, metavar="M",
                        help="games open at once in all (default 50)")
    parser.add_argument("--max-connections-per-user", type=_count, default=4, metavar="N",
                        help="connections logged in as one account at once, with a game or not (default 4)")
    parser.add_argument("--login-grace-time", type=_seconds, default=10.0, metavar="SECONDS",
                        help="a connection not logged in this long after connecting is dropped, and "
                             "a login that opens no session this long after is closed (default 10; 0 never)")
    parser.add_argument("--max-startups", type=_startups, default=None, metavar="START:RATE:FULL",
                        help="connections not logged in yet, in all: random early drop from START "
                             "at RATE %%, every new one dropped at FULL (default 10:30:100)")
    parser.add_argument("--max-startups-per-source", type=_count, default=3, metavar="N",
                        help="connections not logged in yet from one address (default 3)")
    parser.add_argument("--proxy-protocol-from", type=_proxies, default=(), metavar="ADDR[,ADDR…]",
                        help="balancers (addresses or networks, e.g. 10.0.0.5,10.0.1.0/24) that send the "
                             "PROXY protocol v2 header (HAProxy's send-proxy-v2): the client's address it "
                             "names is the one the per-address limits count. A header from any other "
                             "address is refused, and so is a connection from these without one")
    parser.add_argument("--max-failed-logins", type=_count, default=5, metavar="N",
                        help="failed logins from one address within --failed-login-window "
                             "before it is refused for --login-ban (default 5)")
    parser.add_argument("--failed-login-window", type=_seconds, default=60.0, metavar="SECONDS",
                        help="(default 60)")
    parser.add_argument("--login-ban", type=_seconds, default=60.0, metavar="SECONDS", help="(default 60)")
    parser.add_argument("--app-command", default=None, metavar="COMMAND",
                        help="run this instead of the player app (testing and benchmarks); "
                             "the user's saves folder is appended as the last argument")
    add_live_arguments(parser)
    parser.add_argument("--web", type=_web_listen, default=None, metavar="HOST:PORT",
                        help="also serve the game to browsers here (e.g. 127.0.0.1:8080, for a TLS "
                             "proxy in front); players log in with `ssh -t … web-login`")
    parser.add_argument("--web-url", type=_web_url, default=None, metavar="URL",
                        help="the address browsers use, e.g. https://horizon.example.org behind a TLS "
                             "proxy: login links name it, the Origin must be it, and an https:// one "
                             "makes the login cookie Secure (default http://HOST:PORT of --web)")


def add_live_arguments(parser: argparse.ArgumentParser) -> None:
    """Watching and recordings (`watch.py`, `recording.py`)."""
    parser.add_argument("--spectators", choices=("none", "users", "anyone"), default="users",
                        help="who may watch live games with `ssh -t -p PORT NAME@HOST watch`: none; "
                             "users (any account, the default); anyone (also `ssh -t watch@HOST`, "
                             "no key needed, to watch only)")
    parser.add_argument("--no-recordings", action="store_true",
                        help="don't record games (by default each is kept as an asciicast v2 "
                             "file under DIR/recordings/USER/DATE/)")
    parser.add_argument("--recording-max-mib", type=_seconds, default=20.0, metavar="MIB",
                        help="one recording stops at this size (default 20)")
    parser.add_argument("--recordings-max-mib", type=_seconds, default=500.0, metavar="MIB",
                        help="a user's recordings in all; the oldest go first (default 500)")
    parser.add_argument("--recordings-keep-days", type=_seconds, default=30.0, metavar="DAYS",
                        help="recordings older than this are removed (default 30; 0 keeps them)")


def live_settings(args) -> dict:
    limits = RecordingLimits(max_bytes=int(args.recording_max_mib * 2**20),
                             max_user_bytes=int(args.recordings_max_mib * 2**20),
                             keep_days=args.recordings_keep_days)
    return {"spectators": args.spectators, "record": not args.no_recordings,
            "recording_limits": limits}


def add_who_arguments(parser: argparse.ArgumentParser) -> None:
    _data_dir_argument(parser)


def cmd_who(args) -> int:
    from horizon_tui.host.live import print_who

    return print_who(data_dir_of(args))


def add_users_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="users_command", metavar="{add,list,role,remove}")
    sub.required = True
    p = sub.add_parser("add", help="let NAME log in with the public key in PUBKEY_FILE")
    p.add_argument("name")
    p.add_argument("--key", type=path_argument, required=True, metavar="PUBKEY_FILE",
                   help="an OpenSSH public key file, e.g. ~/.ssh/id_ed25519.pub "
                        "(ed25519, or RSA of 3072 bits or more)")
    p.add_argument("--gm", action="store_true",
                   help="a game master's account (an existing player's account becomes one)")
    _data_dir_argument(p)
    _database_argument(p)
    p = sub.add_parser("list", help="the accounts: name, role, keys")
    _data_dir_argument(p)
    _database_argument(p)
    p = sub.add_parser("role", help="make NAME's account a GM's or a player's")
    p.add_argument("name")
    p.add_argument("role", choices=("gm", "player"))
    _data_dir_argument(p)
    _database_argument(p)
    p = sub.add_parser("remove", help="remove NAME's account (their saves stay)")
    p.add_argument("name")
    _data_dir_argument(p)
    _database_argument(p)


def cmd_serve_ssh(args) -> int:
    import asyncio

    from horizon_tui.host.limits import Startups
    from horizon_tui.host.motd import read_motd
    from horizon_tui.host.ssh.server import HostSettings, configure_logging, serve

    startups = args.max_startups or Startups()
    if args.max_startups_per_source >= startups.full:
        print(f"horizon serve-ssh: --max-startups-per-source {args.max_startups_per_source} must be "
              f"below --max-startups' FULL ({startups.full})", file=sys.stderr)
        return 2
    if args.web_url and not args.web:
        print("horizon serve-ssh: --web-url names where browsers reach --web HOST:PORT; give --web too",
              file=sys.stderr)
        return 2
    motd = read_motd(args.motd) if args.motd is not None else None  # MotdError: exit 1
    configure_logging()
    app_command = tuple(shlex.split(args.app_command)) if args.app_command else None
    settings = HostSettings(
        data_dir=data_dir_of(args), host=args.host, port=args.port, idle_timeout=args.idle_timeout,
        max_sessions_per_user=args.max_sessions_per_user, max_sessions=args.max_sessions,
        max_failed_logins=args.max_failed_logins, failed_login_window=args.failed_login_window,
        login_ban=args.login_ban, login_timeout=args.login_grace_time, max_startups=startups,
        max_startups_per_source=args.max_startups_per_source,
        max_connections_per_user=args.max_connections_per_user, motd=motd,
        app_command=app_command, web=args.web, web_url=args.web_url, database=args.database,
        proxy_protocol_from=args.proxy_protocol_from, **live_settings(args))
    try:
        return asyncio.run(serve(settings))
    except socket.gaierror as exc:  # the name of no address
        print(f"horizon serve-ssh: --host {args.host}: no such address ({exc.strerror or exc})", file=sys.stderr)
        return 1
    except OSError as exc:  # the port is taken, the data folder can't be written, …
        print(f"horizon serve-ssh: {exc}", file=sys.stderr)
        return 1


def cmd_users(args) -> int:
    from horizon_tui.host.web.logins import FileLoginStore
    from horizon_tui.storage.accounts import host_accounts

    data_dir = data_dir_of(args)
    accounts = host_accounts(data_dir, args.database)
    if args.users_command == "add":
        was = accounts.role(args.name) if accounts.exists(args.name) else None
        added, created = accounts.add(args.name, args.key, role="gm" if args.gm else None)
        where = accounts.user_dir(args.name)
        role = accounts.role(args.name)
        if created:
            print(f"added {'GM' if role == 'gm' else 'user'} {args.name} "
                  f"({added} key{'s' if added != 1 else ''}); saves in {where / 'saves'}")
        else:
            if added:
                print(f"added {added} key{'s' if added != 1 else ''} to user {args.name}")
            elif was == role:
                print(f"user {args.name} already has that key")
            if was != role:
                print(f"user {args.name} is now a GM")
        return 0
    if args.users_command == "list":
        names = accounts.names()
        for name in names:
            keys = len(accounts.key_lines(name))
            print(f"{name}\t{accounts.role(name)}\t{keys} key{'s' if keys != 1 else ''}")
        if not names:
            print(f"no users in {accounts.where} (add one with `horizon users add NAME --key FILE`)",
                  file=sys.stderr)
        return 0
    if args.users_command == "role":
        accounts.set_role(args.name, args.role)
        print(f"user {args.name} is now a {'GM' if args.role == 'gm' else 'player'}")
        return 0
    where = accounts.remove(args.name)
    browsers = FileLoginStore(data_dir).end_sessions(args.name)
    print(f"removed user {args.name}; their saves stay in {where / 'saves'}"
          + (f"; {browsers} browser login{'s' if browsers != 1 else ''} ended" if browsers else ""))
    return 0
