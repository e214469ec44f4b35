"""Open a fight at a live table: seat player accounts at the party's characters.

The GM picks an encounter and, for each party member, the account that plays it (blank: the GM
plays it); spectators by account name. Opening forms the campaign's battle as any other
(`campaign.table_battle.lay_table`: the campaign's seed, rules and what the last fights left), starts
the table's process, and puts the GM at the table with the same battlefield as everyone, seeing
all. Each seated account's session gets a notice and "Join the table" (F2). ctrl+k opens the same
table at this keyboard instead (hot-seat: the seats take turns at one terminal).

At the table the campaign follows the battle: every accepted input goes into its record (so a
crash of this window loses nothing, and `b` can play it on here), and the end is the GM tool's
own (`gm_battle.battle_ended`): the log, the players' recap, the carry-over, the XP award; the
players are told what was awarded.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Select, Static

from horizon_tui.engine.battle import BattleError, ident
from horizon_tui.engine.persist import BattleInProgress
from horizon_tui.engine.runner import action_to_dict
from horizon_tui.errors import HorizonError
from horizon_tui.campaign import battles
from horizon_tui.campaign import changes
from horizon_tui.ui.gm.screens.gm_battle import GMBattleScreen
from horizon_tui.ui.gm.screens.gm_overrides import OverrideMenu
from horizon_tui.ui.gm.screens.tracker import TrackerMixin, TrackerPanel
from horizon_tui.campaign.table_battle import gm_token, lay_table, seats_from, table_id_for
from horizon_tui.table.lobby import load_table, my_seat_place, offered_by, start_table
from horizon_tui.table.server import TableClient
from horizon_tui.play.library import encounters_dir, list_encounters
from horizon_tui.ui.player.table_dialogs import NOBODY, Answer, RequestDialog, _whole
from horizon_tui.ui.battle.table_screen import TableBattleScreen
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar

__all__ = ["OpenTableScreen", "GMTableScreen", "seats_from", "table_id_for"]

# The tracker's keys a GM has at a table too (`gm_battle`'s bindings, by id).
TRACKER_KEYS = ("gmb.mark", "gmb.damage", "gmb.heal", "gmb.temp", "gmb.revive", "gmb.withdraw",
                "gmb.initiative", "gmb.reveal", "gmb.add")


class OpenTableScreen(Screen):
    AUTO_FOCUS = "#table-encounter"  # the form's first field (else the scroller took the keys)
    GM_SCREEN = True
    DEFAULT_CSS = """
    OpenTableScreen .table-seat { height: auto; }
    OpenTableScreen .table-seat Label { width: 24; padding: 0 1; }
    OpenTableScreen .table-seat Input { width: 1fr; }
    """
    BINDINGS = [Binding("escape", "app.pop_screen", "Back", id="table.back"),
                Binding("ctrl+o", "open_table", "Open the table", id="table.open"),
                # priority: a focused seat field would take ctrl+k as "delete to the end of the line"
                Binding("ctrl+k", "open_here", "At this keyboard", id="table.here", priority=True,
                        tooltip="Hot-seat: every seat at this one terminal, taking turns")]

    def compose(self) -> ComposeResult:
        campaign = self.app.campaign
        self.encounters = [e for e in list_encounters(encounters_dir(self.app.catalogue)) if e.problem is None]
        yield TitleBar()
        with VerticalScroll(id="table-form"):
            yield Label("Encounter")
            yield Select([(f"{e.name} ({e.size})", e.id) for e in self.encounters], allow_blank=False,
                         value=self.encounters[0].id if self.encounters else Select.NULL, id="table-encounter")
            yield Static("Who plays whom (an account name; blank: you play them):", classes="hint")
            for member in campaign.party if campaign else ():
                with Horizontal(classes="table-seat"):
                    yield Label(member.name)
                    yield Input(offered_by(member.source) or "", placeholder="account", compact=True,
                                id=f"seat-{_field_id(member.name)}", max_length=32)
            yield Label("Spectators (accounts, separated by commas)")
            yield Input(placeholder="e.g. sam, lee", id="table-spectators", max_length=300)
            yield Button("Open the table (ctrl+o)", id="table-open", variant="primary")
            yield Button("At this keyboard (ctrl+k)", id="table-here")
            yield Static("", id="table-problems", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Open a fight at the table"

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.run_worker(self.action_open_table() if event.button.id == "table-open" else self.action_open_here())

    def _lay(self) -> tuple[Any, str] | None:
        """Form the campaign's battle and write its table (saved in the campaign, undoable):
        (the table's folder, the GM's seat), or None with the reason on screen."""
        app = self.app
        campaign = app.campaign
        if campaign is None or not campaign.party:
            self._say("The campaign has no party to seat.")
            return None
        if app.gm.read_only:
            self._say("This campaign is open read-only: a fight can't be kept in it.")
            return None
        encounter = self.query_one("#table-encounter", Select).value
        if encounter is Select.NULL:
            self._say("Pick an encounter.")
            return None
        account, tables = my_seat_place()
        accounts = {m.name: self.query_one(f"#seat-{_field_id(m.name)}", Input).value for m in campaign.party}
        seats, problems = seats_from(account, accounts, self.query_one("#table-spectators", Input).value)
        if problems:
            self._say("\n".join(problems))
            return None
        laid: dict[str, Any] = {}

        def change(c):
            try:
                c, laid["folder"] = lay_table(c, str(encounter), seats, tables, table_id_for(c.name), app.store.catalogue,
                                              app.gm.rules_for, app.enemies())
            except BattleError as exc:
                raise ValueError(str(exc)) from None
            return c

        if not app.act(change, f"battle at the table: {encounter}"):
            self._say("The fight was not formed (the reason is in the notice).")
            return None
        return laid["folder"], account

    async def action_open_table(self) -> None:
        laid = self._lay()
        if laid is None:
            return
        folder, account = laid
        try:
            spec = load_table(folder, self.app.store.catalogue)
            proc = await asyncio.to_thread(start_table, folder)  # the process imports the engine: seconds
            client = TableClient(folder / "table.sock", account, gm_token(folder, account), spec.rebuild)
            await client.connect()
        except (OSError, ValueError, KeyError, RuntimeError, ConnectionError, HorizonError) as exc:
            self._say(f"The table did not open: {exc}. The fight is in the campaign: b plays it at this "
                      "keyboard, or abandon it there.")
            return
        self.app.notify(f"Table {folder.name} is open: the seated players are told to press F2.", timeout=8)
        self.app.pop_screen()
        self.app.push_screen(GMTableScreen(client, spec, title=f"{folder.name} — GM", proc=proc))

    async def action_open_here(self) -> None:
        from horizon_tui.table.__main__ import build
        from horizon_tui.table.hotseat import LocalClient

        laid = self._lay()
        if laid is None:
            return
        folder, account = laid
        try:
            spec = load_table(folder, self.app.store.catalogue)
            table, _tokens, _catalogue = build(folder, hotseat=True)
        except (OSError, ValueError, KeyError, HorizonError) as exc:
            self._say(f"The table did not open: {exc}")
            return
        self.app.pop_screen()
        self.app.push_screen(GMTableScreen(LocalClient(table, account), spec, title=f"{folder.name} — at this keyboard"))

    def _say(self, text: str) -> None:
        self.query_one("#table-problems", Static).update(text)
        self.app.bell()


async def rejoin_table(app) -> bool:
    """The campaign's battle is at a live table: the GM sits down at it again (after leaving it,
    or from another window). False if there is no live table for it (then it plays on here)."""
    from horizon_tui.campaign.table_battle import table_of

    folder = table_of(app.campaign) if app.campaign else None
    if folder is None:
        return False
    try:
        spec = load_table(folder, app.store.catalogue)
        account = next(s.name for s in spec.seats if s.role == "gm")  # the seat its GM took
        client = TableClient(folder / "table.sock", account, gm_token(folder, account), spec.rebuild)
        await client.connect()
    except (OSError, ValueError, KeyError, StopIteration, ConnectionError, HorizonError) as exc:
        app.notify(f"The table {folder.name} did not answer: {exc}", severity="error", timeout=8)
        return False
    app.push_screen(GMTableScreen(client, spec, title=f"{folder.name} — GM"))
    return True


class GMTableScreen(TrackerMixin, OverrideMenu, TableBattleScreen):
    """The GM at the table: the table's battlefield, with the campaign following it, and the GM
    tool's hand on it sent to the table, so every view has it: the override menu (`o` on the
    combatant `[ ]` selects) and the tracker's keys of a local fight (mark, damage, heal, temporary
    health, withdraw, initiative, reveal, a combatant joining), with the tracker in the side panel."""

    GM_SCREEN = True
    mapless = False  # a table always has its battlefield
    TRACKER_LEGEND = "[ ] pick ␣ mark D dmg H heal\nT temp v revive A add W out\nR reveal i init o over\n"
    BINDINGS = [Binding("ctrl+z", "table_undo", "Undo", id="gmtable.undo", show=False,
                        tooltip="At a table the undo is the table's: every screen follows"),
                Binding("left_square_bracket", "select(-1)", "Previous", id="gmtable.prev", key_display="[",
                        show=False),
                Binding("right_square_bracket", "select(1)", "Next", id="gmtable.next", key_display="]",
                        show=False),
                Binding("o", "override", "Override", id="gmtable.override"),
                *(b for b in GMBattleScreen.BINDINGS if b.id in TRACKER_KEYS)]

    # The local fight's selection and tracker, on this screen's battle (the same code, not a copy).
    _selected_id = GMBattleScreen._selected_id
    action_select = GMBattleScreen.action_select
    _tracker_text = GMBattleScreen._tracker_text

    def __init__(self, client, spec, *, title: str = "", proc=None) -> None:
        super().__init__(client, title=title, spec=spec, on_end=self._ended,
                         panels=[TrackerPanel(self._tracker_text, shown=lambda: self.role == "gm")],
                         placer=self._place)
        self.spec = spec
        self.proc = proc  # the table's process (None at one keyboard); it ends a while after the battle
        self._recorded = client.replica.version
        self.selected: str | None = None
        self.marked: set[str] = set()

    def _gm_only(self) -> bool:
        return self.role == "gm" or self.refuse("only the GM's seat has the GM's hand")

    def action_mark(self) -> None:
        if self._gm_only():
            super().action_mark()

    def action_add_combatant(self) -> None:
        """Only the catalogue's enemy types join at a table: the table's process knows them (an
        NPC's or a quick stat line's definition lives in this campaign alone)."""
        if self._gm_only() and not self.battle.over:
            self._join_catalogue()

    def _shown_unit(self, known):
        chosen = self._selected_id() if self.role == "gm" and self.cursor is None else None
        return known.unit(chosen) if chosen is not None else super()._shown_unit(known)

    def _override(self, change, label: str, extra=None) -> bool:
        """An override goes to the table; it comes back as an update, like any input."""
        if self.role != "gm":
            return self.refuse("only the GM's seat overrides")
        self.prompt = f"{label}: sent to the table…"
        self.client.override(action_to_dict(change))
        self.refresh_all()
        return True

    def action_override(self) -> None:
        if self.role != "gm":
            self.refuse("only the GM's seat overrides")
            return
        super().action_override()

    @property
    def battle_name(self) -> str:
        record = self.app.campaign.battle if self.app.campaign else None
        return str((record or {}).get("name", self.spec.encounter))

    def _table_changed(self, client, message: dict[str, Any]) -> None:
        if self.is_mounted and message.get("type") in ("update", "snapshot"):
            self._record()
        if message.get("type") == "talk" and self.role == "gm":
            self._record_talk(message)
        super()._table_changed(client, message)

    def _record_talk(self, line: dict[str, Any]) -> None:
        """The table's talk goes into the campaign's session log as the GM reads it (whispers and
        secret rolls too: the players' recap leaves those out, `campaign.export`)."""
        app = self.app
        if app.campaign is None or app.gm is None or app.gm.read_only or line.get("to") not in ("all", "gm"):
            return  # an answer to one seat (/help) is no part of the evening
        app.act(lambda c: changes.log_talk(c, line), "talk at the table")

    def _record(self) -> None:
        """The campaign's record of the battle follows the table's inputs (undone ones too)."""
        app = self.app
        replica = self.client.replica
        if self._finished or app.campaign is None or app.campaign.battle is None or replica.version == self._recorded \
                and not replica.battle.over:
            return
        session = BattleInProgress(replica.battle, self.spec.encounter, list(self.spec.party), replica.inputs)
        if app.act(lambda c: battles.with_inputs(c, session, app.store.catalogue, app.gm.rules_for),
                   f"{self.battle_name}: at the table"):
            self._recorded = replica.version

    def _ended(self, session: BattleInProgress) -> None:
        from horizon_tui.ui.gm.screens.gm_battle import battle_ended

        session = BattleInProgress(self.client.replica.battle, self.spec.encounter, list(self.spec.party),
                                self.client.replica.inputs)
        battle_ended(self.app, session, self.battle_name, on_award=self._tell_award, leave=False)

    def _tell_award(self, shares: dict[str, int]) -> None:
        given = ", ".join(f"{name} {xp:+d}" for name, xp in shares.items() if xp)
        self.client.say(f"XP awarded: {given}" if given else "No XP awarded.")

    # -- dialogue checks are the campaign's: its NPCs, its day's limits, its dice --------------
    def request_dialog(self, request: dict[str, Any]):
        if request.get("kind") == "dialogue":
            return DialogueRequestDialog(request, self.names(), self.app)
        return super().request_dialog(request)

    def roll_check(self, request: dict[str, Any], answer: Answer) -> str | None:
        app = self.app
        npc, kind, modifier = answer.check
        combatant = self.battle.by_id.get(str(request.get("combatant")))
        character = ident(combatant).name if combatant is not None else ""
        rolled: list[str] = []

        def change(c):
            plan = changes.plan_check(c, character, npc, kind, modifier, app.rules, catalogue=app.catalogue)
            c, roll = changes.roll_check(c, plan, str(request.get("text")), app.rules)
            rolled.append(c.log[-1].text)
            return c

        if not app.act(change, f"{character}: {kind} on {npc} (at the table)"):
            return None
        return rolled[0] + (f" — {answer.words}" if answer.words and answer.words != "approved" else "")


class DialogueRequestDialog(RequestDialog):
    """A dialogue check asked at the table (R-12): the GM picks the NPC and the check and sets the
    roleplay modifier (the amendment), then the campaign rolls it with its limits and dice."""

    def __init__(self, request: dict[str, Any], names: dict[str, str], app) -> None:
        super().__init__(request, names)
        self.npcs = [n.name for n in app.campaign.npcs if n.checkable and not n.dead]
        self.dialogue = app.rules.dialogue

    def fields(self, kind: str | None):
        d = self.dialogue
        yield Label("NPC")
        yield Select([(n, n) for n in self.npcs], value=self.npcs[0] if self.npcs else Select.NULL, prompt=NOBODY,
                     id="req-npc", compact=True)
        yield Label("Check")
        kinds = list(d.types)
        yield Select([(k, k) for k in kinds], value=kinds[0], allow_blank=False, id="req-check", compact=True)
        yield Label("Modifier")
        yield Input("0", id="req-modifier", compact=True, max_length=3, placeholder=f"{d.modifier_min}…{d.modifier_max}")

    def answer(self) -> Answer:
        npc = self.query_one("#req-npc", Select).value
        if npc is Select.NULL:
            raise ValueError("pick the NPC the check is made on (the campaign's NPCs)")
        raw = self.query_one("#req-modifier", Input).value.strip() or "0"
        sign = -1 if raw.startswith("-") else 1
        modifier = sign * _whole(raw.lstrip("+-"), "modifier", 0, max(-self.dialogue.modifier_min,
                                                                         self.dialogue.modifier_max))
        words = self.query_one("#req-words", Input).value.strip()
        return Answer(True, words, check=(str(npc), str(self.query_one("#req-check", Select).value), modifier),
                      amended=modifier != 0)


def _field_id(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)[:40] or "_"



