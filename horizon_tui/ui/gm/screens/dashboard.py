"""The dashboard: the Party roster and the NPC roster, the day, and today's log. Every other
GM screen is one key away from here."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Static


from horizon_tui.campaign import changes
from horizon_tui.rules.character import build
from horizon_tui.rules.numbers import one_decimal, whole
from horizon_tui.rules.progression import affordable_points
from horizon_tui.rules.texts import counted
from horizon_tui.ui.dialogs.confirm import ConfirmDialog
from horizon_tui.ui.gm.screens.dialogue import DialogueScreen
from horizon_tui.ui.gm.screens.experience import ExperienceScreen
from horizon_tui.ui.gm.screens.importing import ImportScreen
from horizon_tui.ui.gm.screens.log import SessionLogScreen
from horizon_tui.ui.gm.screens.log_view import DayLines, LogTail
from horizon_tui.ui.gm.screens.npc_editor import NpcEditorScreen
from horizon_tui.ui.gm.screens.table import OpenTableScreen, rejoin_table
from horizon_tui.ui.widgets.lists import RowList
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar

# What the GM reads at the table first: at 80 columns, beside Today, a table shows its first five or
# so; ← and → bring the rest into view, the name kept at the left (no scrollbar: gm.tcss)
PARTY_COLUMNS = ("Name", "Level", "Health", "XP", "Checks", "Can buy", "Free act.", "Species", "Notes")
NPC_COLUMNS = ("Name", "Level", "Health", "Willpower", "Attitude", "Checkable", "XP", "Free act.", "Notes")
SHOWN_LOG = {"check", "reaction", "battle", "xp", "level_up", "points", "ability", "day", "party", "npc", "rules",
             "roll", "note", "rest"}
LOG_STYLES = {"check": "", "battle": "bold", "day": "bold", "roll": "dim", "npc": "dim",
              "rules": "yellow", "level_up": "bold green", "xp": "green"}


# Every dashboard key in three lines of at most 78 characters (#gm-keys holds 3): the key bar
# alone cuts them off at 80 columns, and two longer lines wrapped into four, the last one hidden.
KEYS = ("b battle · a at the table · x XP · c checks · s rest · t next day · l log\n"
        "g rules · r dice · o campaigns · enter/e sheet · n new NPC · w new character\n"
        "i import · del remove · ctrl+z undo · q quit")


def same_shown(now: tuple, shown: tuple | None) -> bool:
    """A table shows `now` already: the campaign's objects the same ones (it is immutable: a
    changed roster is a new tuple), the numbers equal."""
    return shown is not None and all(a is b or (isinstance(a, int) and a == b) for a, b in zip(now, shown))


def short(text: str, width: int = 28) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


class DashboardScreen(Screen):
    TITLE = "Campaign"
    AUTO_FOCUS = "#party"
    GM_SCREEN = True
    BINDINGS = [
        Binding("enter", "open", "Open", id="dash.open", show=False),
        Binding("e", "open", "Sheet / edit", id="dash.edit"),
        Binding("n", "new_npc", "New NPC", id="dash.new_npc"),
        Binding("w", "app.new_character", "New character", id="dash.new_character"),
        Binding("i", "import_characters", "Import", id="dash.import",
                tooltip="Characters into the party, several at once: saves, the examples, any file"),
        Binding("delete,backspace", "remove", "Remove", id="dash.remove"),
        Binding("c", "checks", "Checks", id="dash.checks", tooltip="Dialogue checks and settlement reactions"),
        Binding("b", "app.battle", "Battle", id="dash.battle"),
        Binding("a", "open_table", "At the table", id="dash.table", show=False,
                tooltip="Open a fight at a live table: seat player accounts at the party's characters"),
        Binding("x", "experience", "XP", id="dash.xp"),
        Binding("g", "app.rules", "Rules", id="dash.rules", tooltip="The campaign's house rules"),
        Binding("t", "next_day", "Next day", id="dash.day"),
        Binding("s", "rest", "Rest", id="dash.rest", tooltip="A rest: health, effects (and charges) back"),
        Binding("l", "log", "Log", id="dash.log", tooltip="The session log and its Markdown export"),
        Binding("r", "app.host('dice')", "Dice", id="dash.dice", show=False, tooltip="The dice roller, with its history (f5 anywhere)"),
        Binding("o", "app.host('campaigns')", "Campaigns", id="dash.campaigns"),
        Binding("q", "app.quit", "Quit", id="dash.quit", show=False),
    ]

    def __init__(self) -> None:
        super().__init__(id="gm-dashboard")
        self._party_shown: tuple | None = None  # what the party table was built from (same_shown)
        self._npcs_shown: tuple | None = None  # and the NPC table
        self._today = DayLines(SHOWN_LOG)  # which log lines the Today panel shows
        self._checks = DayLines({"check"})  # today's dialogue checks, which the party table counts
        self._npc_editor: NpcEditorScreen | None = None

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Static(id="gm-status", markup=False)
        with Horizontal(id="gm-rosters"):
            with Vertical(id="gm-tables"):
                yield RowList(id="party", cursor_type="row", zebra_stripes=True)
                yield RowList(id="npcs", cursor_type="row", zebra_stripes=True)
            yield LogTail(Text("Nothing yet today.", style="dim"), id="gm-today", classes="panel")
        yield Static(KEYS, id="gm-keys", classes="hint", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        party = self.query_one("#party", DataTable)
        party.border_title = "Party"
        party.add_columns(*PARTY_COLUMNS)
        npcs = self.query_one("#npcs", DataTable)
        npcs.border_title = "NPCs"
        npcs.add_columns(*NPC_COLUMNS)
        party.fixed_columns = npcs.fixed_columns = 1  # the name stays in view as → scrolls
        self.query_one("#gm-today").border_title = "Today"
        self.refresh_view()

    def on_screen_resume(self) -> None:
        self.refresh_view()

    def _health(self, campaign, name: str, b) -> Text:
        """Full health, or what the last fight left (until a rest, campaign.carry)."""
        state = campaign.carried.get(name)
        top = whole(b.stats["health"])
        if not state or not changes.is_hurt(state):
            return Text(str(top))
        style = "bold red" if state.get("presence") != "active" else "yellow"
        return Text(changes.describe_carried(state), style=style)

    def refresh_view(self) -> None:
        """Shows the campaign as it is now; under another screen (the dice, a form, a question)
        nothing until it is on top again (on_screen_resume): drawing the dimmed dashboard behind a
        dialog was half the CPU of a roll."""
        if self.app.screen is not self:
            return
        campaign = self.app.campaign
        status = self.query_one("#gm-status", Static)
        party = self.query_one("#party", DataTable)
        npcs = self.query_one("#npcs", DataTable)
        if campaign is None:
            status.update(Text("No campaign open: o lists the campaigns.", style="dim"))
            party.clear()
            npcs.clear()
            self._party_shown = self._npcs_shown = None
            return
        rules = self.app.rules
        read_only = self.app.host.gm is not None and self.app.host.gm.read_only
        self.sub_title = campaign.name + (" — READ-ONLY" if read_only else "")
        line = Text()
        line.append(f" {campaign.name} ", style="bold reverse")
        if read_only:
            line.append(" READ-ONLY ", style="bold white on red")
        line.append(f"  Day {campaign.day}", style="bold")
        line.append(f"  ·  {len(campaign.party)} in the party  ·  {counted(len(campaign.npcs), 'NPC')}", style="dim")
        if campaign.rules:
            line.append("  ·  house rules", style="yellow")
        if campaign.battle:
            line.append(f"  ·  battle in progress: {campaign.battle.get('name')} (b resumes)", style="bold red")
        status.update(line)
        self._refresh_rosters(campaign, rules, party, npcs)
        self._refresh_today(campaign)

    def _refresh_rosters(self, campaign, rules, party: DataTable, npcs: DataTable) -> None:
        """The party and NPC tables, each rebuilt only when what it shows changed: a dice roll or
        a note (most GM actions) leaves both as they are, a new NPC the party's (a table cleared is
        drawn again whole: the party's was, for every NPC saved)."""
        self._checks.follow(campaign.log, campaign.day)
        party_shown = (campaign.party, campaign.carried, rules, len(self._checks.positions))
        npcs_shown = (campaign.npcs, rules, self.app.catalogue)
        if not same_shown(party_shown, self._party_shown):
            self._party_shown = party_shown
            self._refresh_party(campaign, rules, party)
        if not same_shown(npcs_shown, self._npcs_shown):
            self._npcs_shown = npcs_shown
            self._refresh_npcs(campaign, rules, npcs)

    def _refresh_party(self, campaign, rules, party: DataTable) -> None:
        row = party.cursor_row
        party.clear()
        for m in campaign.party:
            c = m.character
            b = build(c, rules)
            buy = affordable_points(c.xp, b.points_bought, rules.experience)
            checks = changes.checks_today(campaign, c.name)
            party.add_row(
                Text(c.name, style="bold"), str(b.level), self._health(campaign, c.name, b), str(c.xp),
                f"{checks}/{rules.dialogue.per_character_per_day}",
                Text(str(buy), style="bold green") if buy else Text("0", style="dim"),
                str(b.free_action_points), c.species.name, short(m.notes or c.notes), key=c.name,
            )
        if campaign.party:
            party.move_cursor(row=min(row, len(campaign.party) - 1))
        if not campaign.party:
            party.border_subtitle = "w new character · i import a saved one"
        else:
            party.border_subtitle = "enter: sheet, level-up (u), abilities (a), loadout (o)"

    def _refresh_npcs(self, campaign, rules, npcs: DataTable) -> None:
        row = npcs.cursor_row
        npcs.clear()
        for n in campaign.npcs:
            npcs.add_row(
                Text(n.name + (" ✝" if n.dead else ""), style="dim strike" if n.dead else "bold"), str(n.level), str(n.effective_health(self.app.catalogue)),
                f"{one_decimal(n.effective_willpower(self.app.catalogue)):g}", n.attitude,
                Text("yes", style="green") if n.checkable else Text("no", style="dim"), str(n.xp),
                str(n.free_action_points(rules)), short(n.notes), key=n.name,
            )
        if campaign.npcs:
            npcs.move_cursor(row=min(row, len(campaign.npcs) - 1))
        npcs.border_subtitle = "n new NPC · enter edits"

    def _refresh_today(self, campaign) -> None:
        """Today's lines, the newest in view as a log: only what the panel shows is drawn, and
        only the lines an action added are read (log_view)."""
        today = self._today
        if not today.follow(campaign.log, campaign.day):
            return
        log, positions = campaign.log, today.positions

        def line(n: int) -> Text:
            entry = log[positions[n]]
            return Text(f"• {entry.text}", style=LOG_STYLES.get(entry.kind, ""))

        self.query_one("#gm-today", LogTail).show(len(positions), line)

    # --- which row -------------------------------------------------------------------------

    def _selected(self) -> tuple[str, str] | None:
        """("party" | "npcs", name) of the focused table's row."""
        campaign = self.app.campaign
        if campaign is None:
            return None
        focused = self.focused
        table_id = focused.id if isinstance(focused, DataTable) and focused.id in ("party", "npcs") else "party"
        items = campaign.party if table_id == "party" else campaign.npcs
        if not items:
            return None
        row = self.query_one(f"#{table_id}", DataTable).cursor_row
        return table_id, items[min(row, len(items) - 1)].name

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def action_open(self) -> None:
        picked = self._selected()
        if picked is None:
            return
        kind, name = picked
        if kind == "party":
            self.app.host.open_member(name)
        else:
            self.edit_npc(name)

    def action_import_characters(self) -> None:
        self.app.push_screen(ImportScreen())

    def action_new_npc(self) -> None:
        self.edit_npc(None)

    def edit_npc(self, name: str | None) -> None:
        campaign = self.app.campaign
        if campaign is None:
            return
        npc = campaign.npc(name) if name else None
        editor = self._npc_editor
        if editor is None:  # one editor, opened again for each NPC (NpcEditorScreen.edit)
            editor = self._npc_editor = NpcEditorScreen(npc)
            self.app.install_screen(editor, f"npc-editor-{id(self)}")  # closed, it is kept, not taken down
        elif editor in self.app.screen_stack:  # open already (asked for from over it): a form of its own
            editor = NpcEditorScreen(npc)
        else:
            editor.edit(npc)
        self.app.push_screen(editor)  # it saves into the campaign itself (ctrl+s)

    async def action_open_table(self) -> None:
        if not await rejoin_table(self.app):  # the fight in progress is at a live table: back to it
            self.app.push_screen(OpenTableScreen())

    def action_remove(self) -> None:
        picked = self._selected()
        if picked is None:
            return
        kind, name = picked
        what = "the party" if kind == "party" else "the NPCs"

        def answer(yes: bool | None) -> None:
            if not yes:
                return
            if kind == "party":
                self.app.host.act(lambda c: changes.remove_member(c, name), f"{name} leaves the party")
            else:
                self.app.host.act(lambda c: changes.remove_npc(c, name), f"NPC {name} removed")

        self.app.push_screen(ConfirmDialog(f"Remove {name} from {what}? (ctrl+z brings them back)",
                                           yes="Remove", no="Keep", title="Remove"), answer)

    def action_checks(self) -> None:
        if self.app.campaign is not None:
            self.app.push_screen(DialogueScreen())

    def action_experience(self) -> None:
        if self.app.campaign is not None:
            self.app.push_screen(ExperienceScreen())

    def action_log(self) -> None:
        if self.app.campaign is not None:
            self.app.push_screen(SessionLogScreen())

    def action_rest(self) -> None:
        campaign = self.app.campaign
        if campaign is None:
            return

        def answer(yes: bool | None) -> None:
            if yes:
                self.app.host.act(changes.rest, "rest")

        hurt = ", ".join(f"{n} {changes.describe_carried(st)}" for n, st in campaign.carried.items() if changes.is_hurt(st)) \
            or "nobody is hurt"
        self.app.push_screen(ConfirmDialog(
            f"The party rests: health, effects and (by the house rules) charges back. Now: {hurt}.",
            yes="Rest", no="Not yet", title="Rest"), answer)

    def action_next_day(self) -> None:
        campaign = self.app.campaign
        if campaign is None:
            return

        def answer(yes: bool | None) -> None:
            if yes:
                self.app.host.act(changes.advance_day, f"day {campaign.day + 1}")

        self.app.push_screen(ConfirmDialog(
            f"End day {campaign.day} and start day {campaign.day + 1}? The daily check limits start again (R-12).",
            yes="Next day", no="Not yet", title="Advance the day"), answer)
