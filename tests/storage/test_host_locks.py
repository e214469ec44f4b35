"""One writer per save across hosts sharing a PostgreSQL (storage/host_locks.py): the second
window is refused (read-only), take-over stops the first, a holder whose session died frees the
save, and a character saved under the lock is its database row. Needs a real PostgreSQL."""

from __future__ import annotations

import time

import pytest

from horizon_tui.storage.host_locks import SharedSaveLock, save_key
from horizon_tui.storage.host_records import ENV_ACCOUNT, ENV_DATABASE
from horizon_tui.storage.host_wiring import save_lock_class
from horizon_tui.storage.host_sql import SqlCharacters, shared_database
from horizon_tui.storage.lock import LockLost, SaveInUse, SaveLock


@pytest.fixture
def shared(postgres_url, monkeypatch, tmp_path):
    monkeypatch.setenv(ENV_DATABASE, postgres_url)
    monkeypatch.setenv(ENV_ACCOUNT, "alice")
    yield postgres_url
    shared_database(postgres_url).close()


def test_the_lock_is_the_shared_one_only_with_postgresql(monkeypatch, tmp_path):
    monkeypatch.delenv(ENV_DATABASE, raising=False)
    assert save_lock_class() is SaveLock
    monkeypatch.setenv(ENV_DATABASE, f"sqlite:///{tmp_path / 'h.db'}")  # one machine: the files beside the save
    monkeypatch.setenv(ENV_ACCOUNT, "alice")
    assert save_lock_class() is SaveLock
    monkeypatch.setenv(ENV_DATABASE, "postgresql://h@/db")
    assert save_lock_class() is SharedSaveLock
    assert save_key("alice", tmp_path / "a" / "characters" / "iriel.toml") == "alice/characters/iriel.toml"


def test_a_second_window_on_another_host_is_refused_until_the_first_lets_go(shared, tmp_path):
    on_a = tmp_path / "host-a" / "characters" / "iriel.toml"
    on_b = tmp_path / "host-b" / "characters" / "iriel.toml"  # the same save, another machine's folder
    first = SharedSaveLock.acquire(on_a, "alice on host A")
    assert first.holds()
    with pytest.raises(SaveInUse) as refused:
        SharedSaveLock.acquire(on_b, "alice on host B")
    assert refused.value.holder.who == "alice on host A"
    first.release()
    second = SharedSaveLock.acquire(on_b, "alice on host B")
    assert second.holds() and not first.holds()
    second.release()


def test_take_over_stops_the_first_window_before_it_writes(shared, tmp_path):
    save = tmp_path / "characters" / "iriel.toml"
    first = SharedSaveLock.acquire(save, "window A")
    second = SharedSaveLock.acquire(save, "window B", take_over=True)
    with pytest.raises(LockLost, match="taken over by window B"), first.guard():
        pytest.fail("wrote over the new holder's save")
    with second.guard():
        pass
    first.release()  # the loser letting go frees nothing of the winner's
    assert second.holds()
    second.release()


def test_a_holder_whose_session_died_frees_the_save(shared, tmp_path):
    """kill -9 of the app, or its host dying: its database session ends, and so does its hold."""
    save = tmp_path / "characters" / "iriel.toml"
    dead = SharedSaveLock.acquire(save, "a killed app")
    dead._session_conn.invalidate()  # the connection drops as a killed process's would
    for _ in range(50):  # the server notices the dropped connection within moments
        try:
            alive = SharedSaveLock.acquire(save, "the next window")
            break
        except SaveInUse:
            time.sleep(0.1)
    else:
        pytest.fail("a dead holder's session kept the save")
    assert alive.holds()
    alive.release()


def test_a_character_saved_under_the_lock_is_its_row(shared, tmp_path):
    save = tmp_path / "characters" / "iriel.toml"
    save.parent.mkdir(parents=True)
    with SharedSaveLock.acquire(save, "alice") as lock, lock.guard():
        save.write_bytes(b"name = 'Iriel'\nxp = 3\n")
    [row] = SqlCharacters(shared_database(shared)).listing("alice")
    assert (row.filename, row.content) == ("iriel.toml", b"name = 'Iriel'\nxp = 3\n")


def test_a_database_gone_away_opens_the_save_read_only_saying_why(shared, tmp_path, monkeypatch):
    """The player app opens a save read-only on a HorizonError (ui/player/app.py: open_character)."""
    import sqlalchemy as sa

    from horizon_tui.errors import HorizonError
    from horizon_tui.storage import host_locks
    from horizon_tui.storage.database import Database

    gone = Database(sa.create_engine(f"postgresql+psycopg://x@/gone?host={tmp_path}&connect_timeout=2"),
                    "postgresql://x@/gone", None)
    monkeypatch.setattr(host_locks, "shared_database", lambda url: gone)
    with pytest.raises(HorizonError, match=r"iriel.toml: the database that keeps who writes it \(postgresql://x@/gone\) "
                                           "can't be reached"):
        SharedSaveLock.acquire(tmp_path / "characters" / "iriel.toml", "alice")
