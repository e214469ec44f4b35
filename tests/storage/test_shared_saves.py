"""An account's runs, battles and campaigns in a host's shared database (storage.host_shared and
host_saves, migration 0005): the run repository's contract on the in-memory twin, the files, SQLite and a real
PostgreSQL (skipped, saying why, without HORIZON_TEST_POSTGRES_URL); battles and campaigns kept
apart by owner; the upgrade from 0004 keeping what was stored; a saves folder's own database and
run files imported once and moved aside, never deleted."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa

from horizon_tui.storage import host_shared, schema
from horizon_tui.storage.battles_sql import SqlBattles
from horizon_tui.storage.campaigns import CampaignNotFound, SqlCampaigns
from horizon_tui.storage.database import DATABASE_FILE, Database, current_revision, open_database, upgrade
from horizon_tui.paths import ENV_SHARED_SAVES
from horizon_tui.storage.host_records import ENV_ACCOUNT, ENV_DATABASE
from horizon_tui.storage.host_saves import SqlRuns
from horizon_tui.storage.host_shared import shared_saves
from horizon_tui.storage.host_sql import shared_database
from horizon_tui.storage.host_wiring import run_store
from horizon_tui.storage.records import battles_of, has_journal
from horizon_tui.storage.runs import FileRuns, MemoryRuns

HEADER = json.dumps({"kind": "horizon-battle", "schema": 1, "seed": 7, "encounter": "wolves", "party": []})
MOVE = json.dumps({"at": 0, "auto_end": True, "action": {"type": "wait", "actor": "iriel"}})
CHECKS = {"log_length": 3, "last_event": "event 3", "log_sha256": f"{3:064x}"}
STATE = {"name": "Lantern Road", "seed": 1234, "day": 1, "draws": 0, "party": [], "notes": ""}
FIRST = {"day": 1, "kind": "day", "text": "The campaign Lantern Road begins: day 1", "data": {}}


def a_run(run_id: str, depth: int = 1, **more) -> dict:
    return {"id": run_id, "depth": depth, "seed": 5, "members": [{"character": {"name": "Iriel"}, "hp": 7}], **more}


@pytest.fixture(params=["memory", "files", "sqlite", "postgres"])
def runs(request, tmp_path: Path):
    if request.param == "memory":
        yield MemoryRuns()
    elif request.param == "files":
        yield FileRuns(tmp_path / "saves")
    else:
        url = request.getfixturevalue("postgres_url") if request.param == "postgres" else None
        database = open_database(url, data_dir=tmp_path)
        yield SqlRuns(database, "alice", tmp_path / "saves")
        database.close()


def test_a_run_saved_loads_as_it_was_and_is_listed_until_it_is_over(runs):
    assert runs.load_run("20261205-aaaaaa") is None and runs.runs_in_progress() == []
    runs.save_run(a_run("20261205-aaaaaa"))
    runs.save_run(a_run("20261205-bbbbbb", depth=3))
    runs.save_run(a_run("20261205-aaaaaa", depth=2))  # saved again: the same run, deeper
    assert runs.load_run("20261205-aaaaaa") == a_run("20261205-aaaaaa", depth=2)
    listed = {r["id"]: r["depth"] for r in runs.runs_in_progress()}
    assert listed == {"20261205-aaaaaa": 2, "20261205-bbbbbb": 3}
    runs.save_run(a_run("20261205-bbbbbb", depth=3, over=True))
    assert [r["id"] for r in runs.runs_in_progress()] == ["20261205-aaaaaa"]
    assert runs.load_run("20261205-bbbbbb")["over"] is True


def test_a_run_id_that_could_name_another_file_is_refused(runs):
    with pytest.raises(ValueError, match="not a run id"):
        runs.save_run(a_run("../../x"))
    with pytest.raises(ValueError, match="not a run id"):
        runs.load_run("a/b")


def test_a_runs_fight_is_a_journal_beside_it_and_the_morgue_is_written(runs):
    runs.save_run(a_run("20261205-aaaaaa"))
    slot = runs.battle_slot("20261205-aaaaaa")
    assert runs.battles().save(slot, HEADER, 0, [MOVE], CHECKS) == 1
    assert runs.battles().load(slot)["inputs"] == [json.loads(MOVE)]
    where = runs.write_morgue("20261205-aaaaaa", "Iriel fell at depth 1.\n", {"depth": 1})
    assert where.endswith("20261205-aaaaaa.morgue.txt")
    if isinstance(runs, SqlRuns):
        assert runs.morgue("20261205-aaaaaa") == "Iriel fell at depth 1.\n"
        assert Path(where).read_text() == "Iriel fell at depth 1.\n"  # the record on this host too


@pytest.fixture(params=["sqlite", "postgres"])
def sql_database(request, tmp_path: Path):
    url = request.getfixturevalue("postgres_url") if request.param == "postgres" else None
    database = open_database(url, data_dir=tmp_path)
    yield database
    database.close()


def test_each_account_has_its_own_runs_battles_and_campaigns_by_the_same_names(sql_database, tmp_path):
    alice, bob = (SqlRuns(sql_database, name, tmp_path / name) for name in ("alice", "bob"))
    alice.save_run(a_run("20261205-aaaaaa", depth=4))
    bob.save_run(a_run("20261205-aaaaaa", depth=1))
    assert alice.load_run("20261205-aaaaaa")["depth"] == 4 and bob.load_run("20261205-aaaaaa")["depth"] == 1
    slot = "battles/iriel.json"
    SqlBattles(sql_database, "alice").save(slot, HEADER, 0, [MOVE, MOVE], CHECKS)
    assert SqlBattles(sql_database, "bob").load(slot) is None and not SqlBattles(sql_database, "bob").exists(slot)
    SqlBattles(sql_database, "bob").save(slot, HEADER, 0, [MOVE], CHECKS)
    assert len(SqlBattles(sql_database, "alice").load(slot)["inputs"]) == 2
    assert [b.slot for b in SqlBattles(sql_database, "bob").listing("battles/")] == [slot]
    SqlBattles(sql_database, "bob").drop(slot)
    assert SqlBattles(sql_database, "alice").exists(slot)
    SqlCampaigns(sql_database, "gm-one").create("lantern-road", "Lantern Road", STATE, [FIRST], {"day": 1})
    SqlCampaigns(sql_database, "gm-two").create("lantern-road", "Lantern Road too", STATE, [], {"day": 2})
    assert [c.name for c in SqlCampaigns(sql_database, "gm-one").listing()] == ["Lantern Road"]
    assert SqlCampaigns(sql_database, "gm-two").load("lantern-road").log_length == 0
    with pytest.raises(CampaignNotFound):
        SqlCampaigns(sql_database, "").load("lantern-road")  # a saves folder's own: not the GMs'


def _at_0004(url: str | None, tmp_path: Path) -> Database:
    """A database made by the Horizon of before (schema revision 0004), with a battle and a campaign."""
    if url is None:
        engine = sa.create_engine(f"sqlite:///{tmp_path / DATABASE_FILE}")
        database = Database(engine, str(tmp_path / DATABASE_FILE), tmp_path / DATABASE_FILE)
    else:
        engine = sa.create_engine(sa.make_url(url).set(drivername="postgresql+psycopg"))
        database = Database(engine, "postgres", None)
    upgrade(database, "0004")
    with engine.begin() as conn:
        conn.execute(sa.text("INSERT INTO battles (slot, setup, created_at, updated_at, head, checks) "
                             "VALUES ('battles/iriel.json', :setup, 1, 2, 1, :checks)"),
                     {"setup": HEADER, "checks": json.dumps(CHECKS)})
        battle_id = conn.execute(sa.text("SELECT id FROM battles")).scalar()
        conn.execute(sa.text("INSERT INTO battle_inputs (battle_id, seq, input) VALUES (:b, 1, :m)"),
                     {"b": battle_id, "m": MOVE})
        conn.execute(sa.text("INSERT INTO campaigns (slug, name, created_at, updated_at, head, summary) "
                             "VALUES ('old', 'Old Road', 0, 0, 0, '{}')"))
        campaign_id = conn.execute(sa.text("SELECT id FROM campaigns")).scalar()
        conn.execute(sa.text("INSERT INTO campaign_snapshots (campaign_id, seq, state) VALUES (:c, 0, :s)"),
                     {"c": campaign_id, "s": json.dumps(STATE)})
    engine.dispose()
    return database


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_the_upgrade_from_0004_keeps_every_battle_and_campaign_as_the_folders_own(request, tmp_path, kind):
    url = request.getfixturevalue("postgres_url") if kind == "postgres" else None
    _at_0004(url, tmp_path)
    database = open_database(url, data_dir=tmp_path)  # migrates to 0005
    try:
        with database.reading() as conn:
            assert current_revision(conn) == "0005"
        loaded = SqlBattles(database).load("battles/iriel.json")
        assert loaded["inputs"] == [json.loads(MOVE)] and loaded["log_length"] == 3
        assert SqlCampaigns(database).load("old").state["name"] == "Lantern Road"
        assert [c.name for c in SqlCampaigns(database).listing()] == ["Old Road"]
        assert SqlRuns(database, "alice", tmp_path).runs_in_progress() == []  # the new table, empty
    finally:
        database.close()
    if kind == "sqlite":
        assert (tmp_path / f"{DATABASE_FILE}.before-0005").is_file()  # the copy of before is kept


# --- a saves folder's own saves, imported once ----------------------------------------------------------


@pytest.fixture
def shared_folder(monkeypatch, tmp_path, sql_url):
    """`alice`'s saves folder as a host with `--database` shares it (the environment host/game.py sets)."""
    saves = tmp_path / "users" / "alice" / "saves"
    saves.mkdir(parents=True)
    monkeypatch.setenv(ENV_DATABASE, sql_url)
    monkeypatch.setenv(ENV_ACCOUNT, "alice")
    monkeypatch.setenv(ENV_SHARED_SAVES, str(saves))
    monkeypatch.setattr(host_shared, "_checked", set())
    monkeypatch.setattr(host_shared, "_not_imported", {})
    yield saves
    shared_database(sql_url).close()
    shared_database.cache_clear()


def _folder_of_before(saves: Path) -> None:
    """What alice's folder kept on this host before the database: a battle, a campaign, a run."""
    local = open_database(data_dir=saves)
    SqlBattles(local).save("battles/iriel.json", HEADER, 0, [MOVE, MOVE], CHECKS)
    SqlCampaigns(local).create("lantern-road", "Lantern Road", STATE, [FIRST], {"day": 1})
    local.close()
    runs = saves / "records" / "runs"
    runs.mkdir(parents=True)
    (runs / "20261205-aaaaaa.json").write_text(json.dumps(a_run("20261205-aaaaaa", depth=3)))
    (runs / "20261205-aaaaaa.morgue.txt").write_text("not over yet")


def test_the_folders_saves_are_imported_once_and_moved_aside(shared_folder, sql_url):
    saves = shared_folder
    _folder_of_before(saves)
    database = shared_database(sql_url)
    SqlCampaigns(database, "alice").create("lantern-road", "Made on host B", STATE, [], {"day": 9})
    battles = battles_of(saves)
    assert isinstance(battles, SqlBattles) and battles.owner == "alice" and has_journal(saves)
    assert len(battles.load("battles/iriel.json")["inputs"]) == 2
    assert run_store(saves).load_run("20261205-aaaaaa")["depth"] == 3
    campaigns = SqlCampaigns.of_folder(saves)
    assert {c.slug: c.name for c in campaigns.listing()} == {"lantern-road": "Made on host B",
                                                              "lantern-road-2": "Lantern Road"}
    assert campaigns.log_lines("lantern-road-2") == [FIRST]
    # moved aside, never deleted; the morgue file stays a record of this host
    assert not (saves / DATABASE_FILE).exists() and (saves / "imported" / DATABASE_FILE).is_file()
    assert (saves / "records" / "runs" / "imported" / "20261205-aaaaaa.json").is_file()
    assert (saves / "records" / "runs" / "20261205-aaaaaa.morgue.txt").is_file()
    # a second window, a second host process: nothing twice, even with the files put back
    (saves / "imported" / DATABASE_FILE).rename(saves / DATABASE_FILE)
    host_shared._checked.clear()
    assert shared_saves(saves) == (database, "alice")
    assert len(SqlCampaigns(database, "alice").listing()) == 2
    assert (saves / "imported" / DATABASE_FILE).is_file() and not (saves / DATABASE_FILE).exists()
    with database.reading() as conn:
        assert conn.scalar(sa.select(sa.func.count()).select_from(schema.battles)) == 1


def test_the_folders_database_moves_aside_with_its_write_ahead_log(shared_folder, sql_url):
    """Another window on this host still had the folder's database open, so the import's close
    did not checkpoint it: the rows in its `-wal` go with it, under its new name."""
    saves = shared_folder
    _folder_of_before(saves)
    other = sqlite3.connect(saves / DATABASE_FILE)
    other.execute("PRAGMA wal_autocheckpoint=0")
    other.execute("CREATE TABLE window_b (note TEXT)")
    other.execute("INSERT INTO window_b VALUES ('written by window B')")
    other.commit()
    try:
        assert (saves / f"{DATABASE_FILE}-wal").stat().st_size > 0
        shared_saves(saves)
        assert not (saves / f"{DATABASE_FILE}-wal").exists()
        assert (saves / "imported" / f"{DATABASE_FILE}-wal").is_file()
    finally:
        other.close()
    moved = sqlite3.connect(saves / "imported" / DATABASE_FILE)
    try:
        assert moved.execute("SELECT note FROM window_b").fetchall() == [("written by window B",)]
    finally:
        moved.close()


def test_a_folder_database_that_cant_be_opened_is_not_marked_imported_and_is_tried_again(shared_folder, sql_url):
    """Garbage bytes named like the folder's database: the run files are imported, the file stays
    where it is, unmarked, and why is kept for the player (`not_imported`: the file and what is
    wrong); the next start, with the database sound again, imports it."""
    saves = shared_folder
    _folder_of_before(saves)
    sound = (saves / DATABASE_FILE).read_bytes()
    (saves / DATABASE_FILE).write_bytes(b"\x00garbage, not SQLite\xff" * 40)
    database, _ = shared_saves(saves)
    problem = host_shared.not_imported(saves)
    assert problem is not None and str((saves / DATABASE_FILE).resolve()) in problem and "not an SQLite database" in problem
    assert run_store(saves).load_run("20261205-aaaaaa")["depth"] == 3  # the runs came over
    assert (saves / DATABASE_FILE).read_bytes().startswith(b"\x00garbage")  # left where it was
    with database.reading() as conn:
        assert conn.scalar(sa.select(sa.func.count()).select_from(schema.host_imports)) == 0
    assert SqlCampaigns.of_folder(saves).listing() == []
    # the next start (another process), the file sound again: imported then, and nothing to tell
    (saves / DATABASE_FILE).write_bytes(sound)
    host_shared._checked.clear()
    shared_saves(saves)
    assert host_shared.not_imported(saves) is None
    assert [c.slug for c in SqlCampaigns.of_folder(saves).listing()] == ["lantern-road"]
    assert (saves / "imported" / DATABASE_FILE).is_file() and not (saves / DATABASE_FILE).exists()


def test_a_battle_of_the_same_name_on_both_hosts_is_kept_aside_not_lost(shared_folder, sql_url):
    saves = shared_folder
    _folder_of_before(saves)
    SqlBattles(shared_database(sql_url), "alice").save("battles/iriel.json", HEADER, 0, [MOVE], CHECKS)
    battles = battles_of(saves)
    assert len(battles.load("battles/iriel.json")["inputs"]) == 1  # the database's stays the one in progress
    [kept] = battles.listing("battles/kept/")
    assert kept.slot.startswith("battles/kept/iriel--from-") and kept.inputs == 2


def test_a_folder_the_host_does_not_share_keeps_its_own_database(shared_folder, tmp_path):
    table = tmp_path / "tables" / "t1"  # a live table's folder: its battle stays on this host
    table.mkdir(parents=True)
    assert shared_saves(table) is None
    assert isinstance(run_store(table), FileRuns)
    battles = battles_of(table)
    assert isinstance(battles, SqlBattles) and battles.owner == "" and battles.database.file == (
        table / DATABASE_FILE).resolve()


def test_closing_a_gms_campaigns_leaves_the_shared_database_to_the_others(shared_folder, sql_url, tmp_path):
    """The host's shared database serves every session's runs, battles, locks and campaigns: the GM
    tool closing its campaigns (`SqlCampaigns.close`) closes none of it; a saves folder's own
    database, which the repository opened, it closes."""
    database = shared_database(sql_url)
    gms = SqlCampaigns.of_folder(shared_folder)
    bobs = SqlCampaigns(database, "bob")
    bobs.create("lantern-road", "Lantern Road", STATE, [FIRST], {"day": 1})
    pool = database.engine.pool  # its connections, one of them bob's just now
    gms.close()
    assert database.engine.pool is pool  # not disposed under bob's feet
    assert [c.name for c in bobs.listing()] == ["Lantern Road"] and bobs.log_lines("lantern-road") == [FIRST]
    own_folder = tmp_path / "tables" / "t1"  # a folder the host doesn't share: its own database
    own_folder.mkdir(parents=True)
    own = SqlCampaigns.of_folder(own_folder)
    own_pool = own.database.engine.pool
    own.close()
    assert own.database.engine.pool is not own_pool  # disposed: SQLite checkpointed its -wal


def test_without_a_database_a_runs_fight_stays_in_the_folder(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_DATABASE, raising=False)
    monkeypatch.setenv(ENV_SHARED_SAVES, str(tmp_path))  # named, but no database: the folder's own
    assert isinstance(run_store(tmp_path), FileRuns)
    battles = FileRuns(tmp_path).battles()
    assert isinstance(battles, SqlBattles) and battles.owner == ""
    assert battles.database.file == (tmp_path / DATABASE_FILE).resolve()
