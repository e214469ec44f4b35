"""Experience: award XP to the party (shared equally, R-14) or to one character, or set each
share by hand; and who can buy attribute points now (R-4), with the level-up one key away."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Input, Label, Select, Static

from horizon_tui.campaign import changes
from horizon_tui.ui.gm.screens.widgets import Dropdown, leave_asking
from horizon_tui.rules.character import build
from horizon_tui.rules.progression import affordable_points
from horizon_tui.play.forms import parse_whole
from horizon_tui.ui.widgets.lists import RowList
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar

# short enough for the dropdown's width at 60 columns (a long option wrapped over 3–5 lines)
SPLITS = [("party, equal", "party"), ("one character", "one"), ("by hand", "hand")]


class ExperienceScreen(Screen):
    TITLE = "Experience"
    AUTO_FOCUS = "#xp-amount"
    GM_SCREEN = True
    UNDO_KEEPS_WORK = True  # what is typed here stays through ctrl+z (`CampaignHost.undo`)
    BINDINGS = [
        Binding("ctrl+s", "award", "Award XP", id="xp.award"),
        # priority: a focused XP field would otherwise take ctrl+u as "clear the line"
        Binding("ctrl+u", "level_up", "Level up", id="xp.level_up", priority=True,
                tooltip="Spend the highlighted character's XP"),
        Binding("escape", "back", "Back", id="xp.back"),
    ]

    def __init__(self, shares: dict[str, int] | None = None, reason: str = "", on_award=None, note: str = "") -> None:
        super().__init__(id="gm-xp")
        self.preset = shares
        self.note = note  # how the offered shares were found (R-4's guide for a foe worth 0)
        self.reason = reason
        self.on_award = on_award  # told the shares awarded (a table tells its players)
        self.awarded = False  # the preset shares (a battle's R-14 award) were given

    def compose(self) -> ComposeResult:
        campaign = self.app.campaign
        names = [m.name for m in campaign.party]
        yield TitleBar()
        with Horizontal():
            with VerticalScroll(id="xp-form"):
                with Grid(classes="form"):
                    yield Label("Split")
                    yield Dropdown(SPLITS, value="hand" if self.preset else "party", allow_blank=False, id="xp-split",
                                 compact=True)
                    yield Label("XP")
                    yield Input(str(sum(self.preset.values())) if self.preset else "", id="xp-amount",
                                placeholder="how much in all", compact=True, type="integer")
                    yield Label("Character")
                    yield Dropdown([(n, n) for n in names], value=names[0] if names else Select.NULL,
                                 id="xp-one", compact=True, prompt="no party yet")
                    yield Label("For")
                    yield Input(self.reason, id="xp-reason", placeholder="e.g. the toll road cleared", compact=True)
                yield Label("By hand", classes="gm-label")
                with Grid(classes="form", id="xp-hand"):
                    for index, name in enumerate(names):
                        yield Label(name)
                        value = str((self.preset or {}).get(name, 0))
                        yield Input(value, id=f"xp-hand-{index}", compact=True, type="integer")
                yield Static(id="xp-preview", classes="panel")
            with Vertical(id="xp-side"):
                yield RowList(id="xp-buyers", cursor_type="row", zebra_stripes=True)
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#xp-preview").border_title = "Who gets what"
        table = self.query_one("#xp-buyers", DataTable)
        table.border_title = "Who can buy points (R-4)"
        table.border_subtitle = "ctrl+u levels up the highlighted one"
        for label in ("Name", "Level", "XP", "Next point", "Can buy"):
            table.add_column(label)
        self.refresh_view()

    def refresh_view(self) -> None:
        rules = self.app.rules
        table = self.query_one("#xp-buyers", DataTable)
        row = table.cursor_row
        table.clear()
        for member in self.app.campaign.party:
            c = member.character
            b = build(c, rules)
            buy = affordable_points(c.xp, b.points_bought, rules.experience)
            table.add_row(Text(c.name, style="bold"), str(b.level), str(c.xp), f"{b.next_point_cost} XP",
                          Text(str(buy), style="bold green") if buy else Text("0", style="dim"), key=c.name)
        if self.app.campaign.party:
            table.move_cursor(row=min(row, len(self.app.campaign.party) - 1))
        self._preview()

    def shares(self) -> dict[str, int]:
        names = [m.name for m in self.app.campaign.party]
        split = self.query_one("#xp-split", Select).value
        if split == "hand":
            found = {}
            for index, name in enumerate(names):
                fields = self.query(f"#xp-hand-{index}")
                if not fields:
                    continue  # joined the party after this screen opened
                found[name] = parse_whole(fields.first(Input).value.strip() or "0", name)  # may take XP back
            return found
        raw = self.query_one("#xp-amount", Input).value.strip()
        if not raw:
            raise ValueError("how much XP?")
        total = parse_whole(raw, "the XP")
        if split == "one":
            one = self.query_one("#xp-one", Select).value
            if one is Select.NULL:
                raise ValueError("pick the character")
            return {str(one): total}
        return changes.split_xp(total, names)

    def _preview(self) -> None:
        preview = self.query_one("#xp-preview", Static)
        try:
            shares = self.shares()
        except ValueError as exc:
            preview.update(Text(str(exc), style="dim"))
            return
        text = Text()
        for name, amount in shares.items():
            text.append(f"{name} ", style="bold")
            text.append(f"{amount:+d} XP\n")
        split = self.query_one("#xp-split", Select).value
        if split == "party" and shares:
            total = parse_whole(self.query_one("#xp-amount", Input).value, "the XP")
            lost = total - sum(shares.values())
            if lost:
                text.append(f"{lost} XP doesn't divide evenly and is lost (R-14)\n", style="dim")
        if self.note and not self.awarded:
            text.append(f"{self.note}\n", style="yellow")
        text.append("ctrl+s awards it", style="dim")
        preview.update(text)

    def on_input_changed(self, event: Input.Changed) -> None:
        self._preview()

    def on_select_changed(self, event: Select.Changed) -> None:
        self._preview()

    def action_award(self) -> None:
        try:
            shares = self.shares()
        except ValueError as exc:
            self.app.bell()
            self.notify(str(exc), severity="warning")
            return
        reason = self.query_one("#xp-reason", Input).value
        limit = self.app.rules.experience.award_max
        if self.app.host.act(lambda c: changes.award_xp(c, shares, reason, limit), "XP award"):
            self.notify(", ".join(f"{n} {a:+d}" for n, a in shares.items() if a), title="XP awarded")
            self.awarded = True
            if self.on_award is not None:
                self.on_award(shares)
            self.query_one("#xp-amount", Input).value = ""
            for field in self.query("#xp-hand Input"):
                field.value = "0"
            self.refresh_view()

    def unsaved_work(self) -> str | None:
        """A battle's award (the preset shares) not given yet, or an award typed and not given
        (an amount, a reason, a share by hand)."""
        if self.preset and not self.awarded and any(self.preset.values()):
            shares = ", ".join(f"{name} {xp}" for name, xp in self.preset.items() if xp)
            return f"the XP not awarded yet ({shares}); {self.reason or 'the fight'} stays in the log"
        typed = self.query_one("#xp-amount", Input).value.strip()
        by_hand = [field.value.strip() for field in self.query("#xp-hand Input")]
        reason = self.query_one("#xp-reason", Input).value.strip()
        if typed not in ("", "0") or any(value not in ("", "0") for value in by_hand):
            return f"the XP award being typed ({typed + ' XP' if typed else 'shares by hand'})"
        if reason and reason != self.reason and not self.awarded:  # kept after an award, for the next
            return f"the XP award being typed (for {reason})"
        return None

    def action_back(self) -> None:
        leave_asking(self, self.app.pop_screen, "Experience")

    def action_level_up(self) -> None:
        party = self.app.campaign.party
        if not party:
            return
        unsaved = self.unsaved_work() if self.preset and not self.awarded and any(self.preset.values()) else None
        if unsaved is not None:  # the sheet opens over the dashboard: this screen (and its award) would go
            self.app.bell()
            self.notify(f"{unsaved[0].upper()}{unsaved[1:]}: ctrl+s awards it first", severity="warning")
            return
        row = self.query_one("#xp-buyers", DataTable).cursor_row  # an award being typed is asked about
        self.app.host.open_member(party[min(row, len(party) - 1)].name, then=self.app.action_level_up)
