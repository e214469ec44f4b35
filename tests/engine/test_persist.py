"""Replays and saves: recorded inputs rebuild a battle exactly; a battle saved mid-fight resumes to
the same outcome; a save that can't be read is reported and left as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine_kit import GRUNT, ability, character, enemy_def
from horizon_tui.engine import runner
from horizon_tui.engine.actions import Attack, Impossible, Move, UseAbility, Wait
from horizon_tui.engine.battle import Battle, cid, enemies_of, gear, pos
from horizon_tui.engine.forming import PartyMember, create_battle
from horizon_tui.engine.encounter import load_encounter
from horizon_tui.engine.persist import BattleInProgress, load_session, save_session
from horizon_tui.errors import DataError
from horizon_tui.rules.ranges import distance, weapon_range

ENCOUNTER = '''\
name = "Barn skirmish"

[map]
rows = """
..........
...,,.....
....#.....
...,,.....
..........
"""

[[enemies]]
enemy = "grunt"
at = [8, 1]

[[enemies]]
enemy = "grunt"
at = [9, 3]

[[enemies]]
enemy = "spearman"
at = [8, 4]
'''
CLEAVE = ability("Cleave", "II", effects=[{"effect": "bleeding", "chance": 0.5, "duration": 2, "magnitude": 10}])


@pytest.fixture
def world(tmp_path: Path, catalogue):
    path = tmp_path / "barn.toml"
    path.write_text(ENCOUNTER, encoding="utf-8")
    enemies = {
        "grunt": enemy_def("grunt", xp=20),
        "spearman": enemy_def("spearman", character("Spearman", weapon="spear", attributes=GRUNT), xp=25),
    }
    party = [PartyMember(character("Ann", abilities=[CLEAVE]), "player"),
             PartyMember(character("Bo", weapon="spear"), "player")]
    return path, enemies, party


def decide(battle: Battle) -> object:
    """A player's fixed policy: Cleave or strike the nearest foe in reach, else walk up, else wait."""
    e = battle.current
    me = cid(e)
    foes = sorted(enemies_of(battle, e), key=lambda o: (distance(pos(e), pos(o)), cid(o)))
    if not foes:
        return Wait(me)
    foe = foes[0]
    acted = battle.log[-1].type in ("attack", "damage", "defeated", "effect", "check", "heal")
    if distance(pos(e), pos(foe)) <= weapon_range(gear(e).weapon, battle.rules):
        if gear(e).character.ability("Cleave") and battle.round % 3 == 1:
            return UseAbility(me, "Cleave", target=cid(foe))
        return Attack(me, cid(foe))
    if acted or battle.log[-1].type == "move":
        return Wait(me)
    field = battle.battlefield
    beside = [xy for xy in field.neighbours(pos(foe)) if field.is_walkable(xy) and xy not in battle.occupancy]
    if not beside:
        return Wait(me)
    return Move(me, min(beside, key=lambda xy: (distance(pos(e), xy), xy)), partial=True)


def play(battle: Battle, inputs: list, *, until: int | None = None) -> None:
    """Run the battle with the policy for player turns (recording inputs), AI for the rest."""
    runner.run_ai(battle)
    while not battle.over and (until is None or len(inputs) < until):
        action = decide(battle)
        outcome = runner.submit(battle, action, inputs, auto_end=not isinstance(action, Move))
        if isinstance(outcome, Impossible):
            runner.submit(battle, Wait(cid(battle.current)), inputs)
        runner.run_ai(battle)


def fresh(world, catalogue, seed=5):
    path, enemies, party = world
    setup = load_encounter(path, catalogue, enemies)
    battle = create_battle(setup, party, seed, catalogue, enemies)
    runner.begin(battle)
    return BattleInProgress(battle, str(path), party)


def log_text(battle: Battle) -> str:
    return "\n".join(e.to_json() for e in battle.log)


def test_replay_of_recorded_inputs_rebuilds_the_same_log(world, catalogue):
    session = fresh(world, catalogue)
    play(session.battle, session.inputs)
    assert session.battle.over and len(session.inputs) > 5
    assert {type(i.action).__name__ for i in session.inputs} >= {"Move", "Attack", "UseAbility", "Wait"}
    rebuilt = create_battle(load_encounter(world[0], catalogue, world[1]), world[2], 5, catalogue, world[1])
    runner.replay(rebuilt, session.inputs)
    runner.run_ai(rebuilt)
    assert log_text(rebuilt) == log_text(session.battle)


def test_a_battle_saved_mid_fight_resumes_to_the_same_outcome(world, catalogue, tmp_path):
    session = fresh(world, catalogue)
    play(session.battle, session.inputs, until=6)
    assert not session.battle.over and runner.needs_input(session.battle)
    save = tmp_path / "battle.json"
    save_session(save, session, catalogue)

    loaded = load_session(save, catalogue, world[1])
    assert log_text(loaded.battle) == log_text(session.battle)
    assert [m.character for m in loaded.party] == [m.character for m in session.party]
    play(session.battle, session.inputs)
    play(loaded.battle, loaded.inputs)
    assert session.battle.over and loaded.battle.over
    assert log_text(loaded.battle) == log_text(session.battle)


def test_a_corrupted_save_raises_and_is_left_as_it_was(world, catalogue, tmp_path):
    session = fresh(world, catalogue)
    play(session.battle, session.inputs, until=3)
    save = tmp_path / "battle.json"
    save.write_bytes(b'{"kind": "horizon-battle", "schema": 1, "seed": ')
    before = save.read_bytes()
    with pytest.raises(DataError):
        load_session(save, catalogue, world[1])
    with pytest.raises(DataError):
        save_session(save, session, catalogue)  # never over a save that can't be read
    assert save.read_bytes() == before


def test_a_battle_save_that_could_not_be_read_back_is_not_written(world, catalogue, tmp_path):
    """A save is read back with the limits a load uses (content.guard) before it is written: a
    text over files.text_length (here a character's 200,000-character origin) is refused naming
    the key, and the save there is kept as it was."""
    import attrs

    session = fresh(world, catalogue)
    save = tmp_path / "battle.json"
    save_session(save, session, catalogue)
    before = save.read_bytes()
    member = session.party[0]
    long = attrs.evolve(member.character, background=attrs.evolve(member.character.background,
                                                                   origin="x" * 200_000))
    session.party[0] = attrs.evolve(member, character=long)
    with pytest.raises(DataError, match="a text of 200,000 characters"):
        save_session(save, session, catalogue)
    assert save.read_bytes() == before and load_session(save, catalogue, world[1])


@pytest.mark.parametrize("tamper", ["log_length", "inputs"])
def test_a_save_that_replays_differently_is_refused(world, catalogue, tmp_path, tamper):
    session = fresh(world, catalogue)
    play(session.battle, session.inputs, until=4)
    save = tmp_path / "battle.json"
    save_session(save, session, catalogue)
    data = json.loads(save.read_text(encoding="utf-8"))
    if tamper == "log_length":
        data["log_length"] += 1
    else:
        data["inputs"][0]["action"]["actor"] = "bo"  # not Bo's turn at that point
    save.write_text(json.dumps(data), encoding="utf-8")
    before = save.read_bytes()
    with pytest.raises(DataError, match=tamper):
        load_session(save, catalogue, world[1])
    assert save.read_bytes() == before


@pytest.mark.parametrize(("key", "value", "problem"), [
    ("hand_set", {"health": "lots"}, "party.0.hand_set"),
    ("hand_set", [300], "party.0.hand_set"),
    ("level", 0, "party.0.level"),
    ("level", "three", "party.0.level"),
])
def test_a_save_with_a_bad_party_member_entry_names_the_key(world, catalogue, tmp_path, key, value, problem):
    """An allied NPC's hand-set stats and level are saved with the party (campaign.battles); written by
    hand wrong, the save is refused naming the key and left as it was."""
    session = fresh(world, catalogue)
    save = tmp_path / "battle.json"
    save_session(save, session, catalogue)
    data = json.loads(save.read_text(encoding="utf-8"))
    data["party"][0][key] = value
    save.write_text(json.dumps(data), encoding="utf-8")
    before = save.read_bytes()
    with pytest.raises(DataError) as caught:
        load_session(save, catalogue, world[1])
    assert caught.value.problems[0].key == problem
    assert save.read_bytes() == before
