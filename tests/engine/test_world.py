"""The battle world: the fast component accessor, set-up, the occupancy index."""

from __future__ import annotations

from engine_kit import character, enemy_def, make_battle
from horizon_tui.engine.battle import cid, comp, drop, find, pos, put
from horizon_tui.engine.components import Health, Position, Presence, TempHealth


def test_each_component_lives_in_its_battles_store_under_the_combatant_id():
    """`comp` reads the battle's store for the type; `put`, `find`, `drop` write and read the same."""
    hero = character("Hero", abilities=[
        {"name": "Wolf Friend", "difficulty": "II", "kind": "companion", "companion": "wolf"},
    ])
    wolf = enemy_def("wolf", character("Wolf"), glyph="w")
    battle = make_battle(party=[(hero, (1, 1))], enemies=[(enemy_def(), (7, 3))], enemy_defs={"wolf": wolf})
    assert [cid(e) for e in battle.combatants()] == ["hero", "grunt", "wolf-hero"]  # its companion joined
    for e in battle.combatants():
        held = {key for key, store in battle.world.stores.items() if cid(e) in store}
        assert len(held) >= 17, held  # every core component, TempHealth and StatBonus aside
        for key in held:
            assert comp(e, key) is battle.world.stores[key][cid(e)]
    grunt = battle["grunt"]
    put(grunt, Health, Health(3, 40))
    assert comp(grunt, Health) == Health(3, 40) and find(grunt, TempHealth) is None
    put(grunt, TempHealth, TempHealth(5))
    assert find(grunt, TempHealth).points == 5 and find(battle["hero"], TempHealth) is None
    drop(grunt, TempHealth)
    assert find(grunt, TempHealth) is None
    other = make_battle(party=[(character("Hero"), (1, 1))], enemies=[(enemy_def(), (7, 3))])
    assert comp(other["grunt"], Health) != Health(3, 40)  # one world per battle: nothing shared


def test_set_up_places_everyone_and_indexes_the_cells():
    battle = make_battle(
        party=[(character("Ann"), (0, 0)), (character("Bo"), (1, 0))],
        enemies=[(enemy_def(), (8, 4), "Grunt 1"), (enemy_def(), (7, 4), "Grunt 2")],
    )
    cells = {cid(e): pos(e) for e in battle.combatants()}
    assert cells == {"ann": (0, 0), "bo": (1, 0), "grunt-1": (8, 4), "grunt-2": (7, 4)}
    assert {xy: c for c, xy in cells.items()} == battle.occupancy
    assert all(comp(e, Presence) is Presence.active for e in battle.combatants())
    assert battle.at((1, 0)) is battle["bo"] and battle.at((4, 2)) is None
    assert all(comp(e, Position).xy == pos(e) for e in battle.combatants())
