"""What an Entity carries of its components (its side, whether it is active, its Effects, its
cell) is what the stores hold, at every turn of whole battles and after each writer that changes them
(`put`, through `Battle.set_team`, `Battle.set_presence` and the effects' writers, and
`Battle.place`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from horizon_tui.engine import ai
from horizon_tui.engine.battle import effects, is_active, pos, team
from horizon_tui.engine.components import Effects, Position, Presence, Team
from horizon_tui.engine.effects import defeat
from horizon_tui.engine.forming import create_battle
from horizon_tui.engine.runner import begin
from horizon_tui.tools.battle_command import prepare

PARTY = sorted((Path(__file__).resolve().parents[2] / "examples" / "party").glob("*.toml"))


def agrees(battle) -> None:
    world = battle.world
    for uid, e in battle.by_id.items():
        assert team(e) == world.stores[Team][uid].name
        assert is_active(e) is (world.stores[Presence][uid] is Presence.active)
        assert effects(e) is world.stores[Effects][uid]
        at = world.stores[Position].get(uid)
        if at is None:
            with pytest.raises(KeyError):
                pos(e)
        else:
            assert pos(e) == (at.x, at.y)


def test_an_entity_carries_what_its_stores_hold_all_battle_long() -> None:
    catalogue, enemies, setup, members = prepare("standard", PARTY, 0)
    turns = 0
    for seed in range(3):
        battle = create_battle(setup, members, seed, catalogue, enemies)
        begin(battle)
        while not battle.over:
            agrees(battle)
            ai.take_turn(battle, battle.current)
            turns += 1
        agrees(battle)
    assert turns > 100


def test_changing_sides_and_falling_are_carried_at_once() -> None:
    catalogue, enemies, setup, members = prepare("standard", PARTY, 0)
    battle = create_battle(setup, members, 2, catalogue, enemies)
    begin(battle)
    foe = battle.sides["enemies"][next(iter(battle.sides["enemies"]))]
    battle.set_team(foe, "party")  # R-10 domination
    assert team(foe) == "party"
    defeat(battle, foe)
    assert not is_active(foe)
    agrees(battle)
