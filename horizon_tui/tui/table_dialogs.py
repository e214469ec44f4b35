"""Joining a live table from the player app, and asking its GM (issue 17)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Select, Static
from textual.widgets.option_list import Option

from horizon_tui.errors import HorizonError
from horizon_tui.table.core import MAX_REQUEST_TEXT, REQUEST_KINDS
from horizon_tui.table.lobby import Invite, invites_for, load_table, my_seat_place
from horizon_tui.table.server import TableClient

KIND_WORDS = {"free_action": "A free action's ruling", "override": "An override (a ×, a range)",
              "dialogue": "A dialogue check"}


class AskDialog(ModalScreen[tuple[str, str] | None]):
    """What a player asks the GM: a kind and a sentence (at most MAX_REQUEST_TEXT characters)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="ask.cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as box:
            box.border_title = "Ask the GM"
            yield Select([(KIND_WORDS[k], k) for k in REQUEST_KINDS], value=REQUEST_KINDS[0], allow_blank=False,
                         id="ask-kind")
            yield Input(placeholder="what you ask, then enter", max_length=MAX_REQUEST_TEXT, id="ask-text")
            yield Static("enter sends · esc cancels", classes="hint")

    def on_mount(self) -> None:
        self.query_one("#ask-text", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if not text:
            self.notify("Say what you ask first.", severity="warning")
            return
        self.dismiss((str(self.query_one("#ask-kind", Select).value), text))

    def action_cancel(self) -> None:
        self.dismiss(None)


class JoinTableScreen(ModalScreen[None]):
    """The live tables this account is seated at; enter joins one."""

    BINDINGS = [Binding("escape", "app.pop_screen", "Back", id="join.back")]

    def __init__(self) -> None:
        super().__init__(classes="dialog-screen")
        self.account, self.tables = my_seat_place()
        self.invites: list[Invite] = invites_for(self.tables, self.account)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as box:
            box.border_title = "Join the table"
            if self.invites:
                yield OptionList(*[Option(f"{inv.table} — as {inv.role}"
                                          + (f" ({', '.join(inv.characters)})" if inv.characters else ""),
                                          id=str(i)) for i, inv in enumerate(self.invites)], id="tables")
            else:
                yield Static(f"No table is waiting for {self.account}. When your GM opens a fight with "
                             "you seated, it appears here.", markup=False)
            yield Static("enter joins · esc goes back", classes="hint")

    async def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        await join_table(self.app, self.invites[int(event.option.id)], replace=self)


async def join_table(app, invite: Invite, *, replace=None) -> bool:
    """Connect to `invite`'s table and open its battlefield. False (with a notice) if it can't."""
    from horizon_tui.tui.table_screen import TableBattleScreen

    try:
        spec = load_table(invite.folder)
        client = TableClient(invite.socket, invite.seat, invite.token, spec.rebuild)
        await client.connect()
    except (OSError, ValueError, KeyError, TypeError, HorizonError) as exc:
        app.notify(f"Couldn't join {invite.table}: {exc}", severity="error")
        return False
    if replace is not None:
        app.pop_screen()
    app.push_screen(TableBattleScreen(client, title=f"{invite.table} — {invite.role}"))
    return True
