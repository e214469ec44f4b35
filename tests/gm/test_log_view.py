"""The session log on screen at any length: the Today panel draws only the lines in view and
reads only the lines an action added (ui.gm.screens.log_view). A roll at the end of a day of
20,000 lines took 2.5 s of CPU when the panel was a Static holding the whole day
(bench/bench_gm_evening.py --per-day 0)."""

from __future__ import annotations

import attrs
from hypothesis import given, settings
from hypothesis import strategies as st
from textual.widgets import DataTable

from horizon_tui.campaign import changes
from horizon_tui.campaign.model import LogEntry
from horizon_tui.ui.gm.app import create_gm_app
from horizon_tui.ui.gm.screens.dashboard import DashboardScreen
from horizon_tui.ui.gm.screens.log import SessionLogScreen
from horizon_tui.ui.gm.screens.log_view import DayLines, LogTail

KINDS = {"roll", "check"}


def naive(log: tuple[LogEntry, ...], day: int) -> list[int]:
    return [n for n, entry in enumerate(log) if entry.day == day and entry.kind in KINDS]


steps = st.lists(st.one_of(
    st.tuples(st.just("add"), st.lists(st.sampled_from(["roll", "check", "note"]), max_size=6)),
    st.tuples(st.just("undo"), st.integers(0, 8)),
    st.tuples(st.just("day"), st.just(0)),
    st.tuples(st.just("other"), st.integers(0, 5)),
), max_size=30)


@settings(max_examples=150, deadline=None)
@given(steps)
def test_the_day_lines_follow_appends_undos_new_days_and_other_logs(operations):
    """Whatever the log went through, the positions are those of the day's lines of the shown kinds."""
    lines = DayLines(KINDS)
    log: tuple[LogEntry, ...] = ()
    day = 1
    for operation, value in operations:
        if operation == "add":
            log = (*log, *(LogEntry(day, kind, kind) for kind in value))
        elif operation == "undo":
            log = log[:max(0, len(log) - value)]
        elif operation == "day":
            day += 1
            log = (*log, LogEntry(day, "day", f"day {day}"))
        else:  # another campaign: new line objects, some equal to the old ones
            log = tuple(attrs.evolve(entry) for entry in log[:value]) + (LogEntry(day, "roll", "other"),)
        lines.follow(log, day)
        assert lines.positions == naive(log, day)


def test_appending_reads_only_the_added_lines():
    lines = DayLines(KINDS)
    log = tuple(LogEntry(1, "roll", f"{n}") for n in range(5000))
    lines.follow(log, 1)
    read = []
    shows = lines._shows
    lines._shows = lambda entry, day: (read.append(entry), shows(entry, day))[1]
    assert lines.follow((*log, LogEntry(1, "check", "one more")), 1)
    assert len(read) == 1 and lines.positions[-1] == 5000
    assert not lines.follow(lines.log, 1)  # the same log: nothing to do


async def test_a_roll_at_the_end_of_a_long_day_draws_only_the_lines_in_view(session, catalogue):
    session.apply(lambda c: attrs.evolve(c, log=c.log + tuple(LogEntry(c.day, "roll", f"1d20 = {n % 20 + 1}")
                                                                for n in range(5000))), "a long day")
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        dashboard = app.screen
        assert isinstance(dashboard, DashboardScreen)
        panel = dashboard.query_one("#gm-today", LogTail)
        drawn = []
        show = panel.show

        def counting(count, line):
            show(count, lambda n: (drawn.append(n), line(n))[1])

        panel.show = counting
        assert app.host.act(lambda c: changes.roll_dice(c, "1d20")[0], "roll")
        await pilot.pause()
        shown = str(panel.render()).splitlines()
        assert shown[-1] == f"• {app.campaign.log[-1].text}" and len(shown) == panel.content_size.height
        assert 0 < len(set(drawn)) <= panel.content_size.height  # of 5,000 lines today
        assert min(drawn) >= panel.count - panel.content_size.height


async def test_the_today_panel_scrolls_back_and_stays_while_lines_arrive(session, catalogue):
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for _ in range(40):
            assert app.host.act(lambda c: changes.roll_dice(c, "1d20")[0], "roll")
        await pilot.pause()
        panel = app.screen.query_one("#gm-today", LogTail)
        panel.focus()
        await pilot.press("home")
        first = str(panel.render()).splitlines()
        assert first[0].startswith("• The campaign Lantern Road")  # the day's first line at the top
        assert panel.border_subtitle.endswith("newer ↓ (end)")
        assert app.host.act(lambda c: changes.roll_dice(c, "1d20")[0], "roll")
        await pilot.pause()
        assert str(panel.render()).splitlines() == first  # a new line doesn't move what is read
        await pilot.press("end")
        assert str(panel.render()).splitlines()[-1] == f"• {app.campaign.log[-1].text}"
        assert panel.border_subtitle == ""


async def test_a_roll_in_the_dice_dialog_leaves_the_dashboard_behind_it_until_it_closes(session, catalogue):
    """The dimmed dashboard behind the dice dialog is not drawn again for each roll (it was half
    the CPU of a roll): it shows the rolls when the dialog closes."""
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        dashboard = app.screen
        panel = dashboard.query_one("#gm-today", LogTail)
        shown = []
        show = panel.show
        panel.show = lambda count, line: (shown.append(count), show(count, line))[1]
        await pilot.press("r")
        await pilot.press("enter", "enter")
        assert [e.kind for e in app.campaign.log[-2:]] == ["roll", "roll"] and shown == []
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is dashboard and shown == [panel.count]
        assert str(panel.render()).splitlines()[-1] == f"• {app.campaign.log[-1].text}"


async def test_a_roll_over_the_session_log_reads_the_day_again_once_it_is_on_top(session, catalogue):
    """The session log screen reads its day whole (its table and recap): not behind the dice
    dialog for each roll, once when it is on top again."""
    app = create_gm_app(session.store.saves_dir, catalogue, campaign="Lantern Road")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("l")
        log_screen = app.screen
        assert isinstance(log_screen, SessionLogScreen)
        table = log_screen.query_one("#log-entries", DataTable)
        read = []
        clear = table.clear
        table.clear = lambda *a, **k: (read.append(1), clear(*a, **k))[1]
        await pilot.press("f5")
        await pilot.press("enter", "enter")
        assert [e.kind for e in app.campaign.log[-2:]] == ["roll", "roll"] and read == []
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is log_screen and read == [1]
        assert table.row_count == len(app.campaign.today())
