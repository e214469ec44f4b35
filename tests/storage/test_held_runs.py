"""One writer per run (storage.runs.HeldRuns): the window that holds a run writes it and its fight;
a second window can't hold it (SaveInUse: the screen offers read-only or taking it over); once it
is taken over, the first window's writes raise LockLost and write nothing. With the file lock
(one machine) and the shared database's (every host of one PostgreSQL)."""

from __future__ import annotations

import json
import threading
import time

import pytest
import sqlalchemy as sa

from horizon_tui.storage.database import open_database
from horizon_tui.storage.host_records import ENV_ACCOUNT, ENV_DATABASE
from horizon_tui.storage.host_saves import SqlRuns
from horizon_tui.storage.host_sql import shared_database
from horizon_tui.storage.lock import LockLost, SaveInUse, SaveLock
from horizon_tui.storage.runs import HeldRuns, MemoryRuns, battle_slot, run_of_slot

HEADER = json.dumps({"kind": "horizon-battle", "schema": 1, "seed": 7, "encounter": "wolves", "party": []})
MOVE = json.dumps({"at": 0, "auto_end": True, "action": {"type": "wait", "actor": "iriel"}})
RUN = "20261205-aaaaaa"


@pytest.fixture(params=["files", "postgres"])
def lock_class(request, monkeypatch):
    if request.param == "files":
        yield SaveLock
        return
    from horizon_tui.storage.host_locks import SharedSaveLock

    url = request.getfixturevalue("postgres_url")
    monkeypatch.setenv(ENV_DATABASE, url)
    monkeypatch.setenv(ENV_ACCOUNT, "alice")
    yield SharedSaveLock
    shared_database(url).close()
    shared_database.cache_clear()


def test_the_second_window_can_not_write_a_run_the_first_holds_until_it_takes_it_over(tmp_path, lock_class):
    store = MemoryRuns()  # the same runs seen by both windows
    first = HeldRuns(store, tmp_path, "window A", lock_class)
    second = HeldRuns(store, tmp_path, "window B", lock_class)
    first.save_run({"id": RUN, "depth": 1})  # a new run: its first save holds it
    assert first.holds(RUN)
    with pytest.raises(SaveInUse) as refused:
        second.hold(RUN)
    assert "window A" in refused.value.holder.describe()
    with pytest.raises(SaveInUse):
        second.save_run({"id": RUN, "depth": 9})
    assert store.load_run(RUN)["depth"] == 1
    second.hold(RUN, take_over=True)
    second.battles().save(second.battle_slot(RUN), HEADER, 0, [MOVE], {})
    with pytest.raises(LockLost):
        first.save_run({"id": RUN, "depth": 2})
    with pytest.raises(LockLost):
        first.battles().save(first.battle_slot(RUN), HEADER, 1, [MOVE], {})
    assert store.load_run(RUN)["depth"] == 1 and len(store.battles().load(second.battle_slot(RUN))["inputs"]) == 1
    second.let_go()
    first.hold(RUN)  # free again: the first window may play it on
    first.save_run({"id": RUN, "depth": 2})
    assert store.load_run(RUN)["depth"] == 2
    first.let_go()


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def held_store(request, tmp_path, monkeypatch):
    """(the runs both windows see, the lock each takes): the in-memory twin with the file lock;
    an account's runs in a shared SQLite (one machine: the file lock); in a shared PostgreSQL,
    the lock its row there (storage.host_locks), in the same database as the battles."""
    if request.param == "memory":
        yield MemoryRuns(), SaveLock
        return
    if request.param == "sqlite":
        database = open_database(data_dir=tmp_path)
        yield SqlRuns(database, "alice", tmp_path / "saves"), SaveLock
        database.close()
        return
    from horizon_tui.storage.host_locks import SharedSaveLock

    url = request.getfixturevalue("postgres_url")
    monkeypatch.setenv(ENV_DATABASE, url)
    monkeypatch.setenv(ENV_ACCOUNT, "alice")
    yield SqlRuns(shared_database(url), "alice", tmp_path / "saves"), SharedSaveLock
    shared_database(url).close()
    shared_database.cache_clear()


def test_a_fights_slot_names_its_run_one_way_both_ways():
    """The run whose lock guards a fight's journal is read back from its slot by the one
    definition of the slot (`battle_slot`), never by cutting a string shaped like it."""
    assert run_of_slot(battle_slot(RUN)) == RUN
    for not_a_runs in ("battles/iriel.json", "records/runs/a/b.battle.json", f"records/runs/{RUN}.json"):
        with pytest.raises(ValueError):
            run_of_slot(not_a_runs)


def test_a_window_that_lost_the_run_writes_nothing_of_its_fight(tmp_path, held_store):
    store, lock_class = held_store
    first = HeldRuns(store, tmp_path, "window A", lock_class)
    second = HeldRuns(store, tmp_path, "window B", lock_class)
    slot = first.battle_slot(RUN)
    first.save_run({"id": RUN, "depth": 1})
    first.battles().save(slot, HEADER, 0, [MOVE], {"log_length": 1})
    second.hold(RUN, take_over=True)
    for stale in (lambda: first.battles().save(slot, HEADER, 1, [MOVE], {"log_length": 2}),
                  lambda: first.battles().save(slot, HEADER, 0, [MOVE] * 3, {"log_length": 3}),
                  lambda: first.save_run({"id": RUN, "depth": 2}), lambda: first.battles().drop(slot)):
        with pytest.raises(LockLost, match="window B"):
            stale()
    assert store.battles().load(slot)["inputs"] == [json.loads(MOVE)] and store.load_run(RUN)["depth"] == 1
    assert second.battles().save(slot, HEADER, 1, [MOVE], {"log_length": 2}) == 2  # the new holder plays on
    second.let_go()
    first.let_go()


def test_a_battle_input_under_the_shared_lock_is_one_transaction_on_one_connection(tmp_path, postgres_url, monkeypatch):
    """The holder row checked and the input written commit together (Database.transaction): one
    BEGIN, one connection, where the check and the write were two of each."""
    from horizon_tui.storage.host_locks import SharedSaveLock

    monkeypatch.setenv(ENV_DATABASE, postgres_url)
    monkeypatch.setenv(ENV_ACCOUNT, "alice")
    database = shared_database(postgres_url)
    held = HeldRuns(SqlRuns(database, "alice", tmp_path / "saves"), tmp_path, "window A", SharedSaveLock)
    held.hold(RUN)
    slot = held.battle_slot(RUN)
    held.battles().save(slot, HEADER, 0, [MOVE], {"log_length": 1})
    begun, checked_out = [], []

    def began(conn) -> None:
        begun.append(conn)

    def checkout(*args) -> None:
        checked_out.append(args)

    sa.event.listen(database.engine, "begin", began)
    sa.event.listen(database.engine, "checkout", checkout)
    try:
        held.battles().save(slot, HEADER, 1, [MOVE], {"log_length": 2})
    finally:
        sa.event.remove(database.engine, "begin", began)
        sa.event.remove(database.engine, "checkout", checkout)
    assert (len(begun), len(checked_out)) == (1, 1)
    assert len(held.battles().load(slot)["inputs"]) == 2
    held.let_go()
    database.close()
    shared_database.cache_clear()


def test_a_take_over_waits_for_the_input_being_written_then_the_loser_writes_nothing(tmp_path, postgres_url, monkeypatch):
    """A take-over that comes while window A writes an input: it waits for A's transaction (the
    holder row is A's until then), A's input is kept whole, and A's next one is refused."""
    from horizon_tui.storage.host_locks import SharedSaveLock

    monkeypatch.setenv(ENV_DATABASE, postgres_url)
    monkeypatch.setenv(ENV_ACCOUNT, "alice")
    database = shared_database(postgres_url)
    store = SqlRuns(database, "alice", tmp_path / "saves")
    first = HeldRuns(store, tmp_path, "window A", SharedSaveLock)
    second = HeldRuns(store, tmp_path, "window B", SharedSaveLock)
    first.hold(RUN)
    slot = first.battle_slot(RUN)
    first.battles().save(slot, HEADER, 0, [MOVE], {"log_length": 1})
    taking = threading.Thread(target=lambda: second.hold(RUN, take_over=True))
    with first.guard(RUN):
        taking.start()
        waiting = sa.text("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
        for _ in range(200):  # until B's connection is seen waiting for A's row
            with database.engine.connect() as conn:
                if conn.execute(waiting).scalar():
                    break
            time.sleep(0.05)
        else:
            pytest.fail("the take-over did not wait for the input being written")
        assert taking.is_alive()
        store.battles().save(slot, HEADER, 1, [MOVE], {"log_length": 2})
    taking.join(timeout=30)
    assert not taking.is_alive() and second.holds(RUN)
    with pytest.raises(LockLost):
        first.battles().save(slot, HEADER, 2, [MOVE], {"log_length": 3})
    assert len(store.battles().load(slot)["inputs"]) == 2
    second.let_go()
    first.let_go()
    database.close()
    shared_database.cache_clear()
