"""Start or resume the campaign's battle: pick an encounter and who fights (the fight itself is
`gm_battle.gm_battle_screen`). A battle in progress lives in the campaign and is rebuilt by replay."""

from __future__ import annotations

import attrs
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Input, Label, SelectionList, Static

from horizon_tui.engine.battle import BattleError
from horizon_tui.engine.persist import BattleInProgress
from horizon_tui.errors import DataError
from horizon_tui.campaign import battles
from horizon_tui.play.forms import parse_optional_int
from horizon_tui.play.library import EncounterEntry, encounters_dir, list_encounters
from horizon_tui.ui.gm.screens.builder import EncounterBuilderScreen, builder_folder
from horizon_tui.ui.widgets.lists import RowList
from horizon_tui.ui.widgets.onoff import CheckList
from horizon_tui.ui.widgets.bars import KeyBar, TitleBar
from horizon_tui.ui.gm.screens.placement import FIGHT_PICKER_ID, open_placement
from horizon_tui.ui.gm.screens.gm_battle import gm_battle_screen


def open_battle(app) -> None:
    """Resume the campaign's battle in progress, or pick an encounter for a new one."""
    record = app.campaign.battle
    if record is None:
        app.push_screen(GMEncounterPickerScreen())
        return
    try:
        session = battles.session_from_record(record, app.host.store.catalogue, app.host.gm.rules_for, app.enemies(),
                                              str(app.host.gm.path))
    except (DataError, BattleError) as exc:
        message = str(exc.problems[0]) if isinstance(exc, DataError) else str(exc)
        app.notify(f"{message}. Abandon it from the battle list (a) to start another.",
                   title="The battle in progress can't be rebuilt", severity="error", timeout=10)
        app.push_screen(GMEncounterPickerScreen())
        return

    app.push_screen(gm_battle_screen(session, str(record.get("name", session.encounter)),
                                   mapless=bool(record.get("mapless"))))


class GMEncounterPickerScreen(Screen):
    TITLE = "Start a battle"
    AUTO_FOCUS = "#gm-encounters"
    GM_SCREEN = True
    BINDINGS = [
        Binding("enter", "fight", "Fight", id="gmpick.fight", show=False),
        Binding("ctrl+s", "fight", "Fight", id="gmpick.fight2"),
        Binding("n", "build", "New encounter", id="gmpick.build",
                tooltip="Build one from the catalogue's enemies, see its XP and odds, save it"),
        Binding("m", "mapless", "No map", id="gmpick.mapless",
                tooltip="This encounter's enemies without a map: the tracker alone, distances ruled by the GM"),
        Binding("p", "place", "Place on a map", id="gmpick.place",
                tooltip="Build a battle by hand: a map, then the party and NPCs on their cells"),
        Binding("a", "abandon", "Abandon battle", id="gmpick.abandon",
                tooltip="Give up the battle in progress (logged as unfinished)"),
        Binding("escape", "app.pop_screen", "Back", id="gmpick.back"),
    ]

    def __init__(self) -> None:
        super().__init__(id=FIGHT_PICKER_ID)
        self.encounters: list[EncounterEntry] = []

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal():
            yield RowList(id="gm-encounters", cursor_type="row", zebra_stripes=True)
            with Vertical(id="gm-pick-side"):
                yield CheckList(id="gm-fighters")
                with Grid(classes="form"):
                    yield Label("Seed")
                    yield Input(id="gm-seed", compact=True, type="integer", placeholder="blank: the campaign's dice")
                yield Static(id="gm-encounter-detail", classes="panel")
        yield KeyBar()

    def on_mount(self) -> None:
        table = self.query_one("#gm-encounters", DataTable)
        table.border_title = "Encounters"
        table.border_subtitle = "enter fights"
        for label in ("Encounter", "Difficulty", "Size"):
            table.add_column(label)
        self._list()
        fighters = self.query_one("#gm-fighters", SelectionList)
        fighters.border_title = "Who fights (space toggles)"
        for member in self.app.campaign.party:
            fighters.add_option((member.name, member.name, True))
        self.query_one("#gm-encounter-detail").border_title = "Encounter"
        self._detail(0)

    def _list(self) -> None:
        """The shipped encounters, then the GM's own (built here, under the saves folder)."""
        table = self.query_one("#gm-encounters", DataTable)
        table.clear()
        self.encounters = list_encounters(encounters_dir(self.app.catalogue)) + list_encounters(builder_folder(self.app))
        for index, e in enumerate(self.encounters):
            table.add_row(Text(e.name, style="bold red" if e.problem else "bold"), e.difficulty or "—",
                          e.size or "—", key=str(index))

    def on_screen_resume(self) -> None:
        self._list()

    def action_build(self) -> None:
        self.app.push_screen(EncounterBuilderScreen())

    def _detail(self, index: int) -> None:
        detail = self.query_one("#gm-encounter-detail", Static)
        if not self.encounters:
            detail.update(Text("No encounters in the data folder.", style="dim"))
            return
        e = self.encounters[index]
        battle = self.app.campaign.battle
        text = Text()
        if battle:
            text.append(f"A battle is in progress: {battle.get('name')}. Finish it (b on the dashboard) or "
                        "abandon it (a).\n\n", style="bold red")
        text.append(e.name, style="bold")
        text.append(f"  {e.difficulty}  {e.size}\n", style="dim")
        text.append(" ".join(e.description.split()) or "(no description)")
        if e.problem:
            text.append(f"\n{e.problem}", style="red")
        detail.update(text)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value is not None:
            self._detail(int(event.row_key.value))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_fight()

    def action_mapless(self) -> None:
        self.action_fight(mapless=True)

    def action_fight(self, mapless: bool = False) -> None:
        app = self.app
        if not self.encounters:
            return
        entry = self.encounters[self.query_one("#gm-encounters", DataTable).cursor_row]
        members = list(self.query_one("#gm-fighters", SelectionList).selected)
        raw = self.query_one("#gm-seed", Input).value
        made: list[BattleInProgress] = []

        def change(campaign):
            seed = parse_optional_int(raw, "the seed", "seed")  # a ValueError is shown by app.host.act
            try:
                campaign, session = battles.start_battle(campaign, entry.path, members, app.host.store.catalogue,
                                                         app.host.gm.rules_for, app.enemies(), seed=seed, mapless=mapless)
            except BattleError as exc:
                raise ValueError(str(exc)) from None
            made.append(session)
            return campaign

        if app.host.act(change, f"battle: {entry.name}"):
            app.pop_screen()
            app.push_screen(gm_battle_screen(made[0], entry.name, mapless=mapless))

    def action_place(self) -> None:
        members = list(self.query_one("#gm-fighters", SelectionList).selected)
        try:
            seed = parse_optional_int(self.query_one("#gm-seed", Input).value, "the seed", "seed")
        except ValueError as exc:
            self.app.bell()
            self.app.notify(str(exc), title="Not done", severity="warning", timeout=6)
            return
        open_placement(self, members, seed)

    def action_abandon(self) -> None:
        app = self.app
        record = app.campaign.battle
        if record is None:
            app.notify("No battle in progress", timeout=3)
            return
        try:
            session = battles.session_from_record(record, app.host.store.catalogue, app.host.gm.rules_for, app.enemies())
        except (DataError, BattleError):
            session = None
        if session is None:
            app.host.act(lambda c: _drop_battle(c, record), "battle abandoned")
        else:
            app.host.act(lambda c: battles.finish_battle(c, session), "battle abandoned")
        self._detail(self.query_one("#gm-encounters", DataTable).cursor_row)


def _drop_battle(campaign, record):
    return attrs.evolve(campaign, battle=None).logged(
        "battle", f"Battle abandoned: {record.get('name')} (it no longer replays)", name=record.get("name"),
        winner=None, rounds=0)
