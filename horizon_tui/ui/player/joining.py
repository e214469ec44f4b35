"""Joining a live table from the player app: the tables that have a seat for this account (F2),
newest first, and opening one's battlefield."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from horizon_tui.errors import HorizonError
from horizon_tui.table.lobby import Invite, invites_for, load_table, my_seat_place
from horizon_tui.table.server import TableClient
from horizon_tui.ui.battle.table_screen import table_battle_screen


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
                yield OptionList(*[Option(invite_label(inv), id=str(i)) for i, inv in enumerate(self.invites)],
                                 id="tables")
            else:
                yield Static(f"No table is waiting for {self.account}. When your GM opens a fight with "
                             "you seated, it appears here.", markup=False)
            yield Static("enter joins · esc goes back", classes="hint")

    async def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        await join_table(self.app, self.invites[int(event.option.id)], replace=self)


def invite_label(invite: Invite) -> Text:
    """A table in the list: whose fight goes on, or (dimmed, after them) one that is over."""
    label = Text(f"{invite.table} — as {invite.role}" + (f" ({', '.join(invite.characters)})"
                                                          if invite.characters else ""))
    if invite.over:
        label.append(" · finished: its result and talk", style="italic")
        label.stylize("dim")
    return label


async def join_table(app, invite: Invite, *, replace=None) -> bool:
    """Connect to `invite`'s table and open its battlefield. False (with a notice) if it can't."""
    try:
        spec = load_table(invite.folder)
        client = TableClient(invite.socket, invite.seat, invite.token, spec.rebuild)
        await client.connect()
    except (OSError, ValueError, KeyError, TypeError, HorizonError) as exc:
        app.notify(f"Couldn't join {invite.table}: {exc}", severity="error")
        return False
    if replace is not None:
        app.pop_screen()
    app.clear_notifications()  # "press F2 to join" is done with
    finished = " — finished" if invite.over else ""
    app.push_screen(table_battle_screen(client, title=f"{invite.table} — {invite.role}{finished}"))
    return True
