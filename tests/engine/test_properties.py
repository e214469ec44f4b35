"""Hypothesis over random small battles: whatever the map, the sides and the seed, health changes
only through damage and heal events, charges never go below 0, no two units share a cell, every
battle ends, and the same seed gives the same log."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine_kit import ability, character, check_log, enemy_def, make_battle, rules_with
from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.engine import runner
from horizon_tui.engine.battle import Battle, comp, hp, is_active, pos
from horizon_tui.engine.components import Charges, Health

WEAPONS = ["dagger", "longsword", "spear", "quarterstaff", "longbow", "greatsword", "javelin"]
ABILITIES = [
    ability("Cleave", "II", effects=[{"effect": "bleeding", "chance": 0.5, "duration": 2, "magnitude": 15}]),
    ability("Venom", "III", effects=[{"effect": "poison", "duration": 2, "magnitude": 10}]),
    ability("Blast", "III", target="area", radius=1),
    ability("Bolt Line", "II", target="line", length=4),
    ability("Mend", "II", kind="effect", target="ally", effects=[{"effect": "heal", "magnitude": 80}]),
    ability("Daze", "II", kind="effect", effects=[{"effect": "stun", "chance": 0.5, "duration": 1}]),
    ability("Trip", "II", kind="effect", effects=[{"effect": "knockdown", "duration": 1}]),
    ability("Terror", "III", kind="effect", effects=[{"effect": "fear", "duration": 1}]),
    ability("Glare", "II", kind="effect", effects=[{"effect": "blindness", "duration": 1}]),
    ability("Mire", "II", kind="effect", target="area", radius=1, effects=[{"effect": "slow", "duration": 2,
                                                                                  "magnitude": 50}]),
    ability("Charm", "IV", kind="effect", effects=[{"effect": "domination", "duration": 1}]),
    ability("Second Wind", "II", kind="effect", target="self", effects=[{"effect": "regeneration", "duration": 2,
                                                                              "magnitude": 20}]),
    ability("Hawk Eye", "II", kind="passive", modifiers={"accuracy": 3}),
    ability("Rot", "II", kind="effect", effects=[{"effect": "disease", "duration": 2, "magnitude": 3}]),
    ability("Wasting", "III", kind="effect", effects=[{"effect": "disease", "duration": 3, "magnitude": 4,
                                                       "stat": "physical", "gradual": True}]),
    ability("Wolf Call", "II", kind="companion", companion="wolf"),
]
WOLF = enemy_def("wolf", character("Wolf", weapon="dagger", attributes={
    "physical": 3, "agility": 6, "perception": 5, "cognition": 1, "faith": 1, "beauty": 0}))
CAPPED = rules_with(default_catalogue(), round_cap=25)
# R-8's diagonal cost is data: battles where a diagonal step costs 2 keep the invariants too.
CATALOGUES = {1: CAPPED, 2: rules_with(CAPPED, diagonal_cost=2)}


@st.composite
def fighters(draw, count: int, prefix: str) -> list[Any]:
    out = []
    for n in range(count):
        attributes = {
            "physical": draw(st.integers(1, 12)), "agility": draw(st.integers(1, 12)),
            "perception": draw(st.integers(1, 12)), "cognition": draw(st.integers(1, 10)),
            "faith": draw(st.integers(1, 8)), "beauty": draw(st.integers(0, 3)),
        }
        picked = draw(st.lists(st.sampled_from(ABILITIES), max_size=2, unique_by=lambda a: a["name"]))
        armor = draw(st.sampled_from([None, "leather"]))
        extra = {"armor": armor} if armor else {}
        out.append(character(f"{prefix}{n}", weapon=draw(st.sampled_from(WEAPONS)), attributes=attributes,
                             abilities=picked, **extra))
    return out


@st.composite
def battles(draw) -> dict[str, Any]:
    width, height = draw(st.integers(4, 9)), draw(st.integers(3, 7))
    glyphs = st.sampled_from("......,,#")
    rows = ["".join(draw(st.lists(glyphs, min_size=width, max_size=width))) for _ in range(height)]
    open_cells = [(x, y) for y, row in enumerate(rows) for x, glyph in enumerate(row) if glyph != "#"]
    n_party, n_enemies = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    if len(open_cells) < n_party + n_enemies:
        rows[0] = "." * width  # always room for everyone
        open_cells = [(x, y) for y, row in enumerate(rows) for x, glyph in enumerate(row) if glyph != "#"]
    cells = draw(st.lists(st.sampled_from(open_cells), min_size=n_party + n_enemies,
                          max_size=n_party + n_enemies, unique=True))
    party = draw(fighters(n_party, "Hero "))
    foes = draw(fighters(n_enemies, "Foe "))
    defs = [enemy_def(f"foe{n}", c, level=draw(st.integers(1, 3)), xp=draw(st.integers(0, 30)),
                      targeting=draw(st.sampled_from(["nearest", "weakest", "dangerous", "last_attacker"])))
            for n, c in enumerate(foes)]
    return {
        "rows": rows,
        "party": list(zip(party, cells[:n_party])),
        "enemies": list(zip(defs, cells[n_party:])),
        "seed": draw(st.integers(0, 2**31 - 1)),
        "diagonal": draw(st.sampled_from([1, 1, 2])),
    }


class Watcher:
    """After every event: health agrees with the damage/heal events so far, charges ≥ 0, one unit
    per cell and the occupancy index matches the positions."""

    def __init__(self, battle: Battle):
        self.battle = battle
        self.health = {c["id"]: c["hp"] for c in battle.log[0].combatants}
        self.falling: str | None = None
        for event in battle.log[1:]:  # set-up (passives, companions): the numbers only
            self.track(event)
        battle.listeners.append(self.see)

    def track(self, event) -> None:
        if event.type == "join":
            self.health[event.combatant["id"]] = event.combatant["hp"]
        elif event.type == "damage":
            assert event.amount >= 0 and event.hp == self.health[event.target] - event.amount, event
            self.health[event.target] = event.hp
        elif event.type == "heal":
            assert event.amount >= 0 and event.hp == self.health[event.target] + event.amount, event
            self.health[event.target] = event.hp

    def see(self, event) -> None:
        battle = self.battle
        if self.falling is not None:  # health at 0 or below: `defeated` comes next (R-9)
            assert (event.type, event.target) == ("defeated", self.falling), event
            self.falling = None
        if event.type == "damage" and event.hp <= 0:
            self.falling = event.target
        self.track(event)
        cells = {}
        for e in battle.combatants():
            assert comp(e, Health).hp == self.health[e.uid], (event, e.uid)
            assert all(n >= 0 for n in comp(e, Charges).pools.values()), e.uid
            if is_active(e):
                assert pos(e) not in cells, (event, e.uid, cells)
                cells[pos(e)] = e.uid
                assert battle.battlefield.is_walkable(pos(e))
                assert hp(e).hp > 0 or e.uid == self.falling
        assert cells == battle.occupancy


def play(spec: dict[str, Any]) -> Battle:
    battle = make_battle(spec["rows"], spec["party"], spec["enemies"], seed=spec["seed"],
                         catalogue=CATALOGUES[spec["diagonal"]],
                         enemy_defs={"wolf": WOLF})
    watcher = Watcher(battle)
    runner.play_out(battle)
    assert battle.listeners[-1] == watcher.see
    return battle


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(battles())
def test_random_small_battles_keep_the_invariants_end_and_replay(spec):
    battle = play(spec)
    assert battle.over and battle.log[-1].type == "result"
    assert battle.log[-1].rounds <= 25
    check_log(battle)
    again = play(spec)
    assert [e.to_json() for e in again.log] == [e.to_json() for e in battle.log]
