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
from typing import Any, ClassVar

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
from horizon_tui.ui.battle.parts import BattlePart
from horizon_tui.ui.battle.screen import BattleScreen
from horizon_tui.ui.gm.screens.gm_battle import battle_ended
from horizon_tui.ui.gm.screens.tracker import GMHand
from horizon_tui.campaign.table_battle import gm_token, lay_table, seats_from, table_id_for, table_of
from horizon_tui.table.lobby import load_table, my_seat_place, offered_by, start_table
from horizon_tui.table.server import TableClient
from horizon_tui.play.library import encounters_dir, list_encounters
from horizon_tui.ui.player.table_dialogs import NOBODY, Answer, RequestDialog, _whole
from horizon_tui.ui.battle.table_screen import RequestDesk, TableControls, table_battle_screen
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar
from horizon_tui.table.__main__ import build
from horizon_tui.table.hotseat import LocalClient

__all__ = ["OpenTableScreen", "CampaignTable", "gm_table_screen", "seats_from", "table_id_for"]


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
        if app.host.gm.read_only:
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
                c, laid["folder"] = lay_table(c, str(encounter), seats, tables, table_id_for(c.name), app.host.store.catalogue,
                                              app.host.gm.rules_for, app.enemies())
            except BattleError as exc:
                raise ValueError(str(exc)) from None
            return c

        if not app.host.act(change, f"battle at the table: {encounter}"):
            self._say("The fight was not formed (the reason is in the notice).")
            return None
        return laid["folder"], account

    async def action_open_table(self) -> None:
        laid = self._lay()
        if laid is None:
            return
        folder, account = laid
        try:
            spec = load_table(folder, self.app.host.store.catalogue)
            proc = await asyncio.to_thread(start_table, folder)  # the process imports the engine: seconds
            client = TableClient(folder / "table.sock", account, gm_token(folder, account), spec.rebuild)
            await client.connect()
        except (OSError, ValueError, KeyError, RuntimeError, ConnectionError, HorizonError) as exc:
            self._say(f"The table did not open: {exc}. The fight is in the campaign: b plays it at this "
                      "keyboard, or abandon it there.")
            return
        self.app.notify(f"Table {folder.name} is open: the seated players are told to press F2.", timeout=8)
        self.app.pop_screen()
        self.app.push_screen(gm_table_screen(client, spec, title=f"{folder.name} — GM", proc=proc))

    async def action_open_here(self) -> None:
        laid = self._lay()
        if laid is None:
            return
        folder, account = laid
        try:
            spec = load_table(folder, self.app.host.store.catalogue)
            table, _tokens, _catalogue = build(folder, hotseat=True)
        except (OSError, ValueError, KeyError, HorizonError) as exc:
            self._say(f"The table did not open: {exc}")
            return
        self.app.pop_screen()
        self.app.push_screen(gm_table_screen(LocalClient(table, account), spec, title=f"{folder.name} — at this keyboard"))

    def _say(self, text: str) -> None:
        self.query_one("#table-problems", Static).update(text)
        self.app.bell()


async def rejoin_table(app) -> bool:
    """The campaign's battle is at a live table: the GM sits down at it again (after leaving it,
    or from another window). False if there is no live table for it (then it plays on here)."""
    folder = table_of(app.campaign) if app.campaign else None
    if folder is None:
        return False
    try:
        spec = load_table(folder, app.host.store.catalogue)
        account = next(s.name for s in spec.seats if s.role == "gm")  # the seat its GM took
        client = TableClient(folder / "table.sock", account, gm_token(folder, account), spec.rebuild)
        await client.connect()
    except (OSError, ValueError, KeyError, StopIteration, ConnectionError, HorizonError) as exc:
        app.notify(f"The table {folder.name} did not answer: {exc}", severity="error", timeout=8)
        return False
    app.push_screen(gm_table_screen(client, spec, title=f"{folder.name} — GM"))
    return True


# The GM's hand at a table: `c` there is the table's talk, so c/p/g/I read "p/g/I who".
LEGEND = ("[ ] pick ␣ mark D dmg H heal\n+ - health T temp v revive\nA add W out R reveal i init\n"
          "{ } order d hold e ready\np/g/I who C party→AI o over\n")


def gm_table_screen(client, spec, *, title: str = "", proc=None) -> BattleScreen:
    """The GM at the table: the table's battlefield, with the campaign following it
    (`CampaignTable`), and the GM tool's hand on it sent to the table, so every view has it: the
    tracker in the side panel and its keys, the override menu (`o` on the combatant `[ ]`
    selects), as at a fight at this keyboard (`tracker.GMHand`)."""
    campaign = CampaignTable(client, spec, proc=proc)
    hand = GMHand(campaign.override, legend=LEGEND, joins=("catalogue",), gm_seat=campaign.at_gm_seat)
    return table_battle_screen(client, title=title, spec=spec, desk=CampaignDesk(campaign), on_end=campaign.ended,
                               parts=[hand, campaign], placer=hand.place)


class CampaignTable(BattlePart):
    """The campaign following a fight at a live table: its record follows the table's inputs,
    the talk goes into the session log, the end is the GM tool's (`gm_battle.battle_ended`), and
    the GM's overrides go to the table."""

    NAME = "gm_table"
    COMMANDS: ClassVar[frozenset[str]] = frozenset({"undo"})
    GM_TOOL = True

    def __init__(self, client, spec, *, proc=None) -> None:
        self.client = client
        self.spec = spec
        self.proc = proc  # the table's process (None at one keyboard); it ends a while after the battle
        self._recorded = client.replica.version

    def attach(self, screen: BattleScreen) -> None:
        super().attach(screen)
        table = screen.part(TableControls)
        assert table is not None, "a campaign table is a part of a table's screen"
        self.table = table
        table.changed.append(self._table_changed)

    def at_gm_seat(self) -> bool:
        return self.table.role == "gm"

    def offers(self, command: str) -> bool:
        return super().offers(command) and self.at_gm_seat()

    def action_undo(self) -> None:
        self.table.action_undo()

    def override(self, change, label: str | None, extra: dict | None) -> bool:
        """An override (the hand's route) goes to the table; it comes back as an update, like any input."""
        screen = self.screen
        if not self.at_gm_seat():
            return screen.refuse("only the GM's seat overrides")
        screen.prompt = f"{label or 'the GM’s change'}: sent to the table…"
        self.client.override(action_to_dict(change))
        screen.refresh_all()
        return True

    @property
    def battle_name(self) -> str:
        app = self.screen.app
        record = app.campaign.battle if app.campaign else None
        return str((record or {}).get("name", self.spec.encounter))

    def _table_changed(self, message: dict[str, Any]) -> None:
        if message.get("type") in ("update", "snapshot"):
            self._record()
        if message.get("type") == "talk" and self.at_gm_seat():
            self._record_talk(message)

    def _record_talk(self, line: dict[str, Any]) -> None:
        """The table's talk goes into the campaign's session log as the GM reads it (whispers and
        secret rolls too: the players' recap leaves those out, `campaign.export`)."""
        app = self.screen.app
        if app.campaign is None or app.host.gm is None or app.host.gm.read_only or line.get("to") not in ("all", "gm"):
            return  # an answer to one seat (/help) is no part of the evening
        app.host.act(lambda c: changes.log_talk(c, line), "talk at the table")

    def _record(self) -> None:
        """The campaign's record of the battle follows the table's inputs (undone ones too)."""
        app = self.screen.app
        replica = self.client.replica
        if self.screen.finished or app.campaign is None or app.campaign.battle is None \
                or replica.version == self._recorded and not replica.battle.over:
            return
        session = BattleInProgress(replica.battle, self.spec.encounter, list(self.spec.party), replica.inputs)
        if app.host.act(lambda c: battles.with_inputs(c, session, app.host.store.catalogue, app.host.gm.rules_for),
                        f"{self.battle_name}: at the table"):
            self._recorded = replica.version

    def ended(self, session: BattleInProgress) -> None:
        session = BattleInProgress(self.client.replica.battle, self.spec.encounter, list(self.spec.party),
                                   self.client.replica.inputs)
        battle_ended(self.screen.app, session, self.battle_name, on_award=self._tell_award, leave=False)

    def _tell_award(self, shares: dict[str, int]) -> None:
        given = ", ".join(f"{name} {xp:+d}" for name, xp in shares.items() if xp)
        self.client.say(f"XP awarded: {given}" if given else "No XP awarded.")


class CampaignDesk(RequestDesk):
    """Dialogue checks asked at the table are the campaign's (R-12): its NPCs, its day's limits, its dice."""

    def __init__(self, campaign: CampaignTable) -> None:
        self.campaign = campaign

    def dialog(self, request: dict[str, Any], names: dict[str, str]):
        if request.get("kind") == "dialogue":
            return DialogueRequestDialog(request, names, self.campaign.screen.app)
        return super().dialog(request, names)

    def roll_check(self, request: dict[str, Any], answer: Answer) -> str | None:
        app = self.campaign.screen.app
        npc, kind, modifier = answer.check
        combatant = self.campaign.screen.battle.by_id.get(str(request.get("combatant")))
        character = ident(combatant).name if combatant is not None else ""
        rolled: list[str] = []

        def change(c):
            plan = changes.plan_check(c, character, npc, kind, modifier, app.rules, catalogue=app.catalogue)
            c, roll = changes.roll_check(c, plan, str(request.get("text")), app.rules)
            rolled.append(c.log[-1].text)
            return c

        if not app.host.act(change, f"{character}: {kind} on {npc} (at the table)"):
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



