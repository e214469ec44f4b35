"""The session log: every day's events, and the Markdown export the players get."""

from __future__ import annotations

from rich.markdown import Markdown
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Static

from horizon_tui.campaign.export import export, gm_markdown, session_markdown
from horizon_tui.ui.widgets.lists import RowList
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar


class SessionLogScreen(Screen):
    TITLE = "Session log"
    AUTO_FOCUS = "#log-entries"
    GM_SCREEN = True
    # at 80 columns the footer holds five keys: the export keys first (the day keys are named in
    # the table's title)
    BINDINGS = [
        Binding("m", "export", "Export shown", id="log.export",
                tooltip="The shown day as a Markdown file: the players' recap, or the GM's log when shown"),
        Binding("g", "export_gm", "Export GM log", id="log.export_gm", tooltip="The GM's full log of the shown day"),
        Binding("v", "toggle", "Players/GM", id="log.toggle", tooltip="Preview the players' recap or the GM's full log"),
        Binding("M", "export_all", "Export all", id="log.export_all",
                tooltip="Every day as one Markdown file (the view shown: the players' or the GM's)"),
        Binding("left,comma", "day(-1)", "Day before", id="log.before", show=False),
        Binding("right,full_stop", "day(1)", "Day after", id="log.after", show=False),
        Binding("escape", "app.pop_screen", "Back", id="log.back"),
    ]

    def __init__(self) -> None:
        super().__init__(id="gm-log")
        self.day: int | None = None
        self.gm_view = False  # the preview shows the players' recap, or the GM's full log

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal():
            yield RowList(id="log-entries", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="log-preview", classes="panel"):
                yield Static(id="log-markdown")
        yield KeyBar()

    def on_mount(self) -> None:
        table = self.query_one("#log-entries", DataTable)
        for label in ("Day", "Kind", "What happened"):
            table.add_column(label)
        self.refresh_view()

    def on_screen_resume(self) -> None:
        self.refresh_view()

    def refresh_view(self) -> None:
        """The shown day's lines and recap, read again whole: only when this screen is on top (a
        roll in the dice dialog over it redrew a day of the log behind the dialog); on top again,
        on_screen_resume shows what changed."""
        if self.app.screen is not self:
            return
        campaign = self.app.campaign
        if self.day is None or self.day > campaign.day:
            self.day = campaign.day
        table = self.query_one("#log-entries", DataTable)
        table.clear()
        table.border_title = f"Day {self.day} of {campaign.day} (← → days)"
        for entry in campaign.lines_of(self.day):
            table.add_row(str(entry.day), Text(entry.kind, style="dim"), entry.text)
        shown = gm_markdown(campaign, [self.day]) if self.gm_view else session_markdown(campaign, [self.day])
        self.query_one("#log-preview").border_title = "The GM's full log" if self.gm_view else "The players' recap"
        self.query_one("#log-markdown", Static).update(Markdown(shown))
        self.sub_title = f"day {self.day}"

    def action_day(self, step: int) -> None:
        campaign = self.app.campaign
        self.day = max(1, min(campaign.day, (self.day or campaign.day) + step))
        self.refresh_view()

    def action_toggle(self) -> None:
        self.gm_view = not self.gm_view
        self.refresh_view()

    def action_export_gm(self) -> None:
        self._export([self.day or self.app.campaign.day], gm=True)

    def _export(self, days: list[int], gm: bool = False, all_days: bool = False) -> None:
        try:
            path = export(self.app.host.store.folder, self.app.campaign, days, gm=gm, all_days=all_days)
        except OSError as exc:
            self.notify(str(exc), title="Not exported", severity="error")
            return
        self.notify(str(path), title="Session log exported", timeout=8)

    def action_export(self) -> None:
        """What the preview shows: the players' recap, or the GM's full log (v switches)."""
        self._export([self.day or self.app.campaign.day], gm=self.gm_view)

    def action_export_all(self) -> None:
        # the days the log has, read in order as it is written (export): not every number up to today
        # (a file at day 10^39), and never the whole log in memory
        self._export([], gm=self.gm_view, all_days=True)
