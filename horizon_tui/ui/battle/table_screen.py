"""The battlefield at a live table: the same screen as solo play, fed by the table.

The battle is the view's replica (`table.core.Replica`), kept in step by the table's updates; an
action is sent to the table instead of performed here, and comes back as an update that every
view applies alike. Nobody's screen plays AI turns: the table does. A player acts only for their
own characters and sees what they see (a seat's `engine.viewer.Viewer`); the GM sees everything, acts for
everyone no player holds, and has the table's controls: pause, undo (every screen follows) and
the queue of players' requests (F7: accept as asked, amend, or refuse; the asker is told).

Every seat has the table's talk beside the log (`ui.battle.talk`): `c` writes a line to everyone,
a whisper to the GM, or a roll the table makes. A table opens in its lobby: the seats gather and
talk, and the GM begins the fight (F6); after the fight the talk goes on until the GM closes the
table (`/close`, asked first).

At a hot-seat table (`table.hotseat`: every seat in this one process) the keyboard goes from seat
to seat: before a seat's turn a curtain says whose it is, and the screen then shows what that
seat may see. Every seat's log is narrated as the battle goes, with that seat's sight then
(`engine.readmodel.Reader`, one per seat): a seat taking the keyboard reads what it saw live.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from horizon_tui.engine.battle import cid, ident
from horizon_tui.engine.persist import BattleInProgress
from horizon_tui.engine.readmodel import Reader
from horizon_tui.engine.viewer import Viewer
from horizon_tui.ui.battle.modes import MoveMode, Place
from horizon_tui.table.talk import GM_HELP, HELP
from horizon_tui.ui.battle.roles import BattlePanel, TableDriver, TableSeat
from horizon_tui.ui.battle.screen import BattleScreen
from horizon_tui.ui.battle.talk import TalkPane, TalkPrompt, heard_here


class TableBattleScreen(BattleScreen):
    HOLD_TYPE_AHEAD = False  # turns change hands through the table process; a curtain parts each seat
    BINDINGS = [
        Binding("f6", "table_pause", "Pause", id="table.pause"),
        Binding("f7", "table_requests", "Requests", id="table.requests"),
        Binding("f8", "table_undo", "Undo", id="table.undo"),
        Binding("f9", "table_ask", "Ask the GM", id="table.ask"),
        Binding("ctrl+g", "table_gm_seat", "GM's seat", id="table.gm_seat", show=False,
                tooltip="At one keyboard: the GM takes the keyboard (again: back to whose turn it is)"),
        Binding("ctrl+l", "table_leave", "Leave the table", id="table.leave"),
        Binding("c", "table_talk", "Talk", id="table.talk"),
    ]
    DEFAULT_CSS = """
    TableBattleScreen #table-bottom { height: 6; }
    TableBattleScreen #table-bottom #log { width: 1fr; height: 6; }
    """

    def __init__(self, client, *, title: str = "", spec=None,
                 on_end: Callable[[BattleInProgress], None] | None = None, panels: Sequence[BattlePanel] = (),
                 placer: Callable[[Place], None] | None = None) -> None:
        """`client`: a `table.server.TableClient` (or a hot-seat `table.hotseat.LocalClient`);
        `spec`: the table's `TableSpec` (its encounter and party, for the battle's record)."""
        replica = client.replica
        assert replica is not None, "connect the client first"
        self.client = client
        session = BattleInProgress(replica.battle, spec.encounter if spec else (title or "table"),
                                list(spec.party) if spec else [], replica.inputs)
        # The table plays the AI's turns and keeps the save; a player's or spectator's screen shows
        # the result as the table saw it when the battle ends (the GM's records it: `on_end`).
        super().__init__(session, driver=TableDriver(client, on_end or self._show_result_of),
                         policy=TableSeat(client), panels=panels, placer=placer)
        self.title = title or "At the table"
        self.answers: list[dict[str, Any]] = []  # the GM's answers to this seat's requests
        self.hotseat = bool(getattr(client, "hotseat", False))
        self.table_closed = False  # the GM closed the table while a dialog was open over this screen
        self.readers: dict[str, Reader] = {}  # at one keyboard: every seat's, each read live
        self.reader = self._reader_for(client.seat)
        if self.hotseat:
            for seat in client.seating:
                self._reader_for(seat)
        client.on_change = self._table_changed

    def compose(self) -> ComposeResult:
        """The battle screen's, with the table's talk beside the log."""
        for widget in super().compose():
            if widget.id == "log":
                widget = Horizontal(widget, TalkPane(), id="table-bottom")
            yield widget

    # -- who sits here ----------------------------------------------------------------------------
    @property
    def role(self) -> str:
        return self.policy.role

    @property
    def characters(self) -> frozenset[str]:
        return frozenset(self.client.seating.get(self.client.seat, {}).get("characters", ()))

    def _viewer_for(self, seat: str) -> Viewer:
        """A player sees through their own characters' eyes; a spectator with the party's; the GM all."""
        s = self.client.seating.get(seat, {})
        role = s.get("role")
        if role == "gm":
            return Viewer.gm()
        return Viewer.seat("party", s.get("characters", ())) if role == "player" else Viewer.spectator("party")

    def _reader_for(self, seat: str) -> Reader:
        if seat not in self.readers:
            self.readers[seat] = Reader(self._viewer_for(seat))
        return self.readers[seat]

    def names(self, *, seen: bool = False) -> dict[str, str]:
        """Combatant id → name: everyone (the GM), or whom this seat sees (`seen`)."""
        if seen:
            return {u.id: u.name for u in self.known().units}
        return {uid: ident(e).name for uid, e in self.battle.by_id.items()}

    def fingerprint(self) -> str:
        """This view's battle as everyone at the table can compare it aloud: the inputs so far and
        the first digits of the log's hash (`engine.persist.log_digest`, as in battle.json)."""
        replica = self.client.replica
        return f"table log {replica.version} · {replica.digest()[:8]}"

    def _waiting(self) -> str:
        """Why nobody acts: the lobby before the fight, or the GM's pause."""
        if getattr(self.client.replica, "lobby", False):
            if self.role == "gm":
                return "In the lobby: c talks; F6 begins the fight when everyone is here"
            return "In the lobby: c talks; the GM begins the fight"
        return "paused by the GM"

    def action_skip(self) -> None:
        self.notify("At a table the AI's turns play at the table's pace.", timeout=3)

    def _status_text(self) -> Text:
        seat = Text(f"[{self.client.seat}, {self.role}] ", style="bold cyan")
        if self.battle.over and not self.more:
            return seat + Text(f"The battle is over.  {self.fingerprint()}", style="bold")
        if self.client.replica.paused and self.mode == "move" and not self.more:  # the table's state,
            return seat + Text(self.prompt or self._waiting(), style="yellow")  # never "Your turn" then
        if self.battle.over or self.me is not None or self.more:
            return seat + super()._status_text()
        if self.prompt:
            return seat + Text(self.prompt, style="yellow")
        current = self.battle.current
        if current is None:
            return seat
        owner = next((name for name, s in self.client.seating.items()
                      if s.get("role") == "player" and cid(current) in s.get("characters", ())), None)
        owner = owner or next((n for n, s in self.client.seating.items() if s.get("role") == "gm"), "the AI")
        known = self.known()
        if known.current is None:  # one this seat can't see: neither its name nor who plays it
            return seat + Text(f"{known.acting} is acting…", style="dim")
        return seat + Text(f"{known.acting}'s turn: {owner} plays it…", style="dim")

    # -- the table talking back -----------------------------------------------------------------
    def _table_changed(self, client, message: dict[str, Any]) -> None:
        """An update is logged once it is all in, with the sight it ends with (the read model's
        journal): the GM hiding a combatant is one update, and its lines must not name it to the
        other side (R-13), as they would while the combatant was still seen."""
        if not self.is_mounted:
            return
        kind = message.get("type")
        if kind == "error":
            self.refuse(str(message.get("reason")))
            return
        if kind == "talk":
            if heard_here(message, self.client.seat, self.role):
                self.query_one(TalkPane).add(message)
            return
        if kind == "request" and self.role == "gm":
            self.notify(f"{message.get('seat')} asks ({message.get('kind')}): {message.get('text')} — F7 answers",
                        timeout=8, markup=False)
        if kind == "answered" and self.role != "gm" or kind == "answered" and self.hotseat:
            self.answers.append(message)
            verdict = "approved" if message.get("approve") else "refused"
            self.notify(f"“{message.get('text')}”: {message.get('ruling') or verdict}",
                        title=f"The GM {verdict} {message.get('seat', 'your')}'s request", timeout=8, markup=False)
        if kind in ("snapshot", "update") and client.replica.battle is not self.battle:
            self._rebind()  # an undo (or a resync) rebuilt the battle
        for reader in self.readers.values():  # every seat's log, narrated now (at one keyboard too)
            reader.model(self.battle)
        if kind == "update" and message.get("note"):
            self.notify(str(message["note"]), timeout=6, markup=False)
        if kind == "update" and message.get("reset"):  # an undo: say where every screen is now
            for reader in self.readers.values():
                reader.note(f"— {message.get('note') or 'rebuilt'}: {self.fingerprint()} —")
        if kind == "closed":
            self.notify(str(message.get("note") or "the table is closed"), timeout=8, markup=False)
            if self.app.screen is self:
                self.action_table_leave()
            else:  # a dialog is open (the result, the GM's XP award): the seat leaves once it closes
                self.table_closed = True
            return
        self.prompt = ""  # the table's word replaces a refusal; the status says if it waits
        self.refresh_all()
        if self.battle.over:
            self._finish()
        elif self.hotseat:
            self._hand_over()

    def _rebind(self) -> None:
        """The rebuilt battle from now on; the log stays as it was read (`Journal.follow`)."""
        self.battle = self.session.battle = self.client.replica.battle
        self.session.inputs = self.client.replica.inputs
        self.query_one("#map").battle = self.battle  # the map draws the rebuilt battle, not the old one
        self.input = MoveMode(self.battle, self.known, auto=self.auto_fight)

    def _show_result_of(self, session: BattleInProgress) -> None:
        self.show_result()

    def show_result(self) -> None:
        from horizon_tui.rules.texts import counted
        from horizon_tui.ui.battle.dialogs import BattleSummary
        from horizon_tui.ui.battle.flow import summary_rows

        result = self.battle.result
        if result is None:
            return
        headline = {"party": "Victory!", "enemies": "Defeat.", "draw": "A draw."}[result.winner]
        headline += f"  {counted(result.rounds, 'round')}."
        shares = [f"{name} {xp}" for name, xp in result.xp.items() if xp]
        footer = ("XP (R-14, the GM may change it): " + ", ".join(shares)) if shares else "No XP earned."
        footer += f"\n{self.fingerprint()}"
        self.app.push_screen(BattleSummary(headline, summary_rows(self.session, self.known()), footer,
                                           hint="enter: back to the battlefield (ctrl+l leaves the table)"))

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
        waiting = list(self.client.requests)
        if not waiting:
            self.notify("No requests waiting.", timeout=2)
            return
        if len(waiting) == 1:
            self.open_request(waiting[0])
            return
        from horizon_tui.ui.battle.dialogs import ChoiceDialog
        from horizon_tui.ui.player.table_dialogs import request_line

        names = self.names()
        options = [(str(r["id"]), f"{request_line(r, names)} {r.get('text')}") for r in waiting]
        self.app.push_screen(ChoiceDialog("Which request?", options),
                             lambda rid: rid and self.open_request(next(r for r in waiting if str(r["id"]) == rid)))

    def open_request(self, request: dict[str, Any]) -> None:
        self.app.push_screen(self.request_dialog(request), lambda answer: self.send_answer(request, answer))

    def request_dialog(self, request: dict[str, Any]) -> ModalScreen:
        """The dialog the GM answers `request` in (the GM tool's rolls dialogue checks itself)."""
        from horizon_tui.ui.player.table_dialogs import RequestDialog

        return RequestDialog(request, self.names())

    def send_answer(self, request: dict[str, Any], answer) -> None:
        """Carry out the GM's answer: the free action at the table, the override, the words."""
        if answer is None:
            return  # later: it stays in the queue
        words = answer.words
        if answer.approve and answer.check is not None:
            words = self.roll_check(request, answer)
            if words is None:
                return  # not rolled (the reason is on screen): the request waits
        if answer.approve and answer.override is not None:
            self.client.override(answer.override)
        self.client.answer(int(request["id"]), answer.approve, words,
                           answer.action if answer.approve else None)

    def roll_check(self, request: dict[str, Any], answer) -> str | None:
        """A dialogue check the GM approved: rolled where its rules live (the GM tool's campaign)."""
        return answer.words

    def action_table_ask(self) -> None:
        if self.role != "player":
            self.refuse("players ask the GM; the GM simply acts")
            return
        from horizon_tui.ui.player.table_dialogs import AskDialog

        def send(asked) -> None:
            if asked:
                self.client.ask(*asked)
                self.notify("Asked the GM; the answer comes here.", timeout=3)

        self.app.push_screen(AskDialog(self.names(seen=True)), send)

    def action_table_talk(self) -> None:
        """Write a line to the table (the table rolls, checks and passes it on)."""
        hint = HELP + (GM_HELP + " · /close closes the table" if self.role == "gm" else "")
        self.app.push_screen(TalkPrompt(hint), self._say)

    def _say(self, text: str | None) -> None:
        if not text:
            return
        if text.strip().lower() == "/close" and self.role == "gm" and not self.hotseat:
            self.ask_to_close()
            return
        self.client.talk(text)

    def ask_to_close(self) -> None:
        """The GM closes the table, after a question: every seat leaves it, the talk ends."""
        from horizon_tui.ui.dialogs.confirm import ConfirmDialog

        fight = ("" if self.battle.over else " The fight is not over: it stays in your campaign, "
                 "and b plays it on at this keyboard.")
        question = f"Close the table for everyone? Every seat leaves it and the talk ends.{fight}"
        self.app.push_screen(ConfirmDialog(question, yes="Close it", no="Keep it open"),
                             lambda yes: yes and self.client.close_table())

    def _show_talk(self) -> None:
        """The talk this seat may read, again (a hot-seat hand-over: whispers are the GM's)."""
        seat, role = self.client.seat, self.role
        self.query_one(TalkPane).show_all(line for line in self.client.talk_lines if heard_here(line, seat, role))

    def action_table_leave(self) -> None:
        self.app.pop_screen()

    # -- one keyboard, many seats ------------------------------------------------------------------
    def _hand_over(self, to: str | None = None) -> None:
        """At a hot-seat table: the seat whose turn it is takes the keyboard, behind a curtain."""
        due = to or self.client.due()
        if due is None or due == self.client.seat or isinstance(self.app.screen, HandOver):
            return

        def taken(_: None) -> None:
            self.client.seat = due
            self.reader = self._reader_for(due)
            self.input = MoveMode(self.battle, self.known, auto=self.auto_fight)
            self._rewrite_log()  # the seat's own log, as it saw it live
            self._show_talk()
            self.prompt = ""
            self.refresh_all()

        seat = self.client.seating.get(due, {})
        names = [ident(self.battle[c]).name for c in seat.get("characters", ()) if c in self.battle.by_id]
        self.app.push_screen(HandOver(due, seat.get("role", "spectator"), names), taken)

    def action_table_gm_seat(self) -> None:
        if not self.hotseat:
            self.refuse("ctrl+g hands one keyboard between seats (a table at this keyboard)")
            return
        gm = next((n for n, s in self.client.seating.items() if s.get("role") == "gm"), None)
        if self.client.seat != gm:
            self._hand_over(gm)
        else:
            self._hand_over(self.client.due())

    def on_mount(self) -> None:
        self._show_talk()  # what was said before this screen opened (the client has it from the table)
        if self.hotseat:
            self.call_after_refresh(self._hand_over)

    def on_screen_resume(self) -> None:
        if self.table_closed:  # the dialog is gone: nothing is left to do at a closed table
            self.call_later(self.action_table_leave)

    def on_unmount(self) -> None:
        super().on_unmount()
        self.client.on_change = None
        self.client.close_now()


class HandOver(ModalScreen[None]):
    """The curtain between two seats at one keyboard: nothing of the battle shows behind it."""

    BINDINGS = [Binding("enter", "take", "Take the keyboard", id="handover.take", priority=True)]
    DEFAULT_CSS = """
    HandOver { align: center middle; background: $background; }
    HandOver > Vertical { width: 60; max-width: 95%; height: auto; border: double $accent; padding: 1 2; }
    """

    def __init__(self, seat: str, role: str, characters: list[str]) -> None:
        super().__init__()
        self.seat, self.role, self.characters = seat, role, characters

    def compose(self) -> ComposeResult:
        if self.role == "gm":
            sees = "The GM's seat: you see everything and play all no player holds."
        else:
            sees = (f"You play {', '.join(self.characters)} and see through their eyes only."
                    if self.characters else "You watch.")
        with Vertical():
            yield Static(Text(f"{self.seat}'s turn at the keyboard", style="bold"))
            yield Static(sees, markup=False)
            yield Static(Text(f"Hand the keyboard to {self.seat}; {self.seat}: press enter.", style="dim"))

    def action_take(self) -> None:
        self.dismiss(None)
