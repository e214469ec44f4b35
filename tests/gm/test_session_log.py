"""The session log read on demand (campaign.session_log): opening a long campaign decodes none of
its lines, and what the screens ask of a stored log (a day's lines, the last rolls, the days, the
lines in order or from the end) is what the same lines in memory give."""

from __future__ import annotations

from pathlib import Path

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st

from horizon_tui.campaign import changes
from horizon_tui.campaign.campaign_files import CampaignStore
from horizon_tui.campaign.export import export
from horizon_tui.campaign.model import Campaign, LogEntry, log_line
from horizon_tui.campaign.open_campaign import OpenCampaign, open_session
from horizon_tui.campaign.session_log import PAGE, SessionLog, StoredLines
from horizon_tui.storage.campaigns import MemoryCampaigns

STATE = {"name": "C", "seed": 1, "day": 1, "draws": 0, "party": [], "npcs": [], "notes": ""}


def long_campaign(saves: Path, catalogue, lines: int, per_day: int) -> str:
    store = CampaignStore(saves, catalogue)
    key, campaign = store.create("Long Road", seed=7)
    session = OpenCampaign(store, key, campaign)
    log = tuple(LogEntry(1 + n // per_day, ("roll", "check", "note")[n % 3], f"line {n}", {"n": n})
                for n in range(lines))
    session.apply(lambda c: attrs.evolve(c, log=c.log + log, day=log[-1].day), "a long campaign")
    store.close()
    return key


def counting_entries(monkeypatch) -> list[int]:
    """Counts the log lines made into LogEntry values from here on."""
    made = [0]
    init = LogEntry.__init__

    def counted(self, *args, **kwargs):
        made[0] += 1
        init(self, *args, **kwargs)

    monkeypatch.setattr(LogEntry, "__init__", counted)
    return made


def test_opening_a_long_campaign_decodes_none_of_its_lines_and_today_only_its_own(tmp_path, catalogue, monkeypatch):
    """5,000 lines, 40 a day: opening reads the log's length; today's lines (the dashboard) read
    the pages they are on; the whole log was decoded line by line at every opening before."""
    key = long_campaign(tmp_path / "saves", catalogue, 5000, 40)
    made = counting_entries(monkeypatch)
    store = CampaignStore(tmp_path / "saves", catalogue)
    session = open_session(store, key)
    assert made[0] == 0 and len(session.campaign.log) == 5001 and session.campaign.day == 125
    today = session.campaign.today()
    assert [e.text for e in today] == [f"line {n}" for n in range(4960, 5000)]
    assert made[0] <= 2 * PAGE
    session.apply(lambda c: changes.roll_dice(c, "1d20")[0], "roll")
    assert store.load(key).campaign.log[-1].kind == "roll"
    store.close()


def test_the_export_of_every_day_reads_the_log_in_pages(tmp_path, catalogue, monkeypatch):
    """The Markdown export of all days is written as the log is read: the pages kept in memory
    stay a few whatever the length (a page is PAGE lines), and the file has every day."""
    key = long_campaign(tmp_path / "saves", catalogue, 3000, 500)
    store = CampaignStore(tmp_path / "saves", catalogue)
    campaign = store.load(key).campaign
    kept = []
    page = StoredLines.page

    def watched(self, number):
        kept.append(len(self._pages))
        return page(self, number)

    monkeypatch.setattr(StoredLines, "page", watched)
    monkeypatch.setattr("horizon_tui.campaign.session_log.PAGES_KEPT", 3)
    path = export(tmp_path, campaign, all_days=True, gm=True)
    text = path.read_text()
    assert max(kept) <= 3 and len(kept) >= 3000 // PAGE
    assert [line for line in text.splitlines() if line.startswith("## Day")] == [f"## Day {d}" for d in range(1, 7)]
    assert "line 2999" in text and text.count("- *roll*") == 1000
    store.close()


lines_strategy = st.lists(st.tuples(st.integers(0, 3), st.sampled_from(["roll", "check", "day"])), max_size=40)


@settings(max_examples=120, deadline=None)
@given(stored=lines_strategy, added=lines_strategy, cut=st.integers(0, 80))
def test_a_stored_log_answers_as_the_same_lines_in_memory(stored, added, cut):
    """Whatever the stored lines and those added since (days out of order too), and a log cut back
    (an undo), the stored log gives what the tuple of its lines gives."""
    repository = MemoryCampaigns()
    plain = [{"day": d, "kind": k, "text": f"s{n}", "data": {}} for n, (d, k) in enumerate(stored)]
    repository.create("c", "C", STATE, plain, {})
    log = SessionLog(StoredLines(repository, "c", len(plain), "memory"), len(plain))
    log = log.appended(*(LogEntry(d, k, f"a{n}") for n, (d, k) in enumerate(added)))
    log = log[:cut]
    same = tuple(LogEntry(line["day"], line["kind"], line["text"]) for line in plain)
    same = (*same, *(LogEntry(d, k, f"a{n}") for n, (d, k) in enumerate(added)))[:cut]
    memory = Campaign(name="C", seed=1, log=same)
    campaign = Campaign(name="C", seed=1, log=log)
    assert list(log) == list(same) and list(reversed(log)) == list(reversed(same)) and len(log) == len(same)
    assert log == same and log == memory.log and log.common_prefix(memory.log) == len(same)
    for day in range(5):
        for kind in (None, "roll", "check"):
            assert campaign.lines_of(day, kind) == memory.lines_of(day, kind)
            assert [same[p] for p in log.positions_of(day, None if kind is None else {kind})] \
                == memory.lines_of(day, kind)
    for count in (1, 3, 50):
        assert campaign.last_lines("roll", count) == memory.last_lines("roll", count)
    assert log.days() == sorted({e.day for e in same})
    assert [log_line(e) for e in log[2:5]] == [log_line(e) for e in same[2:5]]
    assert [(day, list(run)) for day, run in log.runs_of_days()] == \
        [(day, list(run)) for day, run in SessionLog.of(same).runs_of_days()]
