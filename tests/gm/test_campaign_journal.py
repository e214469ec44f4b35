"""The open campaign as a journal (campaign.open_campaign over storage.campaigns): each GM action is
one row holding only what changed, opening replays from a snapshot, undo walks the rows back, and
the JSON campaigns older versions wrote are imported on first open and moved aside, never deleted.
The unit tests run on the in-memory twin and on SQLite alike."""

from __future__ import annotations

import shutil
from pathlib import Path

import attrs
import pytest

from horizon_tui.campaign import battles, changes
from horizon_tui.campaign.campaign_files import IMPORTED, CampaignStore, decode, encode
from horizon_tui.campaign.model import LogEntry
from horizon_tui.campaign.open_campaign import OpenCampaign, open_session
from horizon_tui.content.encounters import load_enemies
from horizon_tui.engine import overrides as ov
from horizon_tui.engine.battle import ident, team
from horizon_tui.engine.runner import override
from horizon_tui.errors import DataError
from horizon_tui.storage.campaigns import SNAPSHOT_EVERY, JournalMoved, MemoryCampaigns
from tests.gm.conftest import current, make_campaign, stored

LEGACY = Path(__file__).resolve().parents[1] / "storage" / "legacy"


@pytest.fixture(params=["memory", "sqlite"])
def any_store(request, saves: Path, catalogue) -> CampaignStore:
    store = CampaignStore(saves, catalogue, MemoryCampaigns() if request.param == "memory" else None)
    yield store
    store.close()


def test_a_dice_roll_is_one_row_with_its_line_and_the_draw_count(any_store):
    session = make_campaign(any_store)
    session.apply(lambda c: changes.roll_dice(c, "1d20")[0], "roll")
    row = any_store.repository.change(session.slug, session.head)
    assert row.after == {"draws": 1} and row.before == {"draws": 0}
    assert row.log_keep == len(session.campaign.log) - 1 and row.log_removed == ()
    assert [line["kind"] for line in row.log_added] == ["roll"]


def test_many_actions_reopen_exactly_across_snapshots_and_undo_walks_back_over_them(any_store):
    session = make_campaign(any_store)
    states = [current(session)]
    for n in range(SNAPSHOT_EVERY + 30):
        if n % 40 == 39:
            session.apply(changes.advance_day, "day")
        else:
            session.apply(lambda c: changes.roll_dice(c, "2d6")[0], "roll")
        states.append(current(session))
    assert stored(session) == states[-1]
    reopened = open_session(any_store, session.slug)
    assert reopened.campaign == session.campaign and reopened.head == session.head
    for expected in reversed(states[:-1]):
        assert session.undo() is not None
        assert current(session) == expected
    assert stored(session) == states[0]
    assert open_session(any_store, session.slug).campaign == session.campaign


def test_an_action_that_rewrites_the_log_keeps_the_lines_it_dropped_for_undo(any_store):
    session = make_campaign(any_store)
    for expression in ("1d4", "1d6", "1d8"):
        session.apply(lambda c, e=expression: changes.roll_dice(c, e)[0], "roll")
    before = current(session)
    fixed = LogEntry(1, "note", "the second roll was a practice throw")
    session.apply(lambda c: attrs.evolve(c, log=(*c.log[:-2], fixed)), "fix the log")
    row = any_store.repository.change(session.slug, session.head)
    assert [line["text"][:3] for line in row.log_removed] == ["1d6", "1d8"] and len(row.log_added) == 1
    assert stored(session) == current(session)
    session.undo()
    assert stored(session) == before == current(session)


def test_an_action_that_changes_nothing_writes_nothing(any_store):
    session = make_campaign(any_store)
    head = session.head
    assert session.apply(lambda c: attrs.evolve(c, notes=c.notes), "nothing") is session.campaign
    assert session.head == head == any_store.repository.load(session.slug).head


def test_a_second_window_that_missed_a_row_saves_nothing(any_store):
    """Two sessions on one campaign (the lock normally prevents it): the stale one is refused."""
    session = make_campaign(any_store)
    stale = open_session(any_store, session.slug)
    session.apply(changes.advance_day, "day")
    with pytest.raises(JournalMoved):
        stale.apply(lambda c: changes.roll_dice(c, "1d20")[0], "roll")
    assert stored(session) == current(session) and stale.campaign.day == 1


# --- JSON campaigns of older versions ---------------------------------------------------------------


def old_saves(tmp_path: Path, *names: str) -> Path:
    folder = tmp_path / "old" / "campaigns"
    folder.mkdir(parents=True)
    for name in names:
        shutil.copy(LEGACY / name, folder / name)
    return tmp_path / "old"


def test_an_old_campaign_file_is_imported_on_first_open_and_moved_aside(tmp_path: Path, catalogue):
    saves = old_saves(tmp_path, "lantern-road.json", "goblin-night.json")
    (saves / "campaigns" / "lantern-road.json.1").write_text("a backup the old store kept")
    store = CampaignStore(saves, catalogue)
    entries = {e.slug: e for e in store.entries()}
    assert set(entries) == {"lantern-road", "goblin-night"}
    assert (entries["lantern-road"].name, entries["lantern-road"].day, entries["lantern-road"].party) == ("Lantern Road", 2, 4)
    moved = saves / "campaigns" / IMPORTED
    assert sorted(p.name for p in moved.iterdir()) == ["goblin-night.json", "lantern-road.json", "lantern-road.json.1"]
    assert not list((saves / "campaigns").glob("*.json*"))
    for name in ("lantern-road", "goblin-night"):
        original = decode((LEGACY / f"{name}.json").read_bytes(), catalogue)
        assert store.load(name).campaign == original
        assert encode(store.load(name).campaign, catalogue) == encode(original, catalogue)
    battle = store.load("goblin-night").campaign.battle
    assert battle is not None and battle["name"] == "Toll on the King's Road"
    store.close()


def test_an_imported_campaign_plays_on_and_its_old_rules_hold(tmp_path: Path, catalogue):
    store = CampaignStore(old_saves(tmp_path, "lantern-road.json"), catalogue)
    session = open_session(store, store.find("Lantern Road"))
    assert session.rules.experience.award_max == 500  # the house rule the file carried
    with pytest.raises(ValueError, match="award_max"):
        session.apply(lambda c: changes.award_xp(c, {"Iriel": 600}, limit=session.rules.experience.award_max), "xp")
    session.apply(lambda c: changes.roll_dice(c, "1d20")[0], "roll")
    assert stored(session) == current(session)
    store.close()


def test_a_file_imported_but_not_yet_moved_is_not_imported_twice(tmp_path: Path, catalogue):
    """Killed between the import's commit and the move: the next start recognises the file by its hash."""
    saves = old_saves(tmp_path, "lantern-road.json")
    CampaignStore(saves, catalogue).entries()
    shutil.copy(LEGACY / "lantern-road.json", saves / "campaigns" / "lantern-road.json")
    store = CampaignStore(saves, catalogue)
    assert [e.slug for e in store.entries()] == ["lantern-road"]
    assert sorted(p.name for p in (saves / "campaigns" / IMPORTED).iterdir()) == ["lantern-road.json", "lantern-road.json.2"]
    store.close()


def test_an_old_file_that_cannot_be_read_stays_where_it_is_with_its_problem(tmp_path: Path, catalogue):
    saves = old_saves(tmp_path, "lantern-road.json")
    bad = saves / "campaigns" / "torn.json"
    bad.write_text((LEGACY / "lantern-road.json").read_text()[:500])
    store = CampaignStore(saves, catalogue)
    entries = {e.slug: e for e in store.entries()}
    assert entries["torn"].file == bad and entries["torn"].problem and bad.exists()
    with pytest.raises(DataError, match="torn.json"):
        store.load("torn")
    assert entries["lantern-road"].problem is None
    store.close()


def test_a_database_that_cannot_be_opened_is_the_lists_one_entry_and_nothing_is_written(tmp_path: Path, catalogue):
    saves = old_saves(tmp_path, "lantern-road.json")
    (saves / "horizon.sqlite3").write_text("not a database")
    store = CampaignStore(saves, catalogue)
    [entry] = store.entries()
    assert "horizon.sqlite3" in entry.problem and "not an SQLite database" in entry.problem
    with pytest.raises(ValueError, match="not an SQLite database"):
        store.create("Another")
    assert (saves / "campaigns" / "lantern-road.json").exists()  # not imported, not moved
    assert (saves / "horizon.sqlite3").read_text() == "not a database"


def test_a_session_on_the_twin_needs_no_files(tmp_path: Path, catalogue):
    """The unit of work over the in-memory twin: nothing is written under the saves folder."""
    store = CampaignStore(tmp_path / "nowhere", catalogue, MemoryCampaigns())
    key, campaign = store.create("Lantern Road", seed=1)
    session = OpenCampaign(store, key, campaign)
    session.apply(changes.advance_day, "day")
    assert store.load(key).campaign.day == 2 and not (tmp_path / "nowhere").exists()


# --- reading the end of a long log ---------------------------------------------------------------------


class CountedLog(tuple):
    """A log that counts the lines read from it, by iteration or by index."""

    reads = 0

    def __iter__(self):
        for entry in tuple.__iter__(self):
            CountedLog.reads += 1
            yield entry

    def __getitem__(self, index):
        CountedLog.reads += 1
        return tuple.__getitem__(self, index)


def test_todays_lines_and_the_last_rolls_are_read_from_the_end_of_the_log(catalogue):
    """Day 500 of a 20,000-line log (40 lines a day): today's 40 lines and the last 30 rolls are
    found by reading about that many lines back, not the 20,000 (the dashboard, the dice dialog and
    the session log redraw on every action)."""
    from horizon_tui.campaign.model import Campaign

    kinds = ("roll", "check", "note", "roll")
    lines = CountedLog(LogEntry(1 + n // 40, kinds[n % 4], f"line {n}") for n in range(20_000))
    campaign = Campaign(name="Long Road", seed=1, day=500, log=lines)
    CountedLog.reads = 0
    today = campaign.today()
    assert [e.text for e in today] == [f"line {n}" for n in range(19_960, 20_000)]
    assert len(campaign.today("check")) == 10 and len(campaign.lines_of(499, "roll")) == 20
    rolls = campaign.last_lines("roll", 30)
    assert len(rolls) == 30 and rolls[-1].text == "line 19999" and rolls[0].text == "line 19940"
    assert CountedLog.reads < 300
    assert changes.advance_day(campaign).log[-1].data == {"fights": 0, "checks": 10}


def test_a_gm_battle_input_is_a_row_of_that_input_and_undo_and_reopening_give_the_battle_back(any_store):
    """O(input), not O(battle): the row of the 40th input is the size of the first one's (the
    battle's inputs as a list edited at its end, ListTail), and undoing it and reopening the
    campaign read back the battle whole, exactly."""
    session = make_campaign(any_store)
    store = any_store
    campaign, fight = battles.start_battle(session.campaign, "goblin_ambush", [m.name for m in session.campaign.party],
                                           store.catalogue, session.rules_for, load_enemies(store.catalogue), seed=3)
    session.apply(lambda c: campaign, "battle")
    sizes = []
    for n in range(40):
        foe = next(ident(e).id for e in fight.battle.active.values() if team(e) == "enemies")
        override(fight.battle, ov.Damage((foe,), 1, "test"), fight.inputs)
        before = current(session)
        session.apply(lambda c: battles.with_inputs(c, fight, store.catalogue, session.rules_for), f"damage {n}")
        row = store.repository.change(session.slug, session.head)
        assert [(t.field, t.key, t.keep, len(t.added)) for t in row.tails] == [("battle", "inputs", n, 1)]
        assert "inputs" not in row.after["battle"] and "inputs" not in row.before["battle"]
        sizes.append(len(row.to_json()))
    assert max(sizes) - min(sizes) < 100  # one input each, whatever the length of the fight
    assert stored(session) == current(session) and len(session.campaign.battle["inputs"]) == 40
    session.undo()
    assert current(session) == before and stored(session) == before
    assert len(session.campaign.battle["inputs"]) == 39
