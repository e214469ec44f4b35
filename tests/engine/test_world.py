"""The battle world: the fast component accessor, set-up, the occupancy index."""

from __future__ import annotations

from engine_kit import character, enemy_def, make_battle
from horizon_tui.engine.battle import cid, comp, pos
from horizon_tui.engine.components import Health, Position, Presence


def test_comp_agrees_with_the_public_component_api():
    """`comp` reads tcod-ecs's table directly for speed; it must agree with `e.components`."""
    hero = character("Hero", abilities=[
        {"name": "Wolf Friend", "difficulty": "II", "kind": "companion", "companion": "wolf"},
    ])
    wolf = enemy_def("wolf", character("Wolf"), glyph="w")
    battle = make_battle(party=[(hero, (1, 1))], enemies=[(enemy_def(), (7, 3))], enemy_defs={"wolf": wolf})
    checked = 0
    for e in battle.combatants():
        for key in list(e.components.keys()):
            assert comp(e, key) is e.components[key], key
            checked += 1
        # a write through the public API is seen by the accessor
        old = e.components[Health]
        e.components[Health] = Health(old.hp - 1, old.max_hp)
        assert comp(e, Health) == Health(old.hp - 1, old.max_hp)
        e.components[Health] = old
    assert len(list(battle.combatants())) == 3  # hero, its companion, the grunt
    assert checked >= 3 * 15


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
