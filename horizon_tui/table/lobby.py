"""Opening a live table and finding one's invitation.

A table is a folder under the host's `tables/`: `spec.json` (what the table process needs: the
encounter, the seed, the party's characters, the seats), `table.sock` (the process's socket),
`battle.json` (the battle save, kept after every accepted input so a crash loses nothing),
`state.json` (whether the fight is in its lobby, going on or over, for the lists of tables) and
`invites/NAME.json` (each seat's token, read only by that account's session). Beside the tables,
`.offers/GM/PLAYER--FILE` holds the characters players offered to a GM (`offer_character`; kept in
the host's database instead when it was started with `--database`, storage/host_records.py): over
SSH the GM's session can't reach a player's saves, so this is how a player's own character comes
into the GM's campaign (the GM's Import lists them). The GM's session
opens the table; the table runs in a process of its own (`python -m horizon_tui.table DIR`), so
no session's crash takes it down.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import attrs

from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.content.characters import character_from_dict
from horizon_tui.content.convert import structure
from horizon_tui.content.encounters import load_enemies
from horizon_tui.content.ruleset import Ruleset
from horizon_tui.engine.encounter import load_encounter
from horizon_tui.engine.forming import PartyMember, create_battle
from horizon_tui.engine.runner import replay, run_ai
from horizon_tui.errors import echo
from horizon_tui.paths import private_dir, user_data_dir, write_private_json
from horizon_tui.storage.host_records import ENV_ACCOUNT as ENV_ACCOUNT  # who an app over SSH is
from horizon_tui.storage.host_records import OFFER_SEPARATOR, OFFERS, FolderOffers, CharacterOffer, OfferRepository
from horizon_tui.storage.host_wiring import offers_repository
from horizon_tui.table.core import input_from_dict

TABLE_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
ACCOUNT = re.compile(r"^[a-z_][a-z0-9_-]{0,31}$")
START_TIMEOUT_S = 30.0  # a process that imports the engine; slow on a loaded host


@attrs.frozen
class SeatSpec:
    name: str
    role: str  # gm | player | spectator
    characters: tuple[str, ...] = ()


@attrs.frozen
class Invite:
    table: str
    folder: Path
    seat: str
    role: str
    token: str
    characters: tuple[str, ...]
    over: bool = False  # the fight is over: the table is open only for its talk and its result
    opened: float = 0.0  # when the GM opened it (seconds since the epoch)

    @property
    def socket(self) -> Path:
        return self.folder / "table.sock"


STATE = "state.json"


def write_state(folder: Path, *, over: bool, lobby: bool) -> None:
    """What the lists of tables show without connecting (the table's process keeps it)."""
    write_private_json(Path(folder) / STATE, {"over": over, "lobby": lobby})


def _over(folder: Path) -> bool:
    try:
        raw = (folder / STATE).read_bytes()
        return len(raw) < 256 and json.loads(raw).get("over") is True
    except (OSError, ValueError, AttributeError):
        return False  # no state yet (a table just opening) or a damaged one: as the socket says


def table_folder(tables_dir: Path, table_id: str) -> Path:
    if not TABLE_ID.fullmatch(table_id):
        raise ValueError("a table's id is 1-40 lower-case letters, digits and '-'")
    return Path(tables_dir) / table_id


def write_spec(tables_dir: Path, table_id: str, *, encounter: str, seed: int, party: list[dict[str, Any]],
               seats: list[SeatSpec], absent_wait_s: float = 60.0, opening: list[dict[str, Any]] | None = None,
               rules: dict[str, Any] | None = None, lobby: bool = False) -> Path:
    """Lay out a table's folder with a fresh token per seat; returns the folder.

    `party`: [{"character": a character file's keys, "controller": "player" | "ai" | "gm"}].
    `opening`: inputs the battle starts with (what the last fights left on the party, as the GM
    tool records it), which no undo takes back; `rules`: the whole rules data (a campaign's house
    rules), when not the shipped ones; `lobby`: the table opens in its lobby (the seats gather and
    talk until the GM begins the fight)."""
    folder = private_dir(table_folder(tables_dir, table_id))
    invites = private_dir(folder / "invites")
    tokens = {}
    for seat in seats:
        if not ACCOUNT.fullmatch(seat.name):
            raise ValueError(f"{echo(seat.name)} is not an account name")
        tokens[seat.name] = secrets.token_urlsafe(24)
        write_private_json(invites / f"{seat.name}.json", {
            "table": table_id, "seat": seat.name, "role": seat.role, "token": tokens[seat.name],
            "characters": list(seat.characters)})
    write_private_json(folder / "spec.json", {
        "table": table_id, "encounter": encounter, "seed": seed, "party": party,
        "seats": [attrs.asdict(s) | {"characters": list(s.characters)} for s in seats],
        "absent_wait_s": absent_wait_s, "opening": list(opening or ()), "lobby": lobby} | ({"rules": rules} if rules else {}))
    write_private_json(folder / "tokens.json", tokens)  # read by the table process only
    return folder


@attrs.frozen
class TableSpec:
    """What every view of a table builds its replica from (spec.json; no tokens in it)."""

    table: str
    encounter: str
    seed: int
    seats: tuple[SeatSpec, ...]
    absent_wait_s: float
    rebuild: Any  # Callable[[list[Input]], Battle]
    party: tuple[Any, ...]  # engine PartyMember
    opening: tuple[Any, ...] = ()  # engine Input: the battle's first inputs, kept by every undo
    catalogue: Any = None  # the catalogue the battle runs under (the campaign's house rules)
    lobby: bool = False  # the table opens in its lobby: the GM begins the fight


def load_table(folder: Path, catalogue=None) -> TableSpec:
    """Read a table's spec.json (written by `write_spec`). DataError/ValueError if it is damaged."""
    raw = (Path(folder) / "spec.json").read_bytes()
    if len(raw) > 4 * 1024 * 1024:
        raise ValueError("spec.json is too large")
    spec = json.loads(raw)
    catalogue = catalogue or default_catalogue()
    if spec.get("rules"):
        catalogue = catalogue.with_rules(structure(spec["rules"], Ruleset, f"{folder}/spec.json: rules"))
    enemies = load_enemies(catalogue)
    setup = load_encounter(str(spec["encounter"]), catalogue, enemies)
    party = tuple(PartyMember(character_from_dict(m["character"], catalogue, f"spec.json: party.{i}"),
                              str(m.get("controller", "ai"))) for i, m in enumerate(spec["party"]))
    seed = int(spec["seed"])

    def rebuild(inputs):
        battle = create_battle(setup, list(party), seed, catalogue, enemies)
        replay(battle, inputs)
        run_ai(battle)
        return battle

    seats = tuple(SeatSpec(str(s["name"]), str(s["role"]), tuple(str(c) for c in s.get("characters", ())))
                  for s in spec["seats"])

    opening = tuple(input_from_dict(i) for i in spec.get("opening", ()))
    return TableSpec(str(spec["table"]), str(spec["encounter"]), seed, seats,
                     float(spec.get("absent_wait_s", 60)), rebuild, party, opening, catalogue,
                     spec.get("lobby") is True)


ENV_TABLES = "HORIZON_TABLES"
ENV_HOST_PID = "HORIZON_HOST_PID"  # the SSH host's process: a table ends (saved) when it is gone
PID_FILE = "table.pid"  # the table's process, while it runs (the host stops it when it stops)


def my_seat_place() -> tuple[str, Path]:
    """Who this app is at a table and where tables live: over SSH the host sets both
    (`HORIZON_ACCOUNT`, `HORIZON_TABLES`); on one machine the login name and the user data
    folder's `tables/` (so a GM and players in several terminals of one machine share a table)."""
    account = os.environ.get(ENV_ACCOUNT) or getpass.getuser()
    tables = os.environ.get(ENV_TABLES)
    return account, Path(tables) if tables else user_data_dir() / "tables"


def start_table(folder: Path) -> subprocess.Popen:
    """Run the table's process and wait until its socket is there."""
    sock = Path(folder) / "table.sock"
    sock.unlink(missing_ok=True)
    log = open(Path(folder) / "table.log", "ab")  # noqa: SIM115 - handed to the child
    proc = subprocess.Popen([sys.executable, "-m", "horizon_tui.table", str(folder)], stdin=subprocess.DEVNULL,
                            stdout=log, stderr=log, start_new_session=True)
    log.close()
    deadline = time.monotonic() + START_TIMEOUT_S
    while not sock.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"the table process did not start (see {Path(folder).name}/table.log)")
        time.sleep(0.02)
    return proc


def _table_process(pid: int, folder: Path) -> bool:
    """Whether `pid` is still the running process of the table in `folder` (not a number the
    system has since given to another process, nor one that has exited and awaits its parent)."""
    proc = Path("/proc") / str(pid)
    if not Path("/proc/self").exists():  # no /proc (macOS): the pid file is all there is
        try:
            os.kill(pid, 0)
        except (ProcessLookupError, PermissionError):
            return False
        return True
    try:
        argv = (proc / "cmdline").read_bytes().split(b"\0")
        state = (proc / "stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in (b"Z", b"X") and b"horizon_tui.table" in argv and os.fsencode(str(folder)) in argv


def stop_tables(tables_dir: Path, timeout: float = 10.0) -> list[str]:
    """Stop every table process under `tables_dir` (the host is stopping): each saves as it ends
    (SIGTERM); one that hasn't ended after `timeout` seconds is killed. The tables stopped."""
    root = Path(tables_dir)
    running: dict[str, int] = {}
    for pid_file in root.glob(f"*/{PID_FILE}") if root.is_dir() else ():
        try:
            pid = int(pid_file.read_text(encoding="ascii").strip())
        except (OSError, ValueError):
            continue
        if pid > 1 and _table_process(pid, pid_file.parent):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
                running[pid_file.parent.name] = pid
    deadline = time.monotonic() + timeout
    while any(_table_process(pid, root / name) for name, pid in running.items()) and time.monotonic() < deadline:
        time.sleep(0.05)
    for name, pid in running.items():
        if _table_process(pid, root / name):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    return sorted(running)


def invites_for(tables_dir: Path, account: str) -> list[Invite]:
    """The live tables `account` is seated at (a table whose socket is gone is closed): those
    whose fight goes on first, the newest first, then those whose fight is over."""
    found = []
    root = Path(tables_dir)
    if not root.is_dir() or not ACCOUNT.fullmatch(account):
        return found
    for folder in sorted(root.iterdir()):
        path = folder / "invites" / f"{account}.json"
        if not (folder / "table.sock").exists() or not path.is_file():
            continue
        try:
            raw = path.read_bytes()
            data = json.loads(raw) if len(raw) < 4096 else None
            found.append(Invite(str(data["table"]), folder, str(data["seat"]), str(data["role"]),
                                str(data["token"]), tuple(str(c) for c in data.get("characters", [])),
                                _over(folder), (folder / "spec.json").stat().st_mtime))
        except (OSError, ValueError, KeyError, TypeError):
            continue  # a damaged invitation is no invitation
    return sorted(found, key=lambda invite: (invite.over, -invite.opened))


# --- characters offered to a GM ----------------------------------------------------------------

MAX_OFFERS_PER_PLAYER = 12  # to every GM together (so made-up GM names can't fill the disk); the
                            # same file offered again to the same GM replaces the old copy


def offers_dir(tables_dir: Path, gm: str) -> Path:
    return Path(tables_dir) / OFFERS / gm


def offer_character(tables_dir: Path, account: str, gm: str, save: Path, max_bytes: int,
                    offers: OfferRepository | None = None) -> Path:
    """Offer `account`'s character file `save` to the GM account `gm` to import (kept in `offers`:
    the host's database with `serve-ssh --database`, else the tables folder); returns where the
    GM's Import reads it. ValueError (a sentence for the player) for a bad GM name, too many
    offers or too big a file."""
    gm = gm.strip()
    if not ACCOUNT.fullmatch(gm):
        raise ValueError(f"{echo(gm)} is not an account name (lower-case letters, digits, - and _)")
    if gm == account:
        raise ValueError("that is your own account: offer it to your GM's")
    data = Path(save).read_bytes()
    if len(data) > max_bytes:
        raise ValueError(f"{Path(save).name} is bigger than {max_bytes:,} bytes")
    offers = offers if offers is not None else offers_repository(tables_dir)
    mine = [offer for offer in offers.by_player(account) if offer != (gm, Path(save).name)]
    if len(mine) >= MAX_OFFERS_PER_PLAYER:
        raise ValueError(f"you have {len(mine)} characters offered already; ask your GM to import them")
    offers.put(CharacterOffer(gm, account, Path(save).name, data, time.time()))
    return offers_dir(tables_dir, gm) / f"{account}{OFFER_SEPARATOR}{Path(save).name}"


def offers_for(tables_dir: Path, gm: str, offers: OfferRepository | None = None) -> list[Path]:
    """The character files offered to `gm`, newest first, as files the GM's Import reads: the
    tables folder's own, or the database's written there (private) when the host keeps them in
    one, so an offer made through another host is here too."""
    if not ACCOUNT.fullmatch(gm):
        return []
    offers = offers if offers is not None else offers_repository(tables_dir)
    if isinstance(offers, FolderOffers) and offers.root == Path(tables_dir) / OFFERS:
        return offers.paths_for(gm)
    copies = FolderOffers(tables_dir)
    for offer in offers.for_gm(gm):
        if (ACCOUNT.fullmatch(offer.player) and not offer.filename.startswith(".")
                and not set(offer.filename) & {"/", "\0"}):
            copies.put(offer)
    return copies.paths_for(gm)


def offered_by(path: Path | str) -> str | None:
    """The account that offered this file (None if it is not an offer)."""
    path = Path(path)
    if path.parent.parent.name != OFFERS or OFFER_SEPARATOR not in path.name:
        return None
    account = path.name.split(OFFER_SEPARATOR, 1)[0]
    return account if ACCOUNT.fullmatch(account) else None
