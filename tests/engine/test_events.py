"""The event log (INTERFACES.md "Battle events"): every event serialises with type/round/seq,
seq = 1..n, each type carries its keys, `result` is last; and the log replays from its seed."""

from __future__ import annotations

import json

from engine_kit import GRUNT, ability, character, check_log, enemy_def, make_battle
from horizon_tui.engine.actions import ACTION_TYPES
from horizon_tui.engine.overrides import OVERRIDE_TYPES
from horizon_tui.engine import events as ev, runner
from horizon_tui.engine.narrate import describe

LANCE = ability("Fire Lance", "III", effects=[{"effect": "bleeding", "chance": 0.5, "duration": 2, "magnitude": 15}])
BLAST = ability("Blast", "II", target="area", radius=1, effects=[{"effect": "slow", "duration": 1, "magnitude": 50}])
MEND = ability("Mend", "II", kind="effect", target="ally", effects=[{"effect": "heal", "magnitude": 60}])


def skirmish(seed: int):
    rows = ["...........", "...,,,.....", "....#......", "...,,,.....", "..........."]
    party = [
        (character("Ann", weapon="dagger", abilities=[LANCE]), (0, 1)),
        (character("Bo", weapon="quarterstaff", abilities=[BLAST, MEND]), (0, 3)),
    ]
    spear = enemy_def("spearman", character("Spearman", weapon="spear", attributes=GRUNT), xp=15)
    archer = enemy_def("archer", character("Archer", weapon="shortbow", attributes=GRUNT), xp=15, ai="archer")
    enemies = [(enemy_def(xp=10), (10, 0), "Grunt"), (spear, (10, 2)), (archer, (10, 4))]
    return make_battle(rows, party, enemies, seed=seed)


def test_events_of_played_battles_serialise_with_their_keys_and_result_last():
    seen = set()
    for seed in range(6):
        battle = skirmish(seed)
        runner.play_out(battle)
        parsed = check_log(battle)
        seen |= {p["type"] for p in parsed}
        assert parsed[-1]["type"] == "result" and battle.over
        assert parsed[0]["type"] == "battle_start" and parsed[0]["seed"] == seed and parsed[0]["encounter"] == "test"
        assert parsed[-1]["rounds"] == battle.round
        rounds = [p["round"] for p in parsed]
        assert rounds == sorted(rounds)
        for event in battle.log:
            describe(battle, event)  # every event has words (or is bookkeeping) without failing
    assert seen >= {"battle_start", "initiative", "round", "turn", "move", "attack", "damage", "effect", "check",
                    "ability", "defeated", "result", "wait"}


def test_events_same_seed_same_log_byte_for_byte():
    logs = []
    for _ in range(2):
        battle = skirmish(42)
        runner.play_out(battle)
        logs.append("\n".join(e.to_json() for e in battle.log))
    assert logs[0] == logs[1]
    other = skirmish(43)
    runner.play_out(other)
    assert "\n".join(e.to_json() for e in other.log) != logs[0]


def test_events_listeners_see_every_event_in_order():
    battle = skirmish(3)
    heard = []
    battle.listeners.append(lambda event: heard.append(event.seq))
    before = len(battle.log)
    runner.play_out(battle)
    assert heard == list(range(before + 1, len(battle.log) + 1))
    assert json.loads(battle.log[-1].to_json())["type"] == "result"


def test_events_are_slotted_built_positionally_and_write_their_fields_in_order():
    """Each event is built from its fields in order (`FIELDS`), holds no dict, and its JSON has
    type, round, seq, then those fields in that order: the log's bytes (and digests) depend on it."""
    from horizon_tui.engine import events as ev

    damage = ev.Damaged("grunt", 12, 30, "hero")
    assert damage == ev.Damaged(target="grunt", amount=12, hp=30, source="hero") != ev.Damaged("grunt", 12, 31, "hero")
    assert not hasattr(damage, "__dict__")
    damage.round, damage.seq = 2, 9  # as Battle.emit stamps it
    assert damage.to_json() == '{"type":"damage","round":2,"seq":9,"target":"grunt","amount":12,"hp":30,"source":"hero"}'
    check = ev.Check("ann", "accuracy", 0.5, False, target="grunt")
    assert list(check.payload()) == ["type", "round", "seq", "actor", "kind", "chance", "success", "outcome",
                                     "ability", "target"]
    for name, cls in ev.EVENT_TYPES.items():  # (compiled by mypyc, a class shows no __slots__: its own layout)
        assert cls.type == name and cls.FIELDS == getattr(cls, "__slots__", cls.FIELDS)


def test_no_event_class_shares_its_name_with_an_action_or_an_override():
    # `ev.Moved` is what happened, `actions.Move` what was asked for: one name each, while the
    # JSON tags (`move`, `attack`, `damage`…) stay as the log format has them.
    events = {cls.__name__ for cls in ev.EVENT_TYPES.values()}
    asked = set(ACTION_TYPES) | set(OVERRIDE_TYPES)
    assert events & asked == set() and {"Moved", "Attacked", "Damaged", "Healed", "Swapped", "Waited"} <= events
    assert {tag for tag, cls in ev.EVENT_TYPES.items() if cls.__name__ in {"Moved", "Damaged"}} == {"move", "damage"}
