"""A table over the shipped `standard` encounter: two seated players, the rest the AI's."""

from __future__ import annotations

from pathlib import Path

from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.content.characters import load_character
from horizon_tui.content.encounters import load_enemies
from horizon_tui.engine import ai
from horizon_tui.engine.actions import Wait
from horizon_tui.engine.battle import cid
from horizon_tui.engine.forming import PartyMember, create_battle
from horizon_tui.engine.encounter import load_encounter
from horizon_tui.engine.persist import BattleInProgress
from horizon_tui.engine.runner import begin, replay, run_ai
from horizon_tui.table.core import Seat, Table

REPO = Path(__file__).resolve().parents[2]
SEATED = {"alice": "iriel", "bob": "sefa"}  # account -> character file


def make_rebuild(seed: int = 3, encounter: str = "standard"):
    catalogue = default_catalogue()
    enemies = load_enemies(catalogue)
    setup = load_encounter(encounter, catalogue, enemies)
    files = sorted((REPO / "examples" / "party").glob("*.toml"))
    seated_files = set(SEATED.values())
    party = [PartyMember(load_character(f, catalogue), "player" if f.stem in seated_files else "ai") for f in files]

    def rebuild(inputs):
        battle = create_battle(setup, party, seed, catalogue, enemies)
        replay(battle, inputs)
        run_ai(battle)
        return battle

    return rebuild, party


def make_table(seed: int = 3, *, absent_wait_s: float = 60.0) -> Table:
    rebuild, party = make_rebuild(seed)
    battle = rebuild([])
    ids = {}
    for combatant_id, e in battle.by_id.items():
        ids.setdefault(_name(e), combatant_id)
    seats = [Seat("mira", "gm"), Seat("sam", "spectator")]
    for account, stem in SEATED.items():
        member = next(m for m in party if _stem(m) == stem)
        seats.append(Seat(account, "player", (ids[member.character.name],)))
    session = BattleInProgress(battle, "standard", party, [])
    return Table(session, seats, rebuild, absent_wait_s=absent_wait_s)


def _name(e) -> str:
    from horizon_tui.engine.battle import ident

    return ident(e).name


def _stem(member) -> str:
    return member.character.name.lower()


def player_move(table: Table, seat: str) -> dict:
    """What a seated player would do on their turn: the AI's choice is not an input, so the player
    ends the turn (a real player's keys produce the same kind of action dicts)."""
    current = table.battle.current
    return {"type": "Wait", "actor": cid(current)}


__all__ = ["make_table", "make_rebuild", "player_move", "Wait", "ai", "begin"]
