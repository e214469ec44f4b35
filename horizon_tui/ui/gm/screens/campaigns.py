"""Open or start a campaign: every campaign under `SAVES/campaigns/`, newest first."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Input, Label, Static

from horizon_tui.campaign.campaign_files import CampaignEntry
from horizon_tui.errors import HorizonError
from horizon_tui.play.library import move_to_damaged
from horizon_tui.ui.dialogs.confirm import ask_set_aside
from horizon_tui.ui.widgets.lists import RowList
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar
from horizon_tui.play.forms import name_length


class CampaignsScreen(Screen):
    TITLE = "Campaigns"
    AUTO_FOCUS = "#campaigns"
    BINDINGS = [
        Binding("n", "new", "New campaign", id="campaigns.new"),
        Binding("m", "set_aside", "Set damaged aside", id="campaigns.set_aside",
                tooltip="Move the highlighted damaged campaign to damaged/ beside it (asked first; never deleted)"),
        Binding("escape", "back", "Back", id="campaigns.back"),
    ]

    def __init__(self) -> None:
        super().__init__(id="gm-campaigns")
        self.entries: list[CampaignEntry] = []

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Vertical(id="campaigns-box", classes="panel"):
            yield RowList(id="campaigns", cursor_type="row", zebra_stripes=True)
        with Horizontal(id="new-campaign", classes="panel"):
            yield Label("New campaign ")
            yield Input(placeholder="a name, then enter", id="campaign-name", compact=True, max_length=name_length())
        yield Static(id="campaigns-note", classes="hint")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#campaigns-box").border_title = "Campaigns"
        self.query_one("#campaigns-box").border_subtitle = "enter opens"
        self.query_one("#new-campaign").border_title = "Start one"
        table = self.query_one("#campaigns", DataTable)
        for label in ("Campaign", "Day", "Party", "NPCs", "Key"):
            table.add_column(label)
        self.refresh_view()
        if not self.entries:
            self.query_one("#campaign-name", Input).focus()

    def refresh_view(self) -> None:
        self.entries = self.app.host.store.entries()
        table = self.query_one("#campaigns", DataTable)
        table.clear()
        for index, e in enumerate(self.entries):
            if e.problem:
                shown = f"{e.file.name}: {e.problem}" if e.file else e.problem
                table.add_row(Text(f"⚠ {e.name}", style="red"), "", "", "", Text(shown, style="red"), key=str(index))
            else:
                table.add_row(Text(e.name, style="bold"), str(e.day), str(e.party), str(e.npcs), e.slug,
                              key=str(index))
        note = self.query_one("#campaigns-note", Static)
        note.update(f"Campaigns are kept in {self.app.host.store.where} — every change saved as it is made."
                    if self.entries else f"No campaigns yet in {self.app.host.store.where}: name one below.")

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        entry = self.entries[int(event.row_key.value)]
        if entry.problem:
            if entry.file is not None:
                self.app.notify(f"{entry.file.name}: {entry.problem} (the file is left as it is; m moves it to "
                                "damaged/)", severity="error")
            else:
                self.app.notify(entry.problem, severity="error")
            return
        self._open(entry.slug)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        try:
            key, _ = self.app.host.store.create(event.value)
        except (ValueError, HorizonError) as exc:
            self.app.bell()
            self.app.notify(str(exc), severity="warning")
            return
        self._open(key)

    def _open(self, key: str) -> None:
        """Opening a campaign closes every screen over the dashboard: a form's work is asked about."""
        if not self.app.host.asked_first(lambda: self._open(key)):
            self.app.host.open_campaign(key)

    def action_set_aside(self) -> None:
        """Move the highlighted damaged campaign to `damaged/`, after asking; never a good one."""
        if not self.entries:
            return
        entry = self.entries[min(self.query_one("#campaigns", DataTable).cursor_row, len(self.entries) - 1)]
        if entry.file is None:
            self.app.notify(f"{entry.name} is not a damaged file; only damaged campaign files are moved aside.",
                            severity="warning")
            return

        ask_set_aside(self.app, entry.file, "campaign", move_to_damaged, self.refresh_view)

    def action_new(self) -> None:
        self.query_one("#campaign-name", Input).focus()

    def action_back(self) -> None:
        if self.app.host.gm is None:
            self.app.exit()
        else:
            self.app.pop_screen()
