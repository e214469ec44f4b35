"""Fights from what a caller has at hand: an encounter id, path or loaded set-up; a party of
files, characters or party members."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import attrs

from horizon_tui.content.ai_profiles import cached_ai_profiles, profiles_path
from horizon_tui.content.catalogue import Catalogue, default_catalogue
from horizon_tui.content.encounters import EnemyDef, load_enemies
from horizon_tui.content.models import Character
from horizon_tui.engine.battle import BattleError
from horizon_tui.engine.forming import PartyMember, create_battle
from horizon_tui.engine.encounter import EncounterSetup, load_encounter
from horizon_tui.tools.battle_command import load_party
from horizon_tui.tools.sweep.work import Fight
from horizon_tui.errors import DataError, Problem

PartyLike = Path | str | Character | PartyMember


def party_members(party: Sequence[PartyLike], catalogue: Catalogue,
                  enemies: dict[str, EnemyDef] | None = None) -> list[PartyMember]:
    """Party members, AI-played: files are loaded and checked (as `horizon battle` does)."""
    members: list[PartyMember] = []
    for item in party:
        if isinstance(item, PartyMember):
            members.append(attrs.evolve(item, controller="ai"))
        elif isinstance(item, Character):
            members.append(PartyMember(item))
        else:
            members += load_party([Path(item)], catalogue, enemies)
    return members


def make_fight(
    encounter: str | Path | EncounterSetup,
    party: Sequence[PartyLike],
    *,
    catalogue: Catalogue | None = None,
    enemies: dict[str, EnemyDef] | None = None,
    cell: str = "",
) -> Fight:
    """A fight ready to send to workers. Raises DataError for a bad encounter or party file."""
    catalogue = catalogue or default_catalogue()
    enemies = enemies if enemies is not None else load_enemies(catalogue)
    setup = encounter if isinstance(encounter, EncounterSetup) else load_encounter(encounter, catalogue, enemies)
    members = party_members(party, catalogue, enemies)
    if not members:
        raise DataError([Problem("party", "party", "a battle needs at least one party member")])
    profiles = cached_ai_profiles(profiles_path(catalogue.root))
    fight = Fight(cell=cell, setup=setup, party=tuple(members), catalogue=catalogue, enemies=dict(enemies),
                  profiles=profiles)
    _can_form(fight)
    return fight


def _can_form(fight: Fight) -> None:
    """Form one battle now, so what can't be formed (a loadout over the slots, an unknown AI
    profile) is a DataError here rather than an error in every worker."""
    try:
        create_battle(fight.setup, list(fight.party), 0, fight.catalogue, fight.enemies, ai_profiles=fight.profiles)
    except BattleError as exc:
        raise DataError([Problem(fight.setup.source, "party", str(exc))]) from None
