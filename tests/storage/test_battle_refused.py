"""A full disk or a read-only database refuses a battle input with a clear message and loses
nothing: the journal keeps every input saved before, and the next save once the disk has room
writes the inputs the refused one couldn't."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import event

from horizon_tui.content.catalogue import default_catalogue
from horizon_tui.content.encounters import load_enemies
from horizon_tui.engine import runner
from horizon_tui.engine.actions import Wait
from horizon_tui.engine.battle import cid
from horizon_tui.engine.persist import load_session, save_session, session_from_dict
from horizon_tui.storage.battles_sql import SqlBattles
from horizon_tui.storage.database import StorageRefused, open_database

LEGACY = Path(__file__).with_name("legacy") / "battle-iriel-wolves.json"
SLOT = "battles/iriel.json"


def one_more_input(session) -> None:
    runner.submit(session.battle, Wait(cid(session.battle.current)), session.inputs)
    runner.run_ai(session.battle)


@pytest.fixture
def world():
    catalogue = default_catalogue()
    return catalogue, load_enemies(catalogue)


@pytest.mark.parametrize(("pragma", "said"), [
    ("PRAGMA max_page_count = {pages}", "disk is full"),  # the disk, as SQLite sees it: no page more
    ("PRAGMA query_only = ON", "read-only"),
])
def test_a_refused_battle_input_says_why_and_loses_nothing(tmp_path, world, pragma, said):
    catalogue, enemies = world

    def fresh():
        return session_from_dict(json.loads(LEGACY.read_text()), catalogue, enemies, "legacy")

    database = open_database(data_dir=tmp_path)
    battles = SqlBattles(database)
    session, slot, saved = fresh(), "battles/iriel-0.json", {}
    save_session(battles, slot, session, catalogue)
    saved[slot] = len(session.inputs)
    with database.reading() as conn:
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar()
    database.engine.dispose()  # every connection from now on sees the full disk / the read-only file

    def limited(dbapi_connection, _record) -> None:
        dbapi_connection.execute(pragma.format(pages=pages))

    event.listen(database.engine, "connect", limited)
    with pytest.raises(StorageRefused, match=said) as caught:
        for n in range(1, 500):  # until a page more is needed (a full disk), or at once (read-only)
            if session.battle.over:  # the wolves won: the next battle
                session, slot = fresh(), f"battles/iriel-{n}.json"
            else:
                one_more_input(session)
            save_session(battles, slot, session, catalogue)
            saved[slot] = len(session.inputs)
    assert str(database.file) in str(caught.value) and "not saved" in str(caught.value)
    for kept, count in saved.items():  # every input saved before the refusal, none half-written
        assert len(load_session(battles, kept, catalogue, enemies).inputs) == count
    assert battles.exists(slot) == (slot in saved) and len(session.inputs) > saved.get(slot, 0)

    event.remove(database.engine, "connect", limited)
    database.engine.dispose()  # room again: the inputs the refused save couldn't write are written now
    save_session(battles, slot, session, catalogue)
    assert load_session(battles, slot, catalogue, enemies).inputs == session.inputs
    database.close()
