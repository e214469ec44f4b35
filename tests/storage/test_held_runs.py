"""One writer per run (storage.runs.HeldRuns): the window that holds a run writes it and its fight;
a second window can't hold it (SaveInUse: the screen offers read-only or taking it over); once it
is taken over, the first window's writes raise LockLost and write nothing. With the file lock
(one machine) and the shared database's (every host of one PostgreSQL)."""

from __future__ import annotations

import json

import pytest

from horizon_tui.storage.host_records import ENV_ACCOUNT, ENV_DATABASE
from horizon_tui.storage.host_sql import shared_database
from horizon_tui.storage.lock import LockLost, SaveInUse, SaveLock
from horizon_tui.storage.runs import HeldRuns, MemoryRuns

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
