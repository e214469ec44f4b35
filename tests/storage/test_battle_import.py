"""Battle save files of older versions (one JSON file per battle, rewritten every turn) are
imported into the journal the first time their folder is looked at, and moved to `imported/`
beside them, never deleted; a file that can't be imported stays where it is, listed with what is
wrong; a battle that doesn't replay is reported on resume and set aside whole."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.content.encounters import load_enemies
from horizon_tui.engine import runner
from horizon_tui.engine.actions import Wait
from horizon_tui.engine.battle import cid
from horizon_tui.engine.persist import load_session, save_session, session_from_dict
from horizon_tui.errors import DataError
from horizon_tui.storage import records
from horizon_tui.storage.runs import FileRuns

LEGACY = Path(__file__).with_name("legacy") / "battle-iriel-wolves.json"


def log_text(session) -> str:
    return "\n".join(e.to_json() for e in session.battle.log)


@pytest.fixture(scope="module")
def world():
    catalogue = default_catalogue()
    return catalogue, load_enemies(catalogue)


def test_a_battle_file_is_imported_on_first_look_and_moved_aside(tmp_path, world):
    catalogue, enemies = world
    saves = tmp_path / "saves"
    save = saves / "battles" / "iriel.json"
    save.parent.mkdir(parents=True)
    shutil.copy(LEGACY, save)
    (save.parent / "iriel.json.1").write_text("an older backup")
    as_file = session_from_dict(json.loads(LEGACY.read_text()), catalogue, enemies, "legacy")

    [listed] = records.in_progress(saves)
    assert (listed.path, listed.kind, listed.party, listed.turns, listed.problem) == (save, "progress", ("Iriel",), 6, "")
    assert not save.exists()
    assert (save.parent / "imported" / "iriel.json").read_bytes() == LEGACY.read_bytes()  # moved, never deleted
    assert (save.parent / "imported" / "iriel.json.1").read_text() == "an older backup"
    resumed = load_session(records.battles_of(saves), "battles/iriel.json", catalogue, enemies)
    assert resumed.inputs == as_file.inputs and log_text(resumed) == log_text(as_file)
    assert records.in_progress(saves) == [listed]  # imported once


def test_the_battle_imported_goes_on_as_a_journal(tmp_path, world):
    """After the import, a turn appends to the journal: resuming again replays all of it."""
    catalogue, enemies = world
    saves = tmp_path / "saves"
    (saves / "battles").mkdir(parents=True)
    shutil.copy(LEGACY, saves / "battles" / "iriel.json")
    assert records.has_battle(saves, saves / "battles" / "iriel.json")
    battles = records.battles_of(saves)
    session = load_session(battles, "battles/iriel.json", catalogue, enemies)
    while len(session.inputs) < 8 and not session.battle.over:  # the player waits, the wolves come
        runner.submit(session.battle, Wait(cid(session.battle.current)), session.inputs)
        runner.run_ai(session.battle)
    save_session(battles, "battles/iriel.json", session, catalogue)
    assert session.saved is not None and session.saved.inputs == 8
    assert log_text(load_session(battles, "battles/iriel.json", catalogue, enemies)) == log_text(session)


def test_files_that_cant_be_imported_stay_and_are_listed_with_why(tmp_path):
    saves = tmp_path / "saves"
    folder = saves / "battles"
    folder.mkdir(parents=True)
    (folder / "broken.json").write_text('{"kind": "horizon-battle", "seed": ')
    (folder / "notes.json").write_text('{"what": "not a battle"}')
    found = {b.path.name: b for b in records.in_progress(saves)}
    assert set(found) == {"broken.json", "notes.json"} and found["broken.json"].problem
    assert (folder / "broken.json").exists() and (folder / "notes.json").exists()
    assert not (folder / "imported").exists()
    assert not (saves / "horizon.sqlite3").exists()  # nothing to import: no database made for it


def test_kept_battles_of_older_versions_are_imported_too(tmp_path):
    saves = tmp_path / "saves"
    for folder in ("kept", "abandoned"):
        (saves / "battles" / folder).mkdir(parents=True)
    shutil.copy(LEGACY, saves / "battles" / "kept" / "iriel--20260101-120000.json")
    shutil.copy(LEGACY, saves / "battles" / "abandoned" / "iriel-2.json")
    kept = records.kept_battles(saves)
    assert sorted(b.path.name for b in kept) == ["iriel--20260101-120000.json", "iriel-2.json"]
    assert all(b.character_stem == "iriel" and b.turns == 6 and not b.problem for b in kept)
    assert (saves / "battles" / "kept" / "imported" / "iriel--20260101-120000.json").exists()
    assert (saves / "battles" / "abandoned" / "imported" / "iriel-2.json").exists()


def test_a_runs_fight_file_is_imported_when_the_run_resumes(tmp_path, world):
    catalogue, enemies = world
    store = FileRuns(tmp_path)
    store.folder.mkdir(parents=True)
    shutil.copy(LEGACY, store.folder / "20260101-abc123.battle.json")
    session = load_session(store.battles(), store.battle_slot("20260101-abc123"), catalogue, enemies)
    assert session is not None and len(session.inputs) == 6
    assert (store.folder / "imported" / "20260101-abc123.battle.json").exists()
    assert not (store.folder / "20260101-abc123.battle.json").exists()


def test_an_imported_battle_that_no_longer_replays_is_reported_and_set_aside_whole(tmp_path, world):
    catalogue, enemies = world
    saves = tmp_path / "saves"
    save = saves / "battles" / "iriel.json"
    save.parent.mkdir(parents=True)
    data = json.loads(LEGACY.read_text())
    data["log_length"] += 1  # as if the rules changed since it was saved
    save.write_text(json.dumps(data))
    assert records.has_battle(saves, save)
    with pytest.raises(DataError, match="log_length"):
        load_session(records.battles_of(saves), "battles/iriel.json", catalogue, enemies)
    assert records.read_battle(saves, save) == data  # reported, left as it was
    moved = records.set_aside_damaged(saves, save)
    assert moved == saves / "battles" / "damaged" / "iriel.json"
    assert not records.has_battle(saves, save) and records.read_battle(saves, moved) == data


def test_a_clean_exit_leaves_no_wal_or_shm_file(tmp_path):
    """By hand: every quit of the player app left horizon.sqlite3-wal and -shm behind (its
    connections outlived the exit's clean-up). What the exit runs (atexit) closes them: the folder
    is looked at right after, before the interpreter's own teardown might."""
    import subprocess
    import sys

    saves = tmp_path / "saves"
    code = ("import atexit, sys; from pathlib import Path; from horizon_tui.storage.records import battles_of; "
            "saves = Path(sys.argv[1]); battles_of(saves).save('battles/x.json', '{}', 0, ['{}'], {}); "
            "atexit._run_exitfuncs(); print(sorted(p.name for p in saves.iterdir()))")
    done = subprocess.run([sys.executable, "-c", code, str(saves)], check=True, timeout=60, capture_output=True, text=True)
    assert done.stdout.strip() == "['horizon.sqlite3']"
