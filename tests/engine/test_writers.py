"""Components are mutable (engine.components): only engine/battle.py's writers may change one.

A scan of every module's source (the AST): outside engine/battle.py, no assignment to a
component's field (`state.acted = True`), no write into a store or into a container a component
holds (`comp(e, Cooldowns).ready_at[name] = 3`, `.pop(…)`), no `world.stores` touched. A system
changes a component by building the new one and handing it to `put` (or another writer), beside
the event it records. The components written every turn or blow (TurnState, Health, Tally,
Cooldowns, Charges) are written in place by their writers (`set_turn_state`, `set_hp`, …): the
same object, its fields changed, no new one built nor a dict copied.
"""

from __future__ import annotations

import ast
from pathlib import Path

import dataclasses

from engine_kit import character, enemy_def, give_turn
from horizon_tui.engine import components
from horizon_tui.engine.actions import Attack, Move, perform
from horizon_tui.engine.battle import comp, count_damage
from horizon_tui.engine.components import Health, Tally, TurnState

PACKAGE = Path(components.__file__).resolve().parents[1]
WRITERS = PACKAGE / "engine" / "battle.py"
ACCESSORS = frozenset({"comp", "find", "ident", "hp", "stats", "gear", "effects", "presence"})
MUTATORS = frozenset({"pop", "popitem", "clear", "update", "setdefault", "append", "extend", "insert", "remove",
                      "add", "discard", "sort", "reverse", "__setitem__"})
# The fields of the mutable components (not ActiveEffect, a frozen value, nor the derived AttackCache).
FIELDS = frozenset(
    f.name for cls in components.COMPONENTS
    if dataclasses.is_dataclass(cls) and cls is not components.AttackCache
    for f in dataclasses.fields(cls)
) | {"stores", "world"}


def _reaches_a_component(node: ast.AST) -> bool:
    """Whether this expression's chain (`a.b[c].d`, `comp(e, X).f`) goes through a component: an
    accessor's result, or a component's field name on a chain not rooted at `self` (a class's own
    attributes: a widget's `self.draft.name` is no component)."""
    named = False
    while True:
        if isinstance(node, ast.Attribute):
            named = named or node.attr in FIELDS
            node = node.value
        elif isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id in ACCESSORS:
                return True
            node = node.func.value if isinstance(node.func, ast.Attribute) else node.func
        elif isinstance(node, ast.Name):
            return named and node.id != "self"
        else:
            return named


def writes_outside_the_writers(source: str, name: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for target in targets:
            for t in (target.elts if isinstance(target, ast.Tuple) else [target]):
                if isinstance(t, (ast.Attribute, ast.Subscript)) and _reaches_a_component(t):
                    found.append(f"{name}:{node.lineno}: {ast.unparse(t)}")
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS
                and _reaches_a_component(node.func.value)):
            found.append(f"{name}:{node.lineno}: {ast.unparse(node.func)}(…)")
    return found


def test_only_the_writers_change_a_component():
    found, scanned = [], 0
    for path in sorted(PACKAGE.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if path != WRITERS and "horizon_tui.engine" in source:  # those that can reach a battle's components
            scanned += 1
            found += writes_outside_the_writers(source, str(path.relative_to(PACKAGE)))
    assert found == [] and scanned > 40 and {"acted", "hp", "ready_at", "last_known"} <= FIELDS


def test_the_scan_finds_each_kind_of_write():
    planted = """
state = comp(e, TurnState)
state.acted = True
comp(e, Cooldowns).ready_at["Fireball"] = 3
hp(e).hp -= 4
comp(e, Memory).last_known.pop("grunt")
battle.world.stores[Health]["hero"] = None
effects(e).active += (fx,)
self.movement_left = 2
ok = comp(e, Health).hp
"""
    assert sorted(line.split(": ", 1)[1] for line in writes_outside_the_writers(planted, "planted")) == sorted([
        "state.acted", "comp(e, Cooldowns).ready_at['Fireball']", "hp(e).hp",
        "comp(e, Memory).last_known.pop(…)", "battle.world.stores[Health]['hero']", "effects(e).active",
    ])


def test_turn_state_health_and_tally_are_written_in_place(new_battle):
    # A move and a blow change the fields of the objects the stores already hold.
    battle = new_battle(party=[(character("Hero"), (1, 1))], enemies=[(enemy_def(), (3, 1))])
    hero, grunt = give_turn(battle, "hero"), battle["grunt"]
    state, health, tally = comp(hero, TurnState), comp(grunt, Health), comp(hero, Tally)
    left = state.movement_left
    perform(battle, Move("hero", (2, 1)), auto_end=False)
    assert comp(hero, TurnState) is state and state.movement_left == left - 1
    before = health.hp
    for _ in range(40):  # until a blow lands (a miss changes nothing)
        perform(battle, Attack("hero", "grunt"), auto_end=False)
        if comp(grunt, Health).hp != before:
            break
        give_turn(battle, "hero")
    assert comp(grunt, Health) is health and comp(hero, Tally) is tally
    assert tally.damage_dealt == before - health.hp == comp(grunt, Tally).damage_taken > 0


def test_a_blow_that_turns_on_its_user_is_taken_not_dealt(new_battle):
    # Found by hand in a run: a Skeleton Spearman's failed check (R-7, "it turns on its user") hit
    # itself for 147, and the summary said it had dealt 667 when Grukk had taken 520.
    battle = new_battle(party=[(character("Hero"), (1, 1))], enemies=[(enemy_def(), (3, 1))])
    hero, grunt = battle["hero"], battle["grunt"]
    count_damage(grunt, 147, grunt, "Impaling Thrust")
    count_damage(hero, 74, grunt, "normal attack")
    assert comp(grunt, Tally).damage_taken == 147 and comp(hero, Tally).damage_taken == 74
    assert comp(grunt, Tally).damage_dealt == 74
    assert comp(grunt, Tally).by_ability == {"normal attack": 74}
