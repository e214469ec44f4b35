"""The campaign repository's contract: the in-memory twin and the SQL implementation (SQLite, and a
real PostgreSQL when .ci/run started one) behave alike. Each GM action is one journal row; opening replays from the last snapshot; undo
reads the row it takes back; a writer that didn't see the last row is refused."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import func, select

from horizon_tui.errors import DataError
from horizon_tui.storage import campaigns as repo_module
from horizon_tui.storage import schema
from horizon_tui.storage.campaigns import (
    SNAPSHOT_EVERY, CampaignChange, CampaignExists, CampaignNotFound, JournalMoved, MemoryCampaigns, SqlCampaigns,
)
from horizon_tui.storage.database import open_database

STATE = {"name": "Lantern Road", "seed": 1234, "day": 1, "draws": 0, "party": [], "notes": ""}
FIRST = {"day": 1, "kind": "day", "text": "The campaign Lantern Road begins: day 1", "data": {}}


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def repository(request, tmp_path: Path):
    if request.param == "memory":
        yield MemoryCampaigns()
        return
    url = request.getfixturevalue("postgres_url") if request.param == "postgres" else None
    db = open_database(url, data_dir=tmp_path)
    yield SqlCampaigns(db)
    db.close()


def whole_log(repository, slug: str) -> list[dict]:
    """The stored log, every line (opening reads only its length)."""
    return repository.log_lines(slug, 0, repository.load(slug).log_length)


def roll(n: int, draws: int) -> CampaignChange:
    line = {"day": 1, "kind": "roll", "text": f"1d20 = {n}", "data": {"total": n}}
    return CampaignChange("roll", {"draws": draws + 1}, {"draws": draws}, log_keep=draws + 1, log_added=(line,))


def test_a_created_campaign_is_listed_and_opens_as_it_was_made(repository):
    repository.create("lantern-road", "Lantern Road", STATE, [FIRST], {"day": 1, "party": 0})
    [listed] = repository.listing()
    assert (listed.slug, listed.name, listed.summary, listed.head) == ("lantern-road", "Lantern Road", {"day": 1, "party": 0}, 0)
    stored = repository.load("lantern-road")
    assert (stored.state, stored.log_length, stored.head) == (STATE, 1, 0)
    assert whole_log(repository, "lantern-road") == [FIRST]


def test_a_slug_is_stored_once(repository):
    repository.create("lantern-road", "Lantern Road", STATE, [], {})
    with pytest.raises(CampaignExists):
        repository.create("lantern-road", "Other", STATE, [], {})


def test_a_missing_campaign_is_named(repository):
    with pytest.raises(CampaignNotFound, match="nowhere"):
        repository.load("nowhere")


def test_changes_are_replayed_across_snapshots(repository):
    """More rows than a snapshot's interval: opening gives the state and log of the last row."""
    repository.create("c", "C", STATE, [FIRST], {})
    state, count = dict(STATE), SNAPSHOT_EVERY * 2 + 7
    for n in range(count):
        state["draws"] = n + 1
        seq = repository.append("c", roll(n, n), head=n, summary={"day": 1}, snapshot=lambda s=state: dict(s))
        assert seq == n + 1
    stored = repository.load("c")
    assert stored.head == count and stored.state["draws"] == count
    log = whole_log(repository, "c")
    assert [line["text"] for line in log] == [FIRST["text"], *(f"1d20 = {n}" for n in range(count))]
    assert repository.log_lines("c", 5, 7) == log[5:7]


def test_undo_appends_the_inverse_of_the_row_it_takes_back(repository):
    repository.create("c", "C", STATE, [FIRST], {})
    repository.append("c", roll(17, 0), head=0, summary={}, snapshot=dict)
    done = repository.change("c", 1)
    assert done == roll(17, 0)
    seq = repository.append("c", done.inverse(1), head=1, summary={}, snapshot=dict)
    stored = repository.load("c")
    assert seq == 2 and stored.state["draws"] == 0 and whole_log(repository, "c") == [FIRST]
    assert repository.change("c", 2).undoes == 1 and repository.change("c", 2).label == "undo: roll"


def test_an_edit_inside_the_log_drops_and_adds_lines(repository):
    lines = [dict(FIRST, text=f"line {n}") for n in range(4)]
    repository.create("c", "C", STATE, lines, {})
    edit = CampaignChange("fix", log_keep=2, log_removed=tuple(lines[2:]), log_added=(dict(FIRST, text="fixed"),))
    repository.append("c", edit, head=0, summary={}, snapshot=dict)
    assert [line["text"] for line in whole_log(repository, "c")] == ["line 0", "line 1", "fixed"]
    repository.append("c", edit.inverse(1), head=1, summary={}, snapshot=dict)
    assert whole_log(repository, "c") == lines


def test_a_writer_that_missed_a_row_is_refused_and_writes_nothing(repository):
    repository.create("c", "C", STATE, [FIRST], {})
    repository.append("c", roll(3, 0), head=0, summary={}, snapshot=dict)
    with pytest.raises(JournalMoved, match="saved elsewhere"):
        repository.append("c", roll(4, 0), head=0, summary={}, snapshot=dict)
    assert repository.load("c").head == 1 and repository.load("c").log_length == 2


def test_a_renamed_campaign_is_listed_by_its_new_name(repository):
    repository.create("c", "Old", STATE, [], {})
    repository.append("c", CampaignChange("rename", {"name": "New"}, {"name": "Old"}), head=0, summary={}, snapshot=dict)
    assert repository.listing()[0].name == "New" and repository.load("c").state["name"] == "New"


def test_the_log_is_found_by_day_kind_and_position_without_reading_it(repository):
    """What opening a long campaign asks instead of its lines: a day's positions read back from the
    end (up to the last line of an earlier day, so a hand-edited log out of day order gives what
    reading it back gives), the last lines of a kind, and the days there are; each below `stop`."""
    days = [1, 1, 2, 2, 2, 1, 3, 3, 3, 3]  # day 1 again at 5: a log edited by hand
    kinds = ["day", "roll", "day", "check", "roll", "check", "day", "roll", "check", "roll"]
    lines = [{"day": d, "kind": k, "text": f"line {n}", "data": {}} for n, (d, k) in enumerate(zip(days, kinds))]
    repository.create("c", "C", STATE, lines, {})
    assert repository.log_positions("c", 3, None, 10) == [6, 7, 8, 9]
    assert repository.log_positions("c", 3, {"roll", "check"}, 10) == [7, 8, 9]
    assert repository.log_positions("c", 3, {"roll"}, 9) == [7]
    assert repository.log_positions("c", 2, None, 10) == []  # day 1's line at 5 is the earlier day
    assert repository.log_positions("c", 2, None, 5) == [2, 3, 4]
    assert repository.log_positions("c", 1, {"check"}, 10) == [5]
    assert repository.log_positions("c", 1, None, 5) == [0, 1]
    assert repository.log_last("c", {"roll"}, 2, 10) == [7, 9]
    assert repository.log_last("c", {"roll", "day"}, 3, 7) == [2, 4, 6]
    assert repository.log_last("c", {"talk"}, 3, 10) == []
    assert repository.log_days("c", 10) == [1, 2, 3] and repository.log_days("c", 2) == [1]
    assert repository.log_positions("c", 1, None, 10) == campaigns_module_day_positions(lines, 1)


def campaigns_module_day_positions(lines: list[dict], day: int) -> list[int]:
    return repo_module.day_positions([(line["day"], line["kind"]) for line in lines], day, None)


@pytest.fixture
def in_sqlite(tmp_path: Path):
    """An SQLite database holding campaign "c" (one line in its log), and its repository."""
    db = open_database(data_dir=tmp_path)
    repository = SqlCampaigns(db)
    repository.create("c", "C", STATE, [FIRST], {})
    yield db, repository
    db.close()


def test_sqlite_writes_one_row_per_action_and_a_small_snapshot_every_interval(in_sqlite):
    """O(change): an action adds one journal row and its log lines; the snapshot holds no log."""
    db, repository = in_sqlite
    for n in range(SNAPSHOT_EVERY + 1):
        repository.append("c", roll(n, n), head=n, summary={}, snapshot=lambda: dict(STATE))
    with db.reading() as conn:
        count = {t.name: conn.execute(select(func.count()).select_from(t)).scalar()
                 for t in (schema.campaign_journal, schema.campaign_log, schema.campaign_snapshots)}
        states = conn.execute(select(schema.campaign_snapshots.c.state)).scalars().all()
    assert count == {"campaign_journal": SNAPSHOT_EVERY + 1, "campaign_log": SNAPSHOT_EVERY + 2,
                     "campaign_snapshots": 2}
    assert all("1d20" not in state for state in states)


def test_a_big_row_is_followed_by_a_snapshot_so_opening_does_not_replay_it(in_sqlite):
    db, repository = in_sqlite
    lines = tuple(dict(FIRST, text=f"imported line {n}") for n in range(3000))
    repository.append("c", CampaignChange("import", log_keep=1, log_added=lines), head=0, summary={},
                      snapshot=lambda: dict(STATE, notes="after the import"))
    with db.reading() as conn:
        assert conn.execute(select(schema.campaign_snapshots.c.seq)).scalars().all() == [0, 1]
    assert repository.load("c").state["notes"] == "after the import" and repository.load("c").log_length == 3001


def test_a_damaged_row_is_a_data_error_naming_the_database_and_row(in_sqlite):
    db, repository = in_sqlite
    repository.append("c", roll(1, 0), head=0, summary={}, snapshot=dict)
    with db.writing() as conn:
        conn.execute(schema.campaign_journal.update().values(change='{"after": [1,'))
    with pytest.raises(DataError) as caught:
        repository.load("c")
    assert str(db.file) in str(caught.value) and "journal 1" in str(caught.value)


def test_the_twin_keeps_no_object_the_caller_can_change(repository):
    state = dict(STATE, party=[{"name": "Iriel"}])
    repository.create("c", "C", state, [FIRST], {})
    state["party"][0]["name"] = "changed after saving"
    assert repository.load("c").state["party"] == [{"name": "Iriel"}]
    assert repo_module.replay({"a": 1}, [CampaignChange("x", {"a": 2})]) == {"a": 2}
