"""storage.database: opening from a URL, the schema's migrations and revision check, WAL mode, and
a damaged, foreign, newer or unwritable database reported by file and reason."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text

from horizon_tui.storage import database
from horizon_tui.storage.database import (
    DATABASE_FILE, DatabaseError, StorageRefused, database_url, head_revision, open_database,
)
from horizon_tui.storage.schema import metadata


def test_the_default_is_an_sqlite_file_in_the_data_folder(tmp_path: Path):
    assert database_url(None, tmp_path) == f"sqlite:///{tmp_path.resolve() / DATABASE_FILE}"
    assert database_url("postgresql://h/db", tmp_path) == "postgresql://h/db"


def test_a_new_database_is_created_at_the_newest_revision_in_wal_mode(tmp_path: Path):
    db = open_database(data_dir=tmp_path)
    try:
        assert db.file == (tmp_path / DATABASE_FILE).resolve()
        assert db.file.stat().st_mode & 0o777 == 0o600  # private, as every save is
        with db.reading() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == database.BUSY_TIMEOUT_MS
            assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() == database.SCHEMA_REVISION
    finally:
        db.close()
    assert not (tmp_path / f"{DATABASE_FILE}-wal").exists()  # closing checkpointed and cleaned


def test_the_revision_the_code_expects_is_alembics_head():
    """SCHEMA_REVISION lets a current database open without loading Alembic: it must be the head."""
    assert head_revision() == database.SCHEMA_REVISION


def test_the_migrations_make_exactly_the_schema_the_code_uses(tmp_path: Path):
    db = open_database(data_dir=tmp_path)
    try:
        with db.engine.connect() as conn:
            differences = compare_metadata(MigrationContext.configure(conn), metadata)
        assert differences == []
    finally:
        db.close()


def test_reopening_a_current_database_does_not_migrate_or_copy(tmp_path: Path, monkeypatch):
    open_database(data_dir=tmp_path).close()
    monkeypatch.setattr(database, "upgrade", lambda *_: pytest.fail("migrated a current database"))
    open_database(data_dir=tmp_path).close()
    assert [p.name for p in tmp_path.iterdir()] == [DATABASE_FILE]


def test_an_older_database_is_copied_before_it_is_migrated(tmp_path: Path, monkeypatch):
    """A database at a known older revision: a consistent copy is kept beside it, then it is migrated."""
    open_database(data_dir=tmp_path).close()
    with sqlite3.connect(tmp_path / DATABASE_FILE) as conn:
        conn.execute("INSERT INTO campaigns (slug, name, created_at, updated_at, head, summary) "
                     "VALUES ('old', 'Old', 0, 0, 0, '{}')")
    migrated = []
    current, following = database.SCHEMA_REVISION, f"{int(database.SCHEMA_REVISION) + 1:04d}"
    monkeypatch.setattr(database, "SCHEMA_REVISION", following)
    monkeypatch.setattr(database, "known_revisions", lambda: {current, following})
    monkeypatch.setattr(database, "upgrade", lambda db, revision="head": migrated.append(db.where))
    open_database(data_dir=tmp_path).close()
    copy = tmp_path / f"{DATABASE_FILE}.before-{following}"
    assert migrated and copy.is_file()
    with sqlite3.connect(copy) as conn:
        assert conn.execute("SELECT name FROM campaigns").fetchall() == [("Old",)]


def test_a_database_from_a_newer_horizon_is_refused_and_kept(tmp_path: Path):
    open_database(data_dir=tmp_path).close()
    with sqlite3.connect(tmp_path / DATABASE_FILE) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '9999'")
    with pytest.raises(DatabaseError, match="newer Horizon.*'9999'") as caught:
        open_database(data_dir=tmp_path)
    assert str(tmp_path / DATABASE_FILE) in str(caught.value)


def test_a_file_that_is_not_a_database_is_named_and_left_alone(tmp_path: Path):
    file = tmp_path / DATABASE_FILE
    file.write_text('{"kind": "horizon-campaign"}')
    with pytest.raises(DatabaseError, match="not an SQLite database") as caught:
        open_database(data_dir=tmp_path)
    assert caught.value.where == str(file)
    assert file.read_text() == '{"kind": "horizon-campaign"}'


def test_a_damaged_database_is_reported_with_what_is_wrong(tmp_path: Path):
    db = open_database(data_dir=tmp_path)
    with db.writing() as conn:
        for n in range(400):
            conn.execute(text("INSERT INTO campaigns (slug, name, created_at, updated_at, head, summary) "
                              "VALUES (:s, :n, 0, 0, 0, '{}')"), {"s": f"c{n}", "n": "x" * 300})
    db.close()
    file = tmp_path / DATABASE_FILE
    data = bytearray(file.read_bytes())
    page = 4096
    data[3 * page: 6 * page] = b"\xff" * (3 * page)  # three pages of the table overwritten
    file.write_bytes(bytes(data))
    with pytest.raises(DatabaseError, match="damaged") as caught:
        open_database(data_dir=tmp_path)
    assert caught.value.where == str(file)


def test_a_foreign_sqlite_database_is_not_taken_over(tmp_path: Path):
    with sqlite3.connect(tmp_path / DATABASE_FILE) as conn:
        conn.execute("CREATE TABLE recipes (name TEXT)")
    with pytest.raises(DatabaseError, match="not a Horizon database.*recipes"):
        open_database(data_dir=tmp_path)


def test_urls_horizon_cannot_use_are_refused_clearly(tmp_path: Path):
    with pytest.raises(DatabaseError, match="not a database URL"):
        open_database("no url at all")
    with pytest.raises(DatabaseError, match="sqlite:///FILE or postgresql"):
        open_database("mysql://host/db")
    with pytest.raises(DatabaseError, match="needs a file"):
        open_database("sqlite://")


def test_postgresql_without_its_driver_says_how_to_install_it(monkeypatch):
    import importlib.util

    if importlib.util.find_spec("psycopg") is not None:
        pytest.skip("the PostgreSQL driver is installed")
    with pytest.raises(DatabaseError, match=r"pip install 'horizon\[postgres\]'") as caught:
        open_database("postgresql://alice:secret@db.example/horizon")
    assert "secret" not in str(caught.value)


def test_a_full_disk_refuses_the_write_and_keeps_what_was_saved(tmp_path: Path):
    db = open_database(data_dir=tmp_path)
    try:
        with db.writing() as conn:
            conn.execute(text("INSERT INTO campaigns (slug, name, created_at, updated_at, head, summary) "
                              "VALUES ('kept', 'Kept', 0, 0, 0, '{}')"))
            pages = conn.exec_driver_sql("PRAGMA page_count").scalar()
        with pytest.raises(StorageRefused, match="disk is full") as caught:
            with db.writing() as conn:
                conn.exec_driver_sql(f"PRAGMA max_page_count = {pages + 1}")  # the disk, as SQLite sees it
                conn.execute(text("INSERT INTO campaigns (slug, name, created_at, updated_at, head, summary) "
                                  "VALUES ('big', :n, 0, 0, 0, '{}')"), {"n": "x" * 100_000})
        assert str(db.file) in str(caught.value)
        with db.reading() as conn:
            assert conn.execute(text("SELECT slug FROM campaigns")).scalars().all() == ["kept"]
    finally:
        db.close()


def test_a_read_only_database_refuses_the_write_with_a_clear_message(tmp_path: Path):
    db = open_database(data_dir=tmp_path)
    try:
        with pytest.raises(StorageRefused, match="read-only"):
            with db.writing() as conn:
                conn.exec_driver_sql("PRAGMA query_only = ON")
                conn.execute(text("INSERT INTO campaigns (slug, name, created_at, updated_at, head, summary) "
                                  "VALUES ('x', 'X', 0, 0, 0, '{}')"))
    finally:
        db.close()
