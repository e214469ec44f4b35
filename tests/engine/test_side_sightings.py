"""`battle.side_sightings`: where a side last saw each foe, kept as its members learn (`remember`)
and as members fall or flee, is at every turn what merging its active members' memories in
spawn order gives (what `ai._hunt` heads for)."""

from __future__ import annotations

from pathlib import Path

from horizon_tui.engine import ai
from horizon_tui.engine.battle import allies_of, comp, side_sightings
from horizon_tui.engine.components import Memory
from horizon_tui.engine.effects import defeat
from horizon_tui.engine.forming import create_battle
from horizon_tui.engine.runner import begin
from horizon_tui.tools.battle_command import prepare

PARTY = sorted((Path(__file__).resolve().parents[2] / "examples" / "party").glob("*.toml"))


def merged(battle, member) -> dict:
    latest: dict = {}
    for ally in allies_of(battle, member):
        latest.update(comp(ally, Memory).last_known)
    return latest


def test_side_sightings_are_the_merged_memories_at_every_turn_of_whole_battles() -> None:
    catalogue, enemies, setup, members = prepare("standard", PARTY, 0)
    checked = fallen = 0
    for seed in range(4):
        battle = create_battle(setup, members, seed, catalogue, enemies)
        begin(battle)
        while not battle.over:
            for side, present in battle.sides.items():
                member = next(iter(present.values()))
                expected = merged(battle, member)
                sightings = side_sightings(battle, side)
                everyone = list(battle.by_id)
                assert {foe: sightings.last_seen(foe) for foe in everyone} == \
                    {foe: expected.get(foe) for foe in everyone}
                checked += 1
            before = len(battle.active)
            ai.take_turn(battle, battle.current)
            fallen += before > len(battle.active)
    assert checked > 300 and fallen > 10  # members fell while the sightings were kept


def test_a_side_nobody_joined_or_left_keeps_its_index_when_the_other_side_loses_one() -> None:
    """`Battle.sides`: a foe falling rebuilds the other side's entry only, so what was derived
    from a side's members (its sightings) is kept."""
    catalogue, enemies, setup, members = prepare("standard", PARTY, 0)
    battle = create_battle(setup, members, 1, catalogue, enemies)
    begin(battle)
    party, foes = battle.sides["party"], battle.sides["enemies"]
    sightings = side_sightings(battle, "party")
    defeat(battle, next(iter(foes.values())))
    assert battle.sides["party"] is party and battle.sides["enemies"] is not foes
    assert side_sightings(battle, "party") is sightings
    defeat(battle, next(iter(party.values())))
    assert battle.sides["party"] is not party and side_sightings(battle, "party") is not sightings
