"""The battlefield at a live table: the same screen as solo play (`ui.battle.screen`), fed by the
table, with the table's controls and talk as one of its parts (`TableControls`).

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

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Static

from horizon_tui.engine.battle import cid, ident
from horizon_tui.engine.persist import BattleInProgress
from horizon_tui.engine.readmodel import Reader
from horizon_tui.engine.viewer import Viewer
from horizon_tui.rules.texts import counted
from horizon_tui.table.talk import GM_HELP, HELP
from horizon_tui.ui.battle.dialogs import BattleSummary, ChoiceDialog
from horizon_tui.ui.battle.flow import summary_rows
from horizon_tui.ui.battle.modes import Place
from horizon_tui.ui.battle.parts import BattlePart
from horizon_tui.ui.battle.roles import TableDriver, TableSeat
from horizon_tui.ui.battle.screen import BattleScreen
from horizon_tui.ui.battle.talk import TalkPane, TalkPrompt, heard_here
from horizon_tui.ui.dialogs.confirm import ConfirmDialog
from horizon_tui.ui.player.table_dialogs import AskDialog, RequestDialog, request_line


class RequestDesk:
    """How the GM answers a player's request: the dialog, and a dialogue check's roll. This one
    rolls nothing (the player app's GM); the GM tool's campaign rolls (`ui.gm.screens.table`)."""

    def dialog(self, request: dict[str, Any], names: dict[str, str]) -> ModalScreen:
        return RequestDialog(request, names)

    def roll_check(self, request: dict[str, Any], answer) -> str | None:
        """A dialogue check the GM approved: its words (None: not rolled, the request waits)."""
        return answer.words


class TableControls(BattlePart):
    """A live table's part of the battle screen: the table's client and its updates, the seat's
    read model (at one keyboard, every seat's, each read live), the table's keys (pause, undo,
    requests, asking the GM, talk, leaving) and talk beside the log."""

    NAME = "table"
    COMMANDS: ClassVar[frozenset[str]] = frozenset(
        {"pause", "requests", "undo", "ask", "gm_seat", "leave", "talk"})

    def __init__(self, client, *, desk: RequestDesk | None = None) -> None:
        """`client`: a `table.server.TableClient` (or a hot-seat `table.hotseat.LocalClient`)."""
        assert client.replica is not None, "connect the client first"
        self.client = client
        self.desk = desk if desk is not None else RequestDesk()
        self.answers: list[dict[str, Any]] = []  # the GM's answers to this seat's requests
        self.hotseat = bool(getattr(client, "hotseat", False))
        self.table_closed = False  # the GM closed the table while a dialog was open over this screen
        self.readers: dict[str, Reader] = {}  # at one keyboard: every seat's, each read live
        self.changed: list[Callable[[dict[str, Any]], None]] = []  # told of each message first (the GM's record)

    def attach(self, screen: BattleScreen) -> None:
        super().attach(screen)
        screen.reader = self.reader_for(self.client.seat)
        if self.hotseat:
            for seat in self.client.seating:
                self.reader_for(seat)
        self.client.on_change = self._table_changed

    # -- who sits here ----------------------------------------------------------------------------
    @property
    def role(self) -> str:
        return self.client.seating.get(self.client.seat, {}).get("role", "spectator")

    @property
    def characters(self) -> frozenset[str]:
        return frozenset(self.client.seating.get(self.client.seat, {}).get("characters", ()))

    def viewer_for(self, seat: str) -> Viewer:
        """A player sees through their own characters' eyes; a spectator with the party's; the GM all."""
        s = self.client.seating.get(seat, {})
        role = s.get("role")
        if role == "gm":
            return Viewer.gm()
        return Viewer.seat("party", s.get("characters", ())) if role == "player" else Viewer.spectator("party")

    def reader_for(self, seat: str) -> Reader:
        if seat not in self.readers:
            self.readers[seat] = Reader(self.viewer_for(seat))
        return self.readers[seat]

    def names(self, *, seen: bool = False) -> dict[str, str]:
        """Combatant id → name: everyone (the GM), or whom this seat sees (`seen`)."""
        if seen:
            return {u.id: u.name for u in self.screen.known().units}
        return {uid: ident(e).name for uid, e in self.screen.battle.by_id.items()}

    def fingerprint(self) -> str:
        """This view's battle as everyone at the table can compare it aloud: the inputs so far and
        the first digits of the log's hash (`engine.persist.log_digest`, as in battle.json)."""
        replica = self.client.replica
        return f"table log {replica.version} · {replica.digest()[:8]}"

    def waiting(self) -> str:
        """Why nobody acts: the lobby before the fight, or the GM's pause."""
        if getattr(self.client.replica, "lobby", False):
            if self.role == "gm":
                return "In the lobby: c talks; F6 begins the fight when everyone is here"
            return "In the lobby: c talks; the GM begins the fight"
        return "paused by the GM"

    # -- the screen's hooks -------------------------------------------------------------------------
    def beside_log(self) -> Iterable[Widget]:
        return (TalkPane(),)

    def status_prefix(self) -> Text:
        return Text(f"[{self.client.seat}, {self.role}] ", style="bold cyan")

    def status(self) -> Text | None:
        screen = self.screen
        battle = screen.battle
        if battle.over and not screen.more:
            return Text(f"The battle is over.  {self.fingerprint()}", style="bold")
        if self.client.replica.paused and screen.mode == "move" and not screen.more:  # the table's state,
            return Text(screen.prompt or self.waiting(), style="yellow")  # never "Your turn" then
        if battle.over or screen.me is not None or screen.more:
            return None
        if screen.prompt:
            return Text(screen.prompt, style="yellow")
        current = battle.current
        if current is None:
            return Text("")
        owner = next((name for name, s in self.client.seating.items()
                      if s.get("role") == "player" and cid(current) in s.get("characters", ())), None)
        owner = owner or next((n for n, s in self.client.seating.items() if s.get("role") == "gm"), "the AI")
        known = screen.known()
        if known.current is None:  # one this seat can't see: neither its name nor who plays it
            return Text(f"{known.acting} is acting…", style="dim")
        return Text(f"{known.acting}'s turn: {owner} plays it…", style="dim")

    def mounted(self) -> None:
        self._show_talk()  # what was said before this screen opened (the client has it from the table)
        if self.hotseat:
            self.screen.call_after_refresh(self._hand_over)

    def resumed(self) -> None:
        if self.table_closed:  # the dialog is gone: nothing is left to do at a closed table
            self.screen.call_later(self.action_leave)

    def unmounted(self) -> None:
        self.client.on_change = None
        self.client.close_now()

    # -- the table talking back -----------------------------------------------------------------
    def _table_changed(self, client, message: dict[str, Any]) -> None:
        """An update is logged once it is all in, with the sight it ends with (the read model's
        journal): the GM hiding a combatant is one update, and its lines must not name it to the
        other side (R-13), as they would while the combatant was still seen."""
        screen = self.screen
        if not screen.is_mounted:
            return
        for listener in self.changed:
            listener(message)
        kind = message.get("type")
        if kind == "error":
            screen.refuse(str(message.get("reason")))
            return
        if kind == "talk":
            if heard_here(message, self.client.seat, self.role):
                screen.query_one(TalkPane).add(message)
            return
        if kind == "request" and self.role == "gm":
            screen.notify(f"{message.get('seat')} asks ({message.get('kind')}): {message.get('text')} — F7 answers",
                          timeout=8, markup=False)
        if kind == "answered" and self.role != "gm" or kind == "answered" and self.hotseat:
            self.answers.append(message)
            verdict = "approved" if message.get("approve") else "refused"
            screen.notify(f"“{message.get('text')}”: {message.get('ruling') or verdict}",
                          title=f"The GM {verdict} {message.get('seat', 'your')}'s request", timeout=8, markup=False)
        if kind in ("snapshot", "update") and client.replica.battle is not screen.battle:
            screen.rebind(client.replica.battle, client.replica.inputs)  # an undo (or a resync) rebuilt it
        for reader in self.readers.values():  # every seat's log, narrated now (at one keyboard too)
            reader.model(screen.battle)
        if kind == "update" and message.get("note"):
            screen.notify(str(message["note"]), timeout=6, markup=False)
        if kind == "update" and message.get("reset"):  # an undo: say where every screen is now
            for reader in self.readers.values():
                reader.note(f"— {message.get('note') or 'rebuilt'}: {self.fingerprint()} —")
        if kind == "closed":
            screen.notify(str(message.get("note") or "the table is closed"), timeout=8, markup=False)
            if screen.app.screen is screen:
                self.action_leave()
            else:  # a dialog is open (the result, the GM's XP award): the seat leaves once it closes
                self.table_closed = True
            return
        screen.prompt = ""  # the table's word replaces a refusal; the status says if it waits
        screen.refresh_all()
        if screen.battle.over:
            screen.finish()
        elif self.hotseat:
            self._hand_over()

    def show_result(self, session: BattleInProgress | None = None) -> None:
        """The result as the table saw it (a player's or spectator's screen, as the battle ends)."""
        screen = self.screen
        result = screen.battle.result
        if result is None:
            return
        headline = {"party": "Victory!", "enemies": "Defeat.", "draw": "A draw."}[result.winner]
        headline += f"  {counted(result.rounds, 'round')}."
        shares = [f"{name} {xp}" for name, xp in result.xp.items() if xp]
        footer = ("XP (R-14, the GM may change it): " + ", ".join(shares)) if shares else "No XP earned."
        footer += f"\n{self.fingerprint()}"
        screen.app.push_screen(BattleSummary(headline, summary_rows(screen.session, screen.known()), footer,
                                             hint="enter: back to the battlefield (ctrl+l leaves the table)"))

    # -- the table's controls -------------------------------------------------------------------
    def action_pause(self) -> None:
        if self.role != "gm":
            self.screen.refuse("only the GM pauses the table")
            return
        self.client.pause(not self.client.replica.paused)

    def action_undo(self) -> None:
        if self.role != "gm":
            self.screen.refuse("only the GM can undo at a table")
            return
        self.client.undo(1)

    def action_requests(self) -> None:
        if self.role != "gm":
            self.screen.refuse("the GM answers requests")
            return
        waiting = list(self.client.requests)
        if not waiting:
            self.screen.notify("No requests waiting.", timeout=2)
            return
        if len(waiting) == 1:
            self.open_request(waiting[0])
            return
        names = self.names()
        options = [(str(r["id"]), f"{request_line(r, names)} {r.get('text')}") for r in waiting]
        self.screen.app.push_screen(
            ChoiceDialog("Which request?", options),
            lambda rid: rid and self.open_request(next(r for r in waiting if str(r["id"]) == rid)))

    def open_request(self, request: dict[str, Any]) -> None:
        self.screen.app.push_screen(self.desk.dialog(request, self.names()),
                                    lambda answer: self.send_answer(request, answer))

    def send_answer(self, request: dict[str, Any], answer) -> None:
        """Carry out the GM's answer: the free action at the table, the override, the words."""
        if answer is None:
            return  # later: it stays in the queue
        words = answer.words
        if answer.approve and answer.check is not None:
            words = self.desk.roll_check(request, answer)
            if words is None:
                return  # not rolled (the reason is on screen): the request waits
        if answer.approve and answer.override is not None:
            self.client.override(answer.override)
        self.client.answer(int(request["id"]), answer.approve, words,
                           answer.action if answer.approve else None)

    def action_ask(self) -> None:
        if self.role != "player":
            self.screen.refuse("players ask the GM; the GM simply acts")
            return

        def send(asked) -> None:
            if asked:
                self.client.ask(*asked)
                self.screen.notify("Asked the GM; the answer comes here.", timeout=3)

        self.screen.app.push_screen(AskDialog(self.names(seen=True)), send)

    def action_talk(self) -> None:
        """Write a line to the table (the table rolls, checks and passes it on)."""
        hint = HELP + (GM_HELP + " · /close closes the table" if self.role == "gm" else "")
        self.screen.app.push_screen(TalkPrompt(hint), self._say)

    def _say(self, text: str | None) -> None:
        if not text:
            return
        if text.strip().lower() == "/close" and self.role == "gm" and not self.hotseat:
            self.ask_to_close()
            return
        self.client.talk(text)

    def ask_to_close(self) -> None:
        """The GM closes the table, after a question: every seat leaves it, the talk ends."""
        fight = ("" if self.screen.battle.over else " The fight is not over: it stays in your campaign, "
                 "and b plays it on at this keyboard.")
        question = f"Close the table for everyone? Every seat leaves it and the talk ends.{fight}"
        self.screen.app.push_screen(ConfirmDialog(question, yes="Close it", no="Keep it open"),
                                    lambda yes: yes and self.client.close_table())

    def _show_talk(self) -> None:
        """The talk this seat may read, again (a hot-seat hand-over: whispers are the GM's)."""
        seat, role = self.client.seat, self.role
        self.screen.query_one(TalkPane).show_all(line for line in self.client.talk_lines
                                                 if heard_here(line, seat, role))

    def action_leave(self) -> None:
        self.screen.app.pop_screen()

    # -- one keyboard, many seats ------------------------------------------------------------------
    def _hand_over(self, to: str | None = None) -> None:
        """At a hot-seat table: the seat whose turn it is takes the keyboard, behind a curtain."""
        screen = self.screen
        due = to or self.client.due()
        if due is None or due == self.client.seat or isinstance(screen.app.screen, HandOver):
            return

        def taken(_: None) -> None:
            self.client.seat = due
            self._show_talk()
            screen.seat_taken(self.reader_for(due))  # the seat's own log, as it saw it live

        seat = self.client.seating.get(due, {})
        names = [ident(screen.battle[c]).name for c in seat.get("characters", ()) if c in screen.battle.by_id]
        screen.app.push_screen(HandOver(due, seat.get("role", "spectator"), names), taken)

    def action_gm_seat(self) -> None:
        if not self.hotseat:
            self.screen.refuse("ctrl+g hands one keyboard between seats (a table at this keyboard)")
            return
        gm = next((n for n, s in self.client.seating.items() if s.get("role") == "gm"), None)
        if self.client.seat != gm:
            self._hand_over(gm)
        else:
            self._hand_over(self.client.due())


def table_battle_screen(client, *, title: str = "", spec=None, desk: RequestDesk | None = None,
                        on_end: Callable[[BattleInProgress], None] | None = None,
                        parts: Sequence[BattlePart] = (),
                        placer: Callable[[Place], None] | None = None) -> BattleScreen:
    """The battle screen of a seat at a live table: `client` a `table.server.TableClient` (or a
    hot-seat `table.hotseat.LocalClient`); `spec` the table's `TableSpec` (its encounter and party,
    for the battle's record). The table plays the AI's turns and keeps the save; a player's or
    spectator's screen shows the result as the table saw it when the battle ends (the GM's
    records it: `on_end`)."""
    replica = client.replica
    assert replica is not None, "connect the client first"
    session = BattleInProgress(replica.battle, spec.encounter if spec else (title or "table"),
                               list(spec.party) if spec else [], replica.inputs)
    table = TableControls(client, desk=desk)
    return BattleScreen(session, driver=TableDriver(client, on_end or table.show_result), policy=TableSeat(client),
                        parts=[table, *parts], placer=placer, title=title or "At the table")


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
