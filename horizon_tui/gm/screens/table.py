"""Open a fight at a live table (issue 17): seat player accounts at the party's characters.

The GM picks an encounter and, for each party member, the account that plays it (blank: the GM
plays it); spectators by account name. Opening writes the table's folder (`table.lobby`), starts
its process, and puts the GM at the table with the same battlefield as everyone, seeing all.
Each seated account's session gets a notice and "Join the table" (F2).
"""

from __future__ import annotations

import re
import time

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Select, Static

from horizon_tui.content.characters import character_to_dict
from horizon_tui.engine.battle import ident
from horizon_tui.table.lobby import ACCOUNT, SeatSpec, load_table, my_seat_place, start_table, write_spec
from horizon_tui.table.server import TableClient
from horizon_tui.tui.library import encounters_dir, list_encounters
from horizon_tui.tui.widgets.bars import KeyBar, TitleBar


def table_id_for(campaign_name: str, now: float | None = None) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", campaign_name.lower()).strip("-")[:24] or "table"
    return f"{slug}-{int(now if now is not None else time.time()) % 100000:05d}"


def seats_from(gm: str, accounts: dict[str, str], spectators: str) -> tuple[list[SeatSpec], list[str]]:
    """The seats for a table: (seats, problems). `accounts`: character name → account or ''."""
    problems, by_account = [], {}
    for character, account in accounts.items():
        account = account.strip()
        if not account:
            continue
        if not ACCOUNT.match(account):
            problems.append(f"{character}: {account!r} is not an account name (lower-case letters, digits, - and _)")
            continue
        if account == gm:
            problems.append(f"{character}: {account} is the GM's own account; leave it blank for the GM to play")
            continue
        by_account.setdefault(account, []).append(character)
    seats = [SeatSpec(gm, "gm")] + [SeatSpec(a, "player", tuple(cs)) for a, cs in by_account.items()]
    for name in filter(None, (s.strip() for s in spectators.split(","))):
        if not ACCOUNT.match(name):
            problems.append(f"spectators: {name!r} is not an account name")
        elif name == gm or name in by_account:
            problems.append(f"spectators: {name} already has a seat")
        else:
            seats.append(SeatSpec(name, "spectator"))
    return seats, problems


class OpenTableScreen(Screen):
    BINDINGS = [Binding("escape", "app.pop_screen", "Back", id="table.back"),
                Binding("ctrl+o", "open_table", "Open the table", id="table.open")]

    def compose(self) -> ComposeResult:
        campaign = self.app.campaign
        self.encounters = [e for e in list_encounters(encounters_dir(self.app.catalogue)) if e.problem is None]
        yield TitleBar()
        with VerticalScroll(id="table-form"):
            yield Label("Encounter")
            yield Select([(f"{e.name} ({e.size})", e.id) for e in self.encounters], allow_blank=False,
                         value=self.encounters[0].id if self.encounters else Select.BLANK, id="table-encounter")
            yield Static("Who plays whom (an account name; blank: you play them):", classes="hint")
            for member in campaign.party if campaign else ():
                with Vertical(classes="table-seat"):
                    yield Label(member.name)
                    yield Input(placeholder="account", id=f"seat-{_field_id(member.name)}", max_length=32)
            yield Label("Spectators (accounts, separated by commas)")
            yield Input(placeholder="e.g. sam, lee", id="table-spectators", max_length=300)
            yield Button("Open the table (ctrl+o)", id="table-open", variant="primary")
            yield Static("", id="table-problems", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Open a fight at the table"

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.run_worker(self.action_open_table())

    async def action_open_table(self) -> None:
        from horizon_tui.tui.table_screen import TableBattleScreen

        campaign = self.app.campaign
        if campaign is None or not campaign.party:
            self._say("The campaign has no party to seat.")
            return
        encounter = self.query_one("#table-encounter", Select).value
        if encounter is Select.BLANK:
            self._say("Pick an encounter.")
            return
        account, tables = my_seat_place()
        accounts = {m.name: self.query_one(f"#seat-{_field_id(m.name)}", Input).value for m in campaign.party}
        seats, problems = seats_from(account, accounts, self.query_one("#table-spectators", Input).value)
        if problems:
            self._say("\n".join(problems))
            return
        seated = {c for s in seats for c in s.characters}
        catalogue = self.app.catalogue
        party = [{"character": character_to_dict(m.character, catalogue),
                  "controller": "player" if m.name in seated else "gm"} for m in campaign.party]
        # Seats name combatants by their ids in the battle; a character's id is made from its name.
        spec_folder = write_spec(tables, table_id_for(campaign.name), encounter=str(encounter),
                                 seed=campaign.seed + campaign.draws, party=party, seats=seats)
        try:
            spec = load_table(spec_folder, catalogue)
            ids = {ident(e).name: uid for uid, e in spec.rebuild([]).by_id.items()}
            seats = [SeatSpec(s.name, s.role, tuple(ids.get(c, c) for c in s.characters)) for s in seats]
            spec_folder = write_spec(tables, spec_folder.name, encounter=str(encounter),
                                     seed=campaign.seed + campaign.draws, party=party, seats=seats)
            start_table(spec_folder)
            invite_token = _token(spec_folder, account)
            client = TableClient(spec_folder / "table.sock", account, invite_token, spec.rebuild)
            await client.connect()
        except Exception as exc:  # noqa: BLE001 - the table not starting is said here, not a crash
            self._say(f"The table did not open: {exc}")
            return
        self.app.notify(f"Table {spec_folder.name} is open: the seated players are told to press F2.",
                        timeout=8)
        self.app.pop_screen()
        self.app.push_screen(TableBattleScreen(client, title=f"{spec_folder.name} — GM"))

    def _say(self, text: str) -> None:
        self.query_one("#table-problems", Static).update(text)
        self.app.bell()


def _field_id(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)[:40] or "_"


def _token(folder, account: str) -> str:
    import json

    return json.loads((folder / "invites" / f"{account}.json").read_text(encoding="utf-8"))["token"]
