"""The battlefield at a live table (issue 17): the same screen as solo play, fed by the table.

The battle is the view's replica (`table.core.Replica`), kept in step by the table's updates; an
action is sent to the table instead of performed here, and comes back as an update that every
view applies alike. Nobody's screen plays AI turns: the table does. A player acts only for their
own characters and sees what they see (`engine.sideview`'s eyes); the GM sees everything, acts for
everyone no player holds, and has the table's controls: pause, undo (every screen follows) and
the queue of players' requests.
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding

from horizon_tui.engine.battle import Entity, cid
from horizon_tui.engine.persist import BattleSession
from horizon_tui.engine.runner import action_to_dict, needs_input
from horizon_tui.table.server import TableClient
from horizon_tui.tui.battle.modes import MoveMode
from horizon_tui.tui.battle.screen import BattleScreen


class TableBattleScreen(BattleScreen):
    BINDINGS = [
        Binding("f6", "table_pause", "Pause", id="table.pause"),
        Binding("f7", "table_requests", "Requests", id="table.requests"),
        Binding("f8", "table_undo", "Undo", id="table.undo"),
        Binding("f9", "table_ask", "Ask the GM", id="table.ask"),
        Binding("ctrl+l", "table_leave", "Leave the table", id="table.leave"),
    ]

    def __init__(self, client: TableClient, *, title: str = "") -> None:
        replica = client.replica
        assert replica is not None, "connect the client first"
        seating = client.seating
        seat = seating.get(client.seat, {})
        self.role: str = seat.get("role", "spectator")
        self.characters = frozenset(seat.get("characters", ()))
        self.held = {c for s in seating.values() if s.get("role") == "player" for c in s.get("characters", ())}
        session = BattleSession(replica.battle, title or "table", [], replica.inputs)
        # a player sees through their own characters' eyes; a spectator with the party's; the GM all
        super().__init__(session, side=None if self.role == "gm" else "party",
                         eyes=self.characters if self.role == "player" and self.characters else None)
        self.client = client
        self.title = title or "At the table"
        client.on_change = self._table_changed

    # -- who acts here --------------------------------------------------------------------------
    @property
    def me(self) -> Entity | None:
        current = self.battle.current
        if current is None or self.battle.over or not needs_input(self.battle, current):
            return None
        if self.role == "player" and cid(current) in self.characters:
            return current
        if self.role == "gm" and cid(current) not in self.held:
            return current
        return None

    def _act(self, action) -> bool:
        if self.me is None:
            return self.refuse("not your turn: the table waits for another seat")
        if self.client.replica.paused:
            return self.refuse("the GM has paused the table")
        self.client.act(action_to_dict(action))
        self.prompt = "sent to the table…"
        self._leave_mode()
        self.refresh_all()
        return True

    def _schedule_ai(self) -> None:  # the table plays the AI's turns; a view only shows them
        if self.battle.over:
            self._finish()

    def _save(self) -> None:  # the table process keeps the battle save
        pass

    def action_skip(self) -> None:
        self.notify("At a table the AI's turns play at the table's pace.", timeout=3)

    # -- the table talking back -----------------------------------------------------------------
    def _table_changed(self, client: TableClient, message: dict[str, Any]) -> None:
        if not self.is_mounted:
            return
        kind = message.get("type")
        if kind == "error":
            self.refuse(str(message.get("reason")))
            return
        if kind == "request" and self.role == "gm":
            self.notify(f"{message.get('seat')} asks ({message.get('kind')}): {message.get('text')} — F7 answers",
                        timeout=8)
        if kind == "answered" and self.role == "player":
            self.notify("The GM approved your request." if message.get("approve") else
                        "The GM refused your request.", timeout=5)
        if kind in ("snapshot", "update") and client.replica.battle is not self.battle:
            self._rebind()  # an undo (or a resync) rebuilt the battle
        if kind == "update" and message.get("note"):
            self.notify(str(message["note"]), timeout=4)
        self.prompt = "paused by the GM" if client.replica.paused else ""
        self.refresh_all()
        if self.battle.over:
            self._finish()

    def _rebind(self) -> None:
        from textual.widgets import RichLog

        if self._on_event in self.battle.listeners:
            self.battle.listeners.remove(self._on_event)
        self.battle = self.session.battle = self.client.replica.battle
        self.session.inputs = self.client.replica.inputs
        self.battle.listeners.append(self._on_event)
        self.input = MoveMode(self.battle, eyes=self.eyes)
        log = self.query_one("#log", RichLog)
        log.clear()
        for event in self.battle.log:
            self._log(event, log)

    # -- the table's controls -------------------------------------------------------------------
    def action_table_pause(self) -> None:
        if self.role != "gm":
            self.refuse("only the GM pauses the table")
            return
        self.client.pause(not self.client.replica.paused)

    def action_table_undo(self) -> None:
        if self.role != "gm":
            self.refuse("only the GM can undo at a table")
            return
        self.client.undo(1)

    def action_table_requests(self) -> None:
        if self.role != "gm":
            self.refuse("the GM answers requests")
            return
        if not self.client.requests:
            self.notify("No requests waiting.", timeout=2)
            return
        from horizon_tui.tui.dialogs.confirm import ConfirmDialog

        request = self.client.requests[0]
        self.app.push_screen(ConfirmDialog(
            f"{request.get('seat')} asks ({request.get('kind')}, for {request.get('combatant')}):\n"
            f"{request.get('text')}\n\nApprove it? Then carry it out with an action or override.",
            yes="Approve", no="Refuse", title="A request"),
            lambda yes: self.client.answer(int(request["id"]), bool(yes)))

    def action_table_ask(self) -> None:
        if self.role != "player":
            self.refuse("players ask the GM; the GM simply acts")
            return
        from horizon_tui.tui.table_dialogs import AskDialog

        def send(answer: tuple[str, str] | None) -> None:
            if answer:
                self.client.ask(*answer)
                self.notify("Asked the GM; the answer comes here.", timeout=3)

        self.app.push_screen(AskDialog(), send)

    def action_table_leave(self) -> None:
        self.app.pop_screen()

    def on_unmount(self) -> None:
        super().on_unmount()
        self.client.on_change = None
        self.client.close_now()
