"""Replays and saves: recorded inputs rebuild a battle exactly; a battle saved mid-fight resumes to
the same outcome; a save that can't be read is reported and left as it was. Saves go to a battle
journal (storage.battles: the in-memory twin, and SQLite where the stored rows are tampered with)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sqlalchemy import select, update

from engine_kit import GRUNT, ability, character, enemy_def
from horizon_tui.engine import runner
from horizon_tui.engine.actions import Attack, Impossible, Move, UseAbility, Wait
from horizon_tui.engine.battle import Battle, cid, enemies_of, gear, pos
from horizon_tui.engine.forming import PartyMember, create_battle
from horizon_tui.engine.encounter import load_encounter
from horizon_tui.engine.persist import (
    BattleInProgress, LogFingerprint, load_session, log_digest, save_session, session_from_dict, session_to_dict,
)
from horizon_tui.errors import DataError
from horizon_tui.storage import schema
from horizon_tui.storage.battles import MemoryBattles
from horizon_tui.storage.battles_sql import SqlBattles
from horizon_tui.storage.database import open_database
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


@pytest.fixture
def sql_battles(tmp_path):
    database = open_database(data_dir=tmp_path)
    yield SqlBattles(database)
    database.close()


def test_a_battle_saved_mid_fight_resumes_to_the_same_outcome(world, catalogue):
    session = fresh(world, catalogue)
    play(session.battle, session.inputs, until=6)
    assert not session.battle.over and runner.needs_input(session.battle)
    battles = MemoryBattles()
    save_session(battles, "b.json", session, catalogue)

    loaded = load_session(battles, "b.json", catalogue, world[1])
    assert log_text(loaded.battle) == log_text(session.battle)
    assert [m.character for m in loaded.party] == [m.character for m in session.party]
    play(session.battle, session.inputs)
    play(loaded.battle, loaded.inputs)
    assert session.battle.over and loaded.battle.over
    assert log_text(loaded.battle) == log_text(session.battle)
    assert load_session(battles, "nothing.json", catalogue, world[1]) is None


def test_each_save_appends_the_inputs_since_the_last_and_resumes_where_it_was(world, catalogue, sql_battles):
    """Saved after every input (as the battle screen does): one row per input, never the battle
    rewritten; a session resumed from the journal appends to it; the digest carried forward is the
    whole log's (`log_digest`)."""
    session = fresh(world, catalogue)
    for until in range(1, 7):
        play(session.battle, session.inputs, until=until)
        save_session(sql_battles, "b.json", session, catalogue)
    with sql_battles.database.reading() as conn:
        rows = conn.execute(select(schema.battle_inputs.c.seq)).scalars().all()
        stored = conn.execute(select(schema.battles.c.checks)).scalar()
    assert rows == list(range(1, len(session.inputs) + 1))
    assert json.loads(stored)["log_sha256"] == log_digest(session.battle)
    resumed = load_session(sql_battles, "b.json", catalogue, world[1])
    play(resumed.battle, resumed.inputs, until=9)
    save_session(sql_battles, "b.json", resumed, catalogue)
    assert resumed.saved.inputs == len(resumed.inputs) == 9
    again = load_session(sql_battles, "b.json", catalogue, world[1])
    assert log_text(again.battle) == log_text(resumed.battle)


def test_the_digest_carried_forward_is_the_whole_logs(world, catalogue):
    session = fresh(world, catalogue)
    fingerprint = LogFingerprint(session.battle)
    for until in (2, 3, 5):
        play(session.battle, session.inputs, until=until)
        assert fingerprint.of(session.battle) == log_digest(session.battle)
    other = fresh(world, catalogue)
    assert fingerprint.of(other.battle) == log_digest(other.battle)  # another battle: hashed from its start


class CountedBattles(MemoryBattles):
    """The twin, noting where each save started (0: the battle written whole)."""

    def __init__(self) -> None:
        super().__init__()
        self.firsts: list[int] = []

    def save(self, slot, header, first, inputs, checks):
        self.firsts.append(first)
        return super().save(slot, header, first, inputs, checks)


def test_a_battle_rebuilt_from_fewer_inputs_is_saved_whole(world, catalogue):
    """A table's take-back rebuilds the battle from fewer inputs: the journal must not keep the
    inputs taken back under the new ones, even when the battle has as many inputs again."""
    session = fresh(world, catalogue)
    play(session.battle, session.inputs, until=5)
    battles = CountedBattles()
    save_session(battles, "b.json", session, catalogue)
    play(session.battle, session.inputs, until=6)
    save_session(battles, "b.json", session, catalogue)
    kept = session.inputs[:2]
    session.battle = create_battle(load_encounter(world[0], catalogue, world[1]), world[2], 5, catalogue, world[1])
    runner.replay(session.battle, kept)
    runner.run_ai(session.battle)
    session.inputs = list(kept)
    play(session.battle, session.inputs, until=7)
    save_session(battles, "b.json", session, catalogue)
    assert battles.firsts == [0, 5, 0]
    assert log_text(load_session(battles, "b.json", catalogue, world[1]).battle) == log_text(session.battle)


def test_a_save_file_of_an_older_version_reads_as_before(world, catalogue):
    """The whole save as one object (session_to_dict, the older file's shape) replays as it did."""
    session = fresh(world, catalogue)
    play(session.battle, session.inputs, until=4)
    data = json.loads(json.dumps(session_to_dict(session, catalogue)))
    assert session_from_dict(data, catalogue, world[1], "old.json").inputs == session.inputs


def test_a_battle_save_that_could_not_be_read_back_is_not_written(world, catalogue, sql_battles):
    """What load would refuse (content.guard's limits: here a character's 200,000-character
    origin) is refused naming the key, and the battle kept is as it was."""
    import attrs

    session = fresh(world, catalogue)
    save_session(sql_battles, "b.json", session, catalogue)
    before = sql_battles.load("b.json")
    member = session.party[0]
    long = attrs.evolve(member.character, background=attrs.evolve(member.character.background,
                                                                   origin="x" * 200_000))
    again = BattleInProgress(session.battle, session.encounter, [attrs.evolve(member, character=long)], session.inputs)
    with pytest.raises(DataError, match="a text of 200,000 characters"):
        save_session(sql_battles, "b.json", again, catalogue)
    assert sql_battles.load("b.json") == before and load_session(sql_battles, "b.json", catalogue, world[1])


@pytest.mark.parametrize("tamper", ["log_length", "inputs"])
def test_a_save_that_replays_differently_is_refused(world, catalogue, sql_battles, tamper):
    session = fresh(world, catalogue)
    play(session.battle, session.inputs, until=4)
    save_session(sql_battles, "b.json", session, catalogue)
    with sql_battles.database.writing() as conn:
        if tamper == "log_length":
            checks = json.loads(conn.execute(select(schema.battles.c.checks)).scalar())
            conn.execute(update(schema.battles).values(checks=json.dumps(checks | {"log_length": checks["log_length"] + 1})))
        else:
            row = schema.battle_inputs.c
            first = json.loads(conn.execute(select(row.input).where(row.seq == 1)).scalar())
            first["action"]["actor"] = "bo"  # not Bo's turn at that point
            conn.execute(update(schema.battle_inputs).where(row.seq == 1).values(input=json.dumps(first)))
    before = sql_battles.load("b.json")
    with pytest.raises(DataError, match=tamper):
        load_session(sql_battles, "b.json", catalogue, world[1])
    assert sql_battles.load("b.json") == before


@pytest.mark.parametrize(("key", "value", "problem"), [
    ("hand_set", {"health": "lots"}, "party.0.hand_set"),
    ("hand_set", [300], "party.0.hand_set"),
    ("level", 0, "party.0.level"),
    ("level", "three", "party.0.level"),
])
def test_a_save_with_a_bad_party_member_entry_names_the_key(world, catalogue, key, value, problem):
    """An allied NPC's hand-set stats and level are saved with the party (campaign.battles); written by
    hand wrong, the save is refused naming the key."""
    session = fresh(world, catalogue)
    data = json.loads(json.dumps(session_to_dict(session, catalogue)))
    data["party"][0][key] = value
    with pytest.raises(DataError) as caught:
        session_from_dict(data, catalogue, world[1], "battle.json")
    assert caught.value.problems[0].key == problem


def test_a_party_larger_than_the_maps_start_cells_forms_and_resumes(catalogue):
    """Goblin Ambush draws 4 start cells. A run's party of five formed there (the nearest free
    cells added), but its save could not be resumed, and a GM's or the player's Battle could not
    start it at all: "5 party members but only 4 start cells" (found by hand). Forming adds them."""
    from horizon_tui.content.encounters import load_enemies

    enemies = load_enemies(catalogue)
    setup = load_encounter("goblin_ambush", catalogue, enemies)
    assert len(setup.party_start) == 4
    party = [PartyMember(character(name), "player") for name in ("Ann", "Bo", "Cy", "Di", "Ed")]
    battle = create_battle(setup, party, 7, catalogue, enemies)
    runner.begin(battle)
    session = BattleInProgress(battle, "goblin_ambush", party)
    back = session_from_dict(json.loads(json.dumps(session_to_dict(session, catalogue))), catalogue, enemies)
    cells = {cid(e): pos(e) for e in battle.combatants()}
    assert len(cells) == 7 and {cid(e): pos(e) for e in back.battle.combatants()} == cells
