"""Builders for scripted battles: characters from dicts, enemies and encounters built inline.

Plain functions (Hypothesis tests and helpers use them too); `conftest.py` wraps them in fixtures.
A test sets up an exact situation (who stands where, with what), gives a turn to whom it wants
(`give_turn`), performs actions and asserts on `battle.log`. Every battle made through the
`new_battle` fixture has each of its events checked against INTERFACES.md "Battle events" when
the test ends, so every scripted situation also guards the event schema.
"""

from __future__ import annotations

import json
from fractions import Fraction
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import attrs

from horizon_tui.content.catalogue import Catalogue, default_catalogue
from horizon_tui.content.characters import character_from_dict
from horizon_tui.content.encounters import EnemyDef
from horizon_tui.content.models import Character
from horizon_tui.engine import turns
from horizon_tui.engine.battle import Battle, Entity, cid
from horizon_tui.engine.forming import PartyMember, create_battle
from horizon_tui.engine.battlefield import Battlefield
from horizon_tui.engine.encounter import EncounterSetup

# RULES.md R-2 worked example: health 690, strength 20.5, evasion 19.1, accuracy 20, speed 5.5,
# initiative 11.7, spellpower 24.5; 42 points, so level 2 (slots 3, charges II 3 / III 2 / …).
EXAMPLE = {"physical": 10, "agility": 10, "perception": 10, "cognition": 6, "faith": 5, "beauty": 1}
# The example's normal attack without the weapon roll: 20.5×1.2 + 19.1 + 20×0.7 + 24.5×1.3.
EXAMPLE_ATTACK_BASE = Fraction("89.55")
# A weaker foe (level 2 by the rules, but a set level in its EnemyDef).
GRUNT = {"physical": 6, "agility": 6, "perception": 6, "cognition": 3, "faith": 3, "beauty": 0}
OPEN = ["." * 9] * 5  # a 9×5 open field
TWO_ROOMS = [  # two rooms, a wall between them (the sight tests: who sees across it)
    "....#....",
    "....#....",
    "....#....",
    "....#....",
    "....#....",
]


def character(
    name: str = "Hero",
    *,
    weapon: Any = "longsword",
    attributes: dict[str, int] | None = None,
    abilities: Sequence[dict[str, Any]] = (),
    loadout: Sequence[str] | None = None,
    species: Any = "human",
    catalogue: Catalogue | None = None,
    **extra: Any,
) -> Character:
    """A character from a file's keys. `loadout` defaults to every ability given (non-replaceable
    passives are slotted anyway, R-6)."""
    data: dict[str, Any] = {
        "name": name,
        "species": species,
        "weapon": weapon,
        "attributes": dict(attributes or EXAMPLE),
        "abilities": [dict(a) for a in abilities],
        "loadout": list(loadout) if loadout is not None else [a["name"] for a in abilities],
    }
    data.update(extra)
    return character_from_dict(data, catalogue or default_catalogue(), "<test>")


def ability(name: str, difficulty: str = "II", kind: str = "damage", **keys: Any) -> dict[str, Any]:
    """An ability's keys (INTERFACES.md "Character file")."""
    return {"name": name, "difficulty": difficulty, "kind": kind, **keys}


def enemy_def(
    enemy_id: str = "grunt",
    char: Character | None = None,
    *,
    level: int = 1,
    xp: int = 20,
    ai: str = "brute",
    targeting: str = "nearest",
    glyph: str = "g",
) -> EnemyDef:
    return EnemyDef(
        enemy_id, char or character("Grunt", weapon="longsword", attributes=GRUNT), level, xp, ai, targeting, glyph
    )


def setup(
    rows: Iterable[str],
    party_start: Sequence[tuple[int, int]],
    enemies: Sequence[tuple[EnemyDef, tuple[int, int], str]],
    encounter_id: str = "test",
) -> EncounterSetup:
    return EncounterSetup(
        id=encounter_id, name="Test", description="", difficulty="normal", xp=0, notes="",
        battlefield=Battlefield.from_rows(list(rows)), enemies=list(enemies),
        party_start=list(party_start), source="<test>",
    )


def make_battle(
    rows: Iterable[str] = OPEN,
    party: Sequence[tuple[Character, tuple[int, int]] | tuple[Character, tuple[int, int], str]] = (),
    enemies: Sequence[tuple[EnemyDef, tuple[int, int]] | tuple[EnemyDef, tuple[int, int], str]] = (),
    *,
    seed: int = 1,
    catalogue: Catalogue | None = None,
    enemy_defs: dict[str, EnemyDef] | None = None,
) -> Battle:
    """A battle from explicit positions: party entries (character, cell[, controller]),
    enemy entries (definition, cell[, name])."""
    catalogue = catalogue or default_catalogue()
    members = [PartyMember(p[0], p[2] if len(p) > 2 else "ai") for p in party]  # type: ignore[misc]
    placed = [(d[0], d[1], d[2] if len(d) > 2 else d[0].character.name) for d in enemies]  # type: ignore[misc]
    defs = {d.id: d for d, _, _ in placed}
    defs.update(enemy_defs or {})
    s = setup(rows, [p[1] for p in party], placed)
    return create_battle(s, members, seed, catalogue, defs)


def ann_bo_and_a_grunt(make: Callable[..., Battle] = make_battle) -> Battle:
    """`TWO_ROOMS`: Ann alone on the left, Bo and the grunt on the right (Bo sees it, Ann not)."""
    return make(rows=TWO_ROOMS, party=[(character("Ann"), (1, 2)), (character("Bo"), (6, 0))],
                enemies=[(enemy_def(), (7, 4))])


def give_turn(battle: Battle, who: str) -> Entity:
    """Make it `who`'s turn now (R-8's turn start runs: effects tick, movement is set). A turn
    that runs itself (stunned, getting up) passes on as `turns.advance` would pass it.
    Returns the combatant."""
    battle.round = max(battle.round, 1)
    battle.index = battle.order.index(who)
    e = battle[who]
    if not turns.begin_turn(battle, e):
        turns.advance(battle)
    return e


def events(battle: Battle, kind: str, since: int = 0) -> list[Any]:
    return [e for e in battle.log[since:] if e.type == kind]


# --- INTERFACES.md "Battle events": the keys each type must carry -----------------------------

REQUIRED_KEYS: dict[str, tuple[str, ...]] = {
    "battle_start": ("seed", "encounter", "combatants"),
    "turn": ("actor",),
    "move": ("actor", "path"),
    "attack": ("actor", "target", "ability", "difficulty", "hit", "crit"),
    "damage": ("target", "amount", "hp", "source"),
    "effect": ("target", "effect"),
    "check": ("actor", "kind", "chance", "success"),
    "defeated": ("target",),
    "fled": ("target",),
    "result": ("winner", "rounds", "xp"),
}


def check_event_schema(payload: dict[str, Any]) -> None:
    """One event's JSON object against INTERFACES.md (raises AssertionError)."""
    for key in ("type", "round", "seq"):
        assert key in payload, (key, payload)
    kind = payload["type"]
    for key in REQUIRED_KEYS.get(kind, ()):
        assert key in payload, (kind, key, payload)
    if kind == "battle_start":
        for c in payload["combatants"]:
            assert set(c) >= {"id", "name", "team", "hp", "max_hp", "x", "y"}, c
    elif kind == "move":
        assert all(isinstance(p, list) and len(p) == 2 for p in payload["path"]), payload
    elif kind == "damage":
        assert isinstance(payload["amount"], int) and payload["amount"] >= 0, payload
    elif kind == "effect":
        assert payload.get("ended") is True or payload.get("resisted") is True or (
            "duration" in payload and "magnitude" in payload
        ), payload
    elif kind == "check":
        assert 0 <= payload["chance"] <= 1, payload
        if payload["kind"] == "difficulty" and not payload["success"]:
            assert payload["outcome"] in ("fizzle", "self", "random"), payload
    elif kind == "result":
        assert payload["winner"] in ("party", "enemies", "draw"), payload
        assert all(isinstance(v, int) for v in payload["xp"].values()), payload


def check_log(battle: Battle) -> list[dict[str, Any]]:
    """Every event serialises, carries type/round/seq with seq 1..n, has its keys; a result is
    last (and only last) when there is one. Returns the parsed objects."""
    parsed = [json.loads(e.to_json()) for e in battle.log]
    assert [p["seq"] for p in parsed] == list(range(1, len(parsed) + 1))
    for p in parsed:
        check_event_schema(p)
    results = [i for i, p in enumerate(parsed) if p["type"] == "result"]
    assert results in ([], [len(parsed) - 1])
    return parsed


def rules_with(catalogue: Catalogue, **turns_changes: Any) -> Catalogue:
    """The catalogue with `rules.turns` changed (e.g. a small round cap)."""
    rules = catalogue.rules
    return catalogue.with_rules(attrs.evolve(rules, turns=attrs.evolve(rules.turns, **turns_changes)))


def next_turn_of(battle: Battle, who: str, *, limit: int = 50) -> Entity:
    """Everyone else waits (through `perform`, so turns advance for real) until it is `who`'s turn.
    Starts the battle first if it hasn't begun."""
    from horizon_tui.engine.actions import Wait, perform

    if battle.round == 0:
        turns.start(battle)
    for _ in range(limit):
        current = battle.current
        assert current is not None, "the battle ended"
        if cid(current) == who:
            return current
        perform(battle, Wait(cid(current)))
    raise AssertionError(f"{who} never got a turn")


def own_turn(battle: Battle, who: str, during: Any = None) -> Any:
    """One whole own turn of `who` (R-10's unit of duration): it begins (effects tick), `during(e)`
    looks while it is in progress (its answer is returned), and it ends (a Wait when it waits for
    a decision; a turn that ran itself, stunned or on the ground, is ended as `turns.advance` ends it)."""
    from horizon_tui.engine.actions import Wait, perform

    battle.round = max(battle.round, 1)
    battle.index = battle.order.index(who)
    e = battle[who]
    waiting = turns.begin_turn(battle, e)
    seen = during(e) if during is not None else None
    if waiting and battle.current is e:
        perform(battle, Wait(who))
    elif battle.current is e:
        turns.advance(battle)
    return seen
