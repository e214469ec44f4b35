"""A campaign's fight at a live table: the same battle as a GM-run local one.

The battle is formed by `battles.start_battle` (the campaign's seed, house rules and what the last
fights left on the party), kept in the campaign as the battle in progress, and handed to a table
(`table.lobby`) with the party's characters seated at player accounts. Its inputs come back from
the table into the campaign's record (`battles.with_inputs`), and its end goes through the GM
tool's own end of battle (`ui.gm.screens.gm_battle.battle_ended`). No Textual here.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import attrs

from horizon_tui.content.catalogue import Catalogue
from horizon_tui.content.encounters import EnemyDef
from horizon_tui.engine.battle import ident
from horizon_tui.engine.persist import session_to_dict
from horizon_tui.errors import echo
from horizon_tui.campaign import battles
from horizon_tui.campaign.model import Campaign
from horizon_tui.campaign.house_rules import rules_data
from horizon_tui.table.lobby import ACCOUNT, SeatSpec, table_folder, write_spec


def table_id_for(campaign_name: str, now: float | None = None) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", campaign_name.lower()).strip("-")[:24] or "table"
    return f"{slug}-{int(now if now is not None else time.time()) % 100000:05d}"


def seats_from(gm: str, accounts: dict[str, str], spectators: str) -> tuple[list[SeatSpec], list[str]]:
    """The seats for a table: (seats, problems). `accounts`: character name → account or ''."""
    problems, by_account = [], {}
    for character, account in accounts.items():
        account = account.strip()
        if not account:
            continue
        if not ACCOUNT.fullmatch(account):
            problems.append(f"{character}: {echo(account)} is not an account name (lower-case letters, digits, - and _)")
            continue
        if account == gm:
            problems.append(f"{character}: {account} is the GM's own account; leave it blank for the GM to play")
            continue
        by_account.setdefault(account, []).append(character)
    seats = [SeatSpec(gm, "gm")] + [SeatSpec(a, "player", tuple(cs)) for a, cs in by_account.items()]
    for name in filter(None, (s.strip() for s in spectators.split(","))):
        if not ACCOUNT.fullmatch(name):
            problems.append(f"spectators: {echo(name)} is not an account name")
        elif name == gm or name in by_account:
            problems.append(f"spectators: {name} already has a seat")
        else:
            seats.append(SeatSpec(name, "spectator"))
    return seats, problems


def lay_table(campaign: Campaign, encounter: str, seats: list[SeatSpec], tables_dir: Path, table_id: str,
              base: Catalogue, rules_for: battles.RulesFor, enemies: dict[str, EnemyDef]) -> tuple[Campaign, Path]:
    """Form the campaign's battle with the whole party and write its table's folder; the campaign
    comes back with the battle in progress (its record names the table). The seats name
    characters; the table's seats name their combatants. ValueError/DataError/BattleError when
    the battle can't be formed (nothing is written then). The table opens in its lobby: the seats
    gather and talk until the GM begins the fight (F6)."""
    campaign, session = battles.start_battle(campaign, encounter, [m.name for m in campaign.party], base,
                                             rules_for, enemies)
    ids = {ident(e).name: uid for uid, e in session.battle.by_id.items() if ident(e).kind == "character"}
    seats = [SeatSpec(s.name, s.role, tuple(ids[c] for c in s.characters)) for s in seats]
    catalogue = battles.battle_catalogue(base, rules_for(campaign.rules))
    data = session_to_dict(session, catalogue)
    folder = write_spec(tables_dir, table_id, encounter=str(encounter), seed=session.battle.seed,
                        party=data["party"], seats=seats, opening=data["inputs"],
                        rules=rules_data(catalogue.rules) if campaign.rules else None, lobby=True)
    return attrs.evolve(campaign, battle=dict(campaign.battle, table=str(folder))), folder


def table_of(campaign: Campaign) -> Path | None:
    """The live table the campaign's battle in progress is played at (its socket is there)."""
    record = campaign.battle or {}
    folder = record.get("table")
    if not isinstance(folder, str) or not (Path(folder) / "table.sock").exists():
        return None
    return Path(folder)


def gm_token(folder: Path, account: str) -> str:
    """The GM's own invitation token (the GM's session wrote the table's folder)."""
    table_folder(folder.parent, folder.name)  # a table's folder name, or ValueError
    raw = (folder / "invites" / f"{account}.json").read_text(encoding="utf-8")
    data: Any = json.loads(raw)
    return str(data["token"])
