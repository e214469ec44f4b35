"""The hall of fame in the host's database (`serve-ssh --database`): every account's runs on every
host of one database, ranked as the file's are; the data folder's `hall_of_fame.json` of before
brought over once. Against SQLite and a real PostgreSQL (skipped, saying why, without one)."""

from __future__ import annotations

import json

import pytest

from horizon_tui.storage.host_records import ENV_DATABASE
from horizon_tui.storage.host_sql import SqlScores
from horizon_tui.storage.host_wiring import score_table
from horizon_tui.storage.database import open_database
from horizon_tui.storage.runs import FileScores, MemoryScores


def entry(run_id: str, depth: int, score: int, *, daily: str | None = None, account: str = "ann") -> dict:
    return {"id": run_id, "account": account, "party": ["Iriel"], "depth": depth, "score": score,
            "daily": daily, "ended": f"2026-12-0{depth}T10:00:00"}


@pytest.fixture(params=["memory", "file", "sqlite", "postgres"])
def scores(request, tmp_path):
    if request.param == "memory":
        yield MemoryScores()
    elif request.param == "file":
        yield FileScores(tmp_path / "hall_of_fame.json")
    else:
        database = open_database(request.getfixturevalue(f"{request.param}_url"))
        yield SqlScores(database)
        database.close()


def test_runs_are_ranked_deepest_first_then_by_score_and_daily_runs_apart(scores):
    scores.add(entry("a", 3, 100))
    scores.add(entry("b", 5, 10))
    scores.add(entry("c", 3, 400, account="bo"))
    scores.add(entry("d", 9, 1, daily="2026-12-05"))
    assert [e["id"] for e in scores.entries()] == ["b", "c", "a"]
    assert [e["id"] for e in scores.entries(daily=True)] == ["d"]
    assert scores.entries()[1] == entry("c", 3, 400, account="bo")  # the entry as it was given


def test_every_host_of_one_database_sees_every_accounts_runs(sql_url):
    one, two = open_database(sql_url), open_database(sql_url)  # two hosts' connections
    try:
        SqlScores(one).add(entry("ann-run", 4, 50))
        SqlScores(two).add(entry("bo-run", 6, 20, account="bo"))
        assert SqlScores(one).add(entry("ann-run", 4, 50)) is False  # entered once
        for database in (one, two):
            assert [e["account"] for e in SqlScores(database).entries()] == ["bo", "ann"]
    finally:
        one.close()
        two.close()


def test_the_data_folders_file_is_brought_over_once_and_left_as_it_was(sqlite_url, tmp_path, monkeypatch):
    path = tmp_path / "hall_of_fame.json"
    FileScores(path).add(entry("old", 2, 30))
    FileScores(path).add(entry("old-daily", 1, 5, daily="2026-12-01"))
    before = path.read_bytes()
    monkeypatch.setenv(ENV_DATABASE, sqlite_url)
    table = score_table(path)
    assert isinstance(table, SqlScores)
    table.add(entry("new", 7, 1))
    assert [e["id"] for e in table.entries()] == ["new", "old"] and [e["id"] for e in table.entries(daily=True)] == ["old-daily"]
    FileScores(path).add(entry("later", 9, 9))  # written to the file after the import: not brought over again
    assert [e["id"] for e in score_table(path).entries()] == ["new", "old"]
    assert json.loads(before)["runs"][0]["id"] == "old"
    monkeypatch.delenv(ENV_DATABASE)
    assert isinstance(score_table(path), FileScores)  # no database: the file, as before


def test_a_damaged_row_is_reported_naming_it(sqlite_url):
    from horizon_tui.errors import DataError
    from horizon_tui.storage.schema import hall_of_fame

    database = open_database(sqlite_url)
    try:
        SqlScores(database).add(entry("x", 1, 1))
        with database.writing() as conn:
            conn.execute(hall_of_fame.update().values(entry="[" * 10_000))
        with pytest.raises(DataError, match="hall of fame: x"):
            SqlScores(database).entries()
    finally:
        database.close()
